package repl

import (
	"fmt"
	"os"
	"sync/atomic"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// memTempSeq numbers the temporary data directories made inside in-memory
// file systems (one counter for the process: sessions may share a Mem).
var memTempSeq atomic.Uint64

// tempDataDir makes a fresh, empty data directory for a cluster on fsys (nil
// is the disk). On the disk it is os.MkdirTemp's; on a file system kept in
// memory it is a new name inside that file system, so a session that never
// touches the disk makes no directory there (the labs' clusters, undo's
// restored worlds).
func tempDataDir(fsys vfs.FS) (string, error) {
	if fsys == nil || !vfs.InMemory(fsys) {
		d, err := os.MkdirTemp("", "minikafka-")
		if err != nil {
			return "", kerr.Wrap(kerr.StorageError, err, "create a temporary data directory")
		}
		return d, nil
	}
	for {
		d := fmt.Sprintf("/tmp/minikafka-mem-%d", memTempSeq.Add(1))
		err := fsys.MkdirAll(d, 0o755)
		if err != nil {
			return "", kerr.Wrap(kerr.StorageError, err, "create a temporary data directory")
		}
		if entries, err := fsys.ReadDir(d); err == nil && len(entries) == 0 {
			return d, nil
		}
	}
}

// removeTempDataDir removes a directory tempDataDir made on fsys.
func removeTempDataDir(fsys vfs.FS, dir string) error {
	if fsys == nil || !vfs.InMemory(fsys) {
		return os.RemoveAll(dir)
	}
	return fsys.RemoveAll(dir)
}
