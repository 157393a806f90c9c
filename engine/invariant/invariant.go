package invariant

import (
	"bytes"
	"fmt"
	"math"
	"strings"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/record"
)

// The property names. They are stable: tests, the explorer and its reports
// refer to properties by these names.
const (
	HWWithinISR        = "hw-le-isr-leo"
	LeaderInISR        = "leader-in-isr"
	ISRNotDiverged     = "isr-not-diverged"
	NoReadAboveHW      = "no-read-above-hw"
	LogsAgree          = "logs-agree"
	ReadCommittedClean = "read-committed-clean"
	LSOWithinHW        = "lso-le-hw"
	CommittedWithinHW  = "committed-le-hw"
	AssignmentDisjoint = "assignment-disjoint"
	Observable         = "observable"
	HWMonotone         = "hw-monotone"
	EpochMonotone      = "epoch-monotone"
	AckedNotLost       = "acked-not-lost"
	CommittedNotLost   = "committed-not-lost"
	// The properties that Kafka's rules (rules=kafka) put to work: an ISR
	// member's log agrees with the leader's below its own HW (with
	// follower.hw=fetch a follower's HW is the one it learned), and a
	// clean election never loses a committed record (KIP-101).
	ISRAgreesBelowOwnHW         = "isr-agrees-below-own-hw"
	CleanElectionKeepsCommitted = "clean-election-keeps-committed"
)

// Properties lists every property name: the single-state ones (Check) in
// the order Check reports them, then the temporal ones (Monitor).
func Properties() []string {
	return []string{HWWithinISR, LeaderInISR, ISRNotDiverged, NoReadAboveHW, LogsAgree, ISRAgreesBelowOwnHW, ReadCommittedClean,
		LSOWithinHW, CommittedWithinHW, AssignmentDisjoint, Observable,
		HWMonotone, EpochMonotone, AckedNotLost, CommittedNotLost, CleanElectionKeepsCommitted}
}

// Violation is one property found broken: the property's name, where (a
// partition, a broker, a group, each when it applies) and a one-line
// explanation.
type Violation struct {
	Property string
	TP       engine.TopicPartition // zero (empty topic) when no partition is concerned
	Broker   int32                 // -1 when no broker is concerned
	Group    string                // "" when no group is concerned
	Detail   string
}

// String is the violation on one line: "logs-agree orders-0 broker 2:
// holds other bytes than leader 1 at offset 3 below HW 5".
func (v Violation) String() string {
	var b strings.Builder
	b.WriteString(v.Property)
	if v.TP.Topic != "" {
		b.WriteString(" " + v.TP.String())
	}
	if v.Broker >= 0 {
		fmt.Fprintf(&b, " broker %d", v.Broker)
	}
	if v.Group != "" {
		b.WriteString(" group " + v.Group)
	}
	return b.String() + ": " + v.Detail
}

// Observation is what Observe read from a running cluster, as plain values:
// the input of every property. Tests may build or alter one to check that a
// property fails.
type Observation struct {
	State             engine.LifecycleState
	MinInsyncReplicas int
	Brokers           []engine.BrokerState
	Partitions        []PartitionObservation // topic, partition order
	Groups            []engine.GroupDescription
	// Problems are the reads that failed (observable violations).
	Problems []Violation
}

// PartitionObservation is one partition's state, what its readers see, and
// every running replica's log.
type PartitionObservation struct {
	engine.PartitionState
	// Readable is what a read_uncommitted fetch from the log start returns;
	// ReadCommitted what a read_committed one returns. Both are empty while
	// the leader is down.
	Readable      []engine.StoredRecord
	ReadCommitted []engine.StoredRecord
	// Logs holds every running replica's batches, from its log start to its
	// LEO, by broker.
	Logs map[int32][]engine.LogBatch
}

// Observe reads everything the properties need from c through its
// description API. It changes nothing and emits no event. A cluster that is
// not running gives an observation with only its State; a read that fails
// is recorded in Problems.
func Observe(c *engine.Cluster) Observation {
	o := ObserveStates(c)
	o.ObserveReads(c)
	return o
}

