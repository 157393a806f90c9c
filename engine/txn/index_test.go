package txn

import (
	"errors"
	"reflect"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
)

func TestIndexStatusFromMarkers(t *testing.T) {
	t.Parallel()
	l := newFakeLog()
	a0 := l.appendTxn(t, "a", "a0")       // 0
	p1 := l.appendPlain(t, "p1")          // 1
	b0 := l.appendTxn(t, "b", "b0")       // 2
	a1 := l.appendTxn(t, "a", "a1")       // 3
	l.appendMarker(t, "a", record.Commit) // 4
	l.appendMarker(t, "b", record.Abort)  // 5
	c0 := l.appendTxn(t, "c", "c0")       // 6
	x := l.idx
	for _, c := range []struct {
		id   string
		off  int64
		want Status
	}{{"a", a0, Committed}, {"a", a1, Committed}, {"b", b0, Aborted}, {"c", c0, Undecided}, {"zz", 0, Undecided}} {
		if got := x.Status(c.id, c.off); got != c.want {
			t.Fatalf("%s@%d: %v, want %v", c.id, c.off, got, c.want)
		}
	}
	if !x.Visible(l.metas[p1]) || !x.Visible(l.metas[a0]) || x.Visible(l.metas[b0]) || x.Visible(l.metas[4]) || x.Visible(l.metas[c0]) {
		t.Fatal("visibility")
	}
	if got := x.OpenRuns(); !reflect.DeepEqual(got, []Run{{ID: "c", First: 6, Marker: -1}}) {
		t.Fatalf("open %+v", got)
	}
	if got := x.AbortedRanges(0, 7); !reflect.DeepEqual(got, []Run{{ID: "b", First: 2, Marker: 5, Outcome: record.Abort}}) {
		t.Fatalf("aborted %+v", got)
	}
	if got := x.AbortedRanges(6, 7); len(got) != 0 {
		t.Fatalf("aborted after the range %+v", got)
	}
	if got := x.AbortedRanges(0, 2); len(got) != 0 {
		t.Fatalf("aborted before the range %+v", got)
	}
}

// Kafka's rule: a run is unstable until the HW passes its marker.
func TestIndexUnstableUntilMarkerReplicated(t *testing.T) {
	t.Parallel()
	l := newFakeLog()
	l.appendPlain(t, "p")
	l.appendTxn(t, "a", "a0")
	if f, ok := l.idx.FirstUnstable(2); !ok || f != 1 {
		t.Fatalf("open run: %d %v", f, ok)
	}
	l.appendMarker(t, "a", record.Commit) // marker at 2
	if f, ok := l.idx.FirstUnstable(2); !ok || f != 1 {
		t.Fatalf("marker not replicated: %d %v", f, ok)
	}
	if _, ok := l.idx.FirstUnstable(3); ok {
		t.Fatal("marker replicated: still unstable")
	}
	if got := l.idx.UnstableRuns(2); !reflect.DeepEqual(got, []Run{{ID: "a", First: 1, Marker: 2, Outcome: record.Commit}}) {
		t.Fatalf("unstable %+v", got)
	}
}

// Truncation (a leader change) cuts markers and runs: a run whose marker is
// cut is open again; a run that starts at or after the cut disappears.
func TestIndexTruncate(t *testing.T) {
	t.Parallel()
	l := newFakeLog()
	l.appendTxn(t, "a", "a0")             // 0
	l.appendMarker(t, "a", record.Commit) // 1
	l.appendTxn(t, "a", "a1")             // 2
	l.appendTxn(t, "b", "b0")             // 3
	l.appendMarker(t, "a", record.Abort)  // 4
	l.appendMarker(t, "b", record.Commit) // 5
	l.truncate(4)
	if l.idx.NextOffset() != 4 {
		t.Fatalf("next %d", l.idx.NextOffset())
	}
	if l.idx.Status("a", 0) != Committed || l.idx.Status("a", 2) != Undecided || l.idx.Status("b", 3) != Undecided {
		t.Fatal("statuses after truncation")
	}
	want := []Run{{ID: "a", First: 2, Marker: -1}, {ID: "b", First: 3, Marker: -1}}
	if got := l.idx.OpenRuns(); !reflect.DeepEqual(got, want) {
		t.Fatalf("open %+v", got)
	}
	l.truncate(2)
	if got := l.idx.OpenRuns(); len(got) != 0 {
		t.Fatalf("open after second cut %+v", got)
	}
	if got := l.idx.Runs("a"); len(got) != 1 || got[0].Marker != 1 {
		t.Fatalf("runs of a %+v", got)
	}
	// The log continues: a new instance of a aborts this time.
	l.appendTxn(t, "a", "a2")
	l.appendMarker(t, "a", record.Abort)
	if l.idx.Status("a", 0) != Committed || l.idx.Status("a", 2) != Aborted {
		t.Fatal("statuses after re-append")
	}
	l.idx.TruncateTo(100) // beyond the end: nothing happens
	if l.idx.NextOffset() != 4 {
		t.Fatal("truncate beyond the end changed the index")
	}
}

func TestIndexRejectsOutOfOrderAndIgnoresStrayMarkers(t *testing.T) {
	t.Parallel()
	x := NewIndex()
	if err := x.Add(record.Meta{BaseOffset: 5, Transactional: true, TransactionalID: "a", Control: record.Commit}); err != nil {
		t.Fatal(err)
	}
	if len(x.Runs("a")) != 0 || x.NextOffset() != 6 {
		t.Fatal("a stray marker created a run")
	}
	err := x.Add(record.Meta{BaseOffset: 3})
	if !errors.Is(err, kerr.InvalidRecord) || x.NextOffset() != 6 {
		t.Fatalf("out of order: %v", err)
	}
}

func TestStatusNames(t *testing.T) {
	t.Parallel()
	for s, w := range map[Status]string{NonTransactional: "non_transactional", Undecided: "undecided", Committed: "committed", Aborted: "aborted"} {
		if s.String() != w {
			t.Fatalf("%d: %s", s, s)
		}
	}
}
