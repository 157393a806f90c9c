package vfs

import "slices"

// CrashOptions shapes a simulated machine crash.
type CrashOptions struct {
	// Under limits the crash to this directory (or file) and everything
	// below it, such as one broker's directory; "" is the whole file
	// system. The entry of Under itself in its parent is not touched.
	Under string
	// Tear, when not nil, is asked for every file that has bytes beyond
	// its durable content how many of them survive (a torn write: the
	// first k bytes reached the disk); its answer is kept within
	// [0, unsynced]. Files are asked in path order, so a seeded random
	// source gives reproducible crashes. Nil drops every unsynced byte.
	Tear func(name string, unsynced int64) int64
}

// Crash simulates a machine failure of the whole file system: every file
// goes back to its durable content (as of its last Sync) and every
// directory to its durable entries (as of its last SyncDir), so files
// created, renamed or removed since then are back where they were. Open
// handles fail from then on (EIO), as a dead process's would.
func (m *Mem) Crash() { m.CrashWith(CrashOptions{}) }

// CrashWith is Crash limited or torn as o says.
func (m *Mem) CrashWith(o CrashOptions) {
	m.mu.Lock()
	defer m.mu.Unlock()
	elems := split(o.Under)
	_, n, err := m.walk(elems)
	if err != nil || n == nil {
		return
	}
	invalidate(n)
	m.revert(n, canonical(o.Under), o.Tear, map[*inode]bool{})
	for dir := range m.locks { // their holders died with the machine
		if under(dir, canonical(o.Under)) {
			delete(m.locks, dir)
		}
	}
}

// invalidate closes every handle open on n and below it.
func invalidate(n *inode) {
	n.gen++
	if n.dir {
		for _, e := range n.entries {
			invalidate(e.n)
		}
	}
}

// revert puts n and everything under it back to its durable state. A
// directory or file the durable listings reach twice (possible only after
// unsynced renames between directories) keeps its first place in path
// order, so the result is always a tree.
func (m *Mem) revert(n *inode, path string, tear func(string, int64) int64, seen map[*inode]bool) {
	seen[n] = true
	n.gen++
	if n.dir {
		if !n.durableSame {
			n.entries, n.durable, n.durableSame = n.durable, nil, true
		}
		n.entries = slices.DeleteFunc(n.entries, func(e dirent) bool {
			if seen[e.n] {
				return true
			}
			m.revert(e.n, join(path, e.name), tear, seen)
			return false
		})
		return
	}
	old := n.data
	n.data = n.synced
	n.sliceShared = true
	n.tok = m.token()
	n.dirty = false
	if unsynced := old.size - n.synced.size; tear != nil && unsynced > 0 {
		if k := min(max(tear(path, unsynced), 0), unsynced); k > 0 {
			buf := make([]byte, k)
			old.readAt(buf, n.synced.size)
			m.writeAt(n, buf, n.synced.size)
			m.syncNode(n) // what reached the disk is what the disk holds
		}
	}
}

func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// SyncAll makes the whole current state durable, as if every file and
// directory had been fsynced: a crash right after it changes nothing.
func (m *Mem) SyncAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	var walk func(n *inode)
	walk = func(n *inode) {
		m.syncNode(n)
		if n.dir {
			for _, e := range n.entries {
				walk(e.n)
			}
		}
	}
	walk(m.root)
}
