package vfs

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Clone returns an independent copy of the file system: the same tree,
// contents, durable state and capacity, and no faults and no open files.
// It costs O(files): contents are shared copy-on-write by page, so a write
// to either copy copies only the pages it touches, and neither ever sees
// the other's changes.
func (m *Mem) Clone() *Mem {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := &Mem{capacity: m.capacity, nextTok: m.nextTok}
	// Three allocations in all (the Mem, its inodes, its directory
	// entries), and forward pointers instead of a map from originals to
	// copies: Clone is on the snapshot path.
	inodes, entries := count(m.root)
	sl := &slabs{inodes: make([]inode, inodes), entries: make([]dirent, entries)}
	c.root = m.cloneNode(c, m.root, sl)
	clearFwd(m.root)
	return c
}

// slabs are the memory a clone's inodes and listings are carved from.
type slabs struct {
	inodes  []inode
	entries []dirent
}

// count counts the inodes and directory entries reachable through current
// and durable listings (an inode reachable twice is counted twice: an upper
// bound).
func count(n *inode) (inodes, entries int) {
	inodes = 1
	for _, listing := range [][]dirent{n.entries, n.durable} {
		entries += len(listing)
		for _, e := range listing {
			i, d := count(e.n)
			inodes, entries = inodes+i, entries+d
		}
		if n.durableSame {
			break
		}
	}
	return inodes, entries
}

// cloneNode copies n into c, taking memory from sl. An inode reachable
// twice (through a durable listing and a current one) is copied once.
func (m *Mem) cloneNode(c *Mem, n *inode, sl *slabs) *inode {
	if n.fwd != nil {
		return n.fwd
	}
	cp := &sl.inodes[0]
	sl.inodes = sl.inodes[1:]
	cp.dir, cp.perm = n.dir, n.perm
	n.fwd = cp
	if n.dir {
		cp.entries = m.cloneListing(c, n.entries, sl)
		cp.durableSame = n.durableSame
		if !n.durableSame {
			cp.durable = m.cloneListing(c, n.durable, sl)
		}
		return cp
	}
	// Both sides lose ownership of every page: the next write to either
	// copies the page it changes. A file whose slice is already shared
	// owns no page (its token was renewed when it was shared).
	if !n.sliceShared {
		n.sliceShared, n.tok = true, m.token()
	}
	cp.data, cp.synced, cp.dirty = n.data, n.synced, n.dirty
	cp.sliceShared, cp.tok = true, c.token()
	return cp
}

// cloneListing copies a listing into the entry slab. The copy's capacity is
// its length, so the first change to it moves it out of the slab.
func (m *Mem) cloneListing(c *Mem, es []dirent, sl *slabs) []dirent {
	if len(es) == 0 {
		return nil
	}
	out := sl.entries[:len(es):len(es)]
	sl.entries = sl.entries[len(es):]
	for i, e := range es {
		out[i] = dirent{e.name, m.cloneNode(c, e.n, sl)}
	}
	return out
}

// clearFwd removes the forward pointers Clone left.
func clearFwd(n *inode) {
	if n.fwd == nil {
		return
	}
	n.fwd = nil
	for _, e := range n.entries {
		clearFwd(e.n)
	}
	for _, e := range n.durable {
		clearFwd(e.n)
	}
}

// CopyTree copies the directory srcDir of src, with everything under it,
// to dstDir on dst (created if missing; files of the same name are
// replaced). Every file and directory written is synced, so the copy is
// durable. Only regular files and directories can be copied. It snapshots
// a data directory on the OS into a Mem, or writes a Mem's tree out to
// the disk.
func CopyTree(dst FS, dstDir string, src FS, srcDir string) error {
	var buf []byte
	return copyTree(dst, dstDir, src, srcDir, &buf)
}

// copyTree is CopyTree with one copy buffer for the whole tree, made at
// the first regular file.
func copyTree(dst FS, dstDir string, src FS, srcDir string, buf *[]byte) error {
	st, err := src.Stat(srcDir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("copy %s: not a directory", srcDir)
	}
	if err := dst.MkdirAll(dstDir, st.Mode().Perm()); err != nil {
		return err
	}
	entries, err := src.ReadDir(srcDir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		from, to := filepath.Join(srcDir, e.Name()), filepath.Join(dstDir, e.Name())
		switch {
		case e.IsDir():
			if err := copyTree(dst, to, src, from, buf); err != nil {
				return err
			}
		case e.Type().IsRegular():
			if *buf == nil {
				*buf = make([]byte, 64<<10)
			}
			if err := copyFile(dst, to, src, from, *buf); err != nil {
				return err
			}
		default:
			return fmt.Errorf("copy %s: not a regular file or directory", from)
		}
	}
	return dst.SyncDir(dstDir)
}

func copyFile(dst FS, to string, src FS, from string, buf []byte) (err error) {
	in, err := Open(src, from)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := dst.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, st.Mode().Perm())
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}()
	if _, err := io.CopyBuffer(onlyWriter{out}, onlyReader{in}, buf); err != nil {
		return err
	}
	return out.Sync()
}

// onlyReader and onlyWriter hide every method but Read and Write, so
// io.CopyBuffer uses the buffer it is given.
type onlyReader struct{ io.Reader }
type onlyWriter struct{ io.Writer }

// MemFrom returns a new Mem holding a copy of dir from src at the same
// path, all of it durable.
func MemFrom(src FS, dir string) (*Mem, error) {
	m := NewMem()
	if err := CopyTree(m, dir, src, dir); err != nil {
		return nil, err
	}
	m.SyncAll()
	return m, nil
}

// TreeSize is the number of bytes in the regular files under dir (dir
// itself, when it is a file): what CopyTree would copy, found from the
// directory listings alone.
func TreeSize(fsys FS, dir string) (int64, error) {
	st, err := fsys.Stat(dir)
	if err != nil {
		return 0, err
	}
	if !st.IsDir() {
		return st.Size(), nil
	}
	entries, err := fsys.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var total int64
	for _, e := range entries {
		n, err := TreeSize(fsys, filepath.Join(dir, e.Name()))
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}
