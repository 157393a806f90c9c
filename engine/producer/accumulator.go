package producer

import (
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// RecordOverhead is the accumulator's fixed per-record estimate (§3.2): a
// record is counted as 39 + |key| + |value| bytes.
const RecordOverhead = 39

// EstimateSize is the accumulator's size estimate of one record.
func EstimateSize(r record.Record) int64 {
	return RecordOverhead + int64(len(r.Key)) + int64(len(r.Value))
}

// Entry is one pending record in the accumulator.
type Entry struct {
	Record record.Record
	Future *Future
	Size   int64 // estimated bytes
}

type queue struct {
	entries      []Entry
	bytes        int64
	firstEnqueue int64
}

// Accumulator holds a producer's pending records per partition, in FIFO
// order, until they are flushed as one batch per partition (§8.2).
type Accumulator struct {
	batchSize, lingerMs, maxBuffer int64
	queues                         map[topic.Partition]*queue
	total                          int64
}

// NewAccumulator validates batch.size > 0, linger.ms >= 0 and
// buffer.memory > 0 (argument errors naming the setting).
func NewAccumulator(batchSize, lingerMs, maxBufferBytes int64) (*Accumulator, error) {
	switch {
	case batchSize <= 0:
		return nil, kerr.Argument("batch.size must be positive (got %d)", batchSize)
	case lingerMs < 0:
		return nil, kerr.Argument("linger.ms cannot be negative (got %d)", lingerMs)
	case maxBufferBytes <= 0:
		return nil, kerr.Argument("buffer.memory must be positive (got %d)", maxBufferBytes)
	}
	return &Accumulator{batchSize: batchSize, lingerMs: lingerMs, maxBuffer: maxBufferBytes,
		queues: map[topic.Partition]*queue{}}, nil
}

// CheckRoom returns PRODUCER_BUFFER_FULL when size more bytes would exceed
// buffer.memory (exactly buffer.memory is allowed).
func (a *Accumulator) CheckRoom(size int64) error {
	if a.total+size > a.maxBuffer {
		return kerr.New(kerr.ProducerBufferFull, "producer accumulator is full: %d + %d bytes > buffer.memory=%d", a.total, size, a.maxBuffer)
	}
	return nil
}

// Add enqueues a record for tp at time now. It reports whether tp's pending
// bytes reached batch.size (the caller flushes it then). A full buffer is
// PRODUCER_BUFFER_FULL and nothing is enqueued.
func (a *Accumulator) Add(tp topic.Partition, e Entry, now int64) (bool, error) {
	if err := a.CheckRoom(e.Size); err != nil {
		return false, err
	}
	q := a.queues[tp]
	if q == nil {
		q = &queue{firstEnqueue: now}
		a.queues[tp] = q
	}
	q.entries = append(q.entries, e)
	q.bytes += e.Size
	a.total += e.Size
	return q.bytes >= a.batchSize, nil
}

// Due lists, sorted, the partitions whose oldest pending record has waited
// at least linger.ms.
func (a *Accumulator) Due(now int64) []topic.Partition {
	var out []topic.Partition
	for tp, q := range a.queues {
		if now-q.firstEnqueue >= a.lingerMs {
			out = append(out, tp)
		}
	}
	topic.Sort(out)
	return out
}

// Partitions lists, sorted, the partitions with pending records.
func (a *Accumulator) Partitions() []topic.Partition {
	out := make([]topic.Partition, 0, len(a.queues))
	for tp := range a.queues {
		out = append(out, tp)
	}
	topic.Sort(out)
	return out
}

// Pop removes and returns all of tp's pending records, in enqueue order.
func (a *Accumulator) Pop(tp topic.Partition) []Entry {
	q := a.queues[tp]
	if q == nil {
		return nil
	}
	delete(a.queues, tp)
	a.total -= q.bytes
	return q.entries
}

// Pending reports whether tp has records waiting.
func (a *Accumulator) Pending(tp topic.Partition) bool { return a.queues[tp] != nil }

// Bytes is the total pending estimated bytes.
func (a *Accumulator) Bytes() int64 { return a.total }

// Records is the number of pending records.
func (a *Accumulator) Records() int {
	n := 0
	for _, q := range a.queues {
		n += len(q.entries)
	}
	return n
}

// Clear drops everything (a producer crash).
func (a *Accumulator) Clear() {
	clear(a.queues)
	a.total = 0
}
