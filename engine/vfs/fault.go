package vfs

import (
	"slices"
	"strings"
	"syscall"
)

// Op is a kind of operation a Fault can fail. Ops combine with |.
type Op uint16

// The operations.
const (
	// OpWrite is File.Write and File.WriteAt.
	OpWrite Op = 1 << iota
	// OpSync is File.Sync of a file.
	OpSync
	// OpSyncDir is FS.SyncDir, or File.Sync of a directory.
	OpSyncDir
	// OpRename is FS.Rename; it matches on either path.
	OpRename
	// OpCreate is creating a file (OpenFile with O_CREATE, when the file
	// does not exist) or a directory (Mkdir, and each directory MkdirAll
	// creates).
	OpCreate
	// OpTruncate is FS.Truncate, File.Truncate and OpenFile with O_TRUNC of
	// a non-empty file.
	OpTruncate
	// OpRemove is FS.Remove and FS.RemoveAll.
	OpRemove
)

// String names the operations, e.g. "write|sync".
func (o Op) String() string {
	names := []string{"write", "sync", "syncdir", "rename", "create", "truncate", "remove"}
	var out []string
	for i, n := range names {
		if o&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, "|")
}

// Fault says which operations of a Mem fail, and how.
type Fault struct {
	// Op is the operations it matches (one Op or several, or'ed).
	Op Op
	// Under restricts it to operations on this path or below it (one
	// broker's directory, one file); "" matches everywhere.
	Under string
	// Nth fails the Nth matching operation from now: 1 (or 0) is the next
	// one.
	Nth int
	// Persistent keeps failing every matching operation from the Nth on,
	// until the fault is cleared. Otherwise it fails once and is gone.
	Persistent bool
	// Err is the error number, such as syscall.ENOSPC or syscall.EIO; nil
	// means EIO.
	Err error
	// Tear is, for a failing write, how many of its bytes are written
	// before it fails (a torn write); 0 writes none.
	Tear int
}

// Injected is a fault in force on a Mem.
type Injected struct {
	m     *Mem
	f     Fault
	under string
	seen  int // matching operations so far
	fired int // operations failed
	gone  bool
}

// Inject puts a fault in force and returns it, to clear it or ask how
// often it fired.
func (m *Mem) Inject(f Fault) *Injected {
	m.mu.Lock()
	defer m.mu.Unlock()
	if f.Nth < 1 {
		f.Nth = 1
	}
	inj := &Injected{m: m, f: f, under: canonical(f.Under)}
	m.faults = append(m.faults, inj)
	return inj
}

// Fired is how many operations the fault has failed.
func (i *Injected) Fired() int {
	i.m.mu.Lock()
	defer i.m.mu.Unlock()
	return i.fired
}

// Clear ends the fault; operations succeed again (unless another fault or
// the capacity fails them).
func (i *Injected) Clear() {
	i.m.mu.Lock()
	defer i.m.mu.Unlock()
	i.m.drop(i)
}

// ClearFaults ends every injected fault. The capacity stays.
func (m *Mem) ClearFaults() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, f := range m.faults {
		f.gone = true
	}
	m.faults = nil
}

// FaultsInForce is the number of injected faults still in force. Clone
// copies none of them: a copy of a cluster that relies on one would not
// fail where the original does (engine.Cluster.Snapshot refuses it).
func (m *Mem) FaultsInForce() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.faults)
}

func (m *Mem) drop(i *Injected) {
	i.gone = true
	m.faults = slices.DeleteFunc(m.faults, func(f *Injected) bool { return f == i })
}

// under reports whether path (canonical) is prefix or below it.
func under(path, prefix string) bool {
	return prefix == "" || path == prefix || strings.HasPrefix(path, prefix+"/")
}

// match counts an operation against every fault it matches and returns
// the first fault that fails it, or nil. Paths are canonical; p2 is a
// rename's new path ("" otherwise).
func (m *Mem) match(op Op, p1, p2 string) *Injected {
	if len(m.faults) == 0 {
		return nil
	}
	var hit *Injected
	for _, f := range slices.Clone(m.faults) {
		if f.f.Op&op == 0 || !(under(p1, f.under) || (p2 != "" && under(p2, f.under))) {
			continue
		}
		f.seen++
		if f.seen < f.f.Nth || hit != nil {
			continue
		}
		hit = f
		f.fired++
		if !f.f.Persistent {
			m.drop(f)
		}
	}
	return hit
}

// fault is match for operations that fail as a whole.
func (m *Mem) fault(op Op, p1, p2 string) error {
	if inj := m.match(op, p1, p2); inj != nil {
		return inj.err()
	}
	return nil
}

func (i *Injected) err() error {
	if i.f.Err == nil {
		return syscall.EIO
	}
	return i.f.Err
}
