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

// Entry is one pending record in the accumulator, as Add takes it and
// Pop returns it (Size is not kept: Pop's entries have Size 0).
type Entry struct {
	Record record.Record
	Future *Future
	Size   int64 // estimated bytes
}

// queue is one partition's pending records: the records themselves, in
// the slice that becomes the batch's (no copy at flush), their futures,
// and what the futures share.
type queue struct {
	records      []record.Record
	futures      []*Future
	fb           *futureBatch
	bytes        int64
	firstEnqueue int64
}

// maxQueueHint bounds the records a queue makes room for up front.
const maxQueueHint = 4096

// Accumulator holds a producer's pending records per partition, in FIFO
// order, until they are flushed as one batch per partition (§8.2).
type Accumulator struct {
	batchSize, lingerMs, maxBuffer int64
	queues                         map[topic.Partition]*queue
	total                          int64
	// last is the queue the last record went to (nil after a pop): a
	// producer sending to one partition finds it without hashing.
	last *queue
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
		return a.full(size)
	}
	return nil
}

// full is CheckRoom's error, out of line so that CheckRoom is inlined
// into every send.
func (a *Accumulator) full(size int64) error {
	return kerr.New(kerr.ProducerBufferFull, "producer accumulator is full: %d + %d bytes > buffer.memory=%d", a.total, size, a.maxBuffer)
}

// queue returns tp's queue, making it (enqueued first at now) when tp has
// no pending records: room for hint records and their futures (in *spare
// and *spareFutures when they have room, which it then takes), the
// futures' shared state naming tp and producer.
func (a *Accumulator) queue(tp topic.Partition, now int64, producer string, hint int, spare *[]record.Record, spareFutures *[]*Future) *queue {
	if q := a.current(tp); q != nil {
		return q
	}
	q := a.queues[tp]
	if q == nil {
		hint = min(max(hint, 1), maxQueueHint)
		var records []record.Record
		if spare != nil && cap(*spare) >= hint {
			records, *spare = *spare, nil
		} else {
			records = make([]record.Record, 0, hint)
		}
		var futures []*Future
		if spareFutures != nil && cap(*spareFutures) >= hint {
			futures, *spareFutures = *spareFutures, nil
		} else {
			futures = make([]*Future, 0, hint)
		}
		q = &queue{firstEnqueue: now, records: records, futures: futures,
			fb: &futureBatch{tp: tp, producer: producer, ids: make([]int64, 0, hint)}}
		a.queues[tp] = q
	}
	a.last = q
	return q
}

// current is tp's queue when the last record went to it, nil otherwise:
// a producer sending to one partition finds its queue without hashing.
func (a *Accumulator) current(tp topic.Partition) *queue {
	if q := a.last; q != nil && q.fb.tp == tp {
		return q
	}
	return nil
}

// add enqueues r (size estimated bytes) and its future f on q, which
// CheckRoom found room for. It reports whether q's pending bytes reached
// batch.size (the caller flushes it then).
func (a *Accumulator) add(q *queue, r record.Record, f *Future, size int64) bool {
	q.records = append(q.records, r)
	q.futures = append(q.futures, f)
	q.bytes += size
	a.total += size
	return q.bytes >= a.batchSize
}

// Add enqueues a record for tp at time now. It reports whether tp's pending
// bytes reached batch.size (the caller flushes it then). A full buffer is
// PRODUCER_BUFFER_FULL and nothing is enqueued. (The producer enqueues
// through queue and add, which give its future the queue's shared state.)
func (a *Accumulator) Add(tp topic.Partition, e Entry, now int64) (bool, error) {
	if err := a.CheckRoom(e.Size); err != nil {
		return false, err
	}
	return a.add(a.queue(tp, now, "", 1, nil, nil), e.Record, e.Future, e.Size), nil
}

// Pop removes and returns all of tp's pending records, in enqueue order.
func (a *Accumulator) Pop(tp topic.Partition) []Entry {
	q := a.pop(tp)
	if q == nil {
		return nil
	}
	out := make([]Entry, len(q.records))
	for i := range out {
		out[i] = Entry{Record: q.records[i], Future: q.futures[i]}
	}
	return out
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

// pop removes and returns tp's queue (nil when it has none).
func (a *Accumulator) pop(tp topic.Partition) *queue {
	q := a.queues[tp]
	if q == nil {
		return nil
	}
	delete(a.queues, tp)
	a.total -= q.bytes
	a.last = nil
	return q
}

// Pending reports whether tp has records waiting.
func (a *Accumulator) Pending(tp topic.Partition) bool { return a.queues[tp] != nil }

// Bytes is the total pending estimated bytes.
func (a *Accumulator) Bytes() int64 { return a.total }

// Records is the number of pending records.
func (a *Accumulator) Records() int {
	n := 0
	for _, q := range a.queues {
		n += len(q.records)
	}
	return n
}

// Clear drops everything (a producer crash).
func (a *Accumulator) Clear() {
	clear(a.queues)
	a.total, a.last = 0, nil
}
