// Package vfs is the only door between the engine and files.
//
// Every file the engine reads or writes (segment logs and indexes, the
// clean-shutdown marker, metadata.json, offsets.json, groups.json,
// producer-identities.json, transactions.journal, compaction's sibling
// directories) goes through an FS. Two implementations exist:
//
//   - OS, the real file system, used by the tool and by tests of the disk;
//   - Mem, an in-memory file system with the semantics that matter here:
//     writes, fsync, rename, truncate and directory listings behave as on a
//     POSIX file system (TestMemMatchesOS runs the same random operations
//     on both and compares what they observe), and Crash simulates a
//     machine failure: bytes written but not fsynced are dropped (or torn),
//     and directory entries not made durable by a directory fsync revert.
//     Mem can fail the Nth write, sync, rename, create, truncate or remove
//     with ENOSPC or EIO, once or until cleared, tear a write at a byte, or
//     answer ENOSPC beyond a capacity; Clone copies it in O(files) by
//     sharing file contents copy-on-write (cluster snapshots).
//
// NoSync wraps an FS so that Sync and SyncDir do nothing: for benchmarks that
// measure how much of a workload is fsync, and tests that spare the disk.
// CopyTree copies a directory tree between any two file systems (MemFrom
// snapshots an OS data directory into a Mem; CopyTree writes one back).
// StartWriteback is the optional writeback hint of OS files.
//
// Paths are ordinary file paths (filepath.Join'ed by the caller). Errors are
// *fs.PathError values (*os.LinkError for Rename, as the os package
// returns) whose Err satisfies errors.Is with fs.ErrNotExist, fs.ErrExist,
// syscall.ENOTEMPTY, syscall.ENOSPC, syscall.EIO and so on, on both
// implementations.
package vfs

import (
	"io"
	"io/fs"
)

// FS is a file system.
type FS interface {
	// OpenFile opens name with os.O_* flags (O_RDONLY, O_WRONLY, O_RDWR,
	// O_CREATE, O_EXCL, O_TRUNC, O_APPEND) and, when it creates the file,
	// perm.
	OpenFile(name string, flag int, perm fs.FileMode) (File, error)
	// ReadFile returns the whole content of name.
	ReadFile(name string) ([]byte, error)
	// Stat describes name.
	Stat(name string) (fs.FileInfo, error)
	// ReadDir lists a directory sorted by name.
	ReadDir(name string) ([]fs.DirEntry, error)
	// Mkdir creates one directory; its parent must exist.
	Mkdir(name string, perm fs.FileMode) error
	// MkdirAll creates a directory and any missing parents.
	MkdirAll(name string, perm fs.FileMode) error
	// Remove deletes a file or an empty directory.
	Remove(name string) error
	// RemoveAll deletes name and everything under it; a missing name is no
	// error.
	RemoveAll(name string) error
	// Rename moves oldpath to newpath, replacing a file at newpath.
	Rename(oldpath, newpath string) error
	// Truncate changes the size of a file.
	Truncate(name string, size int64) error
	// SyncDir fsyncs a directory, making the entries created, renamed and
	// removed in it durable.
	SyncDir(name string) error
}

// File is an open file.
type File interface {
	io.Reader
	io.Writer
	io.ReaderAt
	io.WriterAt
	io.Seeker
	io.Closer
	// Name is the name the file was opened with.
	Name() string
	// Stat describes the file.
	Stat() (fs.FileInfo, error)
	// Sync makes the file's written bytes durable (fsync).
	Sync() error
	// Truncate changes the file's size.
	Truncate(size int64) error
}

// Open opens name for reading.
func Open(fsys FS, name string) (File, error) { return fsys.OpenFile(name, 0, 0) }