// ObserveStates is the first part of Observe: the state, the brokers and
// each partition's PartitionState, without the logs, the fetches and the
// groups (ObserveReads adds them). A state explorer recognises a state it
// has seen from this part alone.
func ObserveStates(c *engine.Cluster) Observation {
	o := Observation{State: c.State(), MinInsyncReplicas: c.Config().MinInsyncReplicas}
	if o.State != engine.Running {
		return o
	}
	var err error
	if o.Brokers, err = c.Brokers(); err != nil {
		o.problem(engine.TopicPartition{}, -1, "", "brokers", err)
	}
	states, err := c.PartitionStates()
	if err != nil {
		o.problem(engine.TopicPartition{}, -1, "", "partition states", err)
	}
	for _, st := range states {
		o.Partitions = append(o.Partitions, PartitionObservation{PartitionState: st})
	}
	return o
}

// ObserveReads completes an observation ObserveStates made of c: every
// running replica's log, the two fetches from each online partition's log
// start, and the groups. Observe is the two in a row.
func (o *Observation) ObserveReads(c *engine.Cluster) {
	if o.State != engine.Running {
		return
	}
	for i := range o.Partitions {
		p := &o.Partitions[i]
		st := p.PartitionState
		p.Logs = map[int32][]engine.LogBatch{}
		for _, r := range st.Replicas {
			if !r.Up {
				continue
			}
			batches, err := c.LogBatches(st.TP, r.Broker, r.LogStart, -1, 0)
			if err != nil {
				o.problem(st.TP, r.Broker, "", "read the replica's log", err)
				continue
			}
			p.Logs[r.Broker] = batches
		}
		if st.Online {
			var err error
			if p.Readable, err = c.Fetch(st.TP, st.LogStart, math.MaxInt32, engine.ReadUncommitted); err != nil {
				o.problem(st.TP, -1, "", "read_uncommitted fetch from the log start", err)
			}
			if p.ReadCommitted, err = c.Fetch(st.TP, st.LogStart, math.MaxInt32, engine.ReadCommitted); err != nil {
				o.problem(st.TP, -1, "", "read_committed fetch from the log start", err)
			}
		}
	}
	groups, err := c.ListGroups()
	if err != nil {
		o.problem(engine.TopicPartition{}, -1, "", "list groups", err)
	}
	for _, g := range groups {
		d, err := c.DescribeGroup(g.GroupID)
		if err != nil {
			o.problem(engine.TopicPartition{}, -1, g.GroupID, "describe group", err)
			continue
		}
		o.Groups = append(o.Groups, d)
	}
}

// problem records a read that failed.
func (o *Observation) problem(tp engine.TopicPartition, broker int32, group, what string, err error) {
	o.Problems = append(o.Problems, Violation{Property: Observable, TP: tp, Broker: broker, Group: group,
		Detail: fmt.Sprintf("%s: %v", what, err)})
}

// Check observes c and checks every single-state property (the package
// comment lists them). A cluster that is not running has no violation.
func Check(c *engine.Cluster) []Violation { return Observe(c).Check() }

// Check checks every single-state property of the observation, partition by
// partition, then the groups, then what could not be read.
func (o Observation) Check() []Violation {
	if o.State != engine.Running {
		return nil
	}
	var out []Violation
	for i := range o.Partitions {
		out = append(out, o.Partitions[i].check()...)
	}
	out = append(out, o.checkCommitted(nil)...)
	out = append(out, o.checkAssignments()...)
	return append(out, o.Problems...)
}

// partition returns the observation of tp, or nil.
func (o Observation) partition(tp engine.TopicPartition) *PartitionObservation {
	for i := range o.Partitions {
		if o.Partitions[i].TP == tp {
			return &o.Partitions[i]
		}
	}
	return nil
}

func violation(property string, tp engine.TopicPartition, broker int32, format string, args ...any) Violation {
	return Violation{Property: property, TP: tp, Broker: broker, Detail: fmt.Sprintf(format, args...)}
}

// check checks the single-state properties of one partition.
func (p *PartitionObservation) check() []Violation {
	var out []Violation
	tp := p.TP
	leaderInISR := false
	for _, r := range p.Replicas {
		if !r.InISR {
			continue
		}
		if r.LEO < p.HW {
			out = append(out, violation(HWWithinISR, tp, r.Broker, "ISR member's LEO %d is below the HW %d", r.LEO, p.HW))
		}
		if r.Diverged {
			out = append(out, violation(ISRNotDiverged, tp, r.Broker, "a diverged replica (awaiting truncation) is in the ISR %v", p.ISR))
		}
		leaderInISR = leaderInISR || r.Broker == p.Leader
	}
	if !leaderInISR && !p.Leaderless {
		out = append(out, violation(LeaderInISR, tp, p.Leader, "the leader is not in the ISR %v", p.ISR))
	}
	if !p.Online {
		return out
	}
	for _, r := range p.Readable {
		if r.Offset >= p.HW {
			out = append(out, violation(NoReadAboveHW, tp, -1, "a read_uncommitted fetch returned offset %d at HW %d", r.Offset, p.HW))
			break
		}
	}
	out = append(out, p.checkLogsAgree()...)
	out = append(out, p.checkISRBelowOwnHW()...)
	out = append(out, p.checkReadCommitted(p.ReadCommitted)...)
	if p.LSO > p.HW {
		out = append(out, violation(LSOWithinHW, tp, -1, "the LSO %d is above the HW %d", p.LSO, p.HW))
	}
	return out
}

