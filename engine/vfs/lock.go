package vfs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// LockFileName is the lock file Lock keeps in a locked directory while it
// is held, as Kafka keeps .lock in each log directory
// (LogManager.lockLogDirs).
const LockFileName = ".lock"

// ErrLocked is what Lock's error wraps when another holder has the
// directory.
var ErrLocked = errors.New("directory is locked")

// LockedError says who holds a directory.
type LockedError struct {
	Dir string
	PID int // the holder's process id; 0 when its lock file does not say
}

// Error names the holder.
func (e *LockedError) Error() string {
	who := "another process"
	switch {
	case e.PID == os.Getpid():
		who = fmt.Sprintf("this process (pid %d): another cluster has it open", e.PID)
	case e.PID > 0:
		who = fmt.Sprintf("process %d", e.PID)
	}
	return fmt.Sprintf("data directory %s is in use by %s (it holds %s)", e.Dir, who, filepath.Join(e.Dir, LockFileName))
}

// Is makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// locker is implemented by the file systems that can lock a directory.
type locker interface {
	lock(dir string) (release func() error, err error)
}

// Lock takes the exclusive lock of directory dir (which must exist) for
// this process, until release is called: on the OS an flock(2) on
// dir/.lock, which the kernel drops when the process dies however it dies,
// so every spelling of the directory (a relative path, "dir/.", a symbolic
// link) meets the same lock, and so does a second lock from this same
// process; on a Mem a table of held directories. The lock file holds the
// holder's pid while it is held, so that a refusal (a *LockedError, which
// wraps ErrLocked) can name it, and release removes it. A file system that
// cannot lock (a wrapper other than NoSync) gets a release that does
// nothing.
func Lock(fsys FS, dir string) (release func() error, err error) {
	if l, ok := fsys.(locker); ok {
		return l.lock(dir)
	}
	return func() error { return nil }, nil
}

func (n noSync) lock(dir string) (func() error, error) { return Lock(n.FS, dir) }

// holderPID reads the pid a lock file holds; 0 when it holds none.
func holderPID(data []byte) int {
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// pidLine is what a lock file holds: this process's pid (asked once: a
// state explorer restores, and so locks, thousands of copies a second, and
// getpid is a system call).
func pidLine() []byte { return []byte(ownPID()) }

var ownPID = sync.OnceValue(func() string { return strconv.Itoa(os.Getpid()) + "\n" })

// lock is Mem's: a table of held directories, by canonical path, and the
// lock file beside them.
func (m *Mem) lock(dir string) (func() error, error) {
	key := canonical(dir)
	m.mu.Lock()
	if m.locks == nil {
		m.locks = map[string]bool{}
	}
	if m.locks[key] {
		m.mu.Unlock()
		pid := 0
		if data, err := m.ReadFile(filepath.Join(dir, LockFileName)); err == nil {
			pid = holderPID(data)
		}
		return nil, &LockedError{Dir: dir, PID: pid}
	}
	m.locks[key] = true
	m.mu.Unlock()
	// A lock file that names this process already (a clone of a locked
	// Mem, which a restored cluster locks again) is left as it is.
	if data, err := m.ReadFile(filepath.Join(dir, LockFileName)); err == nil && bytes.Equal(data, pidLine()) {
		return m.unlocker(dir, key), nil
	}
	if err := WriteFile(m, filepath.Join(dir, LockFileName), pidLine(), 0o644); err != nil {
		m.mu.Lock()
		delete(m.locks, key)
		m.mu.Unlock()
		return nil, err
	}
	return m.unlocker(dir, key), nil
}

// unlocker releases Mem's lock of dir: the lock file goes, then the table
// entry.
func (m *Mem) unlocker(dir, key string) func() error {
	return func() error {
		err := m.Remove(filepath.Join(dir, LockFileName))
		m.mu.Lock()
		delete(m.locks, key)
		m.mu.Unlock()
		if IsNotExist(err) {
			err = nil
		}
		return err
	}
}
