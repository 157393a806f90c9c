package replication

import (
	"encoding/binary"
	"io"
)

// WriteStateKey writes to w the replica set's state that its descriptions
// (State, PendingAcks) leave out and that decides what it does next: per
// replica the fetch and catch-up times, the leader's LEO at its last
// fetch, the diverged point, the LEO and log start it had when it went
// down, the HW it learned and its reconcile and fetched marks; the
// leader's epoch start; each pending waiter's target, mode, captured ISR, kind and deadline.
// A state explorer hashes it with the rest to recognise a state it has
// seen. It changes nothing.
func (rs *ReplicaSet) WriteStateKey(w io.Writer) {
	var buf [binary.MaxVarintLen64]byte
	put := func(v int64) {
		n := binary.PutVarint(buf[:], v)
		w.Write(buf[:n])
	}
	flag := func(b bool) {
		if b {
			put(1)
		} else {
			put(0)
		}
	}
	put(int64(rs.leader))
	put(int64(rs.epoch))
	put(rs.epochStart)
	put(rs.hw)
	flag(rs.leaderless)
	put(int64(len(rs.isrOrder)))
	for _, b := range rs.isrOrder {
		put(int64(b))
	}
	for _, b := range rs.assignment {
		r := rs.replicas[b]
		put(int64(b))
		flag(r.Up())
		put(r.lastFetchMs)
		flag(r.diverged)
		put(r.divergedAt)
		put(r.downLEO)
		put(r.downLogStart)
		put(r.hw)
		flag(r.reconcile)
		put(r.caughtUpMs)
		put(r.lastFetchLeaderLEO)
		flag(r.fetched)
	}
	put(int64(len(rs.waiters)))
	for _, wt := range rs.waiters {
		put(wt.ack.Target)
		put(int64(wt.ack.Mode))
		put(int64(len(wt.ack.Captured)))
		for _, b := range wt.ack.Captured {
			put(int64(b))
		}
		flag(wt.hwOnly)
		put(wt.deadlineMs)
	}
}
