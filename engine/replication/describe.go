package replication

import "github.com/minikafka-lab/minikafka/engine/topic"

// ReplicaState describes one replica as plain values.
type ReplicaState struct {
	Broker      int32
	Role        string // "leader" or "follower"
	LEO         int64  // last known LEO while the broker is down
	LogStart    int64
	InISR       bool
	LastFetchMs int64
	Up          bool
	Diverged    bool
	// Reconciling is set when the replica will ask the leader where its
	// log diverges (OffsetsForLeaderEpoch) before it fetches again.
	Reconciling    bool
	UnflushedBytes int64 // what a machine crash would drop now
	// HW is the high watermark this replica knows: the leader's, or under
	// follower.hw=fetch a follower's own, from its last fetch response.
	HW int64
}

// PartitionState describes one partition as plain values: the picture the
// REPL's `offsets` and `show` commands draw.
type PartitionState struct {
	TP          topic.Partition
	Leader      int32
	LeaderEpoch int32
	Online      bool  // the leader's broker is running
	HW          int64 // high watermark
	LSO         int64 // last stable offset; the HW until transactions exist
	LogStart    int64 // the leader's log start
	LEO         int64 // the leader's LEO
	ISR         []int32
	// ISRStored is the ISR in Kafka's stored order (assignment order at
	// creation, a joining replica at the end).
	ISRStored []int32
	// FollowerHWs is set under follower.hw=fetch: each replica's HW is its
	// own and worth showing.
	FollowerHWs bool
	// Leaderless is set when the KRaft controller left the partition
	// without a leader (Leader names the fenced one).
	Leaderless  bool
	Replicas    []ReplicaState // assignment order
	PendingAcks []int64        // ids of pending acks=all waiters, in order
	Producers   []ProducerEntry
}

// State describes the partition now.
func (rs *ReplicaSet) State() PartitionState {
	leader := rs.replicas[rs.leader]
	st := PartitionState{
		TP: rs.tp, Leader: rs.leader, LeaderEpoch: rs.epoch, Online: rs.Online(),
		HW: rs.hw, LSO: rs.hw, LogStart: leader.LogStart(), LEO: leader.LEO(),
		ISR: rs.ISR(), ISRStored: rs.ISRStored(), Producers: rs.producers.Entries(),
		FollowerHWs: rs.rules().FollowerHW == FetchedHW, Leaderless: rs.leaderless,
	}
	for _, b := range rs.assignment {
		r := rs.replicas[b]
		role := "follower"
		if b == rs.leader {
			role = "leader"
		}
		var unflushed int64
		if r.log != nil {
			unflushed = r.log.UnflushedBytes()
		}
		st.Replicas = append(st.Replicas, ReplicaState{
			Broker: b, Role: role, LEO: r.LEO(), LogStart: r.LogStart(), InISR: rs.isr[b],
			LastFetchMs: r.lastFetchMs, Up: r.Up(), Diverged: r.diverged, Reconciling: r.reconcile, UnflushedBytes: unflushed,
			HW: rs.knownHW(r),
		})
	}
	for _, w := range rs.waiters {
		st.PendingAcks = append(st.PendingAcks, w.ack.ID())
	}
	return st
}
