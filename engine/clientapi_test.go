package engine_test

import (
	"errors"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/txn"
)

func recs(ts ...int64) []record.Record {
	out := make([]record.Record, len(ts))
	for i, t := range ts {
		out[i] = record.Record{Value: []byte{byte('a' + i)}, TimestampMs: t}
	}
	return out
}

// TestReadBatchesStopsAtHWAndLSO: ReadBatches returns whole batches up to
// the HW (read_uncommitted) or the LSO (read_committed), with the HW, LSO
// and log start, and OFFSET_OUT_OF_RANGE outside [log start, LEO].
func TestReadBatchesStopsAtHWAndLSO(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("t", 1, 2)
	tp := engine.TopicPartition{Topic: "t"}
	f.append(tp, record.NewBatch(recs(10, 11)), engine.Acks1)
	f.replicate(&tp)
	f.append(tp, record.NewBatch(recs(12)), engine.Acks1)
	r, err := f.c.ReadBatches(tp, 0, 1<<20, engine.ReadUncommitted)
	if err != nil {
		t.Fatal(err)
	}
	if r.HighWatermark != 2 || r.LastStableOffset != 2 || r.LogStartOffset != 0 || len(r.Batches) != 1 || len(r.Batches[0].Records) != 2 {
		t.Fatalf("read %+v", r)
	}
	if r.Batches[0].BaseOffset != 0 || r.Batches[0].Records[1].TimestampMs != 11 {
		t.Fatalf("batch %+v", r.Batches[0])
	}
	if r, err := f.c.ReadBatches(tp, 2, 1<<20, engine.ReadUncommitted); err != nil || len(r.Batches) != 0 {
		t.Fatalf("between HW and LEO: %+v %v", r, err)
	}
	if _, err := f.c.ReadBatches(tp, 4, 1<<20, engine.ReadUncommitted); !errors.Is(err, kerr.OffsetOutOfRange) {
		t.Fatalf("beyond the LEO: %v", err)
	}
}

// TestReadBatchesReadCommittedListsAbortedRuns: a client-built
// transaction (producer id 7) that aborts is listed in Aborted with its
// producer id and first offset, and its marker carries that producer id;
// a TransactionSend batch without a producer id that aborts is left out.
func TestReadBatchesReadCommittedListsAbortedRuns(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 1, 1)
	tp := engine.TopicPartition{Topic: "t"}
	id, err := f.c.InitProducerID("tx")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.c.EnsureTransaction("tx", id.PID, id.Epoch); err != nil {
		t.Fatal(err)
	}
	b := record.NewBatch(recs(1, 2))
	b.ProducerID, b.ProducerEpoch, b.BaseSequence = id.PID, id.Epoch, 0
	if _, err := f.c.AppendTransactionalBatch("tx", tp, b, engine.AcksAll); err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.AbortTransaction("tx"); err != nil {
		t.Fatal(err)
	}
	if err := f.c.BeginTransaction("native"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.TransactionSend("native", "t", 0, record.Record{Value: []byte("n")}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.AbortTransaction("native"); err != nil {
		t.Fatal(err)
	}
	f.append(tp, record.NewBatch(recs(3)), engine.Acks1)
	r, err := f.c.ReadBatches(tp, 0, 1<<20, engine.ReadCommitted)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Aborted) != 1 || r.Aborted[0] != (engine.AbortedTransaction{ProducerID: id.PID, FirstOffset: 0}) {
		t.Fatalf("aborted %+v", r.Aborted)
	}
	var kinds []string
	for _, b := range r.Batches {
		switch {
		case b.IsControl():
			kinds = append(kinds, "marker")
			if b.TransactionalID == "tx" && b.ProducerID != id.PID {
				t.Errorf("tx's marker has producer id %d", b.ProducerID)
			}
		case b.Transactional:
			kinds = append(kinds, "txn")
		default:
			kinds = append(kinds, "data")
		}
	}
	// tx's data and marker, native's marker (its data is hidden), then data.
	if got := len(kinds); got != 4 || kinds[0] != "txn" || kinds[3] != "data" {
		t.Fatalf("batches %v", kinds)
	}
}

