package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReplace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "metadata.json")
	if TempName(path) != filepath.Join(dir, "metadata.tmp") {
		t.Fatalf("temp name %s", TempName(path))
	}
	for _, data := range []string{"first", "second, longer content", ""} {
		for _, sync := range []bool{true, false} {
			if err := Replace(path, []byte(data), sync); err != nil {
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
	dir := t.TempDir()
	path := filepath.Join(dir, "offsets.json")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "keep"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Replace(path, []byte("data"), true); err == nil {
		t.Fatal("replacing a non-empty directory succeeded")
	}
	if _, err := os.Stat(filepath.Join(path, "keep")); err != nil {
		t.Fatalf("target changed: %v", err)
	}
	if _, err := os.Stat(TempName(path)); !os.IsNotExist(err) {
		t.Fatalf("temporary file left behind: %v", err)
	}
	if err := SyncDir(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("syncing a missing directory succeeded")
	}
}
