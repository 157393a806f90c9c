package replication

import (
	"errors"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
)

func seqBatch(pid int64, epoch, seq int32, n int) *record.Batch {
	recs := make([]record.Record, n)
	for i := range recs {
		recs[i] = record.Record{Value: []byte("v")}
	}
	b := record.NewBatch(recs)
	b.ProducerID, b.ProducerEpoch, b.BaseSequence = pid, epoch, seq
	return b
}

// The outcome table of §8.5.2 (pid 7, epoch 0, a fresh partition).
func TestProducerStateOutcomeTable(t *testing.T) {
	m := NewProducerStateManager()
	leo := int64(0)
	appendOK := func(b *record.Batch) {
		t.Helper()
		dup, err := m.Validate(b)
		if err != nil || dup != nil {
			t.Fatalf("validate: dup=%v err=%v", dup, err)
		}
		a, _ := b.Assign(leo, 0)
		m.Record(metaOf(a, 0))
		leo = a.NextOffset()
	}
	outOfOrder := func(b *record.Batch, expected, actual int64) {
		t.Helper()
		_, err := m.Validate(b)
		e, ok := kerr.As(err)
		if !ok || e.Code != kerr.OutOfOrderSequence || e.Expected != expected || e.Actual != actual {
			t.Fatalf("want OUT_OF_ORDER_SEQUENCE expected %d got %d, have %v", expected, actual, err)
		}
	}
	outOfOrder(seqBatch(7, 0, 1, 1), 0, 1)
	outOfOrder(seqBatch(7, 0, -1, 1), 0, -1)
	appendOK(seqBatch(7, 0, 0, 2)) // offsets 0-1
	dup, err := m.Validate(seqBatch(7, 0, 0, 2))
	if err != nil || dup == nil || dup.BaseOffset != 0 || dup.NextOffset != 2 {
		t.Fatalf("exact retry: %+v %v", dup, err)
	}
	outOfOrder(seqBatch(7, 0, 0, 1), 2, 0) // subset
	appendOK(seqBatch(7, 0, 2, 1))         // offset 2
	outOfOrder(seqBatch(7, 0, 0, 2), 3, 0) // older retry: only the latest batch is remembered
	outOfOrder(seqBatch(7, 0, 2, 2), 3, 2) // overlap
	outOfOrder(seqBatch(7, 1, 5, 1), 0, 5) // a new epoch restarts at 0
	appendOK(seqBatch(7, 1, 0, 1))
	if _, err := m.Validate(seqBatch(7, 0, 1, 1)); !errors.Is(err, kerr.ProducerFenced) {
		t.Fatalf("old epoch: %v", err)
	}
	// Unsequenced batches are never checked.
	if dup, err := m.Validate(record.NewBatch([]record.Record{{}})); dup != nil || err != nil {
		t.Fatal("unsequenced batch")
	}
}

func TestProducerStateRegisterEpochFences(t *testing.T) {
	m := NewProducerStateManager()
	a, _ := seqBatch(5, 0, 0, 1).Assign(0, 0)
	m.Record(metaOf(a, 0))
	if err := m.RegisterEpoch(5, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Validate(seqBatch(5, 0, 1, 1)); !errors.Is(err, kerr.ProducerFenced) {
		t.Fatalf("old instance: %v", err)
	}
	if err := m.CheckEpoch(5, 0); !errors.Is(err, kerr.ProducerFenced) {
		t.Fatalf("lower registration: %v", err)
	}
	// The new epoch starts at sequence 0, and -1 is not a remembered batch.
	if dup, err := m.Validate(seqBatch(5, 1, 0, 1)); dup != nil || err != nil {
		t.Fatalf("new epoch: %v %v", dup, err)
	}
	if _, err := m.Validate(seqBatch(5, 1, -1, 1)); !errors.Is(err, kerr.OutOfOrderSequence) {
		t.Fatalf("sequence -1 after a registration: %v", err)
	}
	es := m.Entries()
	if len(es) != 1 || es[0].PID != 5 || es[0].Registered != 1 {
		t.Fatalf("entries %+v", es)
	}
}
