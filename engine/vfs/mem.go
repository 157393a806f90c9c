package vfs

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Mem is an in-memory file system with the semantics of a POSIX file system
// that matter to the engine, and a model of what survives a machine crash.
//
// Paths: every name is cleaned (filepath.Clean) and a leading separator is
// ignored, so "data/a", "./data/a" and "/data/a" are the same file. The
// root always exists. Directories are explicit: creating a file needs its
// parent directory.
//
// Durability: a file's content becomes durable at File.Sync (the whole
// content as it is then); a directory entry created, renamed or removed
// becomes durable at SyncDir of its directory. Crash puts every file back
// to its durable content and every directory back to its durable entries.
//
// Faults: Inject fails chosen operations with ENOSPC or EIO (or any errno),
// SetCapacity makes writes beyond a total size fail with ENOSPC.
//
// Clone copies the file system in O(files): file contents are shared
// copy-on-write in pages of 4 KiB, so no byte two copies share is ever
// changed in place, and the first write after a clone copies only the page
// it touches.
//
// A Mem is safe for concurrent use. Stat reports a zero modification time,
// so listings are deterministic.
type Mem struct {
	mu       sync.Mutex
	root     *inode
	nextTok  uint64
	capacity int64 // total file bytes allowed; 0 is unlimited
	faults   []*Injected
	locks    map[string]bool // directories held by Lock, by canonical path
	digests  uint64          // Digest runs so far: the current one's mark
}

// pageSize is the unit of copy-on-write sharing.
const pageSize = 4096

// page is pageSize bytes of a file. A page is written in place only by the
// file whose token it carries; any other file (the durable snapshot, a
// clone) copies it first.
type page struct {
	own uint64
	b   [pageSize]byte
}

// content is a file's bytes: size bytes in pages (the last may be partly
// used; bytes beyond size are garbage until the file is extended over them).
type content struct {
	pages []*page
	size  int64
}

// inode is a file or a directory.
type inode struct {
	perm fs.FileMode
	dir  bool
	// durableSame (directories): nothing changed since the last SyncDir,
	// so entries is also the durable listing (the next change copies it
	// first); otherwise durable holds the listing as of the last SyncDir.
	durableSame bool
	// sliceShared (files): data.pages's array is shared (with synced or a
	// clone) and must be copied before it changes.
	sliceShared bool
	dirty       bool // (files) data changed since the last Sync

	// Directories: entries is the current listing, sorted by name;
	// durable, when durableSame is false, the listing as of the last
	// SyncDir.
	entries []dirent
	durable []dirent

	// Files: data is the current content, synced the content as of the
	// last Sync. The pages of data with own == tok belong to data alone.
	data   content
	synced content
	tok    uint64
	// gen is bumped when a crash reverts or drops the inode: handles
	// opened before then fail, as a crashed process's would.
	gen uint64
	// fwd is the inode's copy while Clone runs (nil otherwise).
	fwd *inode
	// digestNo numbers the inode in the Digest whose run is digestRun
	// (hard links: a durable listing may name it again).
	digestRun uint64
	digestNo  int
}

// dirent is one directory entry.
type dirent struct {
	name string
	n    *inode
}

// find returns the position of name in a sorted listing, and whether it is
// there.
func find(es []dirent, name string) (int, bool) {
	return slices.BinarySearchFunc(es, name, func(e dirent, name string) int { return strings.Compare(e.name, name) })
}

// child returns the entry name of directory d, or nil.
func (d *inode) child(name string) *inode {
	if i, ok := find(d.entries, name); ok {
		return d.entries[i].n
	}
	return nil
}

// NewMem returns an empty in-memory file system: only the root directory.
func NewMem() *Mem {
	return &Mem{root: newDir(0o755)}
}

func newDir(perm fs.FileMode) *inode {
	return &inode{dir: true, perm: perm, durableSame: true}
}

func (m *Mem) token() uint64 {
	m.nextTok++
	return m.nextTok
}

func (m *Mem) newFile(perm fs.FileMode) *inode {
	return &inode{perm: perm, tok: m.token()}
}

