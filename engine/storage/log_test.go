package storage

import (
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
)

// L1: three 114-byte batches with threshold 120 roll; fetch(1) reads across
// segments.
func TestL1RollAndFetch(t *testing.T) {
	t.Parallel()
	l, _ := mustOpen(t, t.TempDir(), opts(120, 1))
	for _, v := range []string{"a", "b", "c"} {
		mustAppend(t, l, values(0, strings.Repeat(v, 40)))
	}
	if n := len(l.Segments()); n < 2 {
		t.Fatalf("%d segments, want >= 2", n)
	}
	recs, err := l.Fetch(1, 10, -1)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "values", valuesOf(recs), []string{strings.Repeat("b", 40), strings.Repeat("c", 40)})
	if l.LEO() != 3 {
		t.Fatalf("LEO %d", l.LEO())
	}
}

// L2: end offsets, fetch at LEO, fetch beyond LEO.
func TestL2FetchBounds(t *testing.T) {
	t.Parallel()
	l, _ := mustOpen(t, t.TempDir(), opts(0, 0))
	mustAppend(t, l, values(0, "a", "b", "c"))
	recs, err := l.Fetch(0, 10, 2)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "offsets", offsetValues(recs), []string{"0:-=a", "1:-=b"})
	if recs, err := l.Fetch(3, 10, -1); err != nil || len(recs) != 0 {
		t.Fatalf("fetch(3) = %v, %v", recs, err)
	}
	_, err = l.Fetch(4, 1, -1)
	wantCode(t, err, kerr.OffsetOutOfRange, "offset 4 outside retained range [0, 3]")
	_, err = l.Fetch(0, -1, -1)
	wantCode(t, err, kerr.InvalidArgument, "")
	if recs, err := l.Fetch(0, 0, -1); err != nil || len(recs) != 0 {
		t.Fatalf("fetch max 0 = %v, %v", recs, err)
	}
	if recs, _ := l.Fetch(1, 1, -1); len(recs) != 1 || recs[0].Offset != 1 {
		t.Fatalf("fetch(1, 1) = %v", offsetValues(recs))
	}
}

// L3: truncation only at batch boundaries.
func TestL3TruncateBoundary(t *testing.T) {
	t.Parallel()
	l, _ := mustOpen(t, t.TempDir(), opts(0, 0))
	mustAppend(t, l, values(0, "a", "b"))
	mustAppend(t, l, values(0, "c"))
	wantCode(t, l.TruncateTo(1), kerr.InvalidRecord, "truncate offset 1 is not a batch boundary")
	if l.LEO() != 3 {
		t.Fatalf("refused truncate changed LEO to %d", l.LEO())
	}
	if err := l.TruncateTo(2); err != nil {
		t.Fatal(err)
	}
	if l.LEO() != 2 {
		t.Fatalf("LEO %d", l.LEO())
	}
	wantEqual(t, "values", valuesOf(fetchAll(t, l)), []string{"a", "b"})
	wantCode(t, l.TruncateTo(3), kerr.OffsetOutOfRange, "")
}

// L4: the first batch is returned even when it exceeds the budget.
func TestL4ReadBatchesFirstAlways(t *testing.T) {
	t.Parallel()
	l, _ := mustOpen(t, t.TempDir(), opts(0, 0))
	mustAppend(t, l, values(0, strings.Repeat("a", 100)))
	mustAppend(t, l, values(0, "b"))
	got, err := l.ReadBatches(0, 1, -1)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Meta.BaseOffset != 0 || len(got[0].Frame) != 174 {
		t.Fatalf("read %d batches", len(got))
	}
}

// L5: close and reopen keeps offsets and segment bases.
func TestL5Restart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, _ := mustOpen(t, dir, opts(100, 1))
	for _, v := range []string{"a", "b", "c"} {
		mustAppend(t, l, values(0, strings.Repeat(v, 40)))
	}
	before := bases(l)
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l, _ = mustOpen(t, dir, opts(100, 1))
	if l.LEO() != 3 {
		t.Fatalf("LEO %d", l.LEO())
	}
	wantEqual(t, "bases", bases(l), before)
	var offs []int64
	for _, r := range fetchAll(t, l) {
		offs = append(offs, r.Offset)
	}
	wantEqual(t, "offsets", offs, []int64{0, 1, 2})
}

