package storage

import (
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// Each mode damages the real file at once; the open log keeps its view and
// the next open repairs the active tail and reports it.
func TestCorruptActiveModes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		mode     CorruptMode
		n        int
		wantLEO  int64
		wantPos  func(size int64) int64
		dropped  int64
		sizeDiff int64
	}{
		{Garbage, 0, 2, func(size int64) int64 { return size }, 16, +16},
		{Truncate, 0, 1, func(size int64) int64 { return size - 16 }, 81 - 16, -16},
		{Flip, 0, 1, func(size int64) int64 { return size - 1 }, 81, 0},
		{Flip, 81, 1, func(size int64) int64 { return size - 81 }, 81, 0},
	}
	for _, c := range cases {
		dir := t.TempDir()
		l, _ := mustOpen(t, dir, opts(0, 1))
		mustAppend(t, l, values(0, "value-0"))
		mustAppend(t, l, values(1, "value-1")) // not flushed: in the page cache only
		size := l.SizeBytes()
		rep, err := l.Corrupt(-1, c.mode, c.n)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Position != c.wantPos(size) || rep.SizeBefore != size || rep.SizeAfter != size+c.sizeDiff || rep.File != SegmentFileName(0) {
			t.Fatalf("%v: report %+v", c.mode, rep)
		}
		if got := fileSize(t, segPath(dir, 0)); got != size+c.sizeDiff {
			t.Fatalf("%v: file size %d", c.mode, got)
		}
		if l.LEO() != 2 || l.SizeBytes() != size {
			t.Fatalf("%v: the open log's view changed", c.mode)
		}
		l.Crash(true)
		l, rrep := mustOpen(t, dir, opts(0, 1))
		if l.LEO() != c.wantLEO {
			t.Fatalf("%v: recovered LEO %d, want %d", c.mode, l.LEO(), c.wantLEO)
		}
		tr := rrep.Truncation
		if tr == nil || tr.BytesDropped != c.dropped {
			t.Fatalf("%v: truncation %+v", c.mode, tr)
		}
	}
}

// Damage to a closed segment is found by reads and stops the next open.
func TestCorruptClosedSegment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, _ := mustOpen(t, dir, opts(100, 1))
	kv(t, l, "a=1@0", "b=2@1", "c=3@2")
	if _, err := l.Corrupt(0, Flip, 5); err != nil {
		t.Fatal(err)
	}
	_, err := l.Fetch(0, 10, -1)
	wantCode(t, err, kerr.CorruptBatch, "CRC")
	if _, err := l.Corrupt(1, Truncate, 10); err != nil {
		t.Fatal(err)
	}
	_, err = l.ReadBatches(1, 100, -1)
	wantCode(t, err, kerr.StorageError, "damaged while open")
	l.Close()
	_, _, err = Open(dir, opts(100, 1), 0)
	wantCode(t, err, kerr.StorageError, "corrupt closed segment")
}

// The open log writes at its own positions: garbage appended behind its
// back is overwritten by the next append, as on a disk.
func TestCorruptGarbageOverwrittenByNextAppend(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, _ := mustOpen(t, dir, opts(0, 1))
	mustAppend(t, l, values(0, "a"))
	l.Corrupt(-1, Garbage, 40)
	mustAppend(t, l, values(0, "b")) // 75 bytes over the 40 garbage bytes
	l.Crash(true)
	l, rep := mustOpen(t, dir, opts(0, 1))
	if rep.Truncation != nil || l.LEO() != 2 {
		t.Fatalf("report %+v LEO %d", rep, l.LEO())
	}
}

func TestCorruptArguments(t *testing.T) {
	t.Parallel()
	l, _ := mustOpen(t, t.TempDir(), opts(0, 1))
	mustAppend(t, l, values(0, "a"))
	_, err := l.Corrupt(7, Flip, 1)
	wantCode(t, err, kerr.InvalidArgument, "no segment with base offset 7")
	_, err = l.Corrupt(-1, Flip, 1000)
	wantCode(t, err, kerr.InvalidArgument, "cannot flip")
	_, err = l.Corrupt(-1, Garbage, -2)
	wantCode(t, err, kerr.InvalidArgument, "negative")
	_, err = l.Corrupt(-1, CorruptMode(9), 1)
	wantCode(t, err, kerr.InvalidArgument, "unknown corrupt mode")
	if rep, err := l.Corrupt(-1, Truncate, 1000); err != nil || rep.Bytes != 75 || rep.SizeAfter != 0 {
		t.Fatalf("truncate more than the file: %+v %v", rep, err)
	}
	for _, s := range []string{"garbage", "TRUNCATE", "flip"} {
		if m, err := ParseCorruptMode(s); err != nil || !(m.String() == s || m == Truncate) {
			t.Fatalf("parse %q: %v %v", s, m, err)
		}
	}
	_, err = ParseCorruptMode("melt")
	wantCode(t, err, kerr.InvalidArgument, "")
}

func kerrIs(err error, c kerr.Code) bool { return kerr.CodeOf(err) == c }