// split cleans name into its path elements; the root is no element.
func split(name string) []string {
	name = filepath.ToSlash(filepath.Clean(name))
	name = strings.TrimLeft(name, "/")
	if name == "" || name == "." {
		return nil
	}
	return strings.Split(name, "/")
}

// canonical is the cleaned form of name that fault and crash prefixes are
// compared with.
func canonical(name string) string { return strings.Join(split(name), "/") }

func pathErr(op, name string, err error) error {
	return &fs.PathError{Op: op, Path: name, Err: err}
}

// walk follows elems from the root. It returns the parent directory of the
// last element and the last element's inode (nil when it does not exist).
// A missing intermediate directory is ENOENT, a file in the middle ENOTDIR.
func (m *Mem) walk(elems []string) (parent, n *inode, err error) {
	n = m.root
	for i, e := range elems {
		if !n.dir {
			return nil, nil, syscall.ENOTDIR
		}
		parent = n
		n = n.child(e)
		if n == nil {
			if i < len(elems)-1 {
				return nil, nil, syscall.ENOENT
			}
			return parent, nil, nil
		}
	}
	return parent, n, nil
}

// lookup returns the inode at name, or ENOENT/ENOTDIR.
func (m *Mem) lookup(name string) (*inode, error) {
	_, n, err := m.walk(split(name))
	if err == nil && n == nil {
		err = syscall.ENOENT
	}
	return n, err
}

// setEntry changes one entry of directory d (n == nil removes it), keeping
// the durable listing as it was.
func (d *inode) setEntry(name string, n *inode) {
	if d.durableSame {
		d.durable = d.entries
		d.entries = slices.Clone(d.entries)
		d.durableSame = false
	}
	i, ok := find(d.entries, name)
	switch {
	case n == nil && ok:
		d.entries = slices.Delete(d.entries, i, i+1)
	case ok:
		d.entries[i].n = n
	case n != nil:
		d.entries = slices.Insert(d.entries, i, dirent{name, n})
	}
}

// OpenFile opens name with os.O_* flags, as os.OpenFile does.
func (m *Mem) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	elems := split(name)
	parent, n, err := m.walk(elems)
	if err != nil {
		return nil, pathErr("open", name, err)
	}
	access := flag & (os.O_RDONLY | os.O_WRONLY | os.O_RDWR)
	writable := access == os.O_WRONLY || access == os.O_RDWR
	switch {
	case n == nil && flag&os.O_CREATE == 0:
		return nil, pathErr("open", name, syscall.ENOENT)
	case n == nil:
		if err := m.fault(OpCreate, canonical(name), ""); err != nil {
			return nil, pathErr("open", name, err)
		}
		n = m.newFile(perm & fs.ModePerm)
		parent.setEntry(elems[len(elems)-1], n)
	case flag&os.O_CREATE != 0 && flag&os.O_EXCL != 0:
		return nil, pathErr("open", name, syscall.EEXIST)
	case n.dir && (writable || flag&os.O_TRUNC != 0):
		return nil, pathErr("open", name, syscall.EISDIR)
	case flag&os.O_TRUNC != 0 && writable && n.data.size > 0:
		if err := m.fault(OpTruncate, canonical(name), ""); err != nil {
			return nil, pathErr("open", name, err)
		}
		m.resize(n, 0)
	}
	return &memFile{m: m, n: n, name: name, gen: n.gen,
		read: access != os.O_WRONLY, write: writable, append: flag&os.O_APPEND != 0}, nil
}

// ReadFile returns a copy of name's content.
func (m *Mem) ReadFile(name string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.lookup(name)
	if err != nil {
		return nil, pathErr("open", name, err)
	}
	if n.dir {
		return nil, pathErr("read", name, syscall.EISDIR)
	}
	out := make([]byte, n.data.size)
	n.readAt(out, 0)
	return out, nil
}

// Stat describes name.
func (m *Mem) Stat(name string) (fs.FileInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.lookup(name)
	if err != nil {
		return nil, pathErr("stat", name, err)
	}
	return n.info(filepath.Base(name)), nil
}

