package storage

import (
	"bufio"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
)

// CompactionResult says what Compact did. The counts cover data records in
// the closed source segments only.
type CompactionResult struct {
	SourceSegments    []int64 // bases of the closed segments that were rewritten
	RecordsBefore     int
	RecordsAfter      int
	TombstonesDropped int // latest-for-their-key tombstones older than delete.retention.ms
	AbortedDropped    int // records of aborted transactions removed
	// FirstUnstable is the base offset of the first transactional batch
	// whose transaction has no marker yet, or -1. Compaction leaves every
	// batch from there on untouched.
	FirstUnstable int64
}

// keptFrame is a batch that survives compaction, as bytes.
type keptFrame struct {
	frame []byte
	base  int64
}

// errStop ends a Batches walk early.
var errStop = errors.New("stop")

// Compact keeps only the latest record per key in the closed segments
// (§7.2). Transactions are respected the way Kafka's log cleaner does:
// a transactional batch is committed or aborted according to the first
// control marker of its transactional id that follows it in this log (the
// same marker rule read_committed uses); records of aborted transactions
// never count as the latest for their key and are removed, and nothing at
// or after the first batch whose transaction is still open (FirstUnstable)
// is rewritten. The latest map covers every segment, the active one included;
// keyless records are kept; a tombstone (null value) that is the latest for
// its key is kept while nowMs - its timestamp <= deleteRetentionMs; control
// batches pass unchanged; a batch that keeps some records keeps its base
// offset, last offset delta, producer fields, epoch and the surviving
// records' deltas, so offsets never change and gaps appear. The active
// segment is copied unchanged. With no closed segment it does nothing.
//
// The new log is built in a sibling directory .<dirname>.compact-<hex>
// (one closed segment at the log start holding every surviving batch, plus
// a copy of the active segment), fsynced, then beforeSwap (if not nil) is
// called. Then the live directory is renamed to .<dirname>.backup-<hex>,
// the new one is renamed to the live name, the parent directory is fsynced
// and the backup deleted. Any failure, the hook's included, leaves (or puts
// back) the original log, which stays readable, and returns the error. The
// hex token is derived from the directory name, LEO and a per-Log counter,
// so runs are reproducible. A crash between the two renames leaves only the
// backup directory; Open does not repair that (Ch.3 exercise).
func (l *Log) Compact(nowMs, deleteRetentionMs int64, beforeSwap func() error) (CompactionResult, error) {
	res := CompactionResult{SourceSegments: []int64{}}
	if err := l.usable(); err != nil {
		return res, err
	}
	l.rewrites++
	if deleteRetentionMs < 0 {
		return res, kerr.Argument("delete.retention.ms cannot be negative, got %d", deleteRetentionMs)
	}
	if len(l.segs) < 2 {
		return res, nil
	}
	active := l.active()
	for _, s := range l.segs[:len(l.segs)-1] {
		res.SourceSegments = append(res.SourceSegments, s.base)
	}
	txns := txnOutcomes{}
	err := l.Batches(-1, func(rb RawBatch) error {
		txns.add(rb.Meta)
		return nil
	})
	if err != nil {
		return res, err
	}
	txns.finish()
	res.FirstUnstable = txns.firstUnstable
	latest := map[string]int64{}
	err = l.Batches(-1, func(rb RawBatch) error {
		if rb.Meta.IsControl() || txns.aborted[rb.Meta.BaseOffset] || txns.open(rb.Meta) {
			return nil
		}
		b, err := record.DecodeLimit(rb.Frame, l.opts.MaxBatchBytes)
		if err != nil {
			return err
		}
		for i, r := range b.Records {
			if r.Key != nil {
				latest[string(r.Key)] = b.BaseOffset + int64(b.OffsetDeltas[i])
			}
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	var frames []keptFrame
	err = l.Batches(-1, func(rb RawBatch) error {
		if rb.Segment == active.base {
			return errStop
		}
		unstable := txns.firstUnstable >= 0 && rb.Meta.BaseOffset >= txns.firstUnstable
		if rb.Meta.IsControl() || unstable {
			frames = append(frames, keptFrame{rb.Frame, rb.Meta.BaseOffset})
			return nil
		}
		b, err := record.DecodeLimit(rb.Frame, l.opts.MaxBatchBytes)
		if err != nil {
			return err
		}
		if txns.aborted[b.BaseOffset] {
			res.RecordsBefore += len(b.Records)
			res.AbortedDropped += len(b.Records)
			return nil
		}
		var keepRecs []record.Record
		var keepDeltas []int32
		for i, r := range b.Records {
			o := b.BaseOffset + int64(b.OffsetDeltas[i])
			keep := r.Key == nil
			if !keep && latest[string(r.Key)] == o {
				expired := r.Value == nil && nowMs-r.TimestampMs > deleteRetentionMs
				if expired {
					res.TombstonesDropped++
				}
				keep = !expired
			}
			if keep {
				keepRecs = append(keepRecs, r)
				keepDeltas = append(keepDeltas, b.OffsetDeltas[i])
			}
		}
		res.RecordsBefore += len(b.Records)
		res.RecordsAfter += len(keepRecs)
		switch {
		case len(keepRecs) == len(b.Records):
			frames = append(frames, keptFrame{rb.Frame, rb.Meta.BaseOffset})
		case len(keepRecs) > 0:
			b.Records, b.OffsetDeltas = keepRecs, keepDeltas
			frame, err := record.Encode(b)
			if err != nil {
				return err
			}
			frames = append(frames, keptFrame{frame, b.BaseOffset})
		}
		return nil
	})
	if err != nil && err != errStop {
		return res, err
	}
	if err := l.installCompacted(frames, beforeSwap); err != nil {
		return res, err
	}
	return res, nil
}

// compactToken is the deterministic hex token of the temporary directories.
func (l *Log) compactToken() string {
	l.compactions++
	key := fmt.Sprintf("%s|%d|%d", filepath.Base(l.dir), l.LEO(), l.compactions)
	return fmt.Sprintf("%08x", crc32.ChecksumIEEE([]byte(key)))
}

// installCompacted builds the compacted log next to the live one and swaps
// it in (steps 1-10 of §7.2 install).
func (l *Log) installCompacted(frames []keptFrame, beforeSwap func() error) error {
	parent, name := filepath.Dir(l.dir), filepath.Base(l.dir)
	token := l.compactToken()
	tmp := filepath.Join(parent, "."+name+".compact-"+token)
	backup := filepath.Join(parent, "."+name+".backup-"+token)
	fsys := l.opts.FS
	fsys.RemoveAll(tmp) // leftovers of an interrupted run are garbage
	fsys.RemoveAll(backup)
	fail := func(err error) error {
		fsys.RemoveAll(tmp)
		return err
	}
	if err := fsys.Mkdir(tmp, 0o755); err != nil {
		return fail(storageErr(err, "create compaction directory"))
	}
	if err := l.fault("build"); err != nil {
		return fail(err)
	}
	if err := l.writeCompactedSegment(tmp, l.LogStartOffset(), frames); err != nil {
		return fail(err)
	}
	if err := l.copyActive(tmp); err != nil {
		return fail(err)
	}
	if err := writeCleanerCheckpoint(fsys, tmp, l.active().base); err != nil {
		return fail(err)
	}
	if err := l.syncDir(tmp); err != nil {
		return fail(err)
	}
	if beforeSwap != nil {
		if err := beforeSwap(); err != nil {
			return fail(err)
		}
	}
	// Swap. From here on the live files move, so a failure puts the
	// original directory back and reopens it.
	l.closeFiles()
	if err := l.fault("rename-live"); err != nil {
		return fail(l.reopenAfterFailure(err))
	}
	if err := fsys.Rename(l.dir, backup); err != nil {
		return fail(l.reopenAfterFailure(storageErr(err, "move live log aside")))
	}
	err := l.fault("rename-compacted")
	if err == nil {
		if rerr := fsys.Rename(tmp, l.dir); rerr != nil {
			err = storageErr(rerr, "move the compacted log in")
		}
	}
	if err != nil {
		if rerr := fsys.Rename(backup, l.dir); rerr != nil {
			l.closed = true
			return kerr.Wrap(kerr.StorageError, rerr, "compaction failed (%v) and the live log could not be restored from %s", err, backup)
		}
		return fail(l.reopenAfterFailure(err))
	}
	if err := l.syncDir(parent); err != nil {
		return l.restoreBackup(backup, err)
	}
	if err := l.fault("reopen"); err != nil {
		return l.restoreBackup(backup, err)
	}
	if err := l.adopt(); err != nil {
		return l.restoreBackup(backup, err)
	}
	fsys.RemoveAll(backup)
	return nil
}

// restoreBackup undoes a completed swap: the compacted directory is
// deleted and the backup renamed back to the live name.
func (l *Log) restoreBackup(backup string, cause error) error {
	l.closeFiles()
	if err := l.opts.FS.RemoveAll(l.dir); err == nil {
		err = l.opts.FS.Rename(backup, l.dir)
		if err == nil {
			return l.reopenAfterFailure(cause)
		}
	}
	l.closed = true
	return kerr.Wrap(kerr.StorageError, cause, "compaction failed and the live log could not be restored from %s", backup)
}

// reopenAfterFailure reopens the original segments after a failed swap and
// returns cause.
func (l *Log) reopenAfterFailure(cause error) error {
	if err := l.adopt(); err != nil {
		l.closed = true
		return kerr.Wrap(kerr.StorageError, err, "compaction failed (%v) and the log could not be reopened", cause)
	}
	return cause
}

// adopt reopens the live directory and takes its segments, keeping the
// current leader epoch.
func (l *Log) adopt() error {
	nl, _, err := Open(l.dir, l.opts, l.epoch)
	if err != nil {
		return err
	}
	l.segs = nl.segs
	return nil
}

// fault lets tests fail a step of the swap.
func (l *Log) fault(step string) error {
	if l.faults == nil {
		return nil
	}
	return l.faults(step)
}

// writeCompactedSegment writes frames as one segment at base in dir, with
// its index, fsynced.
func (l *Log) writeCompactedSegment(dir string, base int64, frames []keptFrame) error {
	s := newSegment(l.opts.FS, dir, base)
	f, err := l.opts.FS.OpenFile(s.logPath, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return storageErr(err, "create compacted segment")
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	var pos int64
	for _, fr := range frames {
		if s.index.shouldIndex(pos, l.opts.IndexIntervalBytes) {
			if err := s.index.append(fr.base, pos); err != nil {
				return kerr.Wrap(kerr.StorageError, err, "index compacted segment")
			}
		}
		if _, err := w.Write(fr.frame); err != nil {
			return storageErr(err, "write compacted segment")
		}
		pos += int64(len(fr.frame))
	}
	if err := w.Flush(); err != nil {
		return storageErr(err, "write compacted segment")
	}
	if err := f.Sync(); err != nil {
		return storageErr(err, "fsync compacted segment")
	}
	s.indexWritten = -1 // no index file yet: syncIndex creates it, even empty
	return s.syncIndex()
}

// copyActive copies the active segment's bytes and index into dir, fsynced.
func (l *Log) copyActive(dir string) error {
	act := l.active()
	s := newSegment(l.opts.FS, dir, act.base)
	f, err := l.opts.FS.OpenFile(s.logPath, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return storageErr(err, "copy active segment")
	}
	defer f.Close()
	buf := make([]byte, min(act.size, 1<<20))
	for off := int64(0); off < act.size; {
		n := min(int64(len(buf)), act.size-off)
		if err := act.readFile(buf[:n], off); err != nil {
			return err
		}
		if _, err := f.Write(buf[:n]); err != nil {
			return storageErr(err, "copy active segment")
		}
		off += n
	}
	if err := f.Sync(); err != nil {
		return storageErr(err, "fsync active copy")
	}
	s.index.entries, s.indexWritten = act.index.entries, -1
	return s.syncIndex()
}

// txnOutcomes classifies the transactional data batches of a log from its
// control markers, scanning in offset order: a batch of transactional id T
// is decided by the first marker of T after it (COMMIT or ABORT); batches
// with no marker yet are open.
type txnOutcomes struct {
	pending       map[string][]int64 // txid -> bases of undecided batches
	aborted       map[int64]bool     // batch base -> aborted
	undecided     map[int64]bool     // batch base -> still open after the scan
	firstUnstable int64
}

// add feeds the next batch in offset order.
func (t *txnOutcomes) add(m record.Meta) {
	if !m.Transactional {
		return
	}
	if t.pending == nil {
		t.pending, t.aborted = map[string][]int64{}, map[int64]bool{}
	}
	if !m.IsControl() {
		t.pending[m.TransactionalID] = append(t.pending[m.TransactionalID], m.BaseOffset)
		return
	}
	if m.Control == record.Abort {
		for _, base := range t.pending[m.TransactionalID] {
			t.aborted[base] = true
		}
	}
	delete(t.pending, m.TransactionalID)
}

// finish records the batches no marker decided, and the first of them.
func (t *txnOutcomes) finish() {
	t.firstUnstable = -1
	t.undecided = map[int64]bool{}
	for _, bases := range t.pending {
		for _, base := range bases {
			t.undecided[base] = true
			if t.firstUnstable < 0 || base < t.firstUnstable {
				t.firstUnstable = base
			}
		}
	}
}

// open reports whether m is a data batch of a transaction with no marker yet.
func (t *txnOutcomes) open(m record.Meta) bool { return t.undecided[m.BaseOffset] }
