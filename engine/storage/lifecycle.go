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
// the files. Closing a closed log does nothing. It is CloseAll of one log.
func (l *Log) Close() error {
	return CloseAll([]*Log{l})[0]
}

// CloseAll closes logs as Close closes each, and returns one error per log,
// but makes their files durable together, in two vfs.SyncAll steps over
// the file system of the first log (every log must be on it):
//
//  1. each log writes its index entries not yet written and its marker to
//     a temporary file; the segment files with unflushed bytes, the index
//     files not fsynced yet and the temporary markers are made durable;
//  2. each log whose files are durable renames its marker into place; the
//     log directories are made durable (new segments, the marker).
//
// Every file that changed is fsynced once and files that did not change
// are not; a directory is fsynced in the second step, and in the first
// too when it has new segments or its consumed marker's deletion is not
// durable yet (as Flush does). On the real file system both steps are
// one syncfs(2) each when there are many files (vfs.SyncAll). A log whose
// step fails gets no marker and its error; the others close as usual.
// Every log's files are closed in the end.
func CloseAll(logs []*Log) []error {
	errs := make([]error, len(logs))
	if len(logs) == 0 {
		return errs
	}
	fsys := logs[0].opts.FS
	open, sets := prepareAll(logs, errs, true)
	var dirs []vfs.SyncSet
	var placed []int
	for k, err := range vfs.SyncAll(fsys, sets) {
		i := open[k]
		l := logs[i]
		tmp := l.markerPath() + ".tmp"
		if err == nil {
			l.markFlushed()
			if len(sets[k].Dirs) > 0 {
				l.markDurable()
			}
			err = fsys.Rename(tmp, l.markerPath())
		}
		if err != nil {
			fsys.Remove(tmp)
			errs[i] = storageErr(err, "close %s", l.dir)
			l.finishClose()
			continue
		}
		placed = append(placed, i)
		dirs = append(dirs, vfs.SyncSet{Dirs: []string{l.dir}})
	}
	for k, err := range vfs.SyncAll(fsys, dirs) {
		l := logs[placed[k]]
		if err != nil {
			errs[placed[k]] = storageErr(err, "fsync directory")
		} else {
			l.markDurable()
		}
		l.finishClose()
	}
	return errs
}

// prepareClose is the first half of a close: the index entries not yet in
// their files are written and the marker goes to a temporary file, none of
// it fsynced; it returns what must be made durable before the marker may
// be renamed into place.
// With perLog false no marker is written (ShutdownAll keeps it in the
// directory's file).
func (l *Log) prepareClose(perLog bool) (vfs.SyncSet, error) {
	var set vfs.SyncSet
	for _, s := range l.segs {
		if s.synced != s.size {
			f, err := s.file()
			if err != nil {
				return set, err
			}
			set.Files = append(set.Files, f)
		}
		if err := s.writeIndex(); err != nil {
			return set, err
		}
		if s.indexUnsynced {
			set.Paths = append(set.Paths, s.indexPath)
		}
	}
	if perLog {
		tmp, err := l.writeMarkerFile(l.marker())
		if err != nil {
			return set, err
		}
		set.Paths = append(set.Paths, tmp)
	}
	if l.needsDirSync() {
		// New segments, or the consumed marker's deletion, are made
		// durable with the files, as Flush does.
		set.Dirs = append(set.Dirs, l.dir)
	}
	return set, nil
}

// prepareAll runs prepareClose on every open log: a log that fails gets
// its error in errs and is closed. It returns the indexes of the others
// and what each must make durable.
func prepareAll(logs []*Log, errs []error, perLog bool) (open []int, sets []vfs.SyncSet) {
	for i, l := range logs {
		if l.closed {
			continue
		}
		set, err := l.prepareClose(perLog)
		if err != nil {
			errs[i] = err
			l.finishClose()
			continue
		}
		open = append(open, i)
		sets = append(sets, set)
	}
	return open, sets
}

// markFlushed records that every byte of every segment and index file is
// durable.
func (l *Log) markFlushed() {
	for _, s := range l.segs {
		s.synced, s.indexUnsynced = s.size, false
	}
}

// finishClose closes the files and the log.
func (l *Log) finishClose() {
	l.closeFiles()
	l.closed = true
}

// marker describes the log for the clean-shutdown marker.
func (l *Log) marker() marker {
	m := marker{maxEpoch: -1, state: l.shutdownState()}
	for _, s := range l.segs {
		m.maxEpoch = max(m.maxEpoch, s.maxEpoch)
		m.segs = append(m.segs, markerSegment{
			base: s.base, next: s.next, size: s.size, maxTs: s.maxTs,
			maxEpoch: s.maxEpoch, indexEntries: uint32(len(s.index.entries)),
		})
	}
	act := l.active()
	m.activeIndexCRC, m.hasActiveIndexCRC = indexCRC(act.base, act.index.entries), true
	return m
}

// Crash closes the log without a marker, as a failure would. With
// keepUnflushed (a process crash: the OS keeps what it was given, and every
// append was given to it before it returned) nothing is lost. Without it (a
// machine failure: the page cache is gone) every byte appended since the
// last flush is dropped: segments whose creation was not made durable are
// removed, the others are truncated back to their flushed length, and
// their index files lose the entries beyond it; an index file written
// since its last fsync (a rolled segment's, before the next flush) loses
// all of them. Crashing a closed log does
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
		if s.indexUnsynced {
			// Written since its last fsync (at a roll): the model does
			// not know how much of it reached the disk, so it keeps none.
			n = 0
		}
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