// ReadDir lists a directory sorted by name.
func (m *Mem) ReadDir(name string) ([]fs.DirEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.lookup(name)
	if err != nil {
		return nil, pathErr("open", name, err)
	}
	if !n.dir {
		return nil, pathErr("readdirent", name, syscall.ENOTDIR)
	}
	out := make([]fs.DirEntry, len(n.entries))
	for i, e := range n.entries {
		out[i] = fs.FileInfoToDirEntry(e.n.info(e.name))
	}
	return out, nil
}

// Mkdir creates one directory; its parent must exist.
func (m *Mem) Mkdir(name string, perm fs.FileMode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.mkdir(name, split(name), perm)
}

func (m *Mem) mkdir(name string, elems []string, perm fs.FileMode) error {
	parent, n, err := m.walk(elems)
	if err != nil {
		return pathErr("mkdir", name, err)
	}
	if n != nil {
		return pathErr("mkdir", name, syscall.EEXIST)
	}
	if err := m.fault(OpCreate, strings.Join(elems, "/"), ""); err != nil {
		return pathErr("mkdir", name, err)
	}
	parent.setEntry(elems[len(elems)-1], newDir(perm&fs.ModePerm))
	return nil
}

// MkdirAll creates a directory and every missing parent; an existing
// directory is no error, an existing file is ENOTDIR.
func (m *Mem) MkdirAll(name string, perm fs.FileMode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	elems := split(name)
	for i := 1; i <= len(elems); i++ {
		_, n, err := m.walk(elems[:i])
		if err != nil {
			return pathErr("mkdir", name, err)
		}
		if n == nil {
			if err := m.mkdir(name, elems[:i], perm); err != nil {
				return err
			}
			continue
		}
		if !n.dir {
			return pathErr("mkdir", name, syscall.ENOTDIR)
		}
	}
	return nil
}

// Remove deletes a file or an empty directory.
func (m *Mem) Remove(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	elems := split(name)
	if len(elems) == 0 {
		return pathErr("remove", name, syscall.EBUSY)
	}
	parent, n, err := m.walk(elems)
	if err == nil && n == nil {
		err = syscall.ENOENT
	}
	if err != nil {
		return pathErr("remove", name, err)
	}
	if n.dir && len(n.entries) > 0 {
		return pathErr("remove", name, syscall.ENOTEMPTY)
	}
	if err := m.fault(OpRemove, canonical(name), ""); err != nil {
		return pathErr("remove", name, err)
	}
	parent.setEntry(elems[len(elems)-1], nil)
	return nil
}

// RemoveAll deletes name and everything under it; a missing name is no
// error.
func (m *Mem) RemoveAll(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	elems := split(name)
	if len(elems) == 0 {
		return pathErr("unlinkat", name, syscall.EINVAL)
	}
	parent, n, err := m.walk(elems)
	if n == nil {
		if err == syscall.ENOTDIR {
			return pathErr("unlinkat", name, err)
		}
		return nil
	}
	if err := m.fault(OpRemove, canonical(name), ""); err != nil {
		return pathErr("unlinkat", name, err)
	}
	parent.setEntry(elems[len(elems)-1], nil)
	return nil
}

// Rename moves oldpath to newpath as os.Rename does on Linux: a file
// replaces a file, an existing directory at newpath is EEXIST, a directory
// cannot move into itself (EINVAL).
func (m *Mem) Rename(oldpath, newpath string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	oldE, newE := split(oldpath), split(newpath)
	linkErr := func(err error) error {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
	}
	op, n, oerr := m.walk(oldE)
	np, target, nerr := m.walk(newE)
	if nerr == nil && target != nil && target.dir {
		// os.Rename refuses any directory at newpath, reporting a bad
		// oldpath first.
		if oerr == nil && n == nil {
			oerr = syscall.ENOENT
		}
		if oerr != nil {
			return linkErr(oerr)
		}
		return linkErr(syscall.EEXIST)
	}
	switch {
	case oerr != nil:
		return linkErr(oerr)
	case nerr != nil:
		return linkErr(nerr)
	case n == nil:
		return linkErr(syscall.ENOENT)
	case len(oldE) == 0 || len(newE) == 0:
		return linkErr(syscall.EBUSY)
	case target == n:
		return nil
	}
	if n.dir && len(newE) > len(oldE) && slices.Equal(newE[:len(oldE)], oldE) {
		return linkErr(syscall.EINVAL)
	}
	if target != nil && n.dir {
		return linkErr(syscall.ENOTDIR)
	}
	if err := m.fault(OpRename, strings.Join(oldE, "/"), strings.Join(newE, "/")); err != nil {
		return linkErr(err)
	}
	op.setEntry(oldE[len(oldE)-1], nil)
	np.setEntry(newE[len(newE)-1], n)
	return nil
}

