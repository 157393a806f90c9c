package storage

import (
	"os"
	"sort"
)

// Flush writes out buffered bytes and fsyncs every segment that has
// unflushed bytes (log, then index) and, when segments were created since
// the last flush, the directory. Afterwards UnflushedBytes is 0.
func (l *Log) Flush() error {
	if err := l.usable(); err != nil {
		return err
	}
	return l.flush()
}

func (l *Log) flush() error {
	if err := l.writeOut(); err != nil {
		return err
	}
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
		err = writeMarker(l.dir, l.marker())
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
// keepUnflushed (a process crash: the OS keeps what it was given) buffered
// bytes are written out first and nothing is lost. Without it (a machine
// failure: the page cache is gone) every byte appended since the last
// flush is dropped: segments whose creation was not made durable are
// removed, the others are truncated back to their flushed length, and
// their index files lose the entries beyond it. Crashing a closed log does
// nothing.
func (l *Log) Crash(keepUnflushed bool) error {
	if l.closed {
		return nil
	}
	l.closed = true
	if keepUnflushed {
		err := l.writeOut()
		l.closeFiles()
		return err
	}
	l.wbuf = l.wbuf[:0]
	l.closeFiles()
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
		if st, err := os.Stat(s.logPath); err == nil && st.Size() > s.synced {
			if err := os.Truncate(s.logPath, s.synced); err != nil {
				keep(storageErr(err, "drop unflushed bytes"))
			}
		}
		n := sort.Search(min(s.indexWritten, len(s.index.entries)), func(j int) bool { return s.index.entries[j].Position >= s.synced })
		if st, err := os.Stat(s.indexPath); err == nil && st.Size() > int64(n)*IndexEntrySize {
			if err := os.Truncate(s.indexPath, int64(n)*IndexEntrySize); err != nil {
				keep(storageErr(err, "drop unflushed index entries"))
			}
		}
	}
	return first
}
