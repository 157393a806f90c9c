// Package atomicfile replaces small files so that a crash leaves either the
// old content or the new, never a mix: the data is written to a temporary
// sibling, fsynced, and renamed over the target; optionally the directory is
// fsynced too, so the rename itself is durable (spec §4: metadata.json and
// offsets.json do this, producer-identities.json does not).
package atomicfile

import (
	"os"
	"path/filepath"

	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// TempName is the temporary sibling used for path: the same name with the
// extension swapped to .tmp (metadata.json → metadata.tmp).
func TempName(path string) string {
	return path[:len(path)-len(filepath.Ext(path))] + ".tmp"
}

// Replace writes data to TempName(path) on fsys, fsyncs it, renames it over
// path and, with syncDir, fsyncs path's directory. On failure the temporary
// file is removed and path is untouched.
func Replace(fsys vfs.FS, path string, data []byte, syncDir bool) error {
	tmp := TempName(path)
	f, err := fsys.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = fsys.Rename(tmp, path)
	}
	if err != nil {
		fsys.Remove(tmp)
		return err
	}
	if syncDir {
		return fsys.SyncDir(filepath.Dir(path))
	}
	return nil
}
