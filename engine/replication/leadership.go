package replication

import (
	"fmt"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/storage"
)

// Promote makes an in-sync replica the leader (§10.4), as an admin election:
//
//  1. the broker must be a running member of the ISR (NOT_IN_SYNC_REPLICA, or
//     BROKER_NOT_AVAILABLE for a crashed broker);
//  2. the HW rule runs on the ISR as it stands (after a restart the HW is
//     only the minimum LEO over all replicas, decision 8); then the
//     truncation rule runs for the new leader: under truncation=high-watermark
//     it keeps only the HW prefix (MiniKafka), under leader-epoch its whole
//     log (Kafka);
//  3. leader = broker, epoch + 1, stamped on every running replica's log;
//  4. the ISR restarts as {broker} (MiniKafka), or stays as it is under the
//     KRaft controller; under follower.hw=fetch the HW becomes the one the
//     new leader knows;
//  5. every other replica is marked by the truncation rule: diverged when
//     its LEO is above the HW it knows (decision 7), or to reconcile by
//     leader epoch before it fetches again;
//  6. every pending acks=all waiter fails with FENCED_LEADER_EPOCH
//     (NOT_LEADER_OR_FOLLOWER under errors=kafka);
//  7. producer state is rebuilt from the new leader's log.
//
// Promoting the current leader is allowed (decision 13): it bumps the epoch
// and resets the ISR.
func (rs *ReplicaSet) Promote(broker int32) error {
	r := rs.replicas[broker]
	if r == nil {
		return kerr.New(kerr.NotInSyncReplica, "broker %d is not in the ISR (it has no replica of %s)", broker, rs.tp)
	}
	if !r.Up() {
		return kerr.New(kerr.BrokerNotAvailable, "broker %d is down: a crashed broker cannot lead %s (restart it first)", broker, rs.tp)
	}
	if !rs.isr[broker] {
		return kerr.New(kerr.NotInSyncReplica, "broker %d is not in the ISR %s", broker, FormatBrokers(rs.ISR()))
	}
	return rs.changeLeader(broker, "promoted")
}

func (rs *ReplicaSet) changeLeader(broker int32, reason string) error {
	r := rs.replicas[broker]
	rs.raiseHighWatermark()
	// The outgoing leader knew the partition's HW; as a follower that is
	// the HW it starts from (follower.hw=fetch).
	if o := rs.replicas[rs.leader]; !rs.leaderless {
		o.hw = max(o.hw, min(rs.hw, o.LEO()))
	}
	if _, err := rs.truncate(r, electedLeader); err != nil {
		return err
	}
	old := rs.leader
	rs.leader = broker
	rs.leaderless = false
	rs.epoch++
	rs.epochStart = r.LEO()
	for _, b := range rs.byID {
		if l := rs.replicas[b].log; l != nil {
			l.SetLeaderEpoch(rs.epoch)
		}
	}
	rs.env.Events.Emit(LeaderChanged{TP: rs.tp, From: old, To: broker, Epoch: rs.epoch, Reason: reason})
	if rs.rules().FollowerHW == FetchedHW && r.hw < rs.hw {
		// A follower knew only the HW of its last fetch response; as the
		// leader that is the HW it starts from.
		rs.env.Events.Emit(HWMoved{TP: rs.tp, From: rs.hw, To: r.hw})
		rs.hw = r.hw
	}
	now := rs.env.Clock.NowMs()
	if rs.rules().KeepISR {
		// The KRaft controller keeps the ISR at an election; the new leader
		// learns its followers' LEOs again from their fetches
		// (Replica.resetReplicaState).
		rs.addISR(broker)
		for _, b := range rs.Followers() {
			o := rs.replicas[b]
			o.caughtUpMs, o.lastFetchLeaderLEO = 0, -1
			if rs.isr[b] {
				o.caughtUpMs = now
			}
		}
	} else {
		for _, b := range rs.ISR() {
			if b != broker {
				rs.removeISR(b)
				rs.env.Events.Emit(ISRShrank{TP: rs.tp, Broker: b, Reason: "leader changed: the ISR restarts from the new leader", ISR: rs.ISR()})
			}
		}
		rs.addISR(broker)
	}
	for _, b := range rs.Followers() {
		rs.markFollower(rs.replicas[b])
	}
	rs.FailPending(rs.leaderChangeError(old))
	if err := rs.rebuildProducerState(); err != nil {
		return err
	}
	// The new leader may advance its HW at once: the ISR may be down to it
	// (Partition.makeLeader ends with maybeIncrementLeaderHW).
	rs.advanceHighWatermark()
	return nil
}