// Truncate changes the size of a file.
func (m *Mem) Truncate(name string, size int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.lookup(name)
	if err != nil {
		return pathErr("truncate", name, err)
	}
	if n.dir {
		return pathErr("truncate", name, syscall.EISDIR)
	}
	return m.truncate(n, name, size)
}

func (m *Mem) truncate(n *inode, name string, size int64) error {
	if size < 0 {
		return pathErr("truncate", name, syscall.EINVAL)
	}
	if err := m.fault(OpTruncate, canonical(name), ""); err != nil {
		return pathErr("truncate", name, err)
	}
	if grow := size - n.data.size; grow > 0 && m.capacity > 0 && m.used()+grow > m.capacity {
		return pathErr("truncate", name, syscall.ENOSPC)
	}
	m.resize(n, size)
	return nil
}

// SyncDir makes the directory's current entries durable. On a file it
// syncs the file, as fsync on an opened file would.
func (m *Mem) SyncDir(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.lookup(name)
	if err != nil {
		return pathErr("open", name, err)
	}
	if err := m.fault(OpSyncDir, canonical(name), ""); err != nil {
		return pathErr("sync", name, err)
	}
	m.syncNode(n)
	return nil
}

// syncNode makes a directory's entries or a file's content durable.
func (m *Mem) syncNode(n *inode) {
	if n.dir {
		n.durable, n.durableSame = nil, true
		return
	}
	if !n.dirty {
		return
	}
	n.synced = n.data
	n.sliceShared = true
	n.tok = m.token() // every current page now belongs to the snapshot too
	n.dirty = false
}

// info describes an inode under a name.
func (n *inode) info(name string) fs.FileInfo {
	mode := n.perm
	if n.dir {
		mode |= fs.ModeDir
	}
	return &memInfo{name: name, size: n.size(), mode: mode}
}

func (n *inode) size() int64 {
	if n.dir {
		return 0
	}
	return n.data.size
}

type memInfo struct {
	name string
	size int64
	mode fs.FileMode
}

func (i *memInfo) Name() string       { return i.name }
func (i *memInfo) Size() int64        { return i.size }
func (i *memInfo) Mode() fs.FileMode  { return i.mode }
func (i *memInfo) ModTime() time.Time { return time.Time{} }
func (i *memInfo) IsDir() bool        { return i.mode.IsDir() }
func (i *memInfo) Sys() any           { return nil }

// Used is the total size of the files in the tree, as SetCapacity counts
// it.
func (m *Mem) Used() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.used()
}

func (m *Mem) used() int64 {
	var total int64
	var walk func(n *inode)
	walk = func(n *inode) {
		if !n.dir {
			total += n.data.size
			return
		}
		for _, e := range n.entries {
			walk(e.n)
		}
	}
	walk(m.root)
	return total
}

// SetCapacity limits the total size of the files (Used) to bytes: a write
// or a truncation that would pass it writes what fits and fails with
// ENOSPC, as a full disk does. Zero or less removes the limit. Lowering it
// below Used fails every growth until files shrink or it is raised.
func (m *Mem) SetCapacity(bytes int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.capacity = max(bytes, 0)
}

// SyncedSize is the size of name's durable content: what a crash would
// leave of it (before any tear). A missing name is ENOENT.
func (m *Mem) SyncedSize(name string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.lookup(name)
	if err != nil {
		return 0, pathErr("stat", name, err)
	}
	return n.synced.size, nil
}
