package vfs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// On the disk, SyncAll makes many files durable in one step (syncfs on
// Linux) and reports success for every set; with few items it fsyncs
// each. Either way every set gets its answer.
func TestSyncAllOnDisk(t *testing.T) {
	for _, n := range []int{1, 3 * syncfsMinItems} {
		root := t.TempDir()
		var sets []SyncSet
		for i := 0; i < n; i++ {
			dir := filepath.Join(root, fmt.Sprint(i))
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			f, err := OS.OpenFile(filepath.Join(dir, "a"), os.O_RDWR|os.O_CREATE, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.Write([]byte("data")); err != nil {
				t.Fatal(err)
			}
			if err := WriteFile(OS, filepath.Join(dir, "b"), []byte("more"), 0o644); err != nil {
				t.Fatal(err)
			}
			sets = append(sets, SyncSet{Files: []File{f}, Paths: []string{filepath.Join(dir, "b")}, Dirs: []string{dir}})
		}
		errs := SyncAll(OS, sets)
		if len(errs) != n {
			t.Fatalf("%d errors for %d sets", len(errs), n)
		}
		for i, err := range errs {
			if err != nil {
				t.Fatalf("set %d: %v", i, err)
			}
		}
	}
	// A missing path fails (fsync per item: its set only).
	errs := SyncAll(OS, []SyncSet{{Paths: []string{filepath.Join(t.TempDir(), "missing")}}, {Dirs: []string{t.TempDir()}}})
	if !IsNotExist(errs[0]) || errs[1] != nil {
		t.Fatalf("errors %v", errs)
	}
}

// Elsewhere SyncAll fsyncs item by item, in order: a failure stops its own
// set and no other, and each item is synced once.
func TestSyncAllItemByItem(t *testing.T) {
	m := NewMem()
	var sets []SyncSet
	for _, d := range []string{"/a", "/b", "/c"} {
		if err := MkdirAllSynced(m, d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := WriteFile(m, d+"/x", []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := WriteFile(m, d+"/y", []byte("y"), 0o644); err != nil {
			t.Fatal(err)
		}
		sets = append(sets, SyncSet{Paths: []string{d + "/x", d + "/y"}, Dirs: []string{d}})
	}
	inj := m.Inject(Fault{Op: OpSync, Under: "/b/x", Err: syscall.EIO})
	errs := SyncAll(m, sets)
	if errs[0] != nil || errs[2] != nil || !errors.Is(errs[1], syscall.EIO) || inj.Fired() != 1 {
		t.Fatalf("errors %v, fired %d", errs, inj.Fired())
	}
	m.Crash()
	for _, p := range []string{"/a/x", "/a/y", "/c/x", "/c/y"} {
		if _, err := m.Stat(p); err != nil {
			t.Fatalf("%s after a crash: %v", p, err)
		}
	}
	if _, err := m.Stat("/b/y"); err == nil {
		t.Fatal("/b/y survived a crash although its set stopped before it")
	}
}
