package storage

import (
	"errors"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// IsDiskError reports whether err is a STORAGE_ERROR that the file system
// caused (vfs.IsFSError): a write, sync, rename, truncate, create or read
// it refused (no space left, an I/O error, a file gone, a directory that
// became read-only). Kafka takes a log directory offline on exactly these
// (an IOException in the log layer, LogDirFailureChannel). Damage found in
// the bytes (CORRUPT_BATCH, a corrupt closed segment) is not a disk error:
// the disk answered, the data is wrong.
func IsDiskError(err error) bool {
	return err != nil && errors.Is(err, kerr.StorageError) && vfs.IsFSError(err)
}
