package replication

import (
	"github.com/minikafka-lab/minikafka/engine/storage"
)

// UndefinedEpoch and UndefinedEpochOffset are Kafka's answer when a log
// knows nothing about the requested leader epoch (EpochEndOffset defaults:
// leader epoch -1, end offset -1).
const (
	UndefinedEpoch       int32 = -1
	UndefinedEpochOffset int64 = -1
)

// epochEntry is one entry of a leader-epoch cache: the epoch and the first
// offset written in it.
type epochEntry struct {
	epoch int32
	start int64
}

// epochView answers leader-epoch questions about one log the way Kafka's
// LeaderEpochFileCache does. MiniKafka keeps no leader-epoch-checkpoint
// file: every batch carries the epoch of the leader that wrote it, and the
// epochs of a log never decrease from one batch to the next, so an entry
// (epoch, start offset) is found by binary search over the log's batches,
// O(log LEO) index lookups per question. The questions are asked only when
// a replica must find where its log diverges (a leader change, a restart,
// a rejoin), never on the fetch path.
//
// A leader that has written nothing yet in its current epoch still has that
// epoch in Kafka's cache (Partition.makeLeader assigns it at the leader's
// LEO); current carries it.
type epochView struct {
	log     *storage.Log
	current *epochEntry // the leader's current epoch and its start offset, or nil
}

// epochAt is the leader epoch of the batch holding offset o, or of the first
// batch after it (a compaction gap); ok is false past the last batch.
func (v epochView) epochAt(o int64) (epoch int32, base int64, ok bool, err error) {
	batches, err := v.log.ReadBatches(o, 1, -1)
	if err != nil || len(batches) == 0 {
		return 0, 0, false, err
	}
	return batches[0].Meta.LeaderEpoch, batches[0].Meta.BaseOffset, true, nil
}

// latest is the last entry: the epoch of the log's last batch, or the
// leader's current epoch when it is newer. ok is false for a log with no
// batch and no current epoch.
func (v epochView) latest() (epochEntry, bool, error) {
	var last epochEntry
	found := false
	if leo := v.log.LEO(); leo > v.log.LogStartOffset() {
		e, _, ok, err := v.epochAt(leo - 1)
		if err != nil {
			return last, false, err
		}
		if ok {
			start, err := v.firstAbove(e - 1)
			if err != nil {
				return last, false, err
			}
			last, found = epochEntry{epoch: e, start: start}, true
		}
	}
	if v.current != nil && (!found || v.current.epoch > last.epoch) {
		return *v.current, true, nil
	}
	return last, found, nil
}

// firstAbove is the base offset of the first batch whose epoch is greater
// than epoch, or the LEO when there is none. Epochs never decrease along a
// log, so "the batch at o has an epoch above epoch" is monotone in o and a
// binary search over offsets finds the boundary.
func (v epochView) firstAbove(epoch int32) (int64, error) {
	lo, hi := v.log.LogStartOffset(), v.log.LEO()
	for lo < hi {
		mid := lo + (hi-lo)/2
		e, _, ok, err := v.epochAt(mid)
		if err != nil {
			return 0, err
		}
		if !ok || e > epoch {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if lo >= v.log.LEO() {
		return v.log.LEO(), nil
	}
	// lo is the first offset past the boundary: a batch's base offset, or
	// an offset in a compaction gap before the batch that starts there.
	_, base, ok, err := v.epochAt(lo)
	if err != nil || !ok {
		return lo, err
	}
	return max(base, lo), nil
}

// higher is the first entry whose epoch is greater than epoch.
func (v epochView) higher(epoch int32) (epochEntry, bool, error) {
	start, err := v.firstAbove(epoch)
	if err != nil {
		return epochEntry{}, false, err
	}
	if start < v.log.LEO() {
		e, base, ok, err := v.epochAt(start)
		if err != nil {
			return epochEntry{}, false, err
		}
		if ok {
			return epochEntry{epoch: e, start: base}, true, nil
		}
	}
	if v.current != nil && v.current.epoch > epoch {
		return *v.current, true, nil
	}
	return epochEntry{}, false, nil
}

// floor is the last entry whose epoch is at most epoch.
func (v epochView) floor(epoch int32) (epochEntry, bool, error) {
	end, err := v.firstAbove(epoch)
	if err != nil {
		return epochEntry{}, false, err
	}
	if end <= v.log.LogStartOffset() {
		return epochEntry{}, false, nil
	}
	e, _, ok, err := v.epochAt(end - 1)
	if err != nil || !ok {
		return epochEntry{}, false, err
	}
	if e > epoch {
		return epochEntry{}, false, nil
	}
	start, err := v.firstAbove(e - 1)
	if err != nil {
		return epochEntry{}, false, err
	}
	return epochEntry{epoch: e, start: start}, true, nil
}

// endOffsetFor answers OffsetsForLeaderEpoch for requested, with Kafka's
// semantics (LeaderEpochFileCache.endOffsetFor):
//
//   - an undefined requested epoch, or one newer than every epoch the log
//     knows, is (UndefinedEpoch, UndefinedEpochOffset);
//   - the latest epoch ends at the log's LEO;
//   - otherwise the answer is the largest epoch at most requested and the
//     start offset of the first epoch above it; when every known epoch is
//     above requested, requested itself with that start offset.
func (v epochView) endOffsetFor(requested int32) (int32, int64, error) {
	if requested == UndefinedEpoch {
		return UndefinedEpoch, UndefinedEpochOffset, nil
	}
	last, ok, err := v.latest()
	if err != nil {
		return 0, 0, err
	}
	if ok && last.epoch == requested {
		return requested, v.log.LEO(), nil
	}
	hi, ok, err := v.higher(requested)
	if err != nil {
		return 0, 0, err
	}
	if !ok {
		return UndefinedEpoch, UndefinedEpochOffset, nil
	}
	fl, ok, err := v.floor(requested)
	if err != nil {
		return 0, 0, err
	}
	if !ok {
		return requested, hi.start, nil
	}
	return fl.epoch, hi.start, nil
}

// entries lists a log's leader-epoch entries (the cache Kafka would hold),
// oldest first; for tests and descriptions.
func (v epochView) entries() ([]epochEntry, error) {
	var out []epochEntry
	o := v.log.LogStartOffset()
	for o < v.log.LEO() {
		e, base, ok, err := v.epochAt(o)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		out = append(out, epochEntry{epoch: e, start: max(base, o)})
		if o, err = v.firstAbove(e); err != nil {
			return nil, err
		}
	}
	if v.current != nil && (len(out) == 0 || v.current.epoch > out[len(out)-1].epoch) {
		out = append(out, *v.current)
	}
	return out, nil
}
