package vfs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// memFile is an open file of a Mem.
type memFile struct {
	m      *Mem
	n      *inode
	name   string
	gen    uint64 // n.gen at open: a crash since then closes the handle
	off    int64
	read   bool
	write  bool
	append bool
	closed bool
}

// check says whether the handle may still be used: not closed, and no
// crash since it was opened.
func (f *memFile) check(op string) error {
	if f.closed {
		return pathErr(op, f.name, os.ErrClosed)
	}
	if f.gen != f.n.gen {
		return pathErr(op, f.name, syscall.EIO)
	}
	return nil
}

func (f *memFile) Name() string { return f.name }

func (f *memFile) Read(p []byte) (int, error) {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if len(p) == 0 {
		if err := f.check("read"); err != nil {
			return 0, err
		}
		return 0, nil
	}
	n, err := f.readAt("read", p, f.off)
	f.off += int64(n)
	return n, err
}

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if off < 0 {
		return 0, pathErr("readat", f.name, errors.New("negative offset"))
	}
	if len(p) == 0 {
		return 0, nil // as os.File: no system call, so no error either
	}
	n, err := f.readAt("read", p, off)
	if err == nil && n < len(p) {
		err = io.EOF
	}
	return n, err
}

// readAt reads what the file holds at off, and io.EOF when it holds
// nothing there (Read's contract; ReadAt adds io.EOF on short reads).
func (f *memFile) readAt(op string, p []byte, off int64) (int, error) {
	if err := f.check(op); err != nil {
		return 0, err
	}
	if f.n.dir {
		return 0, pathErr(op, f.name, syscall.EISDIR)
	}
	if !f.read {
		return 0, pathErr(op, f.name, syscall.EBADF)
	}
	if len(p) == 0 {
		return 0, nil
	}
	if off >= f.n.data.size {
		return 0, io.EOF
	}
	return f.n.readAt(p, off), nil
}

func (f *memFile) Write(p []byte) (int, error) {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	off := f.off
	if f.append {
		off = f.n.data.size
	}
	n, err := f.writeAt(p, off)
	f.off = off + int64(n)
	return n, err
}

func (f *memFile) WriteAt(p []byte, off int64) (int, error) {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if f.append {
		return 0, errors.New("os: invalid use of WriteAt on file opened with O_APPEND")
	}
	if off < 0 {
		return 0, pathErr("writeat", f.name, errors.New("negative offset"))
	}
	if len(p) == 0 {
		return 0, nil // as os.File: no system call, so no error either
	}
	return f.writeAt(p, off)
}

// writeAt writes p at off, as a failing disk would: an injected fault
// writes its tear bytes (none by default) and fails; a full disk writes
// what fits and fails with ENOSPC.
func (f *memFile) writeAt(p []byte, off int64) (int, error) {
	if err := f.check("write"); err != nil {
		return 0, err
	}
	if f.n.dir || !f.write {
		return 0, pathErr("write", f.name, syscall.EBADF)
	}
	m := f.m
	var failure error
	if inj := m.match(OpWrite, canonical(f.name), ""); inj != nil {
		failure = inj.err()
		p = p[:min(max(inj.f.Tear, 0), len(p))]
	}
	if grow := off + int64(len(p)) - f.n.data.size; m.capacity > 0 && grow > 0 {
		if free := m.capacity - m.used(); grow > free {
			// A full disk writes what fits (a short write), then fails.
			p = p[:max(int64(len(p))-(grow-free), 0)]
			failure = syscall.ENOSPC
		}
	}
	if len(p) > 0 {
		m.writeAt(f.n, p, off)
	}
	if failure != nil {
		return len(p), pathErr("write", f.name, failure)
	}
	return len(p), nil
}

func (f *memFile) Seek(offset int64, whence int) (int64, error) {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if err := f.check("seek"); err != nil {
		return 0, err
	}
	var abs int64
	switch whence {
	case io.SeekStart:
		abs = offset
	case io.SeekCurrent:
		abs = f.off + offset
	case io.SeekEnd:
		abs = f.n.size() + offset
	default:
		return 0, pathErr("seek", f.name, syscall.EINVAL)
	}
	if abs < 0 {
		return 0, pathErr("seek", f.name, syscall.EINVAL)
	}
	f.off = abs
	return abs, nil
}

