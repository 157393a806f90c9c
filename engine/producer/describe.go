package producer

import (
	"cmp"
	"slices"

	"github.com/minikafka-lab/minikafka/engine/replication"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// SequenceState is an idempotent producer's sequence for one partition.
type SequenceState struct {
	TP topic.Partition
	// Next is the base sequence of the next new batch once the batches in
	// flight succeed; Acknowledged is the sequence after the last
	// acknowledged batch.
	Next, Acknowledged int32
	InFlight           int // batches waiting for their acknowledgement
}

// FutureState describes one pending record future.
type FutureState struct {
	ID    int64
	TP    topic.Partition
	State replication.HandleState
}

// BufferState is one partition's pending records in the accumulator.
type BufferState struct {
	TP             topic.Partition
	Records        int
	Bytes          int64
	FirstEnqueueMs int64
}

// BatchState describes the last batch sent (what Retry resends); Records is
// 0 when nothing was sent yet.
type BatchState struct {
	TP           topic.Partition
	Records      int
	BaseSequence int32
}

// State describes a producer as plain values.
type State struct {
	Name       string
	Idempotent bool
	PID        int64
	Epoch      int32
	Acks       replication.AckMode
	BatchSize  int64
	LingerMs   int64
	BufferMax  int64
	Closed     bool
	Buffered   []BufferState
	Sequences  []SequenceState
	Pending    []FutureState
	LastBatch  BatchState
	// Recent lists the last batches sent, newest first (what RetryBack
	// resends: Recent[back-1]).
	Recent []BatchState
}

// Describe returns the producer's state now.
func (p *Producer) Describe() State {
	st := State{Name: p.opts.Name, Idempotent: p.opts.Idempotent, PID: p.identity.PID, Epoch: p.identity.Epoch,
		Acks: p.opts.Acks, BatchSize: p.opts.BatchSize, LingerMs: p.opts.LingerMs, BufferMax: p.opts.MaxBufferBytes,
		Closed: p.closed}
	for _, tp := range p.acc.Partitions() {
		q := p.acc.queues[tp]
		st.Buffered = append(st.Buffered, BufferState{TP: tp, Records: len(q.records), Bytes: q.bytes, FirstEnqueueMs: q.firstEnqueue})
	}
	if p.opts.Idempotent {
		var tps []topic.Partition
		for tp := range p.sent {
			tps = append(tps, tp)
		}
		topic.Sort(tps)
		for _, tp := range tps {
			st.Sequences = append(st.Sequences, SequenceState{TP: tp, Next: p.sequenceFor(tp),
				Acknowledged: p.nextSeq[tp], InFlight: len(p.inflight[tp])})
		}
	}
	for _, f := range p.PendingFutures() {
		st.Pending = append(st.Pending, FutureState{ID: f.ID(), TP: f.TP(), State: f.State()})
	}
	if p.last != nil {
		st.LastBatch = BatchState{TP: p.last.tp, Records: len(p.last.batch.Records), BaseSequence: p.last.batch.BaseSequence}
	}
	for i := len(p.recent) - 1; i >= 0; i-- {
		s := p.recent[i]
		st.Recent = append(st.Recent, BatchState{TP: s.tp, Records: len(s.batch.Records), BaseSequence: s.batch.BaseSequence})
	}
	return st
}

// PendingFutures returns the futures not settled yet, in send order (the
// order of their ids, which the cluster hands out in increasing order).
func (p *Producer) PendingFutures() []*Future {
	var out []*Future
	p.eachPending(func(f *Future) { out = append(out, f) })
	slices.SortFunc(out, func(a, b *Future) int { return cmp.Compare(a.ID(), b.ID()) })
	return out
}

// eachPending calls fn for every future not settled yet, in no particular
// order. A future is pending only while its record waits in the
// accumulator or its batch waits for its acknowledgement (awaiting):
// every other send settles its futures at once.
func (p *Producer) eachPending(fn func(*Future)) {
	for _, q := range p.acc.queues {
		for _, f := range q.futures {
			if !f.Settled() {
				fn(f)
			}
		}
	}
	for _, a := range p.awaiting {
		for _, f := range a.futs {
			if !f.Settled() {
				fn(f)
			}
		}
	}
}
