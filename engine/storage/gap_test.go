package storage

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// TestMissingMiddleSegmentIsRefused: a segment file deleted from the
// middle of a log (after a crash, and after a clean shutdown, whose marker
// is then not trusted) stops Open with STORAGE_ERROR naming the missing
// offsets, the directory and what to do; it never opens with a hole.
func TestMissingMiddleSegmentIsRefused(t *testing.T) {
	for _, clean := range []bool{false, true} {
		dir := t.TempDir()
		l, _ := mustOpen(t, dir, opts(100, 1))
		for i := 0; i < 6; i++ {
			mustAppend(t, l, values(0, "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz"))
		}
		segs := l.Segments()
		if len(segs) < 3 {
			t.Fatalf("%d segments, want at least 3", len(segs))
		}
		middle := segs[1]
		if clean {
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
		} else if err := l.Crash(true); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(segPath(dir, middle.Base)); err != nil {
			t.Fatal(err)
		}
		_, _, err := Open(dir, opts(100, 1), 0)
		wantCode(t, err, kerr.StorageError, "are missing from "+dir)
		if msg := kerr.MessageOf(err); !strings.Contains(msg, SegmentFileName(segs[0].Base)) || !strings.Contains(msg, "restore it") {
			t.Errorf("clean=%v: the refusal does not say where or what to do: %s", clean, msg)
		}
	}
}

// TestCompactionGapIsNotAHole: compaction that removes a whole batch at the
// end of its segment leaves offsets no segment holds; the cleaner
// checkpoint it writes lets recovery open the log after a crash.
func TestCompactionGapIsNotAHole(t *testing.T) {
	dir := t.TempDir()
	l, _ := mustOpen(t, dir, opts(100, 1))
	for _, key := range []string{"a", "b", "c", "c"} {
		mustAppend(t, l, record.NewBatch([]record.Record{rec(key, "value-of-some-length-"+key, 0)}))
	}
	if _, err := l.Compact(0, 1000, nil); err != nil {
		t.Fatal(err)
	}
	segs := l.Segments()
	if len(segs) != 2 || segs[0].NextOffset >= segs[1].Base {
		t.Fatalf("no gap to test: %+v", segs)
	}
	if err := l.Crash(true); err != nil {
		t.Fatal(err)
	}
	l2, rep, err := Open(dir, opts(100, 1), 0)
	if err != nil {
		t.Fatalf("reopen after compaction: %v", err)
	}
	defer l2.Crash(true)
	if rep.CleanShutdown {
		t.Fatal("the crash left a marker")
	}
}

// FuzzCleanedThrough: any checkpoint content is either a non-negative
// offset, written back the same way, or STORAGE_ERROR; never a panic.
func FuzzCleanedThrough(f *testing.F) {
	for _, s := range []string{"42\n", "0", "-1\n", "x", "", " 7 \n", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		mem := vfs.NewMem()
		if err := mem.MkdirAll("log", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := vfs.WriteFile(mem, "log/"+CleanerCheckpointFile, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		n, err := cleanedThrough(mem, "log")
		if err != nil {
			if !errors.Is(err, kerr.StorageError) || n != -1 {
				t.Fatalf("%q: %d, %v", content, n, err)
			}
			return
		}
		if want, perr := strconv.ParseInt(strings.TrimSpace(content), 10, 64); n < 0 || perr != nil || want != n {
			t.Fatalf("%q read as %d", content, n)
		}
	})
}
