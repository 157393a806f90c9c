//go:build linux && !arm

package vfs

import (
	"os"
	"syscall"
)

// syncFileRangeWrite is SYNC_FILE_RANGE_WRITE: start writeback of dirty
// pages in the range without waiting for it.
const syncFileRangeWrite = 0x2

// startWriteback is sync_file_range(SYNC_FILE_RANGE_WRITE).
func startWriteback(f *os.File, off, n int64) {
	syscall.SyncFileRange(int(f.Fd()), off, n, syncFileRangeWrite)
}