// checkLogsAgree compares every running follower's batches below the HW
// with the leader's, batch by batch where both hold a batch with the same
// base offset. A follower that has yet to cut a tail the leader does not
// share is left out: one marked diverged (decision 7), or one that will
// reconcile by leader epoch before it fetches (truncation=leader-epoch).
func (p *PartitionObservation) checkLogsAgree() []Violation {
	leader, ok := p.Logs[p.Leader]
	if !ok {
		return nil
	}
	frames := map[int64][]byte{}
	for _, b := range leader {
		if b.Meta.BaseOffset < p.HW {
			frames[b.Meta.BaseOffset] = b.Frame
		}
	}
	var out []Violation
	for _, r := range p.Replicas {
		if !r.Up || r.Diverged || r.Reconciling || r.Broker == p.Leader {
			continue
		}
		for _, b := range p.Logs[r.Broker] {
			if b.Meta.BaseOffset >= p.HW {
				break
			}
			if lf, ok := frames[b.Meta.BaseOffset]; ok && !bytes.Equal(lf, b.Frame) {
				out = append(out, violation(LogsAgree, p.TP, r.Broker, "holds other bytes than leader %d for the batch at offset %d, below the HW %d",
					p.Leader, b.Meta.BaseOffset, p.HW))
				break
			}
		}
	}
	return out
}

// checkISRBelowOwnHW checks isr-agrees-below-own-hw: every running ISR
// member that has reconciled holds, below its own HW (the HW it learned
// from its fetches under follower.hw=fetch; the leader's under MiniKafka's
// rule), exactly the leader's batches: a follower that counts a record as
// committed must find it in the leader's log. Kafka before KIP-101 broke
// it: a follower that truncated to a lagging HW and became leader.
func (p *PartitionObservation) checkISRBelowOwnHW() []Violation {
	leader, ok := p.Logs[p.Leader]
	if !ok {
		return nil
	}
	// Retention and compaction remove batches from one replica's log and
	// not another's: a batch below the leader's log start, or in a gap of
	// the leader's log below its LEO, is not a disagreement.
	var leaderStart, leaderLEO int64
	for _, r := range p.Replicas {
		if r.Broker == p.Leader {
			leaderStart, leaderLEO = r.LogStart, r.LEO
		}
	}
	var out []Violation
	for _, r := range p.Replicas {
		if !r.Up || !r.InISR || r.Diverged || r.Reconciling || r.Broker == p.Leader {
			continue
		}
		for _, b := range p.Logs[r.Broker] {
			if b.Meta.BaseOffset >= r.HW {
				break
			}
			if b.Meta.BaseOffset < leaderStart {
				continue
			}
			i := batchHolding(leader, b.Meta.BaseOffset)
			if i < 0 && b.Meta.BaseOffset < leaderLEO {
				continue
			}
			if i < 0 || leader[i].Meta.BaseOffset != b.Meta.BaseOffset || !bytes.Equal(leader[i].Frame, b.Frame) {
				out = append(out, violation(ISRAgreesBelowOwnHW, p.TP, r.Broker, "holds the batch at offset %d below its own HW %d, which leader %d does not hold",
					b.Meta.BaseOffset, r.HW, p.Leader))
				break
			}
		}
	}
	return out
}

