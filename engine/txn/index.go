package txn

import (
	"cmp"
	"maps"
	"slices"
	"sort"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
)

// Status is what a partition's markers say about a transactional batch.
type Status uint8

// Batch statuses.
const (
	// NonTransactional: a plain batch, always visible below the HW.
	NonTransactional Status = iota
	// Undecided: no marker for the batch's transaction follows it yet.
	Undecided
	// Committed: the first marker for its transaction after it is COMMIT.
	Committed
	// Aborted: the first marker for its transaction after it is ABORT.
	Aborted
)

// String returns "non_transactional", "undecided", "committed" or "aborted".
func (s Status) String() string {
	switch s {
	case NonTransactional:
		return "non_transactional"
	case Undecided:
		return "undecided"
	case Committed:
		return "committed"
	case Aborted:
		return "aborted"
	}
	return "unknown"
}

// Run is one transaction instance's footprint in one partition: its data
// batches from the first (First) up to the marker that closes it. Marker is
// -1 while the run is open; Outcome is then record.NoControl.
type Run struct {
	ID      string
	First   int64
	Marker  int64
	Outcome record.ControlType
}

// IsOpen reports whether no marker has closed the run yet.
func (r Run) IsOpen() bool { return r.Marker < 0 }

// Index is the transaction index of one partition replica's log: it is fed
// the metas of the log's batches in offset order (Add), forgets a suffix when
// the log is truncated (TruncateTo), and answers read_committed questions
// without reading records. Markers for an id with no open run (a retried
// marker, or a marker after truncated data) are ignored.
//
// Cost: Add and Status are O(log runs of that id); TruncateTo is O(ids);
// FirstUnstable is O(open ids + runs whose marker is at or above the HW).
type Index struct {
	next   int64            // offset after the last batch fed
	runs   map[string][]Run // per id, ascending First; only the last may be open
	open   map[string]int64 // id → First of its open run
	closed []Run            // every closed run, ascending Marker
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{runs: map[string][]Run{}, open: map[string]int64{}}
}

// NextOffset returns the offset after the last batch fed (0 when empty).
func (x *Index) NextOffset() int64 { return x.next }

// Add feeds one batch. Batches must come in offset order: a batch starting
// below the previous batch's next offset is INVALID_RECORD and changes
// nothing. Gaps (compaction, a log that starts above 0) are fine.
func (x *Index) Add(m record.Meta) error {
	if m.BaseOffset < x.next {
		return kerr.New(kerr.InvalidRecord, "transaction index: batch at offset %d is below %d", m.BaseOffset, x.next)
	}
	x.next = m.NextOffset()
	if !m.Transactional {
		return nil
	}
	id := m.TransactionalID
	if m.IsControl() {
		if _, ok := x.open[id]; !ok {
			return nil
		}
		runs := x.runs[id]
		last := &runs[len(runs)-1]
		last.Marker, last.Outcome = m.BaseOffset, m.Control
		x.closed = append(x.closed, *last)
		delete(x.open, id)
		return nil
	}
	if _, ok := x.open[id]; !ok {
		x.open[id] = m.BaseOffset
		x.runs[id] = append(x.runs[id], Run{ID: id, First: m.BaseOffset, Marker: -1})
	}
	return nil
}

// TruncateTo forgets every batch at or after offset, as the log's own
// truncation does: runs that start there vanish, and a run whose marker is
// cut off is open again.
func (x *Index) TruncateTo(offset int64) {
	if offset >= x.next {
		return
	}
	x.next = offset
	for _, id := range slices.Sorted(maps.Keys(x.runs)) {
		runs := x.runs[id]
		keep := sort.Search(len(runs), func(i int) bool { return runs[i].First >= offset })
		runs = runs[:keep]
		delete(x.open, id)
		if len(runs) == 0 {
			delete(x.runs, id)
			continue
		}
		if last := &runs[len(runs)-1]; last.IsOpen() || last.Marker >= offset {
			last.Marker, last.Outcome = -1, record.NoControl
			x.open[id] = last.First
		}
		x.runs[id] = runs
	}
	cut := sort.Search(len(x.closed), func(i int) bool { return x.closed[i].Marker >= offset })
	x.closed = x.closed[:cut]
}

// Status returns what the markers say about the transactional batch of id
// starting at offset. A batch the index never saw is Undecided.
func (x *Index) Status(id string, offset int64) Status {
	runs := x.runs[id]
	i := sort.Search(len(runs), func(i int) bool { return runs[i].First > offset }) - 1
	if i < 0 {
		return Undecided
	}
	r := runs[i]
	switch {
	case r.IsOpen() || r.Marker < offset:
		return Undecided
	case r.Outcome == record.Commit:
		return Committed
	default:
		return Aborted
	}
}

// Visible reports whether a read_committed reader below the LSO gets the
// batch's records: not a marker, and either not transactional or committed.
func (x *Index) Visible(m record.Meta) bool {
	if m.IsControl() {
		return false
	}
	if !m.Transactional {
		return true
	}
	return x.Status(m.TransactionalID, m.BaseOffset) == Committed
}

// OpenRun returns the first offset of id's open run, if it has one: the
// run a further batch of id would join, and a marker of id would close.
func (x *Index) OpenRun(id string) (first int64, ok bool) {
	first, ok = x.open[id]
	return first, ok
}

// OpenRuns returns the runs with no marker yet, by first offset then id.
func (x *Index) OpenRuns() []Run {
	out := make([]Run, 0, len(x.open))
	for id, first := range x.open {
		out = append(out, Run{ID: id, First: first, Marker: -1})
	}
	sortRuns(out)
	return out
}

// UnstableRuns returns the runs a read_committed reader must not pass yet:
// open runs, and closed runs whose marker is at or above hw (not replicated
// to every in-sync replica, so a leader change could still cut it off). By
// first offset then id.
func (x *Index) UnstableRuns(hw int64) []Run {
	out := x.OpenRuns()
	i := sort.Search(len(x.closed), func(i int) bool { return x.closed[i].Marker >= hw })
	out = append(out, x.closed[i:]...)
	sortRuns(out)
	return out
}

// FirstUnstable returns the smallest first offset among UnstableRuns(hw).
func (x *Index) FirstUnstable(hw int64) (int64, bool) {
	first, found := int64(0), false
	for _, f := range x.open {
		if !found || f < first {
			first, found = f, true
		}
	}
	i := sort.Search(len(x.closed), func(i int) bool { return x.closed[i].Marker >= hw })
	for _, r := range x.closed[i:] {
		if !found || r.First < first {
			first, found = r.First, true
		}
	}
	return first, found
}

// AbortedRanges returns the aborted runs that overlap [from, to): those with
// First < to and Marker >= from, by first offset then id. A reader skips
// batches of that id between First and Marker (Kafka's aborted transactions
// list in a fetch response).
func (x *Index) AbortedRanges(from, to int64) []Run {
	var out []Run
	for _, r := range x.closed {
		if r.Outcome == record.Abort && r.First < to && r.Marker >= from {
			out = append(out, r)
		}
	}
	sortRuns(out)
	return out
}

// Runs returns every run of id, oldest first (for describe views and tests).
func (x *Index) Runs(id string) []Run { return slices.Clone(x.runs[id]) }

func sortRuns(rs []Run) {
	slices.SortFunc(rs, func(a, b Run) int {
		if c := cmp.Compare(a.First, b.First); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}