// Rejoin brings a follower back after a failover (§10.5): a diverged replica
// first truncates to where it diverged, then it truncates to the HW if it is
// above it, takes the current
// epoch, counts as having fetched now, and leaves the ISR; it re-enters at
// the next fetch step or refresh that meets the ISR rules. The leader cannot
// rejoin (argument error); a crashed broker must restart first.
func (rs *ReplicaSet) Rejoin(broker int32) error {
	r, err := rs.replica(broker)
	if err != nil {
		return err
	}
	if broker == rs.leader {
		return kerr.Argument("broker %d leads %s; the leader cannot rejoin", broker, rs.tp)
	}
	if !r.Up() {
		return BrokerDown(broker)
	}
	if rs.rules().Truncation == TruncateByLeaderEpoch {
		// Reconciling asks the leader where the logs diverge.
		if err := rs.checkOnline(); err != nil {
			return err
		}
	}
	if _, err := rs.truncate(r, rejoining); err != nil {
		return err
	}
	r.log.SetLeaderEpoch(rs.epoch)
	r.lastFetchMs = rs.env.Clock.NowMs()
	if rs.isr[broker] {
		rs.removeISR(broker)
		rs.env.Events.Emit(ISRShrank{TP: rs.tp, Broker: broker, Reason: "rejoining: it re-enters when it meets the ISR rules", ISR: rs.ISR()})
	}
	rs.advanceHighWatermark()
	return nil
}

// CrashReplica stops one broker's replica, as a machine failure would: the
// log is closed without a clean-shutdown marker and, unless keepUnflushed,
// the bytes appended since its last flush are dropped (the page cache is
// gone). The replica stops fetching and serving; the leader keeps its last
// known LEO, so a crashed follower stays in the ISR until the lag rules
// remove it. If it led the partition, the partition goes offline and every
// pending acks=all waiter fails with LEADER_NOT_AVAILABLE. It returns the
// bytes dropped.
func (rs *ReplicaSet) CrashReplica(broker int32, keepUnflushed bool) (int64, error) {
	r, err := rs.replica(broker)
	if err != nil || !r.Up() {
		return 0, err
	}
	r.downLEO, r.downLogStart = r.log.LEO(), r.log.LogStartOffset()
	var lost int64
	if !keepUnflushed {
		lost = r.log.UnflushedBytes()
	}
	err = r.log.Crash(keepUnflushed)
	r.log = nil
	if broker == rs.leader {
		rs.FailPending(kerr.New(kerr.LeaderNotAvailable, "leader %d of %s crashed before acknowledgement", broker, rs.tp))
	}
	return lost, err
}

// RestartOutcome is what a restarted replica did after recovery.
type RestartOutcome struct {
	Truncation *ReplicaTruncated // it was above the HW
	DataLost   *DataLost         // the leader came back below the HW and no in-sync replica had the records
	LeftISR    bool              // it came back below the HW and left the ISR
	// LeaderChanged is set when it led the partition: a new epoch began,
	// with Leader as the leader (itself, or an in-sync replica that kept the
	// records it lost).
	LeaderChanged bool
	Leader        int32
}

