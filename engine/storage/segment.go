package storage

import (
	"io"
	"os"
	"path/filepath"

	"github.com/minikafka-lab/minikafka/engine/atomicfile"
	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// segment is one .log/.index pair and what the log knows about it. Only the
// active (last) segment has bytes in the log's write buffer; for every other
// segment written == size.
type segment struct {
	base      int64
	logPath   string
	indexPath string

	next     int64 // next offset: the last batch's next offset, or base when empty
	size     int64 // log bytes, including bytes still in the log's write buffer
	written  int64 // bytes handed to the OS (the file's length as the log sees it)
	synced   int64 // bytes made durable by fsync (the page-cache model)
	durable  bool  // the files' directory entries were fsynced
	maxTs    int64 // max record timestamp, -1 without records
	maxEpoch int32 // max batch leader epoch, -1 without batches

	index        offsetIndex
	indexWritten int // entries already in the index file (-1: no file yet)

	f *os.File // opened lazily for closed segments
}

func newSegment(dir string, base int64) *segment {
	return &segment{
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
func createSegment(dir string, base int64) (*segment, error) {
	s := newSegment(dir, base)
	f, err := os.OpenFile(s.logPath, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, storageErr(err, "create segment")
	}
	os.Remove(s.indexPath) // a stale index of an earlier segment with this base
	s.f = f
	s.indexWritten = -1 // the index file does not exist yet
	return s, nil
}

func (s *segment) hasData() bool { return s.size > 0 }

// file returns the segment's log file, opening it on first use.
func (s *segment) file() (*os.File, error) {
	if s.f != nil {
		return s.f, nil
	}
	f, err := os.OpenFile(s.logPath, os.O_RDWR, 0)
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
		return kerr.New(kerr.StorageError, "segment %s ends at byte %d, before the %d bytes the log wrote (damaged while open?)", s.logPath, off+int64(n), s.written)
	}
	return storageErr(err, "read segment")
}

// writeFile writes p at the end the log knows (s.written), never at the
// file's current end, so damage done behind the log's back is overwritten
// exactly as a disk would overwrite it.
func (s *segment) writeFile(p []byte) error {
	if len(p) == 0 {
		return nil
	}
	f, err := s.file()
	if err != nil {
		return err
	}
	if _, err := f.WriteAt(p, s.written); err != nil {
		return storageErr(err, "write segment")
	}
	startWriteback(f, s.written, int64(len(p)))
	s.written += int64(len(p))
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
	if err := fsync(f); err != nil {
		return storageErr(err, "fsync segment")
	}
	s.synced = s.size
	return nil
}

// syncIndex appends the unwritten index entries to the index file,
// creating it if needed, and fsyncs it.
func (s *segment) syncIndex() error {
	if s.indexWritten == len(s.index.entries) {
		return nil
	}
	f, err := os.OpenFile(s.indexPath, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return storageErr(err, "open index")
	}
	from := max(s.indexWritten, 0)
	buf := encodeIndex(nil, s.base, s.index.entries[from:])
	_, err = f.WriteAt(buf, int64(from)*IndexEntrySize)
	if err == nil {
		err = f.Truncate(int64(len(s.index.entries)) * IndexEntrySize)
	}
	if err == nil {
		err = fsync(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return storageErr(err, "write index")
	}
	s.indexWritten = len(s.index.entries)
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
	if err := os.Remove(s.logPath); err != nil && !os.IsNotExist(err) {
		return storageErr(err, "delete segment")
	}
	if err := os.Remove(s.indexPath); err != nil && !os.IsNotExist(err) {
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

// skipFsync turns fsync into a no-op. Only tests set it: benchmarks, to
// measure how much of a workload's time the disk's fsyncs take (-nofsync),
// and the state-machine test, to spare the disk. The page-cache model
// tracks flushed lengths itself and behaves the same either way.
var skipFsync = false

// fsync makes a file's (or directory's) written state durable.
func fsync(f *os.File) error {
	if skipFsync {
		return nil
	}
	return f.Sync()
}

// syncDir fsyncs a directory so that created, renamed and removed entries
// are durable.
func syncDir(dir string) error {
	if skipFsync {
		return nil
	}
	if err := atomicfile.SyncDir(dir); err != nil {
		return storageErr(err, "fsync directory")
	}
	return nil
}