// TestOffsetForTimestamp: the first visible offset at or after a
// timestamp, with its timestamp and batch epoch; nothing past the HW.
func TestOffsetForTimestamp(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("t", 1, 2)
	tp := engine.TopicPartition{Topic: "t"}
	f.append(tp, record.NewBatch(recs(100, 200, 300)), engine.Acks1)
	f.replicate(&tp)
	f.append(tp, record.NewBatch(recs(400)), engine.Acks1)
	for _, c := range []struct {
		ts    int64
		off   int64
		found bool
	}{{0, 0, true}, {150, 1, true}, {300, 2, true}, {301, 0, false}, {400, 0, false}} {
		got, err := f.c.OffsetForTimestamp(tp, c.ts, engine.ReadUncommitted)
		if err != nil {
			t.Fatal(err)
		}
		if got.Found != c.found || (c.found && got.Offset != c.off) {
			t.Errorf("ts %d: %+v, want offset %d found %v", c.ts, got, c.off, c.found)
		}
	}
	if _, err := f.c.OffsetForTimestamp(tp, -1, engine.ReadUncommitted); !errors.Is(err, kerr.InvalidArgument) {
		t.Fatalf("negative timestamp: %v", err)
	}
}

// TestEndOffsetForLeaderEpoch: Kafka's OffsetForLeaderEpoch answers
// (LeaderEpochFileCache.endOffsetFor): the current epoch ends at the LEO,
// an older epoch at the first offset of the next epoch, an unknown future
// epoch is (-1, -1).
func TestEndOffsetForLeaderEpoch(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("t", 1, 2)
	tp := engine.TopicPartition{Topic: "t"}
	f.append(tp, record.NewBatch(recs(1, 2)), engine.Acks1)
	f.replicate(&tp)
	if err := f.c.Promote(tp, 2); err != nil {
		t.Fatal(err)
	}
	f.append(tp, record.NewBatch(recs(3)), engine.Acks1)
	for _, c := range []struct {
		ask, epoch int32
		end        int64
	}{{1, 1, 3}, {0, 0, 2}, {5, -1, -1}} {
		e, end, err := f.c.EndOffsetForLeaderEpoch(tp, c.ask)
		if err != nil {
			t.Fatal(err)
		}
		if e != c.epoch || end != c.end {
			t.Errorf("epoch %d: (%d, %d), want (%d, %d)", c.ask, e, end, c.epoch, c.end)
		}
	}
}

// TestInitProducerIDFencesAndAbortsOngoing: a transactional id keeps its
// producer id and bumps the epoch; the older epoch is fenced on produce;
// an ONGOING transaction is aborted by the next init, which reports a
// state error until the abort completes.
func TestInitProducerIDFencesAndAbortsOngoing(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("t", 1, 2)
	tp := engine.TopicPartition{Topic: "t"}
	a, err := f.c.InitProducerID("tx")
	if err != nil {
		t.Fatal(err)
	}
	plain, err := f.c.InitProducerID("")
	if err != nil || plain.PID == a.PID {
		t.Fatalf("an idempotent producer got %+v (%v)", plain, err)
	}
	if err := f.c.EnsureTransaction("tx", a.PID, a.Epoch); err != nil {
		t.Fatal(err)
	}
	b := record.NewBatch(recs(1))
	b.ProducerID, b.ProducerEpoch, b.BaseSequence = a.PID, a.Epoch, 0
	if _, err := f.c.AppendTransactionalBatch("tx", tp, b, engine.AcksAll); err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.InitProducerID("tx"); !errors.Is(err, kerr.IllegalState) {
		t.Fatalf("init over an ongoing transaction: %v", err)
	}
	if d, _ := f.c.DescribeTransaction("tx"); d.State != txn.PrepareAbort {
		t.Fatalf("state %v, want PREPARE_ABORT", d.State)
	}
	f.replicate(&tp)
	next, err := f.c.InitProducerID("tx")
	if err != nil {
		t.Fatal(err)
	}
	if next.PID != a.PID || next.Epoch <= a.Epoch {
		t.Fatalf("next identity %+v after %+v", next, a)
	}
	if err := f.c.CheckTransactionalProducer("tx", a.PID, a.Epoch); !errors.Is(err, kerr.ProducerFenced) {
		t.Fatalf("old epoch: %v", err)
	}
	old := record.NewBatch(recs(2))
	old.ProducerID, old.ProducerEpoch, old.BaseSequence = a.PID, a.Epoch, 1
	if _, err := f.c.AppendBatch(tp, old, engine.Acks1); !errors.Is(err, kerr.ProducerFenced) {
		t.Fatalf("a batch of the fenced epoch: %v", err)
	}
	if _, err := f.c.AppendTransactionalBatch("tx", tp, record.NewBatch(recs(3)), engine.Acks1); !errors.Is(err, kerr.InvalidArgument) {
		t.Fatalf("acks=1 transactional batch: %v", err)
	}
}
