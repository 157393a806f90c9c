package producer

import (
	"slices"

	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/replication"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// AnyPartition asks the partitioner to choose; NoTimestamp asks for the
// clock's time.
const (
	AnyPartition int32 = -1
	NoTimestamp  int64 = -1
)

// Options configure a producer (§3.2). Start from DefaultOptions.
type Options struct {
	// Name is the producer's name and, for an idempotent producer, its
	// identity in producer-identities.json (the reference's
	// transactional_name). Empty means producer-{n}.
	Name           string
	BatchSize      int64 // batch.size: estimated bytes per partition that flush at once (> 0)
	LingerMs       int64 // linger.ms: a partition's oldest record flushes after this long, at the next due-flush run (>= 0)
	MaxBufferBytes int64 // buffer.memory: cap on all pending estimated bytes (> 0)
	Acks           replication.AckMode
	// Idempotent allocates a producer id and epoch and sequences batches;
	// acks 1 is upgraded to all and acks 0 is an argument error (decision 4).
	Idempotent bool
}

// DefaultOptions: batch.size 16384, linger.ms 0, buffer.memory 1 MiB, acks 1.
func DefaultOptions() Options {
	return Options{BatchSize: 16384, LingerMs: 0, MaxBufferBytes: 1 << 20, Acks: replication.Acks1}
}

// ResolveAcks applies decision 4 to an idempotent producer's acks: all stays,
// 1 is upgraded to all, 0 is the argument error "idempotent producer requires
// acks=all". A non-idempotent producer keeps any valid mode.
func ResolveAcks(acks replication.AckMode, idempotent bool) (replication.AckMode, error) {
	if err := acks.Check(); err != nil {
		return 0, err
	}
	if !idempotent {
		return acks, nil
	}
	switch acks {
	case replication.AcksAll, replication.Acks1:
		return replication.AcksAll, nil
	}
	return 0, kerr.Argument("idempotent producer requires acks=all")
}

// Cluster is what a producer needs from the cluster.
type Cluster interface {
	// Writable returns why the cluster takes no send or flush now (its
	// lifecycle: closed, failed), nil when it does.
	Writable() error
	// PartitionCount returns the topic's partition count (UNKNOWN_TOPIC),
	// or first what Writable returns. A topic's partition count never
	// changes once reported (topics are neither deleted nor grown), so a
	// producer keeps it.
	PartitionCount(topic string) (int32, error)
	// AppendBatch appends a batch to the partition's leader with the given
	// acks; source labels the append in the trace.
	AppendBatch(tp topic.Partition, b *record.Batch, acks replication.AckMode, source string) (*replication.Ack, error)
}

// Env is what the cluster lends every producer.
type Env struct {
	Cluster Cluster
	Clock   clock.Clock
	IDs     *replication.IDSource
	Events  *replication.EventLog
	// Settings are the cluster's producer rules (the partitioner); nil
	// means MiniKafka's.
	Settings *Settings
	// Dispatch runs the listeners the producer puts on its batches'
	// acknowledgements; the cluster's handler of replication.ListenBatch
	// finds the producer by Number and calls AckSettled.
	Dispatch replication.Dispatcher
	// Number is the producer's number in its cluster (from 1), the owner
	// its listeners name.
	Number int64
}

// availability is what a cluster may also offer: the partitions of a topic
// that have a leader, for Kafka's sticky partitioner.
type availability interface {
	AvailablePartitions(topic string, count int32) []int32
}

type inflight struct {
	batch *record.Batch
	ack   *replication.Ack
}

// awaiting is a batch whose acknowledgement the producer waits for: when
// it settles, AckSettled settles the batch's record futures.
type awaiting struct {
	s    *sent
	futs []*Future
	ack  *replication.Ack
}

type sent struct {
	tp    topic.Partition
	batch *record.Batch
	count int32 // partition count when sent (for the sticky rule)
	// seq numbers the batches a producer flushed (from 1); waiting counts
	// the sends of this batch (itself, its retries) whose acknowledgement
	// is still pending. Both only decide whether its records can be
	// reused (recycle).
	seq     int64
	waiting int
}

// Producer sends records through a partitioner and an accumulator (§8.3). It
// never waits: a send returns a Future; batches flush when a partition
// reaches batch.size, when RunDueFlushes finds linger.ms elapsed, or on
// Flush and Close, one batch per partition each time.
type Producer struct {
	opts     Options
	identity Identity // PID -1 when not idempotent
	env      Env
	part     *Partitioner
	acc      *Accumulator

	nextSeq  map[topic.Partition]int32
	inflight map[topic.Partition][]inflight
	sent     map[topic.Partition]bool // partitions it has sent batches to
	last     *sent
	// recent holds the last MaxRetryBack batches sent, oldest first (what
	// RetryBack resends).
	recent []*sent
	closed bool
	// topic is the last topic sent to and its partition count (empty
	// before the first send); never shared by a copy.
	topic struct {
		name  string
		count int32
	}
	// source labels the producer's appends ("producer NAME").
	source string
	// slab hands out the futures (futureSlab); never shared by a copy.
	slab futureSlab
	// spare is the records slice of a settled batch that left recent,
	// cleared, for the next queue (recycle); never shared by a copy.
	// flushes counts the batches flushed (sent.seq); batches up to frozen
	// were sent before the last Clone and are shared with a copy, so
	// their records are never reused.
	spare           []record.Record
	flushes, frozen int64
	// spareFutures is a settled batch's futures list, cleared, for the
	// next queue; deltas are the offset deltas 0, 1, 2, ... that every
	// batch this producer builds shares (read only). Never shared by a
	// copy.
	spareFutures []*Future
	deltas       []int32

	// awaiting holds, by batch number, the batches whose acknowledgement is
	// pending; batches counts the batches sent (their numbers, from 1).
	awaiting map[int64]*awaiting
	batches  int64
}

// New builds a producer. opts must already be resolved (acks through
// ResolveAcks, a name chosen); identity is the allocated PID and epoch of an
// idempotent producer and ignored otherwise.
func New(env Env, opts Options, identity Identity) (*Producer, error) {
	acks, err := ResolveAcks(opts.Acks, opts.Idempotent)
	if err != nil {
		return nil, err
	}
	opts.Acks = acks
	if opts.Name == "" {
		return nil, kerr.Argument("producer name is required")
	}
	acc, err := NewAccumulator(opts.BatchSize, opts.LingerMs, opts.MaxBufferBytes)
	if err != nil {
		return nil, err
	}
	if !opts.Idempotent {
		identity = Identity{PID: record.NoProducerID, Epoch: record.NoProducerEpoch}
	}
	part := NewPartitionerWith(env.Settings)
	if av, ok := env.Cluster.(availability); ok {
		part.Available = av.AvailablePartitions
	}
	return &Producer{opts: opts, identity: identity, env: env, part: part, acc: acc, source: sourceOf(opts.Name),
		nextSeq: map[topic.Partition]int32{}, inflight: map[topic.Partition][]inflight{},
		sent: map[topic.Partition]bool{}}, nil
}

// Name is the producer's name.
func (p *Producer) Name() string { return p.opts.Name }

// Options returns the producer's options (acks resolved).
func (p *Producer) Options() Options { return p.opts }

// Identity returns the producer id and epoch (-1, -1 when not idempotent).
func (p *Producer) Identity() Identity { return p.identity }

// Closed reports whether the producer was closed or crashed.
func (p *Producer) Closed() bool { return p.closed }

// sourceOf labels a producer's appends in the trace.
func sourceOf(name string) string { return "producer " + name }

// partitionCount is the partition count of topicName, as the cluster's
// PartitionCount reports it: the cluster is asked whether it takes sends
// at every call, and for the count only when the topic is not the last
// one sent to (a topic's count never changes).
func (p *Producer) partitionCount(topicName string) (int32, error) {
	if err := p.env.Cluster.Writable(); err != nil {
		return 0, err
	}
	if p.topic.name == topicName && topicName != "" {
		return p.topic.count, nil
	}
	count, err := p.env.Cluster.PartitionCount(topicName)
	if err != nil {
		return 0, err
	}
	p.topic.name, p.topic.count = topicName, count
	return count, nil
}

// Send queues one record for topic (partition AnyPartition lets the
// partitioner choose; an explicit partition is checked: UNKNOWN_PARTITION
// "{topic}-{p}"). A negative timestamp means the clock's time. A full buffer
// is PRODUCER_BUFFER_FULL and nothing is queued. When the partition reaches
// batch.size it is flushed at once.
func (p *Producer) Send(topicName string, partition int32, r record.Record) (*Future, error) {
	if p.closed {
		return nil, kerr.State("producer is closed")
	}
	count, err := p.partitionCount(topicName)
	if err != nil {
		return nil, err
	}
	sticky := partition == AnyPartition && r.Key == nil
	if sticky && p.part.Strategy() == Murmur2 {
		// Kafka completes a switch it postponed while the sticky
		// partition's batch was incomplete (RecordAccumulator.partitionChanged).
		cur := p.part.StickyPartition(topicName, count)
		p.part.Appended(topicName, count, cur, 0, p.opts.BatchSize, !p.acc.Pending(topic.Partition{Topic: topicName, Partition: cur}))
	}
	if partition == AnyPartition {
		if partition, err = p.part.Choose(topicName, count, r.Key); err != nil {
			return nil, err
		}
	} else if partition < 0 || partition >= count {
		return nil, kerr.New(kerr.UnknownPartition, "%s-%d", topicName, partition)
	}
	if r.TimestampMs < 0 {
		r.TimestampMs = p.env.Clock.NowMs()
	}
	size := EstimateSize(r)
	if err := p.acc.CheckRoom(size); err != nil {
		return nil, err
	}
	tp := topic.Partition{Topic: topicName, Partition: partition}
	q := p.acc.current(tp)
	if q == nil {
		q = p.acc.queue(tp, p.env.Clock.NowMs(), p.opts.Name, recordsToFill(p.opts.BatchSize, size), &p.spare, &p.spareFutures)
	}
	f := p.slab.next(p.env.IDs.Next(), q.fb, r.TimestampMs)
	full := p.acc.add(q, r, f, size)
	if full {
		p.flushPartition(tp, "batch.size reached")
	}
	if sticky {
		p.part.Appended(topicName, count, partition, size, p.opts.BatchSize, full)
	}
	return f, nil
}

// recordsToFill is how many records of size estimated bytes reach
// batchSize: the room a new queue is given (a batch of such records
// flushes with exactly that many, and its ids then fill their allocation).
func recordsToFill(batchSize, size int64) int {
	n := batchSize / size
	if batchSize%size != 0 {
		n++
	}
	return int(min(n, maxQueueHint))
}

// RunDueFlushes flushes every partition whose oldest record has waited
// linger.ms, in partition order. With linger.ms 0 that is every partition.
func (p *Producer) RunDueFlushes() {
	for _, tp := range p.acc.Due(p.env.Clock.NowMs()) {
		p.flushPartition(tp, "linger.ms elapsed")
	}
}

// Flush flushes every partition with pending records, in partition order,
// ignoring batch.size and linger.ms. Batches waiting for acks=all stay
// pending: nothing blocks.
func (p *Producer) Flush() {
	for _, tp := range p.acc.Partitions() {
		p.flushPartition(tp, "flush")
	}
}

// Close flushes and closes the producer. It is idempotent.
func (p *Producer) Close() {
	if p.closed {
		return
	}
	p.Flush()
	p.closed = true
}

// Crash drops the accumulator and cancels every pending future (their
// outcome is unknown), then closes the producer. It is idempotent.
func (p *Producer) Crash() {
	p.eachPending(func(f *Future) { f.Cancel() })
	p.acc.Clear()
	p.closed = true
}

// MaxRetryBack is how far back RetryBack reaches: Kafka's idempotent
// producer keeps at most five batches in flight per partition
// (max.in.flight.requests.per.connection), the window a partition
// deduplicates.
const MaxRetryBack = 5

// Retry resends the producer's last batch exactly as it was sent: same
// records, same producer id, epoch and base sequence. It returns a new
// future per record. An idempotent producer's retry is recognised by the
// partition as a duplicate and answered with the original offsets (once the
// HW covers them with acks=all); a plain producer's retry is appended again.
func (p *Producer) Retry() ([]*Future, error) { return p.RetryBack(1) }

// RetryBack resends the batch sent back batches ago (1 is the last one,
// up to MaxRetryBack) exactly as it was sent, as Retry does. Whether the
// partition recognises it depends on its dedupe window
// (idempotence.window): MiniKafka's remembers the last batch only, Kafka's
// the last five, and an older retry is OUT_OF_ORDER_SEQUENCE.
func (p *Producer) RetryBack(back int) ([]*Future, error) {
	if p.closed {
		return nil, kerr.State("producer is closed")
	}
	if back < 1 || back > MaxRetryBack {
		return nil, kerr.Argument("back must be between 1 and %d (got %d)", MaxRetryBack, back)
	}
	if p.last == nil {
		return nil, kerr.State("producer %s has not sent a batch yet", p.opts.Name)
	}
	if back > len(p.recent) {
		return nil, kerr.State("producer %s has sent %d batches, not %d", p.opts.Name, len(p.recent), back)
	}
	last := p.recent[len(p.recent)-back]
	futs := make([]*Future, len(last.batch.Records))
	fb := &futureBatch{tp: last.tp, producer: p.opts.Name, ids: make([]int64, 0, len(futs))}
	for i := range futs {
		futs[i] = p.slab.next(p.env.IDs.Next(), fb, last.batch.Records[i].TimestampMs)
	}
	p.sendBack(last, futs, "retry", true, back)
	return futs, nil
}

// flushPartition turns tp's pending records into one batch and appends it.
func (p *Producer) flushPartition(tp topic.Partition, reason string) {
	q := p.acc.pop(tp)
	if q == nil || len(q.records) == 0 {
		return
	}
	futs := q.futures
	if fb := q.fb; cap(fb.ids) > 2*len(fb.ids) {
		// A batch flushed well short of batch.size (linger.ms, a flush)
		// gives back the room its ids were given: its futures keep them.
		fb.ids = slices.Clone(fb.ids)
	}
	b := p.newBatch(q.records)
	if p.opts.Idempotent {
		b.ProducerID, b.ProducerEpoch, b.BaseSequence = p.identity.PID, p.identity.Epoch, p.sequenceFor(tp)
	}
	count, _ := p.partitionCount(tp.Topic)
	p.flushes++
	s := &sent{tp: tp, batch: b, count: count, seq: p.flushes}
	p.last = s
	p.recent = append(p.recent, s)
	if len(p.recent) > MaxRetryBack {
		old := p.recent[0]
		p.recent = append(p.recent[:0], p.recent[1:]...)
		p.recycle(old)
	}
	p.send(s, futs, reason, false)
}

// newBatch is record.NewBatch(records) with the producer's shared offset
// deltas (nothing writes a batch's deltas; a batch's slice is capped at
// its length, so nothing appends into the next one's either).
func (p *Producer) newBatch(records []record.Record) *record.Batch {
	n := len(records)
	if len(p.deltas) < n {
		p.deltas = make([]int32, max(n, 2*len(p.deltas)))
		for i := range p.deltas {
			p.deltas[i] = int32(i)
		}
	}
	b := record.NewBatch(nil)
	b.Records, b.OffsetDeltas, b.LastOffsetDelta = records, p.deltas[:n:n], int32(max(n-1, 0))
	return b
}

// recycle keeps the records slice of a batch that left recent (RetryBack
// cannot resend it) for the next queue, when nothing can read it any more:
// its acknowledgements all settled (no batch in flight or waiting holds
// it) and no copy of the producer shares it. Its futures do not read it
// (they keep their timestamp and offset delta). The slice is not cleared:
// the next queue overwrites it as it fills, so it keeps at most one
// batch's record bytes alive.
func (p *Producer) recycle(s *sent) {
	if s.waiting > 0 || s.seq <= p.frozen || cap(s.batch.Records) <= cap(p.spare) {
		return
	}
	p.spare = s.batch.Records[:0]
	s.batch.Records = nil
}

// sequenceFor is the next base sequence for tp: the sequence after the last
// acknowledged batch plus the records of batches still waiting. A failed
// batch does not advance it (§8.3), which is what makes Retry a duplicate.
func (p *Producer) sequenceFor(tp topic.Partition) int32 {
	seq := p.nextSeq[tp]
	for _, in := range p.inflight[tp] {
		seq += int32(in.batch.LogicalCount())
	}
	return seq
}

func (p *Producer) send(s *sent, futs []*Future, reason string, retry bool) {
	p.sendBack(s, futs, reason, retry, 0)
}

func (p *Producer) sendBack(s *sent, futs []*Future, reason string, retry bool, back int) {
	ev := BatchFlushed{Producer: p.opts.Name, TP: s.tp, Records: len(futs), BaseSequence: s.batch.BaseSequence, Reason: reason, Retry: retry, back: back}
	pos := p.env.Events.Emit(ev)
	p.sent[s.tp] = true
	ack, err := p.env.Cluster.AppendBatch(s.tp, s.batch, p.opts.Acks, p.source)
	if err != nil {
		p.settle(s, futs, nil, err)
		return
	}
	ev.AckID = ack.ID()
	p.env.Events.Replace(pos, ev)
	if !ack.Settled() && !retry {
		p.inflight[s.tp] = append(p.inflight[s.tp], inflight{batch: s.batch, ack: ack})
	}
	if ack.Settled() {
		p.settle(s, futs, ack, nil)
		return
	}
	p.batches++
	p.countWaiting(s, 1)
	if p.awaiting == nil {
		p.awaiting = map[int64]*awaiting{}
	}
	p.awaiting[p.batches] = &awaiting{s: s, futs: futs, ack: ack}
	ack.Listen(p.env.Dispatch, replication.Listener{Kind: replication.ListenBatch, Owner: p.env.Number, Ref: p.batches})
}

// AckSettled settles the futures of the batch numbered batch, whose
// acknowledgement has settled. The cluster's dispatcher calls it (a
// replication.ListenBatch listener); a batch that is not waiting is
// ignored.
func (p *Producer) AckSettled(batch int64) {
	a := p.awaiting[batch]
	if a == nil {
		return
	}
	delete(p.awaiting, batch)
	p.countWaiting(a.s, -1)
	p.settle(a.s, a.futs, a.ack, nil)
}

// countWaiting adds d to the sends of s still waiting for their
// acknowledgement, unless s is shared with a copy of the producer
// (s.seq <= p.frozen): such a batch is never recycled, so its count is not
// needed, and leaving it alone keeps a snapshot's batches unwritten while
// clusters restored from it run side by side.
func (p *Producer) countWaiting(s *sent, d int) {
	if s.seq > p.frozen {
		s.waiting += d
	}
}

// settle completes a batch's futures from its ack (or fails them all with err).
func (p *Producer) settle(s *sent, futs []*Future, ack *replication.Ack, err error) {
	if ack != nil {
		list := p.inflight[s.tp]
		for i, in := range list {
			if in.ack == ack {
				p.inflight[s.tp] = append(list[:i:i], list[i+1:]...)
				break
			}
		}
		if len(p.inflight[s.tp]) == 0 {
			delete(p.inflight, s.tp)
		}
	}
	open := false
	for _, f := range futs {
		if !f.Settled() {
			open = true
			break
		}
	}
	if !open {
		// A producer crash already cancelled them.
		return
	}
	// Every future of the batch shares fb, whose ids are theirs in order:
	// the event shares them (nothing changes them any more).
	fb := futs[0].b
	ev := FuturesSettled{Producer: p.opts.Name, TP: s.tp, IDs: fb.ids[:len(futs):len(futs)]}
	switch {
	case err == nil && ack.State() == replication.Cancelled:
		ev.State = replication.Cancelled
		p.env.Events.Emit(ev)
		for _, f := range futs {
			f.Cancel()
		}
	case err == nil && ack.State() == replication.Done:
		res := ack.Value()
		if p.opts.Idempotent {
			if next := s.batch.LastSequence() + 1; next > p.nextSeq[s.tp] {
				p.nextSeq[s.tp] = next
			}
		}
		ev.State = replication.Done
		if res.OffsetsKnown {
			ev.Offsets = make([]int64, len(futs))
			for i := range futs {
				ev.Offsets[i] = res.BaseOffset + int64(s.batch.OffsetDeltas[i])
			}
		}
		p.env.Events.Emit(ev)
		fb.baseOffset, fb.offsetsKnown = res.BaseOffset, res.OffsetsKnown
		for _, f := range futs {
			f.settle(replication.Done)
		}
		if slices.ContainsFunc(s.batch.Records, func(r record.Record) bool { return r.Key == nil }) {
			p.part.OnBatchClosed(s.tp.Topic, s.count, s.tp.Partition)
		}
	default:
		if err == nil {
			err = ack.Err()
		}
		ev.State = replication.Failed
		ev.Code, ev.Message = kerr.CodeOf(err), kerr.MessageOf(err)
		p.env.Events.Emit(ev)
		fb.err = err
		for _, f := range futs {
			f.settle(replication.Failed)
		}
	}
	// Nothing holds the batch's futures list any more (the futures stay
	// with their callers): the next queue reuses it, and
	// overwrites it as it fills (not cleared: clearing costs write
	// barriers, and what it keeps alive is at most one batch's futures).
	if cap(futs) > cap(p.spareFutures) {
		p.spareFutures = futs[:0]
	}
}
