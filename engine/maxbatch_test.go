package engine_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/producer"
	"github.com/minikafka-lab/minikafka/engine/record"
)

// A record too large for one batch (payload over 16 MiB) used to be appended
// to the leader and then fail every follower fetch with CORRUPT_BATCH. Now
// the produce is INVALID_RECORD and changes nothing: no offset, no ack id,
// replication and a reopen stay clean.
func TestProduceOverMaxBatchBytesIsInvalidRecord(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("big", 1, 2)
	p := tp("big", 0)
	first, err := f.c.Produce("big", 0, rec("small"), engine.Acks1)
	if err != nil {
		t.Fatal(err)
	}
	huge := record.Record{Value: bytes.Repeat([]byte("x"), 17<<20), TimestampMs: engine.NoTimestamp}
	_, err = f.c.Produce("big", 0, huge, engine.AcksAll)
	if !errors.Is(err, kerr.InvalidRecord) {
		t.Fatalf("17 MiB produce: %v, want INVALID_RECORD", err)
	}
	if st := f.state(p); st.Replicas[0].LEO != 1 {
		t.Fatalf("refused produce changed the leader's LEO to %d", st.Replicas[0].LEO)
	}
	if _, err := f.c.Replicate(nil, engine.AllFollowers); err != nil {
		t.Fatalf("replicate after a refused produce: %v", err)
	}
	next, err := f.c.Produce("big", 0, rec("after"), engine.Acks1)
	if err != nil {
		t.Fatal(err)
	}
	if next.ID() != first.ID()+1 || next.Value().BaseOffset != 1 {
		t.Fatalf("next produce: ack %d offset %d, want ack %d offset 1", next.ID(), next.Value().BaseOffset, first.ID()+1)
	}
	f.replicate(nil)
	f.restart()
	if st := f.state(p); st.HW != 2 {
		t.Fatalf("HW after reopen %d, want 2", st.HW)
	}
}

// A producer whose batch.size and buffer.memory let it build a batch over
// 16 MiB gets a clean INVALID_RECORD on every future of that batch; an
// idempotent producer's next batch keeps sequence 0 and is accepted.
func TestProducerBatchOverMaxBatchBytesFailsItsFutures(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("big", 1, 2)
	opts := producer.DefaultOptions()
	opts.Name, opts.Idempotent = "bulk", true
	opts.BatchSize, opts.MaxBufferBytes = 64<<20, 64<<20
	pr, err := f.c.NewProducer(opts)
	if err != nil {
		t.Fatal(err)
	}
	value := bytes.Repeat([]byte("v"), 9<<20)
	var futs []*producer.Future
	for range 2 {
		fut, err := pr.Send("big", 0, record.Record{Value: value, TimestampMs: engine.NoTimestamp})
		if err != nil {
			t.Fatal(err)
		}
		futs = append(futs, fut)
	}
	pr.Flush()
	for i, fut := range futs {
		if fut.State() != engine.Failed || !errors.Is(fut.Err(), kerr.InvalidRecord) {
			t.Fatalf("future %d: %v %v, want failed with INVALID_RECORD", i, fut.State(), fut.Err())
		}
	}
	if st := f.state(tp("big", 0)); st.Replicas[0].LEO != 0 {
		t.Fatalf("leader LEO %d after a refused batch", st.Replicas[0].LEO)
	}
	ok, err := pr.Send("big", 0, rec("fits"))
	if err != nil {
		t.Fatal(err)
	}
	pr.Flush()
	f.replicate(nil)
	if ok.State() != engine.Done || ok.Value().Offset != 0 {
		t.Fatalf("batch after the refused one: %v %v %+v", ok.State(), ok.Err(), ok.Value())
	}
}
