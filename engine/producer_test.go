package engine_test

import (
	"errors"
	"math"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/producer"
	"github.com/minikafka-lab/minikafka/engine/storage"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

func batchCount(t *testing.T, f *fixture, p engine.TopicPartition) int {
	t.Helper()
	l, err := f.c.LeaderLog(p)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	l.Batches(0, func(storage.RawBatch) error { n++; return nil })
	return n
}

// PR1: linger on the manual clock; Advance runs the due flushes.
func TestLingerFlushPR1(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.clk = clock.NewManual(100)
	f.restart()
	f.topic("t", 1, 1)
	p := f.producer(func(o *producer.Options) { o.BatchSize, o.LingerMs = 4096, 10 })
	a := f.send(p, "t", engine.AnyPartition, keyed("k", "a"))
	b := f.send(p, "t", engine.AnyPartition, keyed("k", "b"))
	if a.Settled() {
		t.Fatal("the first send completed before linger.ms")
	}
	f.advance(9)
	if a.Settled() {
		t.Fatal("flushed after 9 of 10 ms")
	}
	f.c.TakeEvents()
	f.advance(1)
	if a.Value().BaseOffset != 0 || a.Value().Offset != 0 || b.Value().Offset != 1 || batchCount(t, f, tp("t", 0)) != 1 {
		t.Fatalf("a %+v b %+v", a.Value(), b.Value())
	}
	evs := f.c.TakeEvents()
	wantStrings(t, "events", eventKinds(evs), []string{"batch_flushed", "hw_moved", "futures_settled"})
	if got := evs[0].String(); got != "producer producer-1 flushed t-0: 2 records (linger.ms elapsed) as ack #3" {
		t.Fatalf("flush event %q", got)
	}
}

// PR2: batch.size triggers the flush; close completes at once.
func TestBatchSizeFlushPR2(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 1, 1)
	p := f.producer(func(o *producer.Options) { o.BatchSize, o.LingerMs = 68, 1000 })
	a := f.send(p, "t", engine.AnyPartition, rec("a"))
	b := f.send(p, "t", engine.AnyPartition, rec("b"))
	if a.Value().Offset != 0 || b.Value().Offset != 1 || batchCount(t, f, tp("t", 0)) != 1 {
		t.Fatalf("a %+v b %+v", a.Value(), b.Value())
	}
	p.Close()
	if !p.Closed() {
		t.Fatal("close")
	}
	_, err := p.Send("t", 0, rec("c"))
	wantCode(t, err, kerr.IllegalState, "producer is closed")
}

// PR3: buffer.memory bounds the accumulator.
func TestBufferFullPR3(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 1, 1)
	p := f.producer(func(o *producer.Options) { o.BatchSize, o.LingerMs, o.MaxBufferBytes = 4096, 1000, 40 })
	a := f.send(p, "t", 0, rec("a"))
	_, err := p.Send("t", 0, rec("bbbbbbbbbbbbbbbbbbbb"))
	wantCode(t, err, kerr.ProducerBufferFull, "")
	p.Flush()
	if a.State() != engine.Done || f.leo(tp("t", 0), 1) != 1 {
		t.Fatalf("flush: %v", a.State())
	}
}

// PR4: one key, one partition, send order kept.
func TestOrderingPR4(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 3, 1)
	p := f.producer(func(o *producer.Options) { o.BatchSize, o.LingerMs = 4096, 1000 })
	var futs []*producer.Future
	for _, v := range []string{"0", "1", "2", "3", "4"} {
		futs = append(futs, f.send(p, "t", engine.AnyPartition, keyed("user-42", v)))
	}
	p.Flush()
	part := futs[0].Value().Partition
	for _, fu := range futs {
		if fu.Value().Partition != part {
			t.Fatal("one key went to two partitions")
		}
	}
	wantStrings(t, "values", f.values(tp("t", part), engine.ReadUncommitted), []string{"0", "1", "2", "3", "4"})
}

// PR5, PR6: an explicit partition wins; keyless records rotate after a batch.
func TestPartitionChoicePR5PR6(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 3, 1)
	p := f.producer(func(o *producer.Options) { o.BatchSize = 1 })
	if got := f.send(p, "t", 2, keyed("would-hash-elsewhere", "x")).Value().Partition; got != 2 {
		t.Fatalf("explicit partition: %d", got)
	}
	first := f.send(p, "t", engine.AnyPartition, rec("a")).Value().Partition
	second := f.send(p, "t", engine.AnyPartition, rec("b")).Value().Partition
	if second != (first+1)%3 {
		t.Fatalf("keyless: %d then %d", first, second)
	}
	_, err := p.Send("t", 3, rec("x"))
	wantCode(t, err, kerr.UnknownPartition, "t-3")
	_, err = p.Send("missing", engine.AnyPartition, rec("x"))
	wantCode(t, err, kerr.UnknownTopic, "missing")
}

