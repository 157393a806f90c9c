package storage

import (
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// TruncateTo removes every batch at or after offset, as a follower does to
// drop a divergent suffix (§6.5.4, decision 9).
//
// offset must be in [LogStartOffset, LEO] (OFFSET_OUT_OF_RANGE) and a batch
// boundary: the log start, LEO, a segment base, or some batch's base or
// next offset (INVALID_RECORD "truncate offset {n} is not a batch
// boundary"). Equal to LEO is a no-op.
//
// Like Kafka, it cuts the segment that holds offset at the position of the
// first batch to remove, deletes the later segments and rebuilds only the
// cut segment's index; nothing before offset is touched and the log start
// never moves. If batches were removed by compaction just below offset, the
// last kept batch ends below offset; then an empty active segment is
// started at offset, so that LEO == offset and no offset is ever handed out
// twice. The result is made durable (fsynced) before TruncateTo returns.
func (l *Log) TruncateTo(offset int64) error {
	if err := l.usable(); err != nil {
		return err
	}
	l.rewrites++
	start, leo := l.LogStartOffset(), l.LEO()
	if offset < start || offset > leo {
		return kerr.OutOfRange(offset, start, leo)
	}
	if offset == leo {
		return nil
	}
	if l.dirDirty {
		// Truncation may shorten a closed segment: make the consumed
		// marker's deletion durable first.
		if err := l.syncDirIfNeeded(); err != nil {
			return err
		}
	}
	j := l.segmentFor(offset)
	seg := l.segs[j]
	// Find B, the first batch with next offset > offset, and the next offset
	// of the batch before it.
	c := l.cursorAt(offset, 64<<10)
	c.reuse = true
	prevNext, cut := int64(-1), seg.size
	var found bool
	var bBase int64
	for {
		rb, err := c.next(record.Inspect)
		if err != nil {
			return err
		}
		if rb.Frame == nil {
			break
		}
		if rb.Meta.NextOffset() <= offset {
			prevNext = rb.Meta.NextOffset()
			continue
		}
		found, bBase = true, rb.Meta.BaseOffset
		if rb.Segment == seg.base {
			cut = rb.Position
		}
		break
	}
	if found && bBase < offset {
		return kerr.New(kerr.InvalidRecord, "truncate offset %d is not a batch boundary", offset)
	}
	if prevNext < 0 {
		for k := j; k >= 0; k-- {
			if l.segs[k].hasData() && l.segs[k].next <= offset {
				prevNext = l.segs[k].next
				break
			}
		}
	}
	boundary := offset == start || offset == seg.base || prevNext == offset || (found && bBase == offset)
	if !boundary {
		return kerr.New(kerr.InvalidRecord, "truncate offset %d is not a batch boundary", offset)
	}

	// Work out the cut segment's new state before touching any file.
	res := scanResult{next: seg.next, maxTs: seg.maxTs, maxEpoch: seg.maxEpoch, entries: seg.index.entries, valid: seg.size}
	if cut < seg.size {
		f, err := seg.file()
		if err != nil {
			return err
		}
		var buf []byte
		res, buf, err = scanSegment(f, seg.base, cut, l.opts.IndexIntervalBytes, l.opts.MaxBatchBytes, l.scanBuf)
		l.scanBuf = buf
		if err != nil {
			return err
		}
		if res.reason != nil {
			return kerr.New(kerr.StorageError, "cannot truncate %s: damaged at byte %d: %s", seg.logPath, res.valid, kerr.MessageOf(res.reason))
		}
	}

	// Delete the later segments, newest first, so that a crash part-way
	// leaves a prefix of the log.
	for len(l.segs) > j+1 {
		last := l.segs[len(l.segs)-1]
		if err := last.remove(); err != nil {
			return err
		}
		l.segs = l.segs[:len(l.segs)-1]
	}
	if cut < seg.size {
		f, err := seg.file()
		if err != nil {
			return err
		}
		if err := f.Truncate(cut); err != nil {
			return storageErr(err, "truncate segment")
		}
		seg.size, seg.synced, seg.hinted = cut, min(seg.synced, cut), min(seg.hinted, cut)
		seg.next, seg.maxTs, seg.maxEpoch = res.next, res.maxTs, res.maxEpoch
		seg.index.entries = res.entries
		seg.indexWritten = 0
		if err := l.opts.FS.Truncate(seg.indexPath, 0); err != nil && !vfs.IsNotExist(err) {
			return storageErr(err, "truncate index")
		}
		seg.synced = -1 // force the fsync below
	}
	if seg.next < offset && !seg.hasData() && j > 0 {
		// An empty segment below offset holds nothing: drop it.
		if err := seg.remove(); err != nil {
			return err
		}
		l.segs = l.segs[:j]
	} else if err := l.syncSegment(seg); err != nil {
		return err
	}
	if l.LEO() < offset {
		s, err := createSegment(l.opts.FS, l.dir, offset)
		if err != nil {
			return err
		}
		l.segs = append(l.segs, s)
	}
	if err := l.syncDir(l.dir); err != nil {
		return err
	}
	l.markDurable()
	return nil
}

// syncSegment fsyncs a segment whose synced length is stale.
func (l *Log) syncSegment(s *segment) error {
	if s.synced == s.size && s.indexWritten == len(s.index.entries) {
		return nil
	}
	s.synced = -1
	return s.sync()
}

// ResetTo deletes every segment and starts an empty log whose start offset
// and LEO are offset (Kafka's truncateFullyAndStartAt). A follower uses it
// when its LEO is below the leader's log start (decision 11). The leader
// epoch is kept. The result is durable when ResetTo returns.
func (l *Log) ResetTo(offset int64) error {
	if err := l.usable(); err != nil {
		return err
	}
	l.rewrites++
	if offset < 0 {
		return kerr.Argument("reset offset cannot be negative, got %d", offset)
	}
	for len(l.segs) > 0 {
		last := l.segs[len(l.segs)-1]
		if err := last.remove(); err != nil {
			return err
		}
		l.segs = l.segs[:len(l.segs)-1]
	}
	s, err := createSegment(l.opts.FS, l.dir, offset)
	if err != nil {
		return err
	}
	l.segs = []*segment{s}
	if err := l.syncDir(l.dir); err != nil {
		return err
	}
	l.markDurable()
	return nil
}
