package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/vfs"
)

func TestReplace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "metadata.json")
	if TempName(path) != filepath.Join(dir, "metadata.tmp") {
		t.Fatalf("temp name %s", TempName(path))
	}
	for _, data := range []string{"first", "second, longer content", ""} {
		for _, sync := range []bool{true, false} {
			if err := Replace(vfs.OS, path, []byte(data), sync); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil || string(got) != data {
				t.Fatalf("read %q, %v; want %q", got, err, data)
			}
			if _, err := os.Stat(TempName(path)); !os.IsNotExist(err) {
				t.Fatalf("temporary file left behind: %v", err)
			}
		}
	}
}

// A failed write (the target is a directory, so the rename fails) leaves
// the target untouched and no temporary file behind.
func TestReplaceFailureChangesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "offsets.json")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "keep"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Replace(vfs.OS, path, []byte("data"), true); err == nil {
		t.Fatal("replacing a non-empty directory succeeded")
	}
	if _, err := os.Stat(filepath.Join(path, "keep")); err != nil {
		t.Fatalf("target changed: %v", err)
	}
	if _, err := os.Stat(TempName(path)); !os.IsNotExist(err) {
		t.Fatalf("temporary file left behind: %v", err)
	}
}

// Through a machine crash: with the directory fsync the new content
// survives; without it the rename may be lost and the old content comes
// back, but never a mix or an empty file. A failure at any step (write,
// fsync, rename, directory fsync) leaves the old content and no
// temporary file.
func TestReplaceCrashAndFaults(t *testing.T) {
	t.Parallel()
	setup := func() *vfs.Mem {
		m := vfs.NewMem()
		if err := vfs.MkdirAllSynced(m, "d", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := Replace(m, "d/offsets.json", []byte("old"), true); err != nil {
			t.Fatal(err)
		}
		return m
	}
	read := func(m *vfs.Mem) string {
		b, err := m.ReadFile("d/offsets.json")
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for sync, want := range map[bool]string{true: "new", false: "old"} {
		m := setup()
		if err := Replace(m, "d/offsets.json", []byte("new"), sync); err != nil {
			t.Fatal(err)
		}
		m.Crash()
		if got := read(m); got != want {
			t.Fatalf("syncDir=%v: after a crash %q, want %q", sync, got, want)
		}
	}
	for _, op := range []vfs.Op{vfs.OpWrite, vfs.OpSync, vfs.OpRename, vfs.OpCreate} {
		m := setup()
		m.Inject(vfs.Fault{Op: op, Err: syscall.ENOSPC})
		err := Replace(m, "d/offsets.json", []byte("new"), true)
		if !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("%v fault: error %v", op, err)
		}
		if got := read(m); got != "old" {
			t.Fatalf("%v fault: content %q", op, got)
		}
		if _, err := m.Stat("d/offsets.tmp"); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%v fault: temporary file left behind: %v", op, err)
		}
	}
	m := setup()
	m.Inject(vfs.Fault{Op: vfs.OpSyncDir})
	if err := Replace(m, "d/offsets.json", []byte("new"), true); !errors.Is(err, syscall.EIO) {
		t.Fatalf("directory fsync fault: %v", err)
	}
}
