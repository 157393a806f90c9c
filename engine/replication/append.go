package replication

import (
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/storage"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// ProduceResult is where an appended batch went.
type ProduceResult struct {
	TP topic.Partition
	// BaseOffset is the batch's first offset; meaningful only when
	// OffsetsKnown (acks=0 reports no offsets).
	BaseOffset int64
	// NextOffset is the offset after the batch.
	NextOffset   int64
	OffsetsKnown bool
	// LeaderEpoch is the epoch stamped on the batch.
	LeaderEpoch int32
	// Duplicate is set when the batch was an exact retry of the producer's
	// last batch: nothing was appended and these are the original offsets.
	Duplicate bool
}

// Ack is the pending acknowledgement of one append: a promise of its
// ProduceResult. acks 0 and 1 return an Ack that is already done; acks=all
// returns one that a later step settles.
type Ack struct {
	Promise[ProduceResult]
	TP   topic.Partition
	Mode AckMode
	// Source says who appended ("produce", "producer p1", ...) for the trace.
	Source string
	// Target is the offset every captured replica must reach (the batch's
	// next offset); Captured is the ISR snapshot taken at append time.
	Target   int64
	Captured []int32
	// DeadlineMs is when it fails with REQUEST_TIMED_OUT under
	// hw.under.min.isr=hold (0: never).
	DeadlineMs int64
}

type waiter struct {
	ack *Ack
	// hwOnly waiters (duplicates, decision 5, and AwaitBatch) complete
	// once HW >= target.
	hwOnly bool
	// deadlineMs is when the waiter fails with REQUEST_TIMED_OUT under
	// hw.under.min.isr=hold (now + request.timeout.ms at registration); 0
	// means never.
	deadlineMs int64
}

// PendingAcks returns the acks still waiting, in registration order.
func (rs *ReplicaSet) PendingAcks() []*Ack {
	out := make([]*Ack, len(rs.waiters))
	for i, w := range rs.waiters {
		out[i] = w.ack
	}
	return out
}

func (rs *ReplicaSet) newAck(mode AckMode, source string) *Ack {
	return &Ack{Promise: *NewPromise[ProduceResult](rs.env.IDs.Next()), TP: rs.tp, Mode: mode, Source: source}
}

// Append appends an unassigned batch to the leader's log (§9.4):
//
//  1. the ack mode must be valid and the batch a valid, unassigned batch;
//  2. the leader must be up (LEADER_NOT_AVAILABLE);
//  3. a batch carrying a leader epoch (LeaderEpoch >= 0) must carry the
//     current one (FENCED_LEADER_EPOCH);
//  4. producer state validates sequenced batches (PRODUCER_FENCED,
//     OUT_OF_ORDER_SEQUENCE);
//  5. acks=all with an ISR smaller than min.insync.replicas is
//     NOT_ENOUGH_REPLICAS, and nothing is appended; an exact duplicate of the
//     producer's last batch is answered with the stored offsets and appends
//     nothing; with acks=all it is acknowledged only once the HW covers it
//     and never while the ISR is below min.insync.replicas (decision 5, as
//     Kafka checks min.insync.replicas before it looks for duplicates);
//  6. the leader log assigns the base offset and the leader epoch, producer
//     state records the batch and the HW advances;
//  7. acks 0 and 1 return a done Ack; acks=all registers a waiter with the ISR
//     captured now and resolves waiters at once (a one-member ISR completes
//     immediately).
//
// Any error means nothing was appended.
func (rs *ReplicaSet) Append(b *record.Batch, acks AckMode, source string) (*Ack, error) {
	if err := acks.Check(); err != nil {
		return nil, err
	}
	if b == nil {
		return nil, kerr.Argument("batch is required")
	}
	if b.Assigned() {
		return nil, kerr.New(kerr.InvalidRecord, "batch is already assigned")
	}
	if err := b.Validate(); err != nil {
		return nil, err
	}
	if err := rs.checkOnline(); err != nil {
		return nil, err
	}
	if b.LeaderEpoch >= 0 && b.LeaderEpoch != rs.epoch {
		return nil, kerr.New(kerr.FencedLeaderEpoch, "leader epoch %d does not match %d", b.LeaderEpoch, rs.epoch)
	}
	dup, err := rs.producers.Validate(b)
	if err != nil {
		return nil, err
	}
	if acks == AcksAll {
		if err := rs.checkMinISR(kerr.NotEnoughReplicas); err != nil {
			return nil, err
		}
	}
	if dup != nil {
		return rs.acknowledgeDuplicate(rs.newAck(acks, source), dup), nil
	}
	unassigned := *b
	unassigned.LeaderEpoch = record.NoLeaderEpoch
	leader := rs.replicas[rs.leader]
	assigned, info, err := leader.log.Append(&unassigned)
	if err != nil {
		// A refused append (a batch over the log's payload bound, a storage
		// failure) takes no ack id either.
		return nil, rs.diskFailure(rs.leader, err)
	}
	ack := rs.newAck(acks, source)
	rs.producers.Record(metaOf(assigned, info.Size))
	res := ProduceResult{TP: rs.tp, BaseOffset: info.BaseOffset, NextOffset: info.NextOffset,
		OffsetsKnown: acks != Acks0, LeaderEpoch: assigned.LeaderEpoch}
	if acks != AcksAll {
		rs.advanceHighWatermark()
		if !res.OffsetsKnown {
			res.BaseOffset = -1
		}
		ack.Resolve(res)
		return ack, nil
	}
	ack.value = res // kept until resolution
	ack.Target, ack.Captured = info.NextOffset, rs.ISR()
	ack.DeadlineMs = rs.deadline()
	rs.waiters = append(rs.waiters, &waiter{ack: ack, deadlineMs: ack.DeadlineMs})
	rs.advanceHighWatermark()
	return ack, nil
}

// deadline is when a waiter registered now times out: under Kafka's HW rule
// a produce request waits at most request.timeout.ms (the DelayedProduce
// timeout); under MiniKafka's it never times out.
func (rs *ReplicaSet) deadline() int64 {
	r := rs.rules()
	if r.HighWatermark != HoldUnderMinISR || r.RequestTimeoutMs <= 0 {
		return 0
	}
	return rs.env.Clock.NowMs() + r.RequestTimeoutMs
}

// acknowledgeDuplicate answers an exact retry with the stored offsets.
func (rs *ReplicaSet) acknowledgeDuplicate(ack *Ack, dup *ProducerEntry) *Ack {
	res := ProduceResult{TP: rs.tp, BaseOffset: dup.BaseOffset, NextOffset: dup.NextOffset,
		OffsetsKnown: ack.Mode != Acks0, Duplicate: true, LeaderEpoch: rs.epoch}
	if ack.Mode == Acks0 {
		res.BaseOffset = -1
	}
	if ack.Mode != AcksAll || rs.hw >= dup.NextOffset {
		ack.Resolve(res)
		return ack
	}
	ack.value = res
	ack.Target = dup.NextOffset
	ack.DeadlineMs = rs.deadline()
	rs.waiters = append(rs.waiters, &waiter{ack: ack, hwOnly: true, deadlineMs: ack.DeadlineMs})
	rs.resolveWaiters()
	return ack
}

// AwaitBatch returns an acks=all acknowledgement of the batch that starts
// at base in the leader's log, which is there already: nothing is appended.
// Like an exact duplicate's (decision 5), it is refused with
// NOT_ENOUGH_REPLICAS while the ISR is below min.insync.replicas, and it
// completes once the HW covers the batch (at once if it does). The
// transaction coordinator waits this way for a marker it finds in the log
// above the HW, instead of writing it twice (decision 37). An offset where
// no batch of the leader's log starts is an argument error.
func (rs *ReplicaSet) AwaitBatch(base int64, source string) (*Ack, error) {
	if err := rs.checkOnline(); err != nil {
		return nil, err
	}
	leader := rs.replicas[rs.leader].log
	var batches []storage.RawBatch
	if base >= leader.LogStartOffset() && base < leader.LEO() {
		var err error
		if batches, err = leader.ReadBatches(base, 1, -1); err != nil {
			return nil, err
		}
	}
	if len(batches) == 0 || batches[0].Meta.BaseOffset != base {
		return nil, kerr.Argument("no batch of the leader's log of %s starts at offset %d", rs.tp, base)
	}
	if err := rs.checkMinISR(kerr.NotEnoughReplicas); err != nil {
		return nil, err
	}
	m := batches[0].Meta
	ack := rs.newAck(AcksAll, source)
	res := ProduceResult{TP: rs.tp, BaseOffset: base, NextOffset: m.NextOffset(), OffsetsKnown: true, LeaderEpoch: m.LeaderEpoch}
	if rs.hw >= res.NextOffset {
		ack.Resolve(res)
		return ack, nil
	}
	ack.value = res
	ack.Target = res.NextOffset
	rs.waiters = append(rs.waiters, &waiter{ack: ack, hwOnly: true})
	return ack, nil
}

// CheckWritable returns the error Append would refuse any batch with now,
// before looking at the batch: LEADER_NOT_AVAILABLE while the leader is
// down, and for acks=all NOT_ENOUGH_REPLICAS while the ISR is below
// min.insync.replicas. It changes nothing.
func (rs *ReplicaSet) CheckWritable(acks AckMode) error {
	if err := rs.checkOnline(); err != nil {
		return err
	}
	if acks == AcksAll {
		return rs.checkMinISR(kerr.NotEnoughReplicas)
	}
	return nil
}

func (rs *ReplicaSet) checkMinISR(code kerr.Code) error {
	min := rs.effectiveMinISR()
	if len(rs.isr) >= min {
		return nil
	}
	isr := rs.ISR()
	name := "min.insync.replicas"
	if min != rs.env.Settings.MinInsyncReplicas {
		name = "min(min.insync.replicas, replication factor)"
	}
	if code == kerr.NotEnoughReplicasAfterAppend {
		return kerr.New(code, "ISR fell below %s after append: ISR %s has %d, %s=%d", name, FormatBrokers(isr), len(isr), name, min)
	}
	return kerr.New(code, "ISR %s has %d, below %s=%d", FormatBrokers(isr), len(isr), name, min)
}

// resolveWaiters settles pending acks=all waiters, in order, by the HW rule
// (hw.under.min.isr=).
//
// MiniKafka's (§9.4): a waiter fails with NOT_ENOUGH_REPLICAS_AFTER_APPEND
// when the ISR is below min.insync.replicas (checked first); it completes
// when every replica of its captured ISR has reached its target and the HW
// covers the target. The HW condition is MiniKafka-Go's addition to the
// reference's rule: a broker that joins the ISR while the append waits
// lowers nothing, but without it an acknowledged record could sit above the
// HW and be truncated by the promotion of that new member. Duplicate waiters
// (decision 5) need only the HW.
//
// Kafka's (Partition.checkEnoughReplicasReachOffset): a waiter completes
// once the HW covers its target, with NOT_ENOUGH_REPLICAS_AFTER_APPEND if
// the ISR is below min.insync.replicas by then; until then it waits, and
// ExpireWaiters fails it with REQUEST_TIMED_OUT at its deadline.
func (rs *ReplicaSet) resolveWaiters() {
	if len(rs.waiters) == 0 {
		return
	}
	type settle struct {
		ack *Ack
		err error
	}
	var done []settle
	keep := rs.waiters[:0]
	minErr := rs.checkMinISR(kerr.NotEnoughReplicasAfterAppend)
	hold := rs.rules().HighWatermark == HoldUnderMinISR
	for _, w := range rs.waiters {
		switch {
		case hold && rs.hw >= w.ack.Target:
			done = append(done, settle{w.ack, minErr})
		case hold:
			keep = append(keep, w)
		case minErr != nil:
			done = append(done, settle{w.ack, minErr})
		case rs.reached(w):
			done = append(done, settle{w.ack, nil})
		default:
			keep = append(keep, w)
		}
	}
	rs.waiters = keep
	for _, s := range done {
		if s.err != nil {
			rs.failAck(s.ack, s.err)
		} else {
			rs.resolveAck(s.ack)
		}
	}
}

// ExpireWaiters fails, in order, every pending waiter whose deadline has
// come (hw.under.min.isr=hold: request.timeout.ms after its append) with
// REQUEST_TIMED_OUT. The batch stays in the leader's log, unacknowledged.
func (rs *ReplicaSet) ExpireWaiters() {
	now := rs.env.Clock.NowMs()
	var expired []*waiter
	keep := rs.waiters[:0]
	for _, w := range rs.waiters {
		if w.deadlineMs > 0 && now >= w.deadlineMs {
			expired = append(expired, w)
		} else {
			keep = append(keep, w)
		}
	}
	rs.waiters = keep
	for _, w := range expired {
		isr := rs.ISR()
		rs.failAck(w.ack, kerr.New(kerr.RequestTimedOut,
			"not acknowledged within request.timeout.ms=%d: HW %d < %d (ISR %s, min(min.insync.replicas, replication factor)=%d); the batch stays in the leader's log",
			rs.rules().RequestTimeoutMs, rs.hw, w.ack.Target, FormatBrokers(isr), rs.effectiveMinISR()))
	}
}

func (rs *ReplicaSet) reached(w *waiter) bool {
	if rs.hw < w.ack.Target {
		return false
	}
	if w.hwOnly {
		return true
	}
	for _, b := range w.ack.Captured {
		if rs.replicas[b].LEO() < w.ack.Target {
			return false
		}
	}
	return true
}

func (rs *ReplicaSet) resolveAck(a *Ack) {
	rs.env.Events.Emit(AckResolved{ID: a.ID(), TP: a.TP, Source: a.Source, Result: a.value})
	a.Resolve(a.value)
}

func (rs *ReplicaSet) failAck(a *Ack, err error) {
	e, _ := kerr.As(err)
	ev := AckFailed{ID: a.ID(), TP: a.TP, Source: a.Source, Message: err.Error()}
	if e != nil {
		ev.Code, ev.Message = e.Code, e.Message
	}
	rs.env.Events.Emit(ev)
	a.Fail(err)
}

// FailPending fails every pending waiter with err (a leader change, a leader
// crash, a cluster close), in registration order.
func (rs *ReplicaSet) FailPending(err error) {
	ws := rs.waiters
	rs.waiters = nil
	for _, w := range ws {
		rs.failAck(w.ack, err)
	}
}

// CancelPending cancels every pending waiter (a whole-cluster crash: the
// outcome is unknown, neither done nor failed).
func (rs *ReplicaSet) CancelPending() {
	ws := rs.waiters
	rs.waiters = nil
	for _, w := range ws {
		rs.env.Events.Emit(AckCancelled{ID: w.ack.ID(), TP: w.ack.TP, Source: w.ack.Source})
		w.ack.Cancel()
	}
}