// checkReadCommitted checks records a read_committed read returned against
// the leader's log: each must be below the LSO, and a transactional one's
// batch must be followed below the HW by a COMMIT marker as the first
// marker of its transactional id.
func (p *PartitionObservation) checkReadCommitted(recs []engine.StoredRecord) []Violation {
	leader, ok := p.Logs[p.Leader]
	if !ok || len(recs) == 0 {
		return nil
	}
	for _, r := range recs {
		if r.Offset >= p.LSO {
			return []Violation{violation(ReadCommittedClean, p.TP, -1, "a read_committed read returned offset %d at LSO %d", r.Offset, p.LSO)}
		}
		i := batchHolding(leader, r.Offset)
		if i < 0 {
			return []Violation{violation(ReadCommittedClean, p.TP, -1, "a read_committed read returned offset %d, which the leader's log does not hold", r.Offset)}
		}
		b := leader[i].Meta
		if !b.Transactional {
			continue
		}
		outcome := "no marker below the HW: the transaction is open"
		for _, m := range leader[i+1:] {
			if m.Meta.BaseOffset >= p.HW {
				break
			}
			if m.Meta.IsControl() && m.Meta.TransactionalID == b.TransactionalID {
				if m.Meta.Control == record.Commit {
					outcome = ""
				} else {
					outcome = fmt.Sprintf("its transaction was aborted (ABORT marker at offset %d)", m.Meta.BaseOffset)
				}
				break
			}
		}
		if outcome != "" {
			return []Violation{violation(ReadCommittedClean, p.TP, -1, "a read_committed read returned offset %d of transaction %s: %s",
				r.Offset, b.TransactionalID, outcome)}
		}
	}
	return nil
}

// batchHolding returns the index of the batch holding offset, or -1.
func batchHolding(batches []engine.LogBatch, offset int64) int {
	lo, hi := 0, len(batches)
	for lo < hi {
		m := (lo + hi) / 2
		if batches[m].Meta.NextOffset() <= offset {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(batches) && batches[lo].Meta.BaseOffset <= offset {
		return lo
	}
	return -1
}

// checkCommitted checks committed offsets against their partitions' HWs;
// excused maps a partition to the offset up to which a Monitor excuses
// committed offsets after a HW drop (nil: none).
func (o Observation) checkCommitted(excused map[engine.TopicPartition]int64) []Violation {
	var out []Violation
	for _, g := range o.Groups {
		for _, row := range g.Partitions {
			p := o.partition(row.TP)
			if row.CurrentOffset < 0 || p == nil || row.CurrentOffset <= p.HW {
				continue
			}
			if e, ok := excused[row.TP]; ok && row.CurrentOffset <= e {
				continue
			}
			out = append(out, Violation{Property: CommittedWithinHW, TP: row.TP, Broker: -1, Group: g.GroupID,
				Detail: fmt.Sprintf("committed offset %d is above the HW %d", row.CurrentOffset, p.HW)})
		}
	}
	return out
}

// checkAssignments checks that no group assigns a partition twice.
func (o Observation) checkAssignments() []Violation {
	var out []Violation
	for _, g := range o.Groups {
		owner := map[engine.TopicPartition]string{}
		for _, m := range g.Members {
			for _, tp := range m.Assignment {
				if prev, dup := owner[tp]; dup {
					out = append(out, Violation{Property: AssignmentDisjoint, TP: tp, Broker: -1, Group: g.GroupID,
						Detail: fmt.Sprintf("generation %d assigns it to both %s and %s", g.Generation, prev, m.MemberID)})
					continue
				}
				owner[tp] = m.MemberID
			}
		}
	}
	return out
}

// CheckReadCommitted checks records that a read_committed read (a
// consumer's poll, a fetch) returned just now, before c changed, against
// the leaders' logs: the read-committed-clean property for reads Observe
// does not make itself.
func CheckReadCommitted(c *engine.Cluster, recs []engine.StoredRecord) []Violation {
	if len(recs) == 0 {
		return nil
	}
	o := Observe(c)
	var out []Violation
	byTP := map[engine.TopicPartition][]engine.StoredRecord{}
	var order []engine.TopicPartition
	for _, r := range recs {
		tp := engine.TopicPartition{Topic: r.Topic, Partition: r.Partition}
		if _, ok := byTP[tp]; !ok {
			order = append(order, tp)
		}
		byTP[tp] = append(byTP[tp], r)
	}
	for _, tp := range order {
		p := o.partition(tp)
		if p == nil {
			out = append(out, violation(ReadCommittedClean, tp, -1, "a read_committed read returned records of a partition the cluster does not describe"))
			continue
		}
		out = append(out, p.checkReadCommitted(byTP[tp])...)
	}
	return append(out, o.Problems...)
}

// Promised reports whether the engine promises to keep a write
// acknowledged with acks while min.insync.replicas was minISR: acks=all
// with min.insync.replicas >= 2 (acked-not-lost).
func Promised(acks engine.AckMode, minISR int) bool {
	return acks == engine.AcksAll && minISR >= 2
}
