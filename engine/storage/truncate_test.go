package storage

import (
	"os"
	"slices"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// gapLog builds a compacted log with interior offset gaps, then more
// segments after it:
//
//	segment 0 (compacted): x@0, a@2, y@3, b@5, z@6   (1 and 4 are gaps)
//	segment 7: w@7 | segment 8: c@8, d@9 | segment 10 (active): e@10
func gapLog(t *testing.T, dir string) *Log {
	l, _ := mustOpen(t, dir, opts(1<<20, 1))
	kv(t, l, "x=1@0", "a=1@1", "|", "a=2@2", "y=1@3", "b=1@4", "|", "b=2@5", "z=1@6", "|", "w=1@7")
	if _, err := l.Compact(10, 1000, nil); err != nil {
		t.Fatal(err)
	}
	kv(t, l, "|", "c=1@8", "d=1@9", "|", "e=1@10")
	wantEqual(t, "bases", bases(l), []int64{0, 7, 8, 10})
	wantEqual(t, "records", offsetValues(fetchAll(t, l)), []string{
		"0:x=1", "2:a=2", "3:y=1", "5:b=2", "6:z=1", "7:w=1", "8:c=1", "9:d=1", "10:e=1"})
	return l
}

// fileBytes reads every file of dir.
func fileBytes(t *testing.T, dir string) map[string]string {
	entries, _ := os.ReadDir(dir)
	out := map[string]string{}
	for _, e := range entries {
		b, _ := os.ReadFile(dir + "/" + e.Name())
		out[e.Name()] = string(b)
	}
	return out
}

// Decision 9: truncating a compacted log keeps everything below the
// boundary, keeps the log start, and touches only the segment holding the
// boundary and later ones.
func TestDecision9TruncateAcrossCompactionGap(t *testing.T) {
	t.Parallel()
	cases := []struct {
		to      int64
		want    []string
		bases   []int64
		touched []int64 // segments whose files may change
	}{
		{9, []string{"0:x=1", "2:a=2", "3:y=1", "5:b=2", "6:z=1", "7:w=1", "8:c=1"}, []int64{0, 7, 8}, []int64{8, 10}},
		{8, []string{"0:x=1", "2:a=2", "3:y=1", "5:b=2", "6:z=1", "7:w=1"}, []int64{0, 7, 8}, []int64{7, 8, 10}},
		// 4 is y@3's next offset: a boundary inside the gap before b@5.
		{4, []string{"0:x=1", "2:a=2", "3:y=1"}, []int64{0}, []int64{0, 7, 8, 10}},
		// 5 is b@5's base; the kept batches end at 4, so a new segment starts at 5.
		{5, []string{"0:x=1", "2:a=2", "3:y=1"}, []int64{0, 5}, []int64{0, 7, 8, 10}},
		{1, []string{"0:x=1"}, []int64{0}, []int64{0, 7, 8, 10}},
		{2, []string{"0:x=1"}, []int64{0, 2}, []int64{0, 7, 8, 10}},
		{0, nil, []int64{0}, []int64{0, 7, 8, 10}},
	}
	for _, c := range cases {
		dir := t.TempDir()
		l := gapLog(t, dir)
		before := fileBytes(t, dir)
		if err := l.TruncateTo(c.to); err != nil {
			t.Fatalf("truncate to %d: %v", c.to, err)
		}
		check := func(l *Log, when string) {
			if l.LEO() != c.to || l.LogStartOffset() != 0 {
				t.Fatalf("%s truncate to %d: LEO %d start %d", when, c.to, l.LEO(), l.LogStartOffset())
			}
			wantEqual(t, when+" records", offsetValues(fetchAll(t, l)), c.want)
			wantEqual(t, when+" bases", bases(l), c.bases)
		}
		check(l, "after")
		after := fileBytes(t, dir)
		for name, b := range before {
			base, _ := ParseSegmentFileName(name)
			mayChange := false
			for _, tb := range c.touched {
				mayChange = mayChange || tb == base
			}
			if !mayChange && after[name] != b {
				t.Fatalf("truncate to %d changed %s", c.to, name)
			}
		}
		// The result is durable and recovers identically.
		l.Crash(false)
		l2, _ := mustOpen(t, dir, opts(1<<20, 1))
		check(l2, "reopened")
		mustAppend(t, l2, values(0, "next"))
		if l2.LEO() != c.to+1 {
			t.Fatalf("append after truncate to %d got LEO %d", c.to, l2.LEO())
		}
	}
}

// Offsets inside a batch or inside a gap (not after a batch) are refused.
func TestTruncateRejectsNonBoundaries(t *testing.T) {
	t.Parallel()
	l := gapLog(t, t.TempDir())
	before := fileBytes(t, l.Dir())
	for _, off := range []int64{12, -1} {
		wantCode(t, l.TruncateTo(off), kerr.OffsetOutOfRange, "")
	}
	// E8 in the reference lost data here; a refused truncation changes nothing.
	mustAppend(t, l, values(0, "a", "b", "c")) // offsets 11..13 in one batch
	wantCode(t, l.TruncateTo(12), kerr.InvalidRecord, "truncate offset 12 is not a batch boundary")
	if l.LEO() != 14 {
		t.Fatal("refused truncate changed LEO")
	}
	l.Flush()
	after := fileBytes(t, l.Dir())
	for name, b := range before {
		if name != SegmentFileName(10) && name != IndexFileName(10) && after[name] != b {
			t.Fatalf("refused truncate changed %s", name)
		}
	}
	if err := l.TruncateTo(14); err != nil {
		t.Fatal("truncate to LEO must be a no-op:", err)
	}
}

// Truncation across segments of a plain log, with unflushed bytes.
func TestTruncateAcrossSegments(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, _ := mustOpen(t, dir, opts(200, 1))
	for i := 0; i < 10; i++ {
		mustAppend(t, l, values(int64(i), "abcdefghijklmnopqrstuvwxyz"))
	}
	wantEqual(t, "bases", bases(l), []int64{0, 2, 4, 6, 8})
	if err := l.TruncateTo(5); err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "bases", bases(l), []int64{0, 2, 4})
	if l.UnflushedBytes() != 0 {
		t.Fatalf("truncation left %d unflushed bytes", l.UnflushedBytes())
	}
	idx, _ := l.Index(4)
	wantEqual(t, "index", idx, []IndexEntry{{4, 0}})
	if ts := l.Segments()[2].MaxTimestamp; ts != 4 {
		t.Fatalf("max timestamp %d after truncation, want 4", ts)
	}
	info := mustAppend(t, l, values(50, "x"))
	if info.BaseOffset != 5 || info.Segment != 4 || info.Position != 100 {
		t.Fatalf("append after truncation %+v", info)
	}
	if err := l.TruncateTo(0); err != nil {
		t.Fatal(err)
	}
	if l.LEO() != 0 || len(l.Segments()) != 1 || l.SizeBytes() != 0 {
		t.Fatalf("truncate to start: %+v", l.Segments())
	}
}

