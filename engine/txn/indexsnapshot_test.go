package txn

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/record"
)

// indexSample is an index with a committed, an aborted and an open run,
// and an id with two runs.
func indexSample() *Index {
	x := NewIndex()
	for _, m := range []record.Meta{
		{BaseOffset: 0, RecordCount: 1},
		{BaseOffset: 1, RecordCount: 1, Transactional: true, TransactionalID: "a"},
		{BaseOffset: 2, RecordCount: 1, Transactional: true, TransactionalID: "b"},
		{BaseOffset: 3, Transactional: true, TransactionalID: "a", Control: record.Commit},
		{BaseOffset: 4, Transactional: true, TransactionalID: "b", Control: record.Abort},
		{BaseOffset: 5, RecordCount: 1, Transactional: true, TransactionalID: "a"},
		{BaseOffset: 6, RecordCount: 1, Transactional: true, TransactionalID: "c"},
		{BaseOffset: 7, Transactional: true, TransactionalID: "c", Control: record.Commit},
		{BaseOffset: 8, RecordCount: 1},
	} {
		if err := x.Add(m); err != nil {
			panic(err)
		}
	}
	return x
}

// A snapshot decodes to an index equal to the one written, which answers
// every question alike; a cut snapshot never decodes.
func TestIndexSnapshotRoundTrip(t *testing.T) {
	x := indexSample()
	b := x.AppendSnapshot(nil)
	got, rest, err := DecodeIndexSnapshot(append(b, "tail"...))
	if err != nil || string(rest) != "tail" {
		t.Fatalf("decode: %v, rest %q", err, rest)
	}
	if !reflect.DeepEqual(got, x) {
		t.Fatalf("decoded %+v, want %+v", got, x)
	}
	if got.Status("a", 5) != Undecided || got.Status("b", 2) != Aborted || got.Status("c", 6) != Committed {
		t.Fatal("the decoded index answers differently")
	}
	for i := range len(b) {
		if _, _, err := DecodeIndexSnapshot(b[:i]); err == nil {
			t.Fatalf("a snapshot cut to %d bytes decoded", i)
		}
	}
}

// FuzzIndexSnapshot: any bytes decode without panicking, and what decodes
// is canonical: it encodes back to exactly the bytes it came from.
func FuzzIndexSnapshot(f *testing.F) {
	f.Add(indexSample().AppendSnapshot(nil))
	f.Add(NewIndex().AppendSnapshot(nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		x, rest, err := DecodeIndexSnapshot(b)
		if err != nil {
			return
		}
		if again := x.AppendSnapshot(nil); !bytes.Equal(again, b[:len(b)-len(rest)]) {
			t.Fatalf("re-encoded %x, want %x", again, b[:len(b)-len(rest)])
		}
		x.FirstUnstable(x.NextOffset())
		x.UnstableRuns(0)
	})
}