// RestartReplica brings a crashed replica back on its recovered log (opened
// by the caller with storage.Open). The truncation rule decides what a
// follower keeps: under truncation=high-watermark it truncates to the HW it
// knows (pre-KIP-101 Kafka did the same on restart; with follower.hw=fetch
// that is its own, lagging HW), under leader-epoch it keeps its log and
// reconciles with the leader before it fetches. Under MiniKafka's ISR rule a
// follower below the HW leaves the ISR; it catches up at the next fetch step.
//
// A leader starts a new epoch, as a controller's election would:
//
//   - if it still holds the HW, it leads again (under
//     truncation=high-watermark its tail above the HW is cut, as in a
//     promotion);
//   - if it lost records the HW covered (their bytes were not flushed), the
//     first running in-sync replica, in assignment order, that holds the HW
//     is elected instead and the restarted broker follows it: committed
//     records are never given up while a replica has them;
//   - if no such replica exists, it leads again, the HW drops to its LEO and
//     a DataLost event reports the loss.
func (rs *ReplicaSet) RestartReplica(broker int32, l *storage.Log) (RestartOutcome, error) {
	var out RestartOutcome
	r, err := rs.replica(broker)
	if err != nil {
		return out, err
	}
	if r.Up() {
		return out, kerr.State("broker %d's replica of %s is running", broker, rs.tp)
	}
	r.log = l
	l.SetLeaderEpoch(rs.epoch)
	r.hw = min(r.hw, l.LEO())
	// A broker that led the partition leads again, unless the KRaft
	// controller fenced it out of the ISR and left the partition without a
	// leader: then it comes back as a follower and waits for an election.
	if broker == rs.leader && (!rs.leaderless || rs.isr[broker]) {
		out.LeaderChanged, out.Leader = true, broker
		rs.raiseHighWatermark() // with the LEO it came back with
		if leo := l.LEO(); leo < rs.hw {
			if heir := rs.heir(broker); heir >= 0 {
				out.Leader = heir
				rs.removeISR(broker)
				out.LeftISR = true
				rs.env.Events.Emit(ISRShrank{TP: rs.tp, Broker: broker,
					Reason: fmt.Sprintf("restarted with LEO %d < HW %d: its unflushed records were lost", leo, rs.hw), ISR: rs.ISR()})
				return out, rs.changeLeader(heir, fmt.Sprintf("elected: leader %d restarted without offsets %d..%d, which broker %d has", broker, leo, rs.hw-1, heir))
			}
			ev := DataLost{TP: rs.tp, Broker: broker, From: rs.hw, To: leo,
				Reason: fmt.Sprintf("leader %d restarted without them: their bytes were not flushed before the crash, and no in-sync replica has them", broker)}
			rs.env.Events.Emit(ev)
			out.DataLost = &ev
			rs.hw = leo
		}
		cuts, err := rs.truncate(r, leaderRestarted)
		out.Truncation = lastCut(cuts)
		if err != nil {
			return out, err
		}
		return out, rs.changeLeader(broker, "re-elected after restart")
	}
	cuts, err := rs.truncate(r, restarted)
	out.Truncation = lastCut(cuts)
	if err != nil {
		return out, err
	}
	// MiniKafka's ISR rule drops a member that came back below the HW at
	// once; Kafka's leader judges it by its caught-up time (kafkaInSync).
	if leo := r.LEO(); leo < rs.hw && rs.isr[broker] && rs.rules().ISRLag == LagFromLastFetch {
		rs.removeISR(broker)
		out.LeftISR = true
		rs.env.Events.Emit(ISRShrank{TP: rs.tp, Broker: broker,
			Reason: fmt.Sprintf("restarted with LEO %d < HW %d: its unflushed records were lost", leo, rs.hw), ISR: rs.ISR()})
	}
	rs.advanceHighWatermark()
	return out, nil
}

// heir is the first running, in-sync, non-diverged replica other than
// broker, in assignment order, whose LEO reaches the HW; -1 when none.
func (rs *ReplicaSet) heir(broker int32) int32 {
	for _, b := range rs.assignment {
		r := rs.replicas[b]
		if b != broker && r.Up() && rs.isr[b] && !r.diverged && !r.reconcile && r.LEO() >= rs.hw {
			return b
		}
	}
	return -1
}
