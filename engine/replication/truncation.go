package replication

import (
	"errors"
	"fmt"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// moment is when the truncation rule is applied to a replica.
type moment uint8

const (
	// electedLeader: the replica is becoming the leader.
	electedLeader moment = iota
	// beforeFetch: a follower is about to fetch (a leader change or a
	// restart may have left it with a tail the leader does not have).
	beforeFetch
	// restarted: a follower's broker came back from a crash.
	restarted
	// rejoining: Rejoin brings a follower back after a failover.
	rejoining
	// leaderRestarted: the leader's broker came back and leads again.
	leaderRestarted
)

// truncate applies the truncation rule (truncation=) to replica r at moment
// m, cutting its log where the rule says, and returns the cuts it made, in
// order. It is the one place that decides where a replica's log is cut back
// when leadership changes or a replica restarts; every such site (a
// promotion or election, a follower's fetch, a broker restart, a rejoin)
// calls it.
//
// Under TruncateToHighWatermark (MiniKafka, and Kafka before 0.11):
//
//   - a new leader keeps only the HW prefix (MiniKafka's choice; Kafka never
//     cut a new leader);
//   - a follower marked diverged at a leader change cuts to the HW of that
//     change (decision 7), and one ahead of the leader to the HW it knows
//     (decision 12);
//   - a restarted follower, and a rejoining one, cut to the HW they know:
//     with follower.hw=fetch a follower's own HW, which lags the leader's by
//     a fetch round — how Kafka before KIP-101 lost committed records.
//
// Under TruncateByLeaderEpoch (Kafka since 0.11, KIP-101 and KIP-279):
//
//   - a new leader keeps its whole log;
//   - a restarted follower keeps its log and is marked to reconcile;
//   - before its next fetch (or at a rejoin) a marked, diverged or ahead
//     follower sends OffsetsForLeaderEpoch for its latest epoch and cuts
//     where the leader's answer says, again until the answer is complete
//     (AbstractFetcherThread.getOffsetTruncationState).
func (rs *ReplicaSet) truncate(r *Replica, m moment) ([]ReplicaTruncated, error) {
	if rs.rules().Truncation == TruncateByLeaderEpoch {
		return rs.truncateByLeaderEpoch(r, m)
	}
	return rs.truncateToHighWatermark(r, m)
}

func (rs *ReplicaSet) truncateToHighWatermark(r *Replica, m moment) ([]ReplicaTruncated, error) {
	var cuts []ReplicaTruncated
	cut := func(target int64, reason string) error {
		ev, err := rs.truncateReplica(r, target, reason)
		cuts = appendTruncation(cuts, ev)
		return err
	}
	r.reconcile = false
	switch m {
	case electedLeader:
		r.diverged = false
		return cuts, cut(rs.hw, fmt.Sprintf("becoming leader above HW %d: keep only the committed prefix", rs.hw))
	case leaderRestarted:
		return cuts, cut(rs.hw, fmt.Sprintf("restarted above HW %d", rs.hw))
	case beforeFetch:
		ev, err := rs.repairDiverged(r)
		cuts = appendTruncation(cuts, ev)
		if err != nil {
			return cuts, err
		}
		if leo := rs.replicas[rs.leader].LEO(); r.LEO() > leo {
			if hw := rs.knownHW(r); hw <= leo {
				return cuts, cut(hw, fmt.Sprintf("ahead of the leader: LEO %d > leader LEO %d, truncate to %s %d", r.LEO(), leo, rs.hwName(r), hw))
			}
			// Its HW is above what the leader has (an unclean election):
			// Kafka's follower truncates to the leader's LEO.
			return cuts, cut(leo, fmt.Sprintf("ahead of the leader: LEO %d > leader LEO %d, truncate to the leader's LEO", r.LEO(), leo))
		}
	case restarted:
		ev, err := rs.repairDiverged(r)
		cuts = appendTruncation(cuts, ev)
		if err != nil {
			return cuts, err
		}
		hw := rs.knownHW(r)
		return cuts, cut(hw, fmt.Sprintf("restarted above %s %d: truncate, then catch up by fetching", rs.hwName(r), hw))
	case rejoining:
		ev, err := rs.repairDiverged(r)
		cuts = appendTruncation(cuts, ev)
		if err != nil {
			return cuts, err
		}
		hw := rs.knownHW(r)
		return cuts, cut(hw, fmt.Sprintf("rejoin: truncate to %s %d", rs.hwName(r), hw))
	}
	return cuts, nil
}

// markFollower applies the truncation rule to a replica that follows a new
// leader: under high-watermark it is marked diverged when its LEO is above
// the HW it knows, and will cut to that HW before it fetches (decision 7;
// pre-KIP-101 Kafka cut at once); under leader-epoch it is marked to
// reconcile with the new leader before it fetches.
func (rs *ReplicaSet) markFollower(o *Replica) {
	if rs.rules().Truncation == TruncateByLeaderEpoch {
		o.reconcile = true
		return
	}
	hw := min(rs.knownHW(o), rs.replicas[rs.leader].LEO())
	if o.LEO() > hw {
		if !o.diverged || hw < o.divergedAt {
			o.divergedAt = hw
		}
		o.diverged = true
		rs.env.Events.Emit(ReplicaDiverged{TP: rs.tp, Broker: o.Broker, LEO: o.LEO(), HW: hw, Epoch: rs.epoch})
	}
}

// lastCut is the last of a list of cuts, or nil.
func lastCut(cuts []ReplicaTruncated) *ReplicaTruncated {
	if len(cuts) == 0 {
		return nil
	}
	return &cuts[len(cuts)-1]
}

// hwName names the HW a replica truncates to in a reason: "HW", or under
// follower.hw=fetch a follower's own "its HW".
func (rs *ReplicaSet) hwName(r *Replica) string {
	if rs.rules().FollowerHW == FetchedHW && r.Broker != rs.leader {
		return "its HW"
	}
	return "HW"
}

func (rs *ReplicaSet) truncateByLeaderEpoch(r *Replica, m moment) ([]ReplicaTruncated, error) {
	switch m {
	case electedLeader, leaderRestarted:
		r.diverged, r.reconcile = false, false
		return nil, nil
	case restarted:
		// Kafka keeps the log and starts the fetcher in the truncating
		// state: the follower asks before it fetches.
		r.reconcile = true
		return nil, nil
	case beforeFetch:
		if !r.reconcile && !r.diverged && r.LEO() <= rs.replicas[rs.leader].LEO() {
			return nil, nil
		}
	}
	cuts, err := rs.reconcileWithLeader(r)
	if err == nil {
		r.diverged, r.reconcile = false, false
	}
	return cuts, err
}

// maxReconcileRounds bounds the OffsetsForLeaderEpoch exchanges of one
// reconciliation; each incomplete answer removes at least one epoch from the
// follower's log, so a log with fewer epochs than this always finishes.
const maxReconcileRounds = 1 << 10

// reconcileWithLeader is the follower's side of KIP-101/KIP-279: it asks the
// leader where its latest leader epoch ends and truncates there, again
// while the answer names an epoch the follower does not have.
func (rs *ReplicaSet) reconcileWithLeader(r *Replica) ([]ReplicaTruncated, error) {
	var cuts []ReplicaTruncated
	leader := rs.leaderEpochView()
	for round := 0; round < maxReconcileRounds; round++ {
		follower := epochView{log: r.log}
		latest, ok, err := follower.latest()
		if err != nil || !ok {
			return cuts, err // an empty log has nothing to cut
		}
		le, lo, err := leader.endOffsetFor(latest.epoch)
		if err != nil {
			return cuts, err
		}
		rs.env.Events.Emit(LeaderEpochChecked{TP: rs.tp, Broker: r.Broker, Leader: rs.leader, Requested: latest.epoch, Epoch: le, EndOffset: lo})
		leo := r.LEO()
		target, done := leo, true
		var reason string
		switch {
		case lo == UndefinedEpochOffset:
			// The leader knows nothing of this epoch: Kafka falls back to
			// the follower's own high watermark.
			target = rs.knownHW(r)
			reason = fmt.Sprintf("the leader does not know epoch %d: truncate to %s %d", latest.epoch, rs.hwName(r), target)
		default:
			fe, fo, err := follower.endOffsetFor(le)
			if err != nil {
				return cuts, err
			}
			if fe != le {
				// The follower never had the epoch the leader answered
				// with: cut to where its own earlier epoch ends, then ask
				// again.
				target, done = min(fo, leo), false
				reason = fmt.Sprintf("OffsetsForLeaderEpoch: the leader's epoch %d is not in this log; truncate to the end of its epoch %d (%d) and ask again", le, fe, fo)
			} else {
				target = min(fo, lo, leo)
				reason = fmt.Sprintf("OffsetsForLeaderEpoch: epoch %d ends at %d on the leader, at %d here", le, lo, fo)
			}
		}
		if target < leo {
			ev, err := rs.truncateReplica(r, target, reason)
			cuts = appendTruncation(cuts, ev)
			if err != nil {
				return cuts, err
			}
		}
		if done || r.LEO() >= leo {
			return cuts, nil
		}
	}
	return cuts, kerr.State("%s broker %d: reconciliation with leader %d did not converge", rs.tp, r.Broker, rs.leader)
}

// leaderEpochView is the leader's log with its current epoch, which it
// holds from the moment it was elected even before writing in it.
func (rs *ReplicaSet) leaderEpochView() epochView {
	return epochView{log: rs.replicas[rs.leader].log, current: &epochEntry{epoch: rs.epoch, start: rs.epochStart}}
}

// EndOffsetForLeaderEpoch answers Kafka's OffsetsForLeaderEpoch on the
// leader (Partition.lastOffsetForLeaderEpoch, LeaderEpochFileCache
// .endOffsetFor): for the partition's latest epoch the leader's LEO; for an
// older epoch, the largest epoch at most the requested one and the start
// offset of the first epoch after it; (UndefinedEpoch, UndefinedEpochOffset)
// for an epoch newer than any the leader knows or for UndefinedEpoch. A
// crashed leader is LEADER_NOT_AVAILABLE.
func (rs *ReplicaSet) EndOffsetForLeaderEpoch(epoch int32) (int32, int64, error) {
	if err := rs.checkOnline(); err != nil {
		return UndefinedEpoch, UndefinedEpochOffset, err
	}
	if epoch < UndefinedEpoch {
		return UndefinedEpoch, UndefinedEpochOffset, kerr.Argument("leader epoch cannot be below -1 (got %d)", epoch)
	}
	return rs.leaderEpochView().endOffsetFor(epoch)
}

// EpochEntry is one entry of a replica's leader-epoch cache.
type EpochEntry struct {
	Epoch       int32
	StartOffset int64
}

// LeaderEpochs lists a replica's leader-epoch entries as Kafka's
// leader-epoch-checkpoint would hold them: each epoch in its log with the
// first offset written in it, plus, for the leader, its current epoch. A
// crashed broker's replica is BROKER_NOT_AVAILABLE.
func (rs *ReplicaSet) LeaderEpochs(broker int32) ([]EpochEntry, error) {
	r, err := rs.replica(broker)
	if err != nil {
		return nil, err
	}
	if !r.Up() {
		return nil, BrokerDown(broker)
	}
	v := epochView{log: r.log}
	if broker == rs.leader {
		v = rs.leaderEpochView()
	}
	es, err := v.entries()
	if err != nil {
		return nil, err
	}
	out := make([]EpochEntry, len(es))
	for i, e := range es {
		out[i] = EpochEntry{Epoch: e.epoch, StartOffset: e.start}
	}
	return out, nil
}

// truncateReplica cuts a running replica's log back to target (if it is
// above it) and reports it. When target is not a batch boundary of that log
// it cuts at the start of the batch holding target, so nothing at or above
// target survives. A target below the log start empties the log at target.
func (rs *ReplicaSet) truncateReplica(r *Replica, target int64, reason string) (*ReplicaTruncated, error) {
	from := r.LEO()
	if target >= from {
		return nil, nil
	}
	if target < r.log.LogStartOffset() {
		if err := r.log.ResetTo(target); err != nil {
			return nil, rs.diskFailure(r.Broker, err)
		}
	} else if err := r.log.TruncateTo(target); err != nil {
		if !errors.Is(err, kerr.InvalidRecord) {
			return nil, rs.diskFailure(r.Broker, err)
		}
		batches, rerr := r.log.ReadBatches(target, 1, -1)
		if rerr != nil || len(batches) == 0 {
			return nil, rs.diskFailure(r.Broker, err)
		}
		if err := r.log.TruncateTo(batches[0].Meta.BaseOffset); err != nil {
			return nil, rs.diskFailure(r.Broker, err)
		}
	}
	r.hw = min(r.hw, r.LEO())
	ev := ReplicaTruncated{TP: rs.tp, Broker: r.Broker, From: from, To: r.LEO(), Reason: reason}
	rs.env.Events.Emit(ev)
	return &ev, nil
}

// repairDiverged truncates a diverged replica to the HW of the leader change
// that marked it and clears the mark.
func (rs *ReplicaSet) repairDiverged(r *Replica) (*ReplicaTruncated, error) {
	if !r.diverged {
		return nil, nil
	}
	ev, err := rs.truncateReplica(r, r.divergedAt, fmt.Sprintf("diverged at a leader change: truncate to that HW %d before fetching", r.divergedAt))
	if err != nil {
		return nil, err
	}
	r.diverged = false
	return ev, nil
}
