package storage

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// Bad directories end in a clear STORAGE_ERROR, never a panic, and Open
// changes nothing it refuses.
func TestOpenBadInput(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		setup   func(t *testing.T, dir string)
		code    kerr.Code
		message string
	}{
		"non-numeric segment name": {func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "notanumber.log"), nil, 0o644)
		}, kerr.StorageError, "invalid segment filename notanumber.log"},
		"short numeric name": {func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "5.log"), nil, 0o644)
		}, kerr.StorageError, "invalid segment filename 5.log"},
		"directory as segment": {func(t *testing.T, dir string) {
			os.Mkdir(segPath(dir, 0), 0o755)
		}, kerr.StorageError, "not a regular file"},
		"directory as index": {func(t *testing.T, dir string) {
			os.WriteFile(segPath(dir, 0), nil, 0o644)
			os.Mkdir(idxPath(dir, 0), 0o755)
		}, kerr.StorageError, "not a regular file"},
		"overlapping segments": {func(t *testing.T, dir string) {
			l, _ := mustOpen(t, dir, opts(0, 1))
			mustAppend(t, l, values(0, "a", "b", "c"))
			l.Crash(true)
			data, _ := os.ReadFile(segPath(dir, 0))
			os.WriteFile(segPath(dir, 1), data[:0], 0o644)
			os.WriteFile(segPath(dir, 2), nil, 0o644)
		}, kerr.StorageError, "not contiguous"},
		"log dir is a file": {nil, kerr.StorageError, ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "p-0")
			if c.setup == nil {
				os.WriteFile(dir, []byte("x"), 0o644)
			} else {
				os.Mkdir(dir, 0o755)
				c.setup(t, dir)
			}
			l, _, err := Open(dir, opts(0, 1), 0)
			if l != nil {
				t.Fatal("a refused open returned a log")
			}
			wantCode(t, err, c.code, c.message)
		})
	}
}

// A truncated index is derived data: a normal open rebuilds it, while the
// validating index open reports CORRUPT_INDEX.
func TestTruncatedIndex(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, _ := mustOpen(t, dir, opts(0, 1))
	mustAppend(t, l, values(0, "a"))
	mustAppend(t, l, values(0, "b"))
	l.Flush()
	l.Crash(true)
	data, _ := os.ReadFile(idxPath(dir, 0))
	os.WriteFile(idxPath(dir, 0), data[:len(data)-5], 0o644)
	_, err := ReadIndexFile(idxPath(dir, 0), 0)
	wantCode(t, err, kerr.CorruptIndex, "partial index entry in "+idxPath(dir, 0))
	l, rep := mustOpen(t, dir, opts(0, 1))
	if rep.IndexesRebuilt != 1 || len(mustIndex(t, l, 0)) != 2 {
		t.Fatalf("report %+v", rep)
	}
	if _, err := ReadIndexFile(idxPath(dir, 0), 0); err != nil {
		t.Fatal(err)
	}
}

// A missing segment log (listed by the marker, gone from disk) or an
// orphan index never breaks the open.
func TestMissingFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, _ := mustOpen(t, dir, opts(100, 1))
	kv(t, l, "a=1@0", "b=2@1", "c=3@2")
	l.Close()
	os.Remove(segPath(dir, 0))
	l, rep := mustOpen(t, dir, opts(100, 1))
	if rep.CleanShutdown || l.LogStartOffset() != 1 {
		t.Fatalf("report %+v start %d", rep, l.LogStartOffset())
	}
	if _, err := os.Stat(idxPath(dir, 0)); !os.IsNotExist(err) {
		t.Fatal("orphan index kept")
	}
}

func TestOptionsValidation(t *testing.T) {
	t.Parallel()
	for _, o := range []Options{{SegmentBytes: -1}, {IndexIntervalBytes: -1}, {MaxBatchBytes: -1}} {
		_, _, err := Open(t.TempDir(), o, 0)
		wantCode(t, err, kerr.InvalidArgument, "")
	}
	l, _ := mustOpen(t, t.TempDir(), Options{})
	if l.Options() != DefaultOptions() {
		t.Fatalf("defaults %+v", l.Options())
	}
}

func TestSegmentFileNames(t *testing.T) {
	t.Parallel()
	if SegmentFileName(2) != "00000000000000000002.log" || IndexFileName(2) != "00000000000000000002.index" {
		t.Fatal(SegmentFileName(2))
	}
	for name, want := range map[string]int64{"00000000000000000042.log": 42, "/x/00000000000000000007.index": 7} {
		if got, ok := ParseSegmentFileName(name); !ok || got != want {
			t.Fatalf("%s: %d %v", name, got, ok)
		}
	}
	for _, bad := range []string{"42.log", "0000000000000000004x.log", "00000000000000000042.txt", "99999999999999999999.log"} {
		if _, ok := ParseSegmentFileName(bad); ok {
			t.Fatalf("%s accepted", bad)
		}
	}
}
