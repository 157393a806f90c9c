package replication

import (
	"github.com/minikafka-lab/minikafka/engine/storage"
)

// DivergencePoint is the offset from which follower's log stops agreeing
// with leader's: follower.LEO() when it agrees all the way. It is used when
// a replica set is built from logs on disk (decision 7 across a restart):
// the in-memory diverged marks are gone then, and a former leader's tail may
// sit at the same offsets as the current leader's newer records.
//
// Two logs agree at offset o when the batches holding o in both have the
// same base offset, next offset and leader epoch: each leader epoch writes an
// offset once, and compaction keeps those three fields. Offsets at or past
// the leader's LEO never agree (decision 12). Offsets where either log has
// no batch (a compaction gap, below a log start) count as agreeing, since
// nothing there can be compared. Because logs only ever diverge in a suffix,
// the first disagreeing offset is found by binary search: O(log LEO) index
// lookups, and only one comparison when the logs agree.
func DivergencePoint(leader, follower *storage.Log) (int64, error) {
	hi := follower.LEO()
	lo := max(follower.LogStartOffset(), leader.LogStartOffset())
	if hi <= lo {
		return hi, nil
	}
	ok, err := agreeAt(leader, follower, hi-1)
	if err != nil || ok {
		return hi, err
	}
	// agreeAt(hi-1) is false: find the first offset in [lo, hi) that
	// disagrees.
	for lo < hi-1 {
		mid := lo + (hi-1-lo)/2
		ok, err := agreeAt(leader, follower, mid)
		if err != nil {
			return 0, err
		}
		if ok {
			lo = mid + 1
		} else {
			hi = mid + 1
		}
	}
	// hi-1 is the first disagreeing offset; cut at its batch's start.
	first := hi - 1
	batches, err := follower.ReadBatches(first, 1, -1)
	if err != nil {
		return 0, err
	}
	if len(batches) > 0 && batches[0].Meta.BaseOffset <= first {
		return batches[0].Meta.BaseOffset, nil
	}
	return first, nil
}

// agreeAt compares the batches holding offset o in both logs.
func agreeAt(leader, follower *storage.Log, o int64) (bool, error) {
	if o >= leader.LEO() {
		return false, nil
	}
	if o < leader.LogStartOffset() || o < follower.LogStartOffset() {
		return true, nil
	}
	fb, err := follower.ReadBatches(o, 1, -1)
	if err != nil {
		return false, err
	}
	lb, err := leader.ReadBatches(o, 1, -1)
	if err != nil {
		return false, err
	}
	if len(fb) == 0 || len(lb) == 0 || fb[0].Meta.BaseOffset > o || lb[0].Meta.BaseOffset > o {
		return true, nil // a gap in one of them: nothing to compare
	}
	f, l := fb[0].Meta, lb[0].Meta
	return f.BaseOffset == l.BaseOffset && f.NextOffset() == l.NextOffset() && f.LeaderEpoch == l.LeaderEpoch, nil
}

// lastEpoch is the leader epoch of the log's last batch (-1 for an empty
// log).
func lastEpoch(l *storage.Log) (int32, error) {
	if l.LEO() <= l.LogStartOffset() {
		return -1, nil
	}
	batches, err := l.ReadBatches(l.LEO()-1, 1, -1)
	if err != nil || len(batches) == 0 {
		return -1, err
	}
	return batches[0].Meta.LeaderEpoch, nil
}