// §8.2 example: same key x3 → one partition, one batch.
func TestKeyedBatchCount(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 2, 1)
	p := f.producer(func(o *producer.Options) { o.LingerMs = 1000 })
	for range 3 {
		f.send(p, "t", engine.AnyPartition, keyed("same", "v"))
	}
	p.Flush()
	if f.leo(tp("t", 0), 1) != 3 || batchCount(t, f, tp("t", 0)) != 1 {
		t.Fatal("same key x3 is one batch on partition 0")
	}
}

// PR7: an exact retry returns the original result; nothing is appended.
func TestExactRetryPR7(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, func(c *engine.Config) { c.MinInsyncReplicas = 2 })
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	a := f.append(p0, seqBatch(7, 0, 0, "x"), engine.AcksAll)
	if a.Settled() {
		t.Fatal("acks=all completed before replication")
	}
	f.replicate(nil)
	if a.State() != engine.Done {
		t.Fatalf("after replication: %v", a.State())
	}
	r := a.Value()
	again := f.append(p0, seqBatch(7, 0, 0, "x"), engine.AcksAll)
	got := again.Value()
	if again.State() != engine.Done || got.BaseOffset != r.BaseOffset || got.NextOffset != r.NextOffset || !got.Duplicate || f.leo(p0, 1) != 1 {
		t.Fatalf("retry %v %+v vs %+v, LEO %d", again.State(), got, r, f.leo(p0, 1))
	}
}

// PR8: sequence gaps and old epochs.
func TestSequencesPR8(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 1, 1)
	p0 := tp("t", 0)
	f.append(p0, seqBatch(3, 0, 0, "a"), engine.Acks1)
	_, err := f.c.AppendBatch(p0, seqBatch(3, 0, 2, "b"), engine.Acks1)
	wantCode(t, err, kerr.OutOfOrderSequence, "expected sequence 1, got 2")
	f.append(p0, seqBatch(3, 1, 0, "c"), engine.Acks1)
	_, err = f.c.AppendBatch(p0, seqBatch(3, 0, 1, "d"), engine.Acks1)
	wantCode(t, err, kerr.ProducerFenced, "producer 3 epoch 0 is fenced by 1")
	if f.leo(p0, 1) != 2 {
		t.Fatal("rejected batches were appended")
	}
}

// PR9: a second producer with the same name fences the first.
func TestNamedProducerFencesPR9(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 1, 1)
	old := f.producer(func(o *producer.Options) { o.Name, o.Idempotent, o.BatchSize = "writer", true, 1 })
	f.producer(func(o *producer.Options) { o.Name, o.Idempotent, o.BatchSize = "writer", true, 1 })
	if old.Identity().Epoch != 0 || old.Options().Acks != engine.AcksAll {
		t.Fatalf("old identity %+v acks %v", old.Identity(), old.Options().Acks)
	}
	fut, err := old.Send("t", 0, rec("x"))
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, fut.Err(), kerr.ProducerFenced, "epoch 0 is fenced by 1")
	if f.leo(tp("t", 0), 1) != 0 {
		t.Fatal("the fenced producer wrote")
	}
}

