package replication

import (
	"bytes"
	"slices"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/record"
)

// snapshotSample is a manager with two producers, one of them past an
// epoch bump and one only registered, under a window of five.
func snapshotSample() *ProducerStateManager {
	m := NewProducerStateManagerFor(&Rules{DedupeWindow: MaxDedupeWindow})
	for _, meta := range []record.Meta{
		{BaseOffset: 0, ProducerID: 7, ProducerEpoch: 0, BaseSequence: 0, LastOffsetDelta: 1, RecordCount: 2},
		{BaseOffset: 2, ProducerID: 7, ProducerEpoch: 0, BaseSequence: 2},
		{BaseOffset: 3, ProducerID: 9, ProducerEpoch: 1, BaseSequence: 0},
		{BaseOffset: 4, ProducerID: 9, ProducerEpoch: 2, BaseSequence: 0},
		{BaseOffset: 5, ProducerID: 9, ProducerEpoch: 2, BaseSequence: record.NoSequence, Control: record.Commit, Transactional: true},
	} {
		if meta.RecordCount == 0 && meta.Control == record.NoControl {
			meta.RecordCount = 1
		}
		m.Record(meta)
	}
	m.RegisterEpoch(11, 3)
	return m
}

// A snapshot decodes to the same state: the same entries, and the same
// answers to a duplicate and to the next batch.
func TestProducerSnapshotRoundTrip(t *testing.T) {
	m := snapshotSample()
	b := m.AppendSnapshot([]byte("prefix"))
	got, rest, err := DecodeProducerSnapshot(append(b[len("prefix"):], "tail"...), m.rules)
	if err != nil || string(rest) != "tail" {
		t.Fatalf("decode: %v, rest %q", err, rest)
	}
	if a, b := m.Entries(), got.Entries(); !slices.Equal(a, b) {
		t.Fatalf("entries %+v, want %+v", b, a)
	}
	if !bytes.Equal(got.AppendSnapshot(nil), b[len("prefix"):]) {
		t.Fatal("re-encoding differs")
	}
	for i := range len(b) - len("prefix") {
		if _, _, err := DecodeProducerSnapshot(b[len("prefix"):len("prefix")+i], nil); err == nil {
			t.Fatalf("a snapshot cut to %d bytes decoded", i)
		}
	}
}

// FuzzProducerSnapshot: any bytes decode without panicking, and what
// decodes is canonical: it encodes back to exactly the bytes it came from.
func FuzzProducerSnapshot(f *testing.F) {
	f.Add(snapshotSample().AppendSnapshot(nil))
	f.Add(NewProducerStateManager().AppendSnapshot(nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, rest, err := DecodeProducerSnapshot(b, nil)
		if err != nil {
			return
		}
		if again := m.AppendSnapshot(nil); !bytes.Equal(again, b[:len(b)-len(rest)]) {
			t.Fatalf("re-encoded %x, want %x", again, b[:len(b)-len(rest)])
		}
		m.Entries() // consistent enough to describe
	})
}
