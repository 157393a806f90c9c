package vfs

import (
	"path/filepath"
	"testing"
)

// TestTreeSize: the bytes of every regular file under a directory, on a
// Mem and on the disk alike; a missing directory is an error.
func TestTreeSize(t *testing.T) {
	for name, fsys := range map[string]FS{"mem": NewMem(), "os": OS} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			if err := fsys.MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
				t.Fatal(err)
			}
			for p, n := range map[string]int{"x": 10, "a/y": 300, "a/b/z": 4097} {
				if err := WriteFile(fsys, filepath.Join(dir, p), make([]byte, n), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got, err := TreeSize(fsys, dir); err != nil || got != 10+300+4097 {
				t.Errorf("TreeSize = %d, %v; want %d", got, err, 10+300+4097)
			}
			if got, err := TreeSize(fsys, filepath.Join(dir, "a", "y")); err != nil || got != 300 {
				t.Errorf("TreeSize of a file = %d, %v; want 300", got, err)
			}
			if _, err := TreeSize(fsys, filepath.Join(dir, "missing")); err == nil {
				t.Error("TreeSize of a missing directory: no error")
			}
		})
	}
}
