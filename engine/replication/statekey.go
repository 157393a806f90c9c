package replication

import (
	"io"

	"github.com/minikafka-lab/minikafka/engine/statekey"
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
	k := statekey.New(w)
	put, flag := k.Int, k.Bool
	put(int64(rs.leader))
	put(int64(rs.epoch))
	put(rs.epochStart)
	put(rs.hw)
	flag(rs.leaderless)
	k.IDs(rs.isrOrder)
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
		k.IDs(wt.ack.Captured)
		flag(wt.hwOnly)
		put(wt.deadlineMs)
	}
}
