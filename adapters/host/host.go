// Package host runs an adapter's backend on one goroutine.
//
// The engine is a single-threaded state machine (architecture principle 1):
// an adapter that serves many connections must never call it from two
// goroutines. A Host owns the backend on one goroutine and runs, in the order
// it receives them, three kinds of work:
//
//   - jobs submitted with Do (a decoded request, a REPL command while a
//     listener runs, a test's direct check);
//   - the pump, every Options.PumpEvery (a follower fetch round, so that
//     acks=all completes under a real clock);
//   - parked waiters (an acks=all produce, a long-poll fetch, a join waiting
//     for its group): after every job and every pump the host asks each one
//     whether it is ready, and expires it at its deadline.
//
// Both protocol adapters (adapters/jsontcp and the Kafka wire listener) share
// it, so "one goroutine owns the cluster" is written once.
package host

import (
	"fmt"
	"sync"
	"time"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// ErrClosed is returned by Do once the host is closed.
var ErrClosed = kerr.State("server is closed")

// Options configures a Host. The zero value runs no pump and logs nothing.
type Options[B any] struct {
	// PumpEvery is how often Pump runs; zero or negative means never.
	PumpEvery time.Duration
	// Pump is the periodic work (replication under a real clock). A failure
	// is logged once until the pump succeeds again or fails differently.
	Pump func(B) error
	// Logf, when set, receives operator messages (pump failures).
	Logf func(format string, args ...any)
}

// Waiter is work parked until the backend is ready for it. Ready runs on the
// owning goroutine after every job and pump: it returns true once it has
// answered (it is then dropped). At Deadline (if not zero) Expire runs
// instead, also on the owning goroutine. When the host closes, parked
// waiters are dropped without a call: their callers see the host close.
type Waiter[B any] struct {
	Ready    func(B) bool
	Deadline time.Time
	Expire   func(B)
}

// Host owns a backend of type B on one goroutine.
type Host[B any] struct {
	backend B
	opts    Options[B]

	jobs chan func()
	quit chan struct{}
	done chan struct{}

	closeOnce sync.Once
	parked    []Waiter[B] // owned by the goroutine
}

// Start starts the owning goroutine. The caller must not touch b again until
// Close returns, except through Do.
func Start[B any](b B, opts Options[B]) *Host[B] {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	h := &Host[B]{
		backend: b,
		opts:    opts,
		jobs:    make(chan func()),
		quit:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	go h.own()
	return h
}

// Do runs fn on the owning goroutine, between other work, and returns its
// error. A panic in fn is returned as an INTERNAL error. Do returns ErrClosed,
// without running fn, once the host is closed.
func (h *Host[B]) Do(fn func(B) error) error {
	result := make(chan error, 1)
	job := func() { result <- h.protect(func() error { return fn(h.backend) }) }
	select {
	case h.jobs <- job:
	case <-h.quit:
		return ErrClosed
	}
	return <-result // an accepted job always completes
}

// Park adds a waiter. It must be called on the owning goroutine, that is
// from inside a Do function. A waiter that is ready at once answers before
// the next job.
func (h *Host[B]) Park(w Waiter[B]) { h.parked = append(h.parked, w) }

// Parked is the number of waiters; call it only on the owning goroutine.
func (h *Host[B]) Parked() int { return len(h.parked) }

// Close stops the owning goroutine and waits for it. Parked waiters are
// dropped unanswered. Close is idempotent; it does not close the backend.
func (h *Host[B]) Close() {
	h.closeOnce.Do(func() { close(h.quit) })
	<-h.done
}

// Closing is closed when Close begins; callers waiting for an answer select
// on it.
func (h *Host[B]) Closing() <-chan struct{} { return h.quit }

func (h *Host[B]) protect(fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = kerr.New(kerr.Internal, "panic on the owning goroutine: %v", p)
		}
	}()
	return fn()
}

func (h *Host[B]) own() {
	defer close(h.done)
	var pump <-chan time.Time
	if h.opts.PumpEvery > 0 && h.opts.Pump != nil {
		t := time.NewTicker(h.opts.PumpEvery)
		defer t.Stop()
		pump = t.C
	}
	expiry := time.NewTimer(time.Hour)
	expiry.Stop()
	defer expiry.Stop()
	lastPumpErr := ""
	for {
		select {
		case <-h.quit:
			h.parked = nil
			return
		case job := <-h.jobs:
			job()
		case <-pump:
			err := h.protect(func() error { return h.opts.Pump(h.backend) })
			switch {
			case err == nil:
				lastPumpErr = ""
			case err.Error() != lastPumpErr:
				lastPumpErr = err.Error()
				h.opts.Logf("pump: %v", err)
			}
		case <-expiry.C:
		}
		if len(h.parked) == 0 {
			continue
		}
		next := h.settle(time.Now())
		if next.IsZero() {
			expiry.Stop()
		} else {
			expiry.Reset(time.Until(next))
		}
	}
}

// settle answers every ready or expired waiter, keeps the others, and
// returns the earliest deadline left (zero if none).
func (h *Host[B]) settle(now time.Time) time.Time {
	var next time.Time
	// Waiters may park new waiters while they run: settle a snapshot.
	current := h.parked
	h.parked = nil
	kept := current[:0]
	for _, w := range current {
		if h.call(func() bool { return w.Ready(h.backend) }) {
			continue
		}
		if !w.Deadline.IsZero() && !now.Before(w.Deadline) {
			if w.Expire != nil {
				h.call(func() bool { w.Expire(h.backend); return true })
			}
			continue
		}
		if !w.Deadline.IsZero() && (next.IsZero() || w.Deadline.Before(next)) {
			next = w.Deadline
		}
		kept = append(kept, w)
	}
	clear(current[len(kept):])
	h.parked = append(kept, h.parked...)
	for _, w := range h.parked[len(kept):] {
		if !w.Deadline.IsZero() && (next.IsZero() || w.Deadline.Before(next)) {
			next = w.Deadline
		}
	}
	return next
}

// call runs a waiter's function; a panic counts as answered and is logged.
func (h *Host[B]) call(fn func() bool) (answered bool) {
	defer func() {
		if p := recover(); p != nil {
			h.opts.Logf("%v", fmt.Errorf("panic in a parked waiter: %v", p))
			answered = true
		}
	}()
	return fn()
}
