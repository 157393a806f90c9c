package storage

import (
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// retentionLog is the R setup: threshold 80, interval 1, one 20-byte record
// per segment at the given timestamps (94-byte batches).
func retentionLog(t *testing.T, dir string, stamps ...int64) *Log {
	l, _ := mustOpen(t, dir, opts(80, 1))
	for _, ts := range stamps {
		if info := mustAppend(t, l, values(ts, strings.Repeat("r", 20))); info.Size != 94 {
			t.Fatalf("batch size %d", info.Size)
		}
	}
	wantEqual(t, "bases", bases(l), []int64{0, 1, 2, 3, 4}[:len(stamps)])
	return l
}

// R1: time retention deletes the expired prefix.
func TestR1TimeRetention(t *testing.T) {
	t.Parallel()
	l := retentionLog(t, t.TempDir(), 0, 50, 150, 250)
	deleted, err := l.ApplyRetention(300, 100, -1)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "deleted", deleted, []int64{0, 1, 2})
	wantEqual(t, "bases", bases(l), []int64{3})
	if l.LogStartOffset() != 3 {
		t.Fatalf("log start %d", l.LogStartOffset())
	}
	_, err = l.Fetch(0, 10, -1)
	wantCode(t, err, kerr.OffsetOutOfRange, "offset 0 outside retained range [3, 4]")
}

// R2: an unexpired segment stops the walk even if later ones are older.
func TestR2RetentionStopsAtFirstUnexpired(t *testing.T) {
	t.Parallel()
	l := retentionLog(t, t.TempDir(), 250, 0, 0, 250)
	deleted, err := l.ApplyRetention(300, 100, -1)
	if err != nil || len(deleted) != 0 {
		t.Fatalf("deleted %v %v", deleted, err)
	}
	wantEqual(t, "bases", bases(l), []int64{0, 1, 2, 3})
}

// R3 and decision 2: size retention counts log bytes only.
func TestR3SizeRetention(t *testing.T) {
	t.Parallel()
	l := retentionLog(t, t.TempDir(), 0, 50, 150, 250)
	segs := l.Segments()
	limit := segs[3].SizeBytes + segs[2].SizeBytes + 20
	if l.SizeBytes() != 4*94 {
		t.Fatalf("SizeBytes %d counts more than log bytes", l.SizeBytes())
	}
	deleted, err := l.ApplyRetention(300, -1, limit)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "deleted", deleted, []int64{0, 1})
	if l.LogStartOffset() == 0 {
		t.Fatal("log start did not move")
	}
}

// R4: deletions must be a prefix of the closed segments.
func TestR4DeletePrefixOnly(t *testing.T) {
	t.Parallel()
	l := retentionLog(t, t.TempDir(), 0, 50, 150, 250)
	wantCode(t, l.DeleteClosedSegments([]int64{0, 2}), kerr.InvalidArgument, "continuous prefix")
	wantCode(t, l.DeleteClosedSegments([]int64{3}), kerr.InvalidArgument, "closed segments only: [3]")
	wantCode(t, l.DeleteClosedSegments([]int64{0, 42}), kerr.InvalidArgument, "closed segments only: [42]")
	wantEqual(t, "bases", bases(l), []int64{0, 1, 2, 3})
	if err := l.DeleteClosedSegments([]int64{1, 0}); err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "bases", bases(l), []int64{2, 3})
}

// R5: the log start survives a restart.
func TestR5RetentionSurvivesRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := retentionLog(t, dir, 0, 50, 150, 250)
	if _, err := l.ApplyRetention(300, 100, -1); err != nil {
		t.Fatal(err)
	}
	start := l.LogStartOffset()
	l.Close()
	l, _ = mustOpen(t, dir, opts(80, 1))
	if l.LogStartOffset() != start {
		t.Fatalf("log start %d, want %d", l.LogStartOffset(), start)
	}
	recs, err := l.Fetch(start, 10, -1)
	if err != nil || len(recs) != 1 || recs[0].Offset != start {
		t.Fatalf("fetch(start) = %v %v", offsetValues(recs), err)
	}
}

// §7.1 combined rules: time selects (0), size extends to (0, 1, 2).
func TestRetentionCombinedRules(t *testing.T) {
	t.Parallel()
	l := retentionLog(t, t.TempDir(), 0, 50, 150, 250, 260)
	deleted, err := l.ApplyRetention(200, 150, 250)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "deleted", deleted, []int64{0, 1, 2})
}

func TestRetentionNoLimitsAndEmptySegments(t *testing.T) {
	t.Parallel()
	l := retentionLog(t, t.TempDir(), 0, 50, 150, 250)
	if d, err := l.ApplyRetention(1<<40, -1, 0); err != nil || len(d) != 0 {
		t.Fatalf("no limits deleted %v %v", d, err)
	}
	// Retention of everything leaves the active segment.
	d, _ := l.ApplyRetention(1<<40, 0, -1)
	wantEqual(t, "deleted", d, []int64{0, 1, 2})
	if d, _ := l.ApplyRetention(1<<40, 0, 1); len(d) != 0 {
		t.Fatal("retention deleted the active segment")
	}
}
