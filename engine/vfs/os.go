package vfs

import (
	"io/fs"
	"os"
)

// OS is the real file system: paths are the operating system's, files are
// *os.File values and every call is the os package's.
var OS FS = osFS{}

type osFS struct{}

func (osFS) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err // never a typed nil inside the interface
	}
	return f, nil
}

func (osFS) ReadFile(name string) ([]byte, error)         { return os.ReadFile(name) }
func (osFS) Stat(name string) (fs.FileInfo, error)        { return os.Stat(name) }
func (osFS) ReadDir(name string) ([]fs.DirEntry, error)   { return os.ReadDir(name) }
func (osFS) Mkdir(name string, perm fs.FileMode) error    { return os.Mkdir(name, perm) }
func (osFS) MkdirAll(name string, perm fs.FileMode) error { return os.MkdirAll(name, perm) }
func (osFS) Remove(name string) error                     { return os.Remove(name) }
func (osFS) RemoveAll(name string) error                  { return os.RemoveAll(name) }
func (osFS) Rename(oldpath, newpath string) error         { return os.Rename(oldpath, newpath) }
func (osFS) Truncate(name string, size int64) error       { return os.Truncate(name, size) }

// SyncDir opens the directory, fsyncs it and closes it.
func (osFS) SyncDir(name string) error {
	d, err := os.Open(name)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// StartWriteback asks the operating system to start writing [off, off+n)
// of f to the disk now, without waiting, so that a later Sync has less
// left to do (RocksDB's bytes_per_sync). It is only a hint: it does nothing
// for files that are not OS files (Mem, NoSync), and errors are ignored,
// since durability still comes from Sync.
func StartWriteback(f File, off, n int64) {
	if of, ok := f.(*os.File); ok {
		startWriteback(of, off, n)
	}
}