func (f *memFile) Close() error {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if f.closed {
		return pathErr("close", f.name, os.ErrClosed)
	}
	f.closed = true
	return nil
}

func (f *memFile) Stat() (fs.FileInfo, error) {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if err := f.check("stat"); err != nil {
		return nil, err
	}
	return f.n.info(filepath.Base(f.name)), nil
}

// Sync makes the file's content durable.
func (f *memFile) Sync() error {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if err := f.check("sync"); err != nil {
		return err
	}
	op := OpSync
	if f.n.dir {
		op = OpSyncDir
	}
	if inj := f.m.match(op, canonical(f.name), ""); inj != nil {
		return pathErr("sync", f.name, inj.err())
	}
	f.m.syncNode(f.n)
	return nil
}

func (f *memFile) Truncate(size int64) error {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if err := f.check("truncate"); err != nil {
		return err
	}
	if f.n.dir || !f.write {
		return pathErr("truncate", f.name, syscall.EINVAL)
	}
	return f.m.truncate(f.n, f.name, size)
}

// readAt copies the content at off into p; off < size. It returns the
// bytes copied.
func (n *inode) readAt(p []byte, off int64) int { return n.data.readAt(p, off) }

// readAt copies the bytes at off into p; off < size. It returns the bytes
// copied.
func (c content) readAt(p []byte, off int64) int {
	want := min(int64(len(p)), c.size-off)
	done := 0
	for int64(done) < want {
		pg := c.pages[off/pageSize]
		n := copy(p[done:want], pg.b[off%pageSize:])
		done += n
		off += int64(n)
	}
	return done
}

// writeAt writes p at off, extending the file (with zeros over any gap)
// and copying shared pages before changing them.
func (m *Mem) writeAt(n *inode, p []byte, off int64) {
	end := off + int64(len(p))
	if off > n.data.size {
		m.zeroTail(n, off)
	}
	m.growPages(n, end)
	for len(p) > 0 {
		pg := m.mutPage(n, int(off/pageSize))
		c := copy(pg.b[off%pageSize:], p)
		p = p[c:]
		off += int64(c)
	}
	n.data.size = max(n.data.size, end)
	n.dirty = true
}

// resize truncates or extends (with zeros) the file to size.
func (m *Mem) resize(n *inode, size int64) {
	if size == n.data.size {
		return
	}
	if size > n.data.size {
		m.zeroTail(n, size)
		m.growPages(n, size)
	} else {
		// Dropping pages from the end of a shared slice is safe:
		// sliceShared stays set, so growing again copies it first.
		n.data.pages = n.data.pages[:(size+pageSize-1)/pageSize]
	}
	n.data.size = size
	n.dirty = true
}

// zeroTail clears the bytes of the last page beyond the file's size, up to
// end: a truncation may have left garbage there that an extension must
// not bring back. Pages beyond it are dropped by truncation, so they are
// new (zero) when they come back.
func (m *Mem) zeroTail(n *inode, end int64) {
	size := n.data.size
	i := int(size / pageSize)
	if size%pageSize == 0 || i >= len(n.data.pages) {
		return
	}
	pg := m.mutPage(n, i)
	clear(pg.b[size%pageSize : min(pageSize, end-int64(i)*pageSize)])
}

// growPages makes the page slice cover end bytes with new zero pages.
func (m *Mem) growPages(n *inode, end int64) {
	need := int((end + pageSize - 1) / pageSize)
	if need <= len(n.data.pages) {
		return
	}
	m.ownSlice(n, need)
	for len(n.data.pages) < need {
		n.data.pages = append(n.data.pages, &page{own: n.tok})
	}
}

// ownSlice gives the file a page slice of its own (capacity at least
// need) if it shares one.
func (m *Mem) ownSlice(n *inode, need int) {
	if !n.sliceShared {
		return
	}
	pages := make([]*page, len(n.data.pages), max(need, len(n.data.pages), 4))
	copy(pages, n.data.pages)
	n.data.pages = pages
	n.sliceShared = false
}

// mutPage returns page i ready to be written in place, copying it first
// when another content shares it.
func (m *Mem) mutPage(n *inode, i int) *page {
	pg := n.data.pages[i]
	if pg.own == n.tok {
		return pg
	}
	m.ownSlice(n, len(n.data.pages))
	cp := &page{own: n.tok, b: pg.b}
	n.data.pages[i] = cp
	return cp
}
