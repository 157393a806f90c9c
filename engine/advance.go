package engine

import (
	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// dueStep is one kind of time-driven work that Advance runs.
type dueStep struct {
	name string
	run  func()
}

// dueSteps is the fixed order of the work Advance runs after moving the
// clock.
func (c *Cluster) dueSteps() []dueStep {
	return []dueStep{
		{"producer linger flushes", c.runLingerFlushes},
		{"controller: broker fencing and elections", c.runController},
		{"ISR refresh", c.refreshAllISR},
		{"request timeouts", c.expireRequests},
		{"consumer session expiry", c.expireGroupMembers},
	}
}

// Advance moves the manual clock forward by ms milliseconds, then runs what
// is due, in this order:
//
//  1. every open producer's due linger flushes (producers in creation order,
//     partitions in topic-partition order);
//  2. under controller=kraft, the controller: a crashed broker silent for
//     longer than broker.session.timeout.ms is fenced, leaves every ISR, and
//     the partitions it led elect new leaders (runController);
//  3. the ISR refresh of every partition in topic-partition order (a follower
//     that has not fetched for longer than replica.lag.time.max.ms leaves
//     the ISR; the HW advances and acks=all waiters resolve);
//  4. under hw.under.min.isr=hold, acks=all waiters pending for
//     request.timeout.ms fail with REQUEST_TIMED_OUT;
//  5. consumer-group session expiry: members without a heartbeat for longer
//     than session.timeout.ms leave their groups, which rebalance (groups in
//     id order, one rebalance per group).
//
// Effects go to the event queue. A negative ms is an argument error; a
// cluster whose clock is not manual cannot be advanced (state error).
func (c *Cluster) Advance(ms int64) error {
	defer c.drainDiskFailures()
	if err := c.guard(); err != nil {
		return err
	}
	m, ok := c.clock.(interface{ Advance(int64) error })
	if !ok {
		return kerr.State("the cluster clock is not a manual clock")
	}
	if err := m.Advance(ms); err != nil {
		return err
	}
	c.RunDue()
	return nil
}

// RunDue runs the due work of Advance without moving the clock.
func (c *Cluster) RunDue() {
	defer c.drainDiskFailures()
	if c.guard() != nil {
		return
	}
	for _, s := range c.dueSteps() {
		s.run()
	}
}

func (c *Cluster) runLingerFlushes() {
	for _, p := range c.producers {
		if !p.Closed() {
			p.RunDueFlushes()
		}
	}
}

func (c *Cluster) refreshAllISR() {
	for _, tp := range c.sortedTPs() {
		c.sets[tp].RefreshISR()
	}
	c.retryOrphanMarkers()
}

func (c *Cluster) expireRequests() {
	for _, tp := range c.sortedTPs() {
		c.sets[tp].ExpireWaiters()
	}
}

// DueOrder names, in order, the work Advance runs after moving the clock.
func (c *Cluster) DueOrder() []string {
	var out []string
	for _, s := range c.dueSteps() {
		out = append(out, s.name)
	}
	return out
}
