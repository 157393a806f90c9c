//go:build unix

package vfs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// lock is the OS's: flock(2) on dir/.lock. The holder removes the file when
// it releases, so a process that opened the file just before may lock a
// name that no longer exists: after locking, the file must still be the one
// at the path, or the lock is taken again.
func (osFS) lock(dir string) (func() error, error) {
	path := filepath.Join(dir, LockFileName)
	for attempt := 0; ; attempt++ {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			data, _ := io.ReadAll(io.LimitReader(f, 32))
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, &LockedError{Dir: dir, PID: holderPID(data)}
			}
			return nil, &fs.PathError{Op: "flock", Path: path, Err: err}
		}
		held, err1 := f.Stat()
		now, err2 := os.Stat(path)
		if err1 != nil || err2 != nil || !os.SameFile(held, now) {
			f.Close() // released by its holder meanwhile: lock the new one
			if attempt == 8 {
				return nil, &fs.PathError{Op: "flock", Path: path, Err: errors.New("the lock file keeps being replaced")}
			}
			continue
		}
		if err := f.Truncate(0); err == nil {
			_, _ = f.WriteAt(pidLine(), 0)
		}
		return func() error {
			err := os.Remove(path)
			if cerr := f.Close(); err == nil { // closing drops the flock
				err = cerr
			}
			if errors.Is(err, fs.ErrNotExist) {
				err = nil
			}
			return err
		}, nil
	}
}
