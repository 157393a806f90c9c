package storage

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// written is what a test appended: every batch with its records and where
// it went.
type written struct {
	info AppendInfo
	recs []string // offsetValues of its records
}

// buildCrashLog writes 20 batches over 4 segments (rolls after batches 6,
// 12 and 17), so the last 3 batches are alone in the active segment. The
// batches vary: keys, null values, headers, several records.
func buildCrashLog(t *testing.T, o Options, dir string) (*Log, []written) {
	l, _ := mustOpen(t, dir, o)
	var out []written
	for i := 0; i < 20; i++ {
		var rs []record.Record
		for j := 0; j <= i%3; j++ {
			r := rec(fmt.Sprintf("k%d", (i+j)%5), fmt.Sprintf("value-%d-%d", i, j), int64(i*10+j))
			if (i+j)%7 == 0 {
				r.Value = nil
			}
			if j == 1 {
				r.Headers = []record.Header{{Key: "h", Value: []byte{0, byte(i)}}}
			}
			rs = append(rs, r)
		}
		a, info, err := l.Append(record.NewBatch(rs))
		if err != nil {
			t.Fatal(err)
		}
		var recs []string
		for j, r := range a.Records {
			recs = append(recs, offsetValues([]LogRecord{{Offset: a.BaseOffset + int64(j), Record: r}})...)
		}
		out = append(out, written{info: info, recs: recs})
		if i == 5 || i == 11 || i == 16 {
			if err := l.Roll(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := len(l.Segments()); n != 4 {
		t.Fatalf("%d segments", n)
	}
	return l, out
}

// crashOpts are the crash-consistency tests' options, on an in-memory file
// system: they test recovery's logic byte by byte, not the disk.
func crashOpts() Options {
	o := opts(1<<20, 64)
	o.FS = vfs.NewMem()
	return o
}

// TestCrashConsistencyActiveTail cuts the active segment at every byte of
// its last 3 batches, and separately garbles every such byte; each reopen
// keeps exactly the longest valid prefix and reports the rest.
func TestCrashConsistencyActiveTail(t *testing.T) {
	t.Parallel()
	o, dir := crashOpts(), "log"
	l, ws := buildCrashLog(t, o, dir)
	active := l.Segments()[3]
	if err := l.Crash(true); err != nil {
		t.Fatal(err)
	}
	pristine, err := o.FS.ReadFile(active.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	pristineIdx, _ := o.FS.ReadFile(active.IndexPath)
	tail := ws[17:]
	for _, w := range tail {
		if w.info.Segment != active.Base {
			t.Fatalf("batch at %d is not in the active segment", w.info.BaseOffset)
		}
	}
	start := tail[0].info.Position
	for p := start; p < int64(len(pristine)); p++ {
		for _, mode := range []string{"cut", "garble"} {
			data := append([]byte(nil), pristine...)
			// kept: the batches of the whole log that survive.
			kept := 17
			if mode == "cut" {
				data = data[:p]
				for kept < 20 && ws[kept].info.Position+int64(ws[kept].info.Size) <= p {
					kept++
				}
			} else {
				data[p] ^= 0xFF
				for kept < 20 && ws[kept].info.Position+int64(ws[kept].info.Size) <= p {
					kept++
				}
			}
			vfs.WriteFile(o.FS, active.LogPath, data, 0o644)
			vfs.WriteFile(o.FS, active.IndexPath, pristineIdx, 0o644)
			name := fmt.Sprintf("%s at byte %d", mode, p)
			checkRecovered(t, name, o, dir, ws, kept, int64(len(data)))
		}
	}
}

// checkRecovered reopens dir and checks it holds exactly the first kept
// batches of ws, with a truncation report for the rest of a file of
// fileLen bytes.
func checkRecovered(t *testing.T, name string, o Options, dir string, ws []written, kept int, fileLen int64) {
	t.Helper()
	l, rep, err := Open(dir, o, 0)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer l.Crash(true)
	wantLEO := ws[kept-1].info.NextOffset
	if l.LEO() != wantLEO {
		t.Fatalf("%s: LEO %d, want %d", name, l.LEO(), wantLEO)
	}
	var want []string
	for _, w := range ws[:kept] {
		want = append(want, w.recs...)
	}
	wantEqual(t, name+": records", offsetValues(fetchAll(t, l)), want)
	keptEnd := int64(0) // the active segment starts at batch 17
	if kept > 17 {
		keptEnd = ws[kept-1].info.Position + int64(ws[kept-1].info.Size)
	}
	tr := rep.Truncation
	if keptEnd == fileLen {
		if tr != nil {
			t.Fatalf("%s: unexpected truncation %+v", name, tr)
		}
		return
	}
	activeKept := kept - 17
	if tr == nil || tr.Position != keptEnd || tr.BytesDropped != fileLen-keptEnd || tr.BatchesKept != activeKept || tr.Reason == "" {
		t.Fatalf("%s: truncation %+v, want position %d dropped %d kept %d", name, tr, keptEnd, fileLen-keptEnd, activeKept)
	}
	// Appends continue right after the kept prefix.
	if _, info, err := l.Append(values(0, "after")); err != nil || info.BaseOffset != wantLEO || info.Position != keptEnd {
		t.Fatalf("%s: append after recovery %+v %v", name, info, err)
	}
}

// TestCrashConsistencyClosedSegment: garbling any byte of a closed segment,
// or cutting it inside a batch, stops the open with STORAGE_ERROR.
func TestCrashConsistencyClosedSegment(t *testing.T) {
	t.Parallel()
	o, dir := crashOpts(), "log"
	l, ws := buildCrashLog(t, o, dir)
	closed := l.Segments()[1]
	l.Crash(true)
	pristine, _ := o.FS.ReadFile(closed.LogPath)
	ends := map[int64]bool{}
	for _, w := range ws {
		if w.info.Segment == closed.Base {
			ends[w.info.Position+int64(w.info.Size)] = true
		}
	}
	for p := int64(0); p < int64(len(pristine)); p++ {
		for _, mode := range []string{"cut", "garble"} {
			data := append([]byte(nil), pristine...)
			if mode == "cut" {
				if ends[p] || p == 0 {
					continue // a cut at a batch end leaves valid frames (a gap)
				}
				data = data[:p]
			} else {
				data[p] ^= 0xFF
			}
			vfs.WriteFile(o.FS, closed.LogPath, data, 0o644)
			_, _, err := Open(dir, o, 0)
			if !kerr.IsDomain(err) || kerr.CodeOf(err) != kerr.StorageError {
				t.Fatalf("%s at byte %d: %v, want STORAGE_ERROR", mode, p, err)
			}
			wantCode(t, err, kerr.StorageError, "corrupt closed segment "+closed.LogPath)
		}
	}
	vfs.WriteFile(o.FS, closed.LogPath, pristine, 0o644)
	l2, _ := mustOpen(t, dir, o)
	if l2.LEO() != ws[19].info.NextOffset {
		t.Fatal("restored log does not open")
	}
}

// Crash(false) drops exactly the bytes appended since the last flush;
// Crash(true) keeps them.
func TestCrashDropsUnflushedTail(t *testing.T) {
	t.Parallel()
	for _, keep := range []bool{false, true} {
		dir := t.TempDir()
		l, _ := mustOpen(t, dir, opts(1<<20, 1))
		mustAppend(t, l, values(0, "a", "b"))
		if err := l.Flush(); err != nil {
			t.Fatal(err)
		}
		flushedSize := l.SizeBytes()
		info := mustAppend(t, l, values(1, "c"))
		if got := l.UnflushedBytes(); got != int64(info.Size) {
			t.Fatalf("unflushed %d, want %d", got, info.Size)
		}
		if err := l.Crash(keep); err != nil {
			t.Fatal(err)
		}
		l, _ = mustOpen(t, dir, opts(1<<20, 1))
		want := []string{"a", "b"}
		if keep {
			want = append(want, "c")
		} else if l.SizeBytes() != flushedSize {
			t.Fatalf("size %d, want %d", l.SizeBytes(), flushedSize)
		}
		wantEqual(t, fmt.Sprintf("keep=%v values", keep), valuesOf(fetchAll(t, l)), want)
		if fileSize(t, idxPath(dir, 0)) != 12*int64(len(mustIndex(t, l, 0))) {
			t.Fatal("index file does not match the log")
		}
	}
}

func mustIndex(t *testing.T, l *Log, base int64) []IndexEntry {
	x, err := l.Index(base)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// A roll flushes the old segment; the new segment, created after the last
// flush, disappears on Crash(false).
func TestCrashRemovesSegmentsCreatedSinceFlush(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, _ := mustOpen(t, dir, opts(1<<20, 1))
	mustAppend(t, l, values(0, "a"))
	l.Flush()
	mustAppend(t, l, values(0, "b"))
	if err := l.Roll(); err != nil { // flushes "b" with segment 0
		t.Fatal(err)
	}
	mustAppend(t, l, values(0, "c"))
	l.Roll()
	mustAppend(t, l, values(0, "d"))
	if l.UnflushedBytes() != 75 {
		t.Fatalf("unflushed %d", l.UnflushedBytes())
	}
	l.Crash(false)
	if _, err := os.Stat(segPath(dir, 3)); !os.IsNotExist(err) {
		t.Fatalf("segment created after the last flush survived: %v", err)
	}
	l, _ = mustOpen(t, dir, opts(1<<20, 1))
	wantEqual(t, "values", valuesOf(fetchAll(t, l)), []string{"a", "b", "c"})
	wantEqual(t, "bases", bases(l), []int64{0, 2})
}

// Close + Open does not rescan closed segments: the report says so, and a
// byte flipped in a closed segment after a clean close goes unnoticed by
// the clean open but stops the open after a crash.
func TestCleanShutdownSkipsClosedSegments(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, ws := buildCrashLog(t, opts(1<<20, 64), dir)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, MarkerFileName)); err != nil {
		t.Fatal("no marker after Close")
	}
	flipByte(t, segPath(dir, ws[3].info.Segment), ws[3].info.Position+20, 0x40)
	l, rep := mustOpen(t, dir, opts(1<<20, 64))
	if !rep.CleanShutdown || rep.Scanned != 1 || rep.Segments != 4 || rep.IndexesRebuilt != 0 {
		t.Fatalf("clean open report %+v", rep)
	}
	if _, err := os.Stat(filepath.Join(dir, MarkerFileName)); !os.IsNotExist(err) {
		t.Fatal("Open left the marker in place")
	}
	if l.LEO() != ws[19].info.NextOffset {
		t.Fatalf("LEO %d", l.LEO())
	}
	// Reading the damaged batch finds the damage.
	_, err := l.Fetch(ws[3].info.BaseOffset, 1, -1)
	wantCode(t, err, kerr.CorruptBatch, "CRC")
	l.Crash(true)
	_, rep, err = Open(dir, opts(1<<20, 64), 0)
	wantCode(t, err, kerr.StorageError, "corrupt closed segment")
	if rep.CleanShutdown {
		t.Fatal("the marker survived the previous open")
	}
}

// A crash-reopen and a clean reopen build the same log.
func TestCleanAndCrashReopenAgree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, _ := buildCrashLog(t, opts(1<<20, 64), dir)
	l.Close()
	clean, rep := mustOpen(t, dir, opts(1<<20, 64))
	if !rep.CleanShutdown {
		t.Fatal("marker not trusted")
	}
	segsClean := clean.Segments()
	epochClean := clean.LeaderEpoch()
	clean.Crash(true)
	crashed, rep := mustOpen(t, dir, opts(1<<20, 64))
	if rep.CleanShutdown || rep.Scanned != 4 {
		t.Fatalf("crash report %+v", rep)
	}
	wantEqual(t, "segments", crashed.Segments(), segsClean)
	if crashed.LeaderEpoch() != epochClean {
		t.Fatal("epochs differ")
	}
	for _, s := range segsClean {
		a, _ := crashed.Index(s.Base)
		wantEqual(t, "index", a, mustIndex(t, clean, s.Base))
	}
}

// A marker that does not match the files is ignored, and says why.
func TestMarkerNotTrusted(t *testing.T) {
	t.Parallel()
	cases := map[string]func(dir string){
		"crc": func(dir string) { flipByte(t, filepath.Join(dir, MarkerFileName), 9, 1) },
		"size": func(dir string) {
			appendToFile(t, segPath(dir, 0), []byte("MKB1"))
		},
		"index": func(dir string) { os.WriteFile(idxPath(dir, 0), []byte{1, 2, 3}, 0o644) },
		"extra segment": func(dir string) {
			// An empty segment where the log ends (offset 3): one the
			// marker does not list. One further on would leave a hole
			// (checkGaps refuses that).
			os.WriteFile(segPath(dir, 3), nil, 0o644)
		},
		"short": func(dir string) { os.WriteFile(filepath.Join(dir, MarkerFileName), []byte("MKCS"), 0o644) },
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			l, _ := mustOpen(t, dir, opts(100, 1))
			for i := 0; i < 3; i++ {
				mustAppend(t, l, values(0, "abcdefghijklmnopqrstuvwxyz0123"))
			}
			l.Close()
			damage(dir)
			l2, rep, err := Open(dir, opts(100, 1), 0)
			if name == "size" {
				wantCode(t, err, kerr.StorageError, "corrupt closed segment")
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer l2.Crash(true)
			if rep.CleanShutdown || rep.MarkerIgnored == "" || rep.Scanned != len(l2.Segments()) {
				t.Fatalf("report %+v", rep)
			}
		})
	}
}

// An active segment damaged after a clean close is still repaired: the
// active segment is always scanned.
func TestCleanOpenRescansActive(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, _ := mustOpen(t, dir, opts(0, 1))
	mustAppend(t, l, values(0, "a"))
	info := mustAppend(t, l, values(0, "b"))
	l.Close()
	flipByte(t, segPath(dir, 0), info.Position+30, 1)
	l, rep := mustOpen(t, dir, opts(0, 1))
	if !rep.CleanShutdown || rep.Truncation == nil || l.LEO() != 1 {
		t.Fatalf("report %+v LEO %d", rep, l.LEO())
	}
}

// A process that dies (no Close, no Crash: the Log is simply abandoned)
// loses nothing it acknowledged: every append was written to the segment
// file before it returned, so the OS has it. A reopen finds every record.
func TestProcessDeathKeepsEveryAcknowledgedAppend(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, _, err := Open(dir, opts(1<<20, 64), 0)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := 0; i < 50; i++ {
		v := fmt.Sprintf("acknowledged-%d", i)
		mustAppend(t, l, values(int64(i), v))
		want = append(want, v)
	}
	if l.UnflushedBytes() == 0 {
		t.Fatal("the appends were flushed; the test needs them in the page cache only")
	}
	// The process dies here: l is never closed.
	l2, rep := mustOpen(t, dir, opts(1<<20, 64))
	if rep.Truncation != nil {
		t.Fatalf("recovery cut %+v", rep.Truncation)
	}
	wantEqual(t, "records", valuesOf(fetchAll(t, l2)), want)
}