// §6.5.2 rolling examples.
func TestRollingExamples(t *testing.T) {
	t.Parallel()
	l, _ := mustOpen(t, t.TempDir(), opts(120, 1))
	for i := 0; i < 3; i++ {
		if info := mustAppend(t, l, values(int64(i), "value-"+string(rune('0'+i)))); info.Size != 81 {
			t.Fatalf("size %d", info.Size)
		}
	}
	wantEqual(t, "bases", bases(l), []int64{0, 1, 2})
	idx, _ := l.Index(-1)
	wantEqual(t, "active index", idx, []IndexEntry{{2, 0}})

	l, _ = mustOpen(t, t.TempDir(), opts(80, 1))
	for i := 0; i < 3; i++ {
		mustAppend(t, l, values(0, strings.Repeat("v", 20)))
	}
	wantEqual(t, "bases", bases(l), []int64{0, 1, 2})

	l, _ = mustOpen(t, t.TempDir(), opts(120, 1))
	if info := mustAppend(t, l, values(0, strings.Repeat("x", 500))); info.Size != 574 || info.Segment != 0 || info.Rolled {
		t.Fatalf("oversized append %+v", info)
	}
	if info := mustAppend(t, l, values(0, "y")); info.Segment != 1 || !info.Rolled {
		t.Fatalf("next append %+v", info)
	}
	// Roll on an empty active segment does nothing.
	if err := l.Roll(); err != nil {
		t.Fatal(err)
	}
	if err := l.Roll(); err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "bases", bases(l), []int64{0, 1, 2})
}

// §6.5.3 byte-budget examples.
func TestReadBatchesBudget(t *testing.T) {
	t.Parallel()
	l, _ := mustOpen(t, t.TempDir(), opts(0, 0))
	mustAppend(t, l, values(0, "value-0"))
	mustAppend(t, l, values(0, "value-1"))
	for budget, want := range map[int]int{0: 1, 81: 1, 161: 1, 162: 2, -5: 1} {
		got, err := l.ReadBatches(0, budget, -1)
		if err != nil || len(got) != want {
			t.Fatalf("budget %d: %d batches (%v), want %d", budget, len(got), err, want)
		}
	}
	// The batch containing the offset comes first; end stops later batches.
	got, _ := l.ReadBatches(1, 1000, 1)
	if len(got) != 0 {
		t.Fatalf("read from 1 with end 1: %d batches", len(got))
	}
	got, _ = l.ReadBatches(0, 1000, 1)
	if len(got) != 1 {
		t.Fatalf("end 1: %d batches", len(got))
	}
	_, err := l.ReadBatches(3, 10, -1)
	wantCode(t, err, kerr.OffsetOutOfRange, "")
	if got, err := l.ReadBatches(2, 10, -1); err != nil || len(got) != 0 {
		t.Fatalf("read at LEO: %v %v", got, err)
	}
}

// A follower's append keeps the leader's bytes and epoch exactly.
func TestAppendRawKeepsBytes(t *testing.T) {
	t.Parallel()
	leader, _ := mustOpen(t, t.TempDir(), opts(0, 0))
	leader.SetLeaderEpoch(7)
	a, _, err := leader.Append(values(5, "x", "y"))
	if err != nil || a.LeaderEpoch != 7 || a.BaseOffset != 0 {
		t.Fatalf("assigned %+v %v", a, err)
	}
	mustAppend(t, leader, record.NewControlBatch("tx", record.Commit))
	batches, err := leader.ReadBatches(0, 1<<20, -1)
	if err != nil || len(batches) != 2 {
		t.Fatalf("%d batches %v", len(batches), err)
	}
	follower, _ := mustOpen(t, t.TempDir(), opts(0, 0))
	for _, b := range batches {
		if _, err := follower.AppendRaw(b.Frame); err != nil {
			t.Fatal(err)
		}
	}
	copied, _ := follower.ReadBatches(0, 1<<20, -1)
	for i := range batches {
		if string(copied[i].Frame) != string(batches[i].Frame) {
			t.Fatalf("batch %d bytes differ", i)
		}
	}
	if follower.LEO() != 3 || follower.LeaderEpoch() != 0 {
		t.Fatalf("follower LEO %d epoch %d", follower.LEO(), follower.LeaderEpoch())
	}
	// A damaged frame is CORRUPT_BATCH and changes nothing.
	bad := append([]byte(nil), batches[0].Frame...)
	bad[len(bad)-1] ^= 1
	_, err = follower.AppendRaw(bad)
	wantCode(t, err, kerr.CorruptBatch, "CRC")
	_, err = follower.AppendRaw(batches[0].Frame)
	wantCode(t, err, kerr.InvalidRecord, "expected base offset 3, got 0")
	if follower.LEO() != 3 {
		t.Fatal("refused appends changed LEO")
	}
}

