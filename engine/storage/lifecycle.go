package storage

import (
	"sort"

	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// Flush fsyncs every segment that has
// unflushed bytes (log, then index) and, when segments were created since
// the last flush, the directory. Afterwards UnflushedBytes is 0.
func (l *Log) Flush() error {
	if err := l.usable(); err != nil {
		return err
	}
	return l.flush()
}

func (l *Log) flush() error {
	for _, s := range l.segs {
		if err := s.sync(); err != nil {
			return err
		}
	}
	return l.syncDirIfNeeded()
}

// Close is the graceful shutdown: it flushes, writes the clean-shutdown
// marker (so that the next Open skips scanning closed segments) and closes
// the files. Closing a closed log does nothing.
func (l *Log) Close() error {
	if l.closed {
		return nil
	}
	err := l.flush()
	if err == nil {
		err = l.writeMarker(l.marker())
	}
	l.closeFiles()
	l.closed = true
	return err
}

// marker describes the log for the clean-shutdown marker.
func (l *Log) marker() marker {
	m := marker{maxEpoch: -1}
	for _, s := range l.segs {
		m.maxEpoch = max(m.maxEpoch, s.maxEpoch)
		m.segs = append(m.segs, markerSegment{
			base: s.base, next: s.next, size: s.size, maxTs: s.maxTs,
			maxEpoch: s.maxEpoch, indexEntries: uint32(len(s.index.entries)),
		})
	}
	return m
}

// Crash closes the log without a marker, as a failure would. With
// keepUnflushed (a process crash: the OS keeps what it was given, and every
// append was given to it before it returned) nothing is lost. Without it (a
// machine failure: the page cache is gone) every byte appended since the
// last flush is dropped: segments whose creation was not made durable are
// removed, the others are truncated back to their flushed length, and
// their index files lose the entries beyond it. Crashing a closed log does
// nothing.
func (l *Log) Crash(keepUnflushed bool) error {
	if l.closed {
		return nil
	}
	l.closed = true
	l.closeFiles()
	if keepUnflushed {
		return nil
	}
	fsys := l.opts.FS
	var first error
	keep := func(err error) {
		if first == nil {
			first = err
		}
	}
	for i := len(l.segs) - 1; i >= 0; i-- {
		s := l.segs[i]
		if !s.durable {
			keep(s.remove())
			continue
		}
		if st, err := fsys.Stat(s.logPath); err == nil && st.Size() > s.synced {
			if err := fsys.Truncate(s.logPath, s.synced); err != nil {
				keep(storageErr(err, "drop unflushed bytes"))
			}
		}
		n := sort.Search(min(s.indexWritten, len(s.index.entries)), func(j int) bool { return s.index.entries[j].Position >= s.synced })
		if st, err := fsys.Stat(s.indexPath); err == nil && st.Size() > int64(n)*IndexEntrySize {
			if err := fsys.Truncate(s.indexPath, int64(n)*IndexEntrySize); err != nil {
				keep(storageErr(err, "drop unflushed index entries"))
			}
		}
	}
	return first
}

// FS is the file system the log's files live in.
func (l *Log) FS() vfs.FS { return l.opts.FS }
