package vfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// WriteFile writes data to name on fsys, creating or truncating it, as
// os.WriteFile does (no sync).
func WriteFile(fsys FS, name string, data []byte, perm fs.FileMode) error {
	f, err := fsys.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// IsFSError reports whether err, or an error it wraps, is one a file
// system returned: an *fs.PathError (every FS method's error), an
// *os.LinkError (a rename) or a bare syscall.Errno. Callers use it to tell
// a disk that refused an operation from data found to be wrong.
func IsFSError(err error) bool {
	var pe *fs.PathError
	var le *os.LinkError
	var errno syscall.Errno
	return errors.As(err, &pe) || errors.As(err, &le) || errors.As(err, &errno)
}

// IsReadOnly reports whether err says a file or directory may not be
// written: a read-only file system (EROFS) or missing permission (EACCES,
// EPERM).
func IsReadOnly(err error) bool {
	return errors.Is(err, syscall.EROFS) || errors.Is(err, fs.ErrPermission)
}

// IsNotExist is errors.Is(err, fs.ErrNotExist).
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// MkdirAllSynced is MkdirAll that also makes the new directories durable:
// for every directory it creates, the parent directory is fsynced, so the
// new entry survives a machine crash. An existing directory is left alone
// and costs no fsync.
func MkdirAllSynced(fsys FS, dir string, perm fs.FileMode) error {
	parents, err := MkdirAllUnsynced(fsys, dir, perm)
	if err != nil {
		return err
	}
	for _, p := range parents {
		if err := fsys.SyncDir(p); err != nil {
			return err
		}
	}
	return nil
}

// MkdirAllUnsynced is MkdirAll that returns the directories to fsync, in
// order, to make the new directories durable (the parent of each one it
// created), for callers that make many durable together (SyncAll).
func MkdirAllUnsynced(fsys FS, dir string, perm fs.FileMode) ([]string, error) {
	var created []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := fsys.Stat(d); err == nil || !IsNotExist(err) {
			break
		}
		created = append(created, d)
		if parent := filepath.Dir(d); parent == d {
			break
		}
	}
	if err := fsys.MkdirAll(dir, perm); err != nil {
		return nil, err
	}
	parents := make([]string, 0, len(created))
	for i := len(created) - 1; i >= 0; i-- {
		parents = append(parents, filepath.Dir(created[i]))
	}
	return parents, nil
}
