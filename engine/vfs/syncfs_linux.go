//go:build linux

package vfs

import (
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// syncAll calls syncfs(2) once for the sets when they are large enough and
// every item is on one file system (see SyncAll).
func (osFS) syncAll(sets []SyncSet, errs []error) bool {
	n := 0
	for _, s := range sets {
		n += s.size()
	}
	if n < syncfsMinItems {
		return false
	}
	var dev uint64
	seen := false
	same := func(st os.FileInfo, err error) bool {
		if err != nil {
			return false
		}
		sys, ok := st.Sys().(*syscall.Stat_t)
		if !ok {
			return false
		}
		if !seen {
			dev, seen = uint64(sys.Dev), true
		}
		return uint64(sys.Dev) == dev
	}
	var handle *os.File
	for _, s := range sets {
		for _, f := range s.Files {
			of, ok := f.(*os.File)
			if !ok || !same(of.Stat()) {
				return false
			}
			if handle == nil {
				handle = of
			}
		}
		for _, p := range s.Paths {
			if !same(os.Stat(p)) {
				return false
			}
		}
		for _, d := range s.Dirs {
			if !same(os.Stat(d)) {
				return false
			}
		}
	}
	if handle == nil {
		d := firstDir(sets)
		if d == "" {
			return false
		}
		h, err := os.Open(d)
		if err != nil {
			return false
		}
		defer h.Close()
		handle = h
	}
	err := unix.Syncfs(int(handle.Fd()))
	if err != nil {
		err = &os.PathError{Op: "syncfs", Path: handle.Name(), Err: err}
	}
	for i := range errs {
		errs[i] = err
	}
	return true
}

// firstDir is a directory holding an item of the sets: the first directory
// listed, else the directory of the first path.
func firstDir(sets []SyncSet) string {
	for _, s := range sets {
		if len(s.Dirs) > 0 {
			return s.Dirs[0]
		}
	}
	for _, s := range sets {
		if len(s.Paths) > 0 {
			return filepath.Dir(s.Paths[0])
		}
	}
	return ""
}
