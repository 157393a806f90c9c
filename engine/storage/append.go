package storage

import (
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
)

// Append is the leader's append (§6.5.2): it assigns base offset = LEO and
// leader epoch = LeaderEpoch() to a copy of b, encodes it once and writes
// the frame to the active segment's file (handed to the OS, not fsynced)
// before it returns the assigned batch. An already assigned or invalid
// batch, or one whose frame payload exceeds Options.MaxBatchBytes (which no
// read could accept), is INVALID_RECORD and changes nothing. A write the
// file system refuses (a full disk, an I/O error) is STORAGE_ERROR and
// changes nothing either: LEO stays, nothing becomes readable, and no part
// of the frame is left in the file.
func (l *Log) Append(b *record.Batch) (*record.Batch, AppendInfo, error) {
	if err := l.usable(); err != nil {
		return nil, AppendInfo{}, err
	}
	a, err := b.Assign(l.LEO(), l.epoch)
	if err != nil {
		return nil, AppendInfo{}, err
	}
	if err := l.checkPayload(a.EncodedSize() - record.FrameHeaderSize); err != nil {
		return nil, AppendInfo{}, err
	}
	frame, err := record.AppendFrame(l.frameBuf[:0], a)
	if err != nil {
		return nil, AppendInfo{}, err
	}
	if cap(frame) <= maxKeptFrameBuffer {
		l.frameBuf = frame
	} else {
		l.frameBuf = nil
	}
	info, err := l.commitFrame(frame, a.BaseOffset, a.NextOffset(), a.MaxTimestamp(), a.LeaderEpoch)
	if err != nil {
		return nil, AppendInfo{}, err
	}
	return a, info, nil
}

// AppendRaw is the follower's append: it validates frame with every decoder
// check (record.Inspect: magic, length, CRC, layout), requires its base
// offset to equal LEO (INVALID_RECORD "expected base offset {leo}, got
// {base}"), and writes the bytes unchanged, keeping the leader's epoch. A
// frame whose payload exceeds Options.MaxBatchBytes is INVALID_RECORD, a
// bad frame is CORRUPT_BATCH and a failed write STORAGE_ERROR; all three
// change nothing.
func (l *Log) AppendRaw(frame []byte) (AppendInfo, error) {
	if err := l.usable(); err != nil {
		return AppendInfo{}, err
	}
	if err := l.checkPayload(len(frame) - record.FrameHeaderSize); err != nil {
		return AppendInfo{}, err
	}
	m, err := record.Inspect(frame, l.opts.MaxBatchBytes)
	if err != nil {
		return AppendInfo{}, err
	}
	if leo := l.LEO(); m.BaseOffset != leo {
		return AppendInfo{}, kerr.New(kerr.InvalidRecord, "expected base offset %d, got %d", leo, m.BaseOffset)
	}
	return l.commitFrame(frame, m.BaseOffset, m.NextOffset(), m.MaxTimestamp, m.LeaderEpoch)
}

// checkPayload refuses a frame payload that reads (follower fetches,
// recovery at the next Open) would reject as larger than MaxBatchBytes.
func (l *Log) checkPayload(payload int) error {
	if payload > l.opts.MaxBatchBytes {
		return kerr.New(kerr.InvalidRecord, "batch payload of %d bytes exceeds the maximum of %d bytes", payload, l.opts.MaxBatchBytes)
	}
	return nil
}

// commitFrame makes frame part of the log: it rolls first when the rolling
// rule says so, writes the frame at the end of the active segment, indexes
// the batch and updates the segment. On failure the log is unchanged: a
// roll made for the frame is undone (its new, empty segment deleted).
//
// Rolling rule (§6.5.2): roll when the active segment has data and the frame
// would take it past segment.bytes. Like Kafka, it also rolls when the base
// offset is too far above the segment base for a u32 relative index offset.
func (l *Log) commitFrame(frame []byte, base, next, maxTs int64, epoch int32) (AppendInfo, error) {
	size := len(frame)
	info := AppendInfo{BaseOffset: base, NextOffset: next, Size: size}
	act := l.active()
	if act.hasData() && (act.size+int64(size) > l.opts.SegmentBytes || base-act.base > 0xFFFFFFFF) {
		if err := l.roll(); err != nil {
			return AppendInfo{}, err
		}
		info.Rolled = true
		act = l.active()
	}
	if err := act.writeFrame(frame); err != nil {
		if info.Rolled && act.remove() == nil {
			l.segs = l.segs[:len(l.segs)-1]
		}
		return AppendInfo{}, err
	}
	pos := act.size
	if act.index.shouldIndex(pos, l.opts.IndexIntervalBytes) {
		if err := act.index.append(base, pos); err != nil {
			panic("storage: index rule broken: " + err.Error()) // the rolling rule keeps offsets indexable
		}
	}
	act.size += int64(size)
	act.next = next
	act.maxTs = max(act.maxTs, maxTs)
	act.maxEpoch = max(act.maxEpoch, epoch)
	info.Segment, info.Position = act.base, pos
	return info, nil
}

// roll fsyncs the active segment's log file (a roll is a flush of the old
// segment), writes its index file and starts a new empty segment at LEO.
func (l *Log) roll() error {
	old := l.active()
	if err := old.syncLog(); err != nil {
		return err
	}
	// The rolled segment's index file is written now, as Kafka trims the
	// index of the segment it rolls (LogSegment.onBecomeInactiveSegment),
	// so that a close has no index file to create for it. It is not
	// fsynced here: the index is derived data (rebuilt by Open when a
	// machine crash loses it), and an fsync here would add a third fsync
	// to the roll's two (the log file, the directory) on the append path,
	// where writing the file costs ~25 µs (BenchmarkAppendRolls on tmpfs:
	// 82 -> 107 µs a roll, against ~2 ms per fsync on disk). Kafka too
	// leaves that flush out of its roll, to an asynchronous task
	// (UnifiedLog.roll's "flush-log"). The next Flush fsyncs it, or
	// Close makes it durable with every other changed file in one step
	// (CloseAll, ShutdownAll): each changed file is synced once.
	if err := old.writeIndex(); err != nil {
		return err
	}
	if err := l.syncDirIfNeeded(); err != nil {
		return err
	}
	s, err := createSegment(l.opts.FS, l.dir, old.next)
	if err != nil {
		return err
	}
	// The old segment keeps its file open for reads.
	l.segs = append(l.segs, s)
	return nil
}

// markDurable records that the directory was just fsynced: every current
// segment's directory entry is durable.
func (l *Log) markDurable() {
	for _, s := range l.segs {
		s.durable = true
	}
	l.dirDirty = false
}

// Roll starts a new active segment at LEO if the active segment has data;
// otherwise it does nothing, so repeated rolls are no-ops.
func (l *Log) Roll() error {
	if err := l.usable(); err != nil {
		return err
	}
	if !l.active().hasData() {
		return nil
	}
	return l.roll()
}
