package repl

import (
	"errors"
	"fmt"
	"io/fs"
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
	wrap := func(err error) error {
		return kerr.Wrap(kerr.StorageError, err, "create a temporary data directory")
	}
	if !vfs.InMemory(fsys) {
		d, err := os.MkdirTemp("", "minikafka-")
		if err != nil {
			return "", wrap(err)
		}
		return d, nil
	}
	if err := fsys.MkdirAll("/tmp", 0o755); err != nil {
		return "", wrap(err)
	}
	for {
		d := fmt.Sprintf("/tmp/minikafka-mem-%d", memTempSeq.Add(1))
		err := fsys.Mkdir(d, 0o755)
		if err == nil {
			return d, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", wrap(err)
		}
	}
}

// removeTempDataDir removes a directory tempDataDir made on fsys (nil is
// the disk).
func removeTempDataDir(fsys vfs.FS, dir string) error {
	if fsys == nil {
		fsys = vfs.OS
	}
	return fsys.RemoveAll(dir)
}