// After retention the log start is a boundary and stays the log start.
func TestTruncateToLogStartAfterRetention(t *testing.T) {
	t.Parallel()
	l := retentionLog(t, t.TempDir(), 0, 50, 150, 250)
	l.ApplyRetention(300, 100, -1)
	if err := l.TruncateTo(3); err != nil {
		t.Fatal(err)
	}
	if l.LogStartOffset() != 3 || l.LEO() != 3 {
		t.Fatalf("start %d LEO %d", l.LogStartOffset(), l.LEO())
	}
	wantCode(t, l.TruncateTo(2), kerr.OffsetOutOfRange, "")
}

// ResetTo empties the log and restarts it at any offset, durably.
func TestResetTo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := retentionLog(t, dir, 0, 50, 150, 250)
	l.SetLeaderEpoch(3)
	mustAppend(t, l, values(0, "pending")) // still buffered
	if err := l.ResetTo(42); err != nil {
		t.Fatal(err)
	}
	if l.LogStartOffset() != 42 || l.LEO() != 42 || l.SizeBytes() != 0 || l.LeaderEpoch() != 3 {
		t.Fatalf("start %d LEO %d size %d epoch %d", l.LogStartOffset(), l.LEO(), l.SizeBytes(), l.LeaderEpoch())
	}
	wantEqual(t, "files", keys(fileBytes(t, dir)), []string{SegmentFileName(42)}) // the index file comes with the first flush
	mustAppend(t, l, values(0, "x"))
	l.Crash(false)
	l, _ = mustOpen(t, dir, opts(80, 1))
	if l.LogStartOffset() != 42 || l.LEO() != 42 {
		t.Fatalf("after crash: start %d LEO %d", l.LogStartOffset(), l.LEO())
	}
	wantCode(t, l.ResetTo(-1), kerr.InvalidArgument, "")
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