// §8.5.1: a name whose epoch is 2^31-1 cannot get another instance. The
// refusal is the store's ILLEGAL_STATE, not a PRODUCER_FENCED from a wrapped
// epoch, and the running instance stays unfenced.
func TestProducerEpochExhausted(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 1, 1)
	if err := f.c.Close(); err != nil {
		t.Fatal(err)
	}
	path := f.path(producer.IdentityFile)
	if err := vfs.WriteFile(f.fs(), path, []byte(`{"writer": [1, 2147483646]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	f.reopen()
	last := f.producer(func(o *producer.Options) { o.Name, o.Idempotent, o.BatchSize = "writer", true, 1 })
	if last.Identity() != (producer.Identity{PID: 1, Epoch: math.MaxInt32}) {
		t.Fatalf("identity %+v", last.Identity())
	}
	opts := producer.DefaultOptions()
	opts.Name, opts.Idempotent = "writer", true
	_, err := f.c.NewProducer(opts)
	wantCode(t, err, kerr.IllegalState, `producer "writer" has exhausted its epochs`)
	if len(f.c.Producers()) != 1 {
		t.Fatal("a refused producer was registered")
	}
	if data, _ := f.fs().ReadFile(path); string(data) != `{"writer": [1, 2147483647]}` {
		t.Fatalf("identity file %s", data)
	}
	fut := f.send(last, "t", 0, rec("x"))
	if fut.Err() != nil || f.leo(tp("t", 0), 1) != 1 {
		t.Fatalf("the running instance could not write: %v", fut.Err())
	}
}

// PR10: producer state is rebuilt from the log at open.
func TestProducerStateAfterRestartPR10(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 1, 1)
	p0 := tp("t", 0)
	first := f.append(p0, seqBatch(9, 0, 0, "x"), engine.Acks1).Value()
	f.restart()
	again := f.append(p0, seqBatch(9, 0, 0, "x"), engine.Acks1).Value()
	if again.BaseOffset != first.BaseOffset || !again.Duplicate || f.leo(p0, 1) != 1 {
		t.Fatalf("%+v vs %+v", again, first)
	}
}

// Default names count every producer; idempotent identities follow §8.5.1.
func TestProducerNamesAndIdentities(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	a := f.producer(nil)
	b := f.producer(func(o *producer.Options) { o.Idempotent = true })
	if a.Name() != "producer-1" || b.Name() != "producer-2" || b.Identity() != (producer.Identity{PID: 1}) {
		t.Fatalf("%s %s %+v", a.Name(), b.Name(), b.Identity())
	}
	if a.Identity().PID != -1 {
		t.Fatal("a plain producer has no PID")
	}
	got, err := f.c.Producer("producer-2")
	if err != nil || got != b {
		t.Fatal("lookup by name")
	}
}

// The retry path of §8.5.2: an acks=all write fails after append, the
// producer's sequence does not move, and Retry is recognised as a duplicate
// once the follower has it: the record is stored once.
func TestRetryAfterAppendFailure(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, func(c *engine.Config) { c.MinInsyncReplicas = 2 })
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	p := f.producer(func(o *producer.Options) { o.Idempotent, o.BatchSize = true, 1 })
	fut := f.send(p, "t", 0, rec("pay"))
	if fut.Settled() {
		t.Fatal("acks=all completed before replication")
	}
	f.c.RemoveFromISR(p0, 2)
	wantCode(t, fut.Err(), kerr.NotEnoughReplicasAfterAppend, "")
	if st := p.Describe(); st.Sequences[0].Acknowledged != 0 || st.Sequences[0].Next != 0 {
		t.Fatalf("sequence moved after a failure: %+v", st.Sequences)
	}
	_, err := p.Retry()
	if err != nil {
		t.Fatal(err)
	}
	// ISR {1} < min.insync.replicas: the duplicate is refused like any acks=all write.
	evs := f.c.TakeEvents()
	last := evs[len(evs)-1].(engine.FuturesSettled)
	if last.Code != kerr.NotEnoughReplicas {
		t.Fatalf("retry with a small ISR: %v", last)
	}
	f.replicate(nil)
	if !slicesEqual(f.isr(p0), []int32{1, 2}) {
		t.Fatalf("ISR %v", f.isr(p0))
	}
	retried, err := p.Retry()
	if err != nil {
		t.Fatal(err)
	}
	if retried[0].State() != engine.Done || retried[0].Value().Offset != 0 || f.leo(p0, 1) != 1 {
		t.Fatalf("retry: %v %+v LEO %d", retried[0].State(), retried[0].Value(), f.leo(p0, 1))
	}
	if next := f.send(p, "t", 0, rec("next")); next.Settled() || p.Describe().Sequences[0].Next != 2 {
		t.Fatalf("the next batch's sequence: %+v", p.Describe().Sequences)
	}
}

// A plain producer's retry appends the batch again: why idempotence exists.
func TestPlainRetryDuplicates(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 1, 1)
	p := f.producer(func(o *producer.Options) { o.BatchSize = 1 })
	f.send(p, "t", 0, rec("x"))
	futs, err := p.Retry()
	if err != nil || futs[0].Value().Offset != 1 {
		t.Fatalf("retry: %v", err)
	}
	wantStrings(t, "log", f.values(tp("t", 0), engine.ReadUncommitted), []string{"x", "x"})
	fresh := f.producer(nil)
	_, err = fresh.Retry()
	wantCode(t, err, kerr.IllegalState, "has not sent a batch")
}

// Decision 5 (E10 in the reference returned at once): an exact duplicate
// with acks=all is acknowledged only once the HW covers it.
func TestDuplicateWaitsForHWDecision5(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	f.append(p0, seqBatch(4, 0, 0, "x"), engine.Acks1)
	dup := f.append(p0, seqBatch(4, 0, 0, "x"), engine.AcksAll)
	if dup.Settled() || f.leo(p0, 1) != 1 || f.hw(p0) != 0 {
		t.Fatalf("the duplicate was acknowledged above the HW: %v", dup.State())
	}
	f.replicate(nil)
	if dup.State() != engine.Done || dup.Value().BaseOffset != 0 || !dup.Value().Duplicate || f.leo(p0, 1) != 1 {
		t.Fatalf("after replication: %v %+v", dup.State(), dup.Value())
	}
}

// Acks 0 through the producer: the record is appended, the offset unknown (RP11).
func TestAcksZeroRP11(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 1, 1)
	p := f.producer(func(o *producer.Options) { o.Acks, o.BatchSize = engine.Acks0, 1 })
	md := f.send(p, "t", 0, rec("x")).Value()
	if md.OffsetKnown || md.Offset != -1 || md.BaseOffset != -1 || f.leo(tp("t", 0), 1) != 1 {
		t.Fatalf("%+v", md)
	}
}

// A producer crash cancels its pending futures; its in-flight acks=all batch
// may still complete in the cluster without touching them.
func TestProducerCrash(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("t", 1, 2)
	p := f.producer(func(o *producer.Options) { o.Acks, o.BatchSize = engine.AcksAll, 1 })
	inflight := f.send(p, "t", 0, rec("x"))
	p.Crash()
	if inflight.State() != engine.Cancelled || !p.Closed() {
		t.Fatal("crash cancels")
	}
	f.replicate(nil)
	if inflight.State() != engine.Cancelled || len(f.c.PendingAcks()) != 0 {
		t.Fatal("a cancelled future was settled again")
	}
	if _, err := p.Send("t", 0, rec("y")); !errors.Is(err, kerr.IllegalState) {
		t.Fatal("a crashed producer sends")
	}
}

func slicesEqual(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// futureIDs lists the ids of futs.
func futureIDs(futs []*producer.Future) []int64 {
	ids := make([]int64, len(futs))
	for i, fu := range futs {
		ids[i] = fu.ID()
	}
	return ids
}

// Pending futures are listed in send order wherever they wait (in the
// accumulator, in a batch waiting for acks=all, in a retry), each is found
// by its id, and a crash cancels every one of them.
func TestPendingFuturesInSendOrder(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("t", 2, 2)
	p := f.producer(func(o *producer.Options) { o.Acks, o.BatchSize, o.LingerMs = engine.AcksAll, 4096, 1000 })
	a := f.send(p, "t", 1, rec("a"))
	b := f.send(p, "t", 0, rec("b"))
	c := f.send(p, "t", 1, rec("c"))
	p.Flush() // t-0 [b] and t-1 [a c] wait for acks=all
	d := f.send(p, "t", 0, rec("d"))
	retried, err := p.Retry() // t-1 [a c] again: two new futures
	if err != nil {
		t.Fatal(err)
	}
	want := futureIDs(append([]*producer.Future{a, b, c, d}, retried...))
	wantInts(t, "pending futures", futureIDs(p.PendingFutures()), want)
	var described []int64
	for _, fs := range p.Describe().Pending {
		described = append(described, fs.ID)
	}
	wantInts(t, "described pending futures", described, want)
	for _, id := range want {
		if fu, err := f.c.Future(id); err != nil || fu.ID() != id {
			t.Fatalf("future #%d: %v", id, err)
		}
	}
	p.Crash()
	for _, fu := range append([]*producer.Future{a, b, c, d}, retried...) {
		if fu.State() != engine.Cancelled {
			t.Fatalf("future #%d is %v after a crash", fu.ID(), fu.State())
		}
	}
	if n := len(p.PendingFutures()); n != 0 {
		t.Fatalf("%d futures pending after a crash", n)
	}
}

// A producer keeps the partition count of the topic it sends to: sending to
// topics of different counts in turn checks each send's partition against
// its own topic, an unknown topic is refused every time, a topic created
// after the producer is found, and a closed cluster's producer is refused.
func TestProducerChecksEachSendsTopic(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("one", 1, 1)
	f.topic("two", 2, 1)
	p := f.producer(func(o *producer.Options) { o.BatchSize = 1 })
	for range 2 {
		_, err := p.Send("one", 1, rec("x"))
		wantCode(t, err, kerr.UnknownPartition, "one-1")
		if got := f.send(p, "two", 1, rec("y")).Value(); got.Topic != "two" || got.Partition != 1 {
			t.Fatalf("sent to %s-%d", got.Topic, got.Partition)
		}
		_, err = p.Send("three", 0, rec("z"))
		wantCode(t, err, kerr.UnknownTopic, "three")
	}
	f.topic("three", 3, 1)
	if got := f.send(p, "three", 2, rec("z")).Value().Partition; got != 2 {
		t.Fatalf("sent to three-%d", got)
	}
	lone := f.producer(nil)
	f.send(lone, "two", 1, rec("w"))
	if err := f.c.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := lone.Send("two", 1, rec("v"))
	wantCode(t, err, kerr.IllegalState, "closed")
}
