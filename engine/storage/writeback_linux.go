//go:build linux && !arm

package storage

import (
	"os"
	"syscall"
)

// syncFileRangeWrite is SYNC_FILE_RANGE_WRITE: start writeback of dirty
// pages in the range without waiting for it.
const syncFileRangeWrite = 0x2

// startWriteback asks the kernel to start writing [off, off+n) of f to the
// disk now, without waiting, so that the fsync at the next roll or flush
// has less left to do (RocksDB's bytes_per_sync). It is only a hint: errors
// are ignored, and durability still comes from fsync.
func startWriteback(f *os.File, off, n int64) {
	if skipFsync {
		return
	}
	syscall.SyncFileRange(int(f.Fd()), off, n, syncFileRangeWrite)
}