func TestAppendRejectsAssignedAndInvalid(t *testing.T) {
	t.Parallel()
	l, _ := mustOpen(t, t.TempDir(), opts(0, 0))
	b, _ := values(0, "x").Assign(0, 0)
	_, _, err := l.Append(b)
	wantCode(t, err, kerr.InvalidRecord, "already assigned")
	_, _, err = l.Append(record.NewBatch(nil))
	wantCode(t, err, kerr.InvalidRecord, "at least one record")
	if l.LEO() != 0 || l.SizeBytes() != 0 {
		t.Fatal("refused appends changed the log")
	}
}

// The leader epoch recovered at open is the max of the passed epoch and
// every stored batch's epoch, after a crash and after a clean close alike.
func TestLeaderEpochRecovery(t *testing.T) {
	t.Parallel()
	for _, clean := range []bool{false, true} {
		dir := t.TempDir()
		l, _ := mustOpen(t, dir, opts(100, 0))
		l.SetLeaderEpoch(4)
		mustAppend(t, l, values(0, strings.Repeat("a", 40)))
		l.SetLeaderEpoch(2)
		mustAppend(t, l, values(0, strings.Repeat("b", 40)))
		if clean {
			l.Close()
		} else {
			l.Crash(true)
		}
		l2, rep, err := Open(dir, opts(100, 0), 1)
		if err != nil {
			t.Fatal(err)
		}
		if l2.LeaderEpoch() != 4 || rep.CleanShutdown != clean {
			t.Fatalf("clean=%v: epoch %d report %+v", clean, l2.LeaderEpoch(), rep)
		}
		l2.Close()
		l3, _, _ := Open(dir, opts(100, 0), 9)
		if l3.LeaderEpoch() != 9 {
			t.Fatalf("passed epoch 9 ignored: %d", l3.LeaderEpoch())
		}
		l3.Close()
	}
}

func TestClosedLogRefusesWork(t *testing.T) {
	t.Parallel()
	l, _ := mustOpen(t, t.TempDir(), opts(0, 0))
	mustAppend(t, l, values(0, "a"))
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	_, _, err := l.Append(values(0, "b"))
	wantCode(t, err, kerr.IllegalState, "closed")
	_, err = l.Fetch(0, 1, -1)
	wantCode(t, err, kerr.IllegalState, "closed")
	if l.LEO() != 1 {
		t.Fatal("accessor changed after close")
	}
	if err := l.Close(); err != nil {
		t.Fatal("second close:", err)
	}
}

func TestBatchesFrom(t *testing.T) {
	t.Parallel()
	l, _ := mustOpen(t, t.TempDir(), opts(100, 0))
	for i := 0; i < 5; i++ {
		mustAppend(t, l, values(0, strings.Repeat("v", 30), "w"))
	}
	var got []int64
	err := l.Batches(3, func(b RawBatch) error { got = append(got, b.Meta.BaseOffset); return nil })
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "bases", got, []int64{2, 4, 6, 8})
	got = nil
	l.Batches(-1, func(b RawBatch) error { got = append(got, b.Segment); return nil })
	if len(got) != 5 {
		t.Fatalf("all batches: %v", got)
	}
}
