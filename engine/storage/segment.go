package storage

import (
	"io"
	"os"
	"path/filepath"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// writebackBytes is how many appended bytes of a segment are handed to
// vfs.StartWriteback at a time: the OS starts writing them to the disk
// early, so the fsync of a roll or flush has less left to do.
const writebackBytes = 256 << 10

// segment is one .log/.index pair and what the log knows about it. Every
// byte the log appended is in the file (handed to the OS); synced says how
// many of them an fsync made durable.
type segment struct {
	fsys      vfs.FS
	base      int64
	logPath   string
	indexPath string

	next     int64 // next offset: the last batch's next offset, or base when empty
	size     int64 // log bytes: the file's length as the log sees it
	synced   int64 // bytes made durable by fsync (the page-cache model)
	hinted   int64 // bytes handed to vfs.StartWriteback
	durable  bool  // the files' directory entries were fsynced
	maxTs    int64 // max record timestamp, -1 without records
	maxEpoch int32 // max batch leader epoch, -1 without batches

	index        offsetIndex
	indexWritten int // entries already in the index file (-1: no file yet)
	// indexUnsynced says the index file holds bytes no fsync made durable
	// (written at a roll, synced by the next flush or close).
	indexUnsynced bool

	f vfs.File // opened lazily for closed segments
}

func newSegment(fsys vfs.FS, dir string, base int64) *segment {
	return &segment{
		fsys:      fsys,
		base:      base,
		logPath:   filepath.Join(dir, SegmentFileName(base)),
		indexPath: filepath.Join(dir, IndexFileName(base)),
		next:      base,
		maxTs:     -1,
		maxEpoch:  -1,
		index:     offsetIndex{base: base},
	}
}

// createSegment creates (truncates) the log file of a new, empty segment.
// The index file is created by the segment's first flush (it is derived
// data; a missing index file is rebuilt at open). The new file is not
// durable until the directory is fsynced.
func createSegment(fsys vfs.FS, dir string, base int64) (*segment, error) {
	s := newSegment(fsys, dir, base)
	f, err := fsys.OpenFile(s.logPath, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, storageErr(err, "create segment")
	}
	fsys.Remove(s.indexPath) // a stale index of an earlier segment with this base
	s.f = f
	s.indexWritten = -1 // the index file does not exist yet
	return s, nil
}

func (s *segment) hasData() bool { return s.size > 0 }

// file returns the segment's log file, opening it on first use.
func (s *segment) file() (vfs.File, error) {
	if s.f != nil {
		return s.f, nil
	}
	f, err := s.fsys.OpenFile(s.logPath, os.O_RDWR, 0)
	if err != nil {
		return nil, storageErr(err, "open segment")
	}
	s.f = f
	return f, nil
}

// readFile reads len(p) bytes at off from the file. A short file (damaged
// while the log was open) is STORAGE_ERROR.
func (s *segment) readFile(p []byte, off int64) error {
	f, err := s.file()
	if err != nil {
		return err
	}
	n, err := f.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == io.EOF {
		return kerr.New(kerr.StorageError, "segment %s ends at byte %d, before the %d bytes the log wrote (damaged while open?)", s.logPath, off+int64(n), s.size)
	}
	return storageErr(err, "read segment")
}

// writeFrame writes frame at the end the log knows (s.size), never at the
// file's current end, so damage done behind the log's back is overwritten
// exactly as a disk would overwrite it. It does not change s.size. A
// failed write (ENOSPC, EIO) is STORAGE_ERROR and leaves no partial frame:
// the bytes a torn write got in are cut off again.
func (s *segment) writeFrame(frame []byte) error {
	f, err := s.file()
	if err != nil {
		return err
	}
	if n, err := f.WriteAt(frame, s.size); err != nil {
		if n > 0 {
			f.Truncate(s.size) // best effort: the next append overwrites them anyway
		}
		return storageErr(err, "write segment %s", s.logPath)
	}
	if end := s.size + int64(len(frame)); end-s.hinted >= writebackBytes {
		vfs.StartWriteback(f, s.hinted, end-s.hinted)
		s.hinted = end
	}
	return nil
}

// sync fsyncs the log file and writes and fsyncs the index entries not
// yet in the index file. Afterwards every byte of the segment is durable.
func (s *segment) sync() error {
	if err := s.syncLog(); err != nil {
		return err
	}
	return s.syncIndex()
}

// syncLog fsyncs the log file when it has bytes not yet flushed.
func (s *segment) syncLog() error {
	if s.synced == s.size {
		return nil
	}
	f, err := s.file()
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return storageErr(err, "fsync segment")
	}
	s.synced = s.size
	return nil
}

// syncIndex appends the unwritten index entries to the index file,
// creating it if needed, and fsyncs it when it holds bytes no fsync made
// durable.
func (s *segment) syncIndex() error {
	if s.indexWritten == len(s.index.entries) && !s.indexUnsynced {
		return nil
	}
	return s.putIndex(true)
}

// writeIndex appends the unwritten index entries to the index file,
// creating it if needed, without an fsync (a roll writes the full index of
// the segment it closes; the next flush or close makes it durable).
func (s *segment) writeIndex() error {
	if s.indexWritten == len(s.index.entries) {
		return nil
	}
	return s.putIndex(false)
}

// putIndex writes the unwritten index entries, and fsyncs the file when
// sync is set.
func (s *segment) putIndex(sync bool) error {
	f, err := s.fsys.OpenFile(s.indexPath, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return storageErr(err, "open index")
	}
	if from := max(s.indexWritten, 0); s.indexWritten != len(s.index.entries) {
		buf := encodeIndex(nil, s.base, s.index.entries[from:])
		_, err = f.WriteAt(buf, int64(from)*IndexEntrySize)
		if err == nil {
			err = f.Truncate(int64(len(s.index.entries)) * IndexEntrySize)
		}
		if err == nil {
			s.indexWritten, s.indexUnsynced = len(s.index.entries), true
		}
	}
	if err == nil && sync {
		err = f.Sync()
		if err == nil {
			s.indexUnsynced = false
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return storageErr(err, "write index")
	}
	return nil
}

// closeFile closes the log file if it is open.
func (s *segment) closeFile() error {
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	if err != nil {
		return storageErr(err, "close segment")
	}
	return nil
}

// remove closes and deletes both files.
func (s *segment) remove() error {
	s.closeFile()
	if err := s.fsys.Remove(s.logPath); err != nil && !vfs.IsNotExist(err) {
		return storageErr(err, "delete segment")
	}
	if err := s.fsys.Remove(s.indexPath); err != nil && !vfs.IsNotExist(err) {
		return storageErr(err, "delete index")
	}
	return nil
}

// info describes the segment.
func (s *segment) info(active bool) SegmentInfo {
	return SegmentInfo{
		Base: s.base, NextOffset: s.next, SizeBytes: s.size,
		IndexEntries: len(s.index.entries), MaxTimestamp: s.maxTs, Active: active,
		LogPath: s.logPath, IndexPath: s.indexPath,
	}
}

// syncDir fsyncs the log's directory so that created, renamed and removed
// entries are durable.
func (l *Log) syncDir(dir string) error {
	if err := l.opts.FS.SyncDir(dir); err != nil {
		return storageErr(err, "fsync directory")
	}
	return nil
}
