package replication

import (
	"errors"
	"fmt"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// FollowerFetch is what one follower did in one fetch step.
type FollowerFetch struct {
	Broker         int32
	FromLEO, ToLEO int64
	Batches        int
	Bytes          int64
	// Truncations lists what the follower cut before fetching (a diverged
	// tail, a tail ahead of the leader).
	Truncations []ReplicaTruncated
	// Reset is set when the follower was below the leader's log start and
	// restarted its log there (decision 11).
	Reset *FollowerReset
	// Skipped says why the follower did not fetch ("broker 2 is down").
	Skipped string
}

// PartitionFetch is one fetch step on one partition.
type PartitionFetch struct {
	Followers      []FollowerFetch
	HWFrom, HWTo   int64
	ISRFrom, ISRTo []int32
}

// FetchFollowers runs the follower fetch step (§9.2) for every follower in
// ascending broker order, in sync or not, then refreshes the ISR (which
// advances the HW and resolves waiters). Crashed followers are skipped and
// reported. A crashed leader is LEADER_NOT_AVAILABLE.
func (rs *ReplicaSet) FetchFollowers() (PartitionFetch, error) {
	return rs.fetch(rs.Followers())
}

// FetchFollower runs the fetch step for one follower, then refreshes the ISR.
// The leader cannot fetch from itself (argument error) and a crashed
// follower cannot fetch (BROKER_NOT_AVAILABLE).
func (rs *ReplicaSet) FetchFollower(broker int32) (PartitionFetch, error) {
	r, err := rs.replica(broker)
	if err != nil {
		return PartitionFetch{}, err
	}
	if broker == rs.leader {
		return PartitionFetch{}, kerr.Argument("broker %d leads %s; only followers fetch", broker, rs.tp)
	}
	if !r.Up() {
		return PartitionFetch{}, BrokerDown(broker)
	}
	return rs.fetch([]int32{broker})
}

// BrokerDown is the BROKER_NOT_AVAILABLE error for a crashed broker asked
// to act as a follower, with the way out.
func BrokerDown(broker int32) error {
	return kerr.New(kerr.BrokerNotAvailable, "broker %d is down; restart it first (broker restart %d)", broker, broker)
}

func (rs *ReplicaSet) fetch(followers []int32) (PartitionFetch, error) {
	if err := rs.checkOnline(); err != nil {
		return PartitionFetch{}, err
	}
	out := PartitionFetch{HWFrom: rs.hw, ISRFrom: rs.ISR()}
	var errs []error
	for _, b := range followers {
		// Followers fetch independently: one that fails does not hold the
		// others back.
		f, err := rs.fetchOne(rs.replicas[b])
		out.Followers = append(out.Followers, f)
		if err != nil {
			errs = append(errs, err)
		}
	}
	rs.RefreshISR()
	out.HWTo, out.ISRTo = rs.hw, rs.ISR()
	return out, errors.Join(errs...)
}

// fetchOne is one follower's step:
//
//  1. the truncation rule (truncation.go) cuts what the follower must not
//     keep: under high-watermark a diverged follower (decision 7) truncates
//     to the HW of the leader change that diverged it and one ahead of the
//     leader to the HW (§9.2, decision 12); under leader-epoch a follower
//     marked at a leader change or a restart reconciles by
//     OffsetsForLeaderEpoch;
//  2. a follower below the leader's log start resets its log to start there
//     (decision 11);
//  3. it copies the leader's stored batch bytes from its LEO, whole batches,
//     within replica.fetch.max.bytes (the first batch always), validating
//     each frame but never re-encoding it;
//  4. its last fetch time becomes now, even when nothing was copied; it
//     learns the HW the leader had when it fetched, and the leader notes
//     when it was last caught up (Kafka's lastCaughtUpTimeMs).
func (rs *ReplicaSet) fetchOne(r *Replica) (FollowerFetch, error) {
	f := FollowerFetch{Broker: r.Broker, FromLEO: r.LEO(), ToLEO: r.LEO()}
	if !r.Up() {
		f.Skipped = fmt.Sprintf("broker %d is down", r.Broker)
		return f, nil
	}
	leader := rs.replicas[rs.leader].log
	cuts, err := rs.truncate(r, beforeFetch)
	f.Truncations = append(f.Truncations, cuts...)
	if err != nil {
		return f, err
	}
	if start := leader.LogStartOffset(); r.LEO() < start {
		from := r.LEO()
		if err := r.log.ResetTo(start); err != nil { // Kafka's truncateFullyAndStartAt
			return f, rs.diskFailure(r.Broker, err)
		}
		ev := FollowerReset{TP: rs.tp, Broker: r.Broker, From: from, To: start}
		rs.env.Events.Emit(ev)
		f.Reset = &ev
	}
	f.FromLEO = r.LEO()
	// The fetch response carries the HW as it is before this round's ISR
	// refresh: a follower learns it one round late (follower.hw=fetch).
	hwInResponse := rs.hw
	if r.LEO() < leader.LEO() {
		// The frames alias the shared fetch buffer: they are copied below,
		// before anything reads into it again.
		batches, err := leader.ReadBatchesInto(&rs.env.fetchBuf, r.LEO(), rs.env.Settings.FetchMaxBytes, -1)
		if err != nil {
			return f, rs.diskFailure(rs.leader, err)
		}
		if len(batches) > 0 && batches[0].Meta.BaseOffset > r.LEO() {
			return f, kerr.New(kerr.InvalidRecord,
				"follower %d of %s cannot copy offsets %d..%d: compaction removed them from leader %d's log and replica appends stay contiguous (decision 10); "+
					"delete the compacted segments on the leader with retention and the follower restarts its log at the leader's log start",
				r.Broker, rs.tp, r.LEO(), batches[0].Meta.BaseOffset-1, rs.leader)
		}
		for _, b := range batches {
			if _, err := r.log.AppendRaw(b.Frame); err != nil {
				rs.noteCopy(&f, r)
				return f, rs.diskFailure(r.Broker, err)
			}
			f.Batches++
			f.Bytes += int64(len(b.Frame))
		}
	}
	now := rs.env.Clock.NowMs()
	rs.noteFetchState(r, leader.LEO(), now)
	r.lastFetchMs = now
	r.fetched = true
	was := r.hw
	r.hw = min(hwInResponse, r.LEO())
	rs.noteCopy(&f, r)
	if rs.rules().FollowerHW == FetchedHW && r.hw != was {
		rs.env.Events.Emit(FollowerHWLearned{TP: rs.tp, Broker: r.Broker, From: was, To: r.hw})
	}
	return f, nil
}

// noteFetchState updates what the leader knows from a follower's fetch as
// Kafka's Replica.updateFetchStateOrThrow does: the follower is caught up
// now when it reached the leader's LEO, or caught up as of its previous
// fetch when it reached the LEO the leader had then.
func (rs *ReplicaSet) noteFetchState(r *Replica, leaderLEO, now int64) {
	switch offset := r.LEO(); {
	case offset >= leaderLEO:
		r.caughtUpMs = max(r.caughtUpMs, now)
	case r.lastFetchLeaderLEO >= 0 && offset >= r.lastFetchLeaderLEO:
		r.caughtUpMs = max(r.caughtUpMs, r.lastFetchMs)
	}
	r.lastFetchLeaderLEO = max(leaderLEO, r.lastFetchLeaderLEO)
}

func (rs *ReplicaSet) noteCopy(f *FollowerFetch, r *Replica) {
	f.ToLEO = r.LEO()
	if f.Batches > 0 {
		rs.env.Events.Emit(FollowerFetched{TP: rs.tp, Broker: r.Broker, From: f.FromLEO, To: f.ToLEO, Batches: f.Batches, Bytes: f.Bytes})
	}
}

func appendTruncation(list []ReplicaTruncated, ev *ReplicaTruncated) []ReplicaTruncated {
	if ev == nil {
		return list
	}
	return append(list, *ev)
}
