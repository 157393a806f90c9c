package producer

import (
	"fmt"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/replication"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// RecordMetadata is where one sent record went.
type RecordMetadata struct {
	Topic     string
	Partition int32
	// Offset and BaseOffset (of its batch) are meaningful only when
	// OffsetKnown; acks=0 reports no offsets.
	Offset, BaseOffset int64
	OffsetKnown        bool
	TimestampMs        int64
}

// Future is the pending result of one send: a deterministic promise that the
// batch's flush and acknowledgement settle. Every future of a failed batch
// fails with the same error; a crash cancels them.
//
// A future is small (24 bytes: its record's timestamp, its state and its
// place in the batch): its id, where its batch went and how it settled
// are kept by the futures of the batch together (futureBatch), so a
// producer sending many records allocates little per record.
type Future struct {
	b     *futureBatch
	ts    int64 // the record's timestamp
	index int32 // the record's place in its batch (its offset delta)
	state replication.HandleState
}

// futureBatch is what the futures of one batch share: the partition, the
// producer, their ids and, once the batch settled, the acknowledgement's
// base offset or the error. It does not hold the batch: a settled batch's
// records may be reused for a later batch (Producer.recycle).
type futureBatch struct {
	tp       topic.Partition
	producer string
	// ids are the futures' ids by index, appended as records are queued
	// and never changed once the batch is flushed: the batch's
	// FuturesSettled event shares them.
	ids          []int64
	baseOffset   int64
	offsetsKnown bool
	err          error
}

// ID is the future's handle number (from 1, per cluster, shared with acks).
func (f *Future) ID() int64 { return f.b.ids[f.index] }

// State reports pending, done, failed or cancelled.
func (f *Future) State() replication.HandleState { return f.state }

// Settled reports whether the future left Pending.
func (f *Future) Settled() bool { return f.state != replication.Pending }

// TP is the partition the record was sent to.
func (f *Future) TP() topic.Partition { return f.b.tp }

// Producer is the name of the producer that sent the record.
func (f *Future) Producer() string { return f.b.producer }

// Value is where the record went; it is meaningful only when State is Done
// (the zero value otherwise).
func (f *Future) Value() RecordMetadata {
	if f.state != replication.Done {
		return RecordMetadata{}
	}
	b := f.b
	md := RecordMetadata{Topic: b.tp.Topic, Partition: b.tp.Partition, Offset: -1, BaseOffset: -1,
		OffsetKnown: b.offsetsKnown, TimestampMs: f.ts}
	if b.offsetsKnown {
		// A producer's batch has deltas 0..n-1 (record.NewBatch).
		md.BaseOffset = b.baseOffset
		md.Offset = b.baseOffset + int64(f.index)
	}
	return md
}

// Err is the failure when State is Failed, nil otherwise.
func (f *Future) Err() error {
	if f.state != replication.Failed {
		return nil
	}
	return f.b.err
}

// settle moves a pending future to st; it reports whether it was pending.
func (f *Future) settle(st replication.HandleState) bool {
	if f.state != replication.Pending {
		return false
	}
	f.state = st
	return true
}

// Cancel settles a pending future without a result or an error (a crash:
// the outcome is unknown).
func (f *Future) Cancel() bool { return f.settle(replication.Cancelled) }

// futureSlab hands out futures from blocks, so that sending a record does
// not allocate one object of its own. It moves on through a block by
// index: the block's pointer is written once per block, not per future
// (a pointer write costs a write barrier while the collector marks).
type futureSlab struct {
	block []Future
	used  int
}

// next returns a fresh future, numbered id, for the next record of b
// (its index is the number of futures b had), stamped ts.
func (s *futureSlab) next(id int64, b *futureBatch, ts int64) *Future {
	if s.used == len(s.block) {
		s.block, s.used = make([]Future, futureSlabSize), 0
	}
	f := &s.block[s.used]
	s.used++
	// The block is fresh (zero): a future starts Pending.
	f.b, f.ts, f.index = b, ts, int32(len(b.ids))
	b.ids = append(b.ids, id)
	return f
}

// futureSlabSize is how many futures a slab block holds: 341 of 24 bytes
// and the 8-byte header the allocator puts before a block that holds
// pointers fill its 8 KiB size class exactly (TestFutureSlabFillsItsSizeClass).
const futureSlabSize = 341

// BatchFlushed: a producer turned a partition's pending records into one batch
// and appended it.
type BatchFlushed struct {
	Producer     string
	TP           topic.Partition
	Records      int
	BaseSequence int32 // -1 for a non-idempotent producer
	Reason       string
	AckID        int64 // 0 when the append failed at once
	Retry        bool
	// back is how many batches back a retry reached (RetryBack; 0 or 1
	// for the last batch). Unexported, so the event's JSON is the same as
	// before RetryBack existed.
	back int
}

// Kind returns "batch_flushed".
func (BatchFlushed) Kind() string { return "batch_flushed" }

// String describes the event on one line.
func (e BatchFlushed) String() string {
	what := "flushed"
	switch {
	case e.Retry && e.back > 1:
		what = fmt.Sprintf("resent the batch it sent %d batches ago to", e.back)
	case e.Retry:
		what = "resent its last batch to"
	}
	s := fmt.Sprintf("producer %s %s %s: %s", e.Producer, what, e.TP, plural(e.Records, "record", "records"))
	if e.BaseSequence >= 0 {
		s += fmt.Sprintf(", base sequence %d", e.BaseSequence)
	}
	if e.Reason != "" {
		s += " (" + e.Reason + ")"
	}
	if e.AckID > 0 {
		s += fmt.Sprintf(" as ack #%d", e.AckID)
	}
	return s
}

// FuturesSettled: a batch's record futures completed, failed or were
// cancelled.
type FuturesSettled struct {
	Producer string
	TP       topic.Partition
	IDs      []int64
	State    replication.HandleState
	// Offsets of the records when done with known offsets.
	Offsets []int64
	Code    kerr.Code
	Message string
}

// Kind returns "futures_settled".
func (FuturesSettled) Kind() string { return "futures_settled" }

// String describes the event on one line.
func (e FuturesSettled) String() string {
	ids := make([]string, len(e.IDs))
	for i, id := range e.IDs {
		ids[i] = fmt.Sprintf("#%d", id)
	}
	futures, offsets := "futures", "offsets"
	if len(ids) == 1 {
		futures, offsets = "future", "offset"
	}
	s := fmt.Sprintf("producer %s %s %s %s", e.Producer, futures, strings.Join(ids, ","), e.State)
	switch {
	case e.State == replication.Done && len(e.Offsets) > 0:
		at := make([]string, len(e.Offsets))
		for i, o := range e.Offsets {
			at[i] = fmt.Sprintf("%s@%d", e.TP, o)
		}
		s += ": " + strings.Join(at, " ")
	case e.State == replication.Done:
		s += fmt.Sprintf(": %s, %s unknown (acks=0)", e.TP, offsets)
	case e.State == replication.Failed:
		s += fmt.Sprintf(": %s: %s", e.Code, e.Message)
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
