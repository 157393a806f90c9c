package replication

import (
	"fmt"
	"slices"

	"github.com/minikafka-lab/minikafka/engine/topic"
)

// Election is what the KRaft controller did for one partition.
type Election struct {
	LeftISR    bool  // the fenced broker left the ISR
	Elected    bool  // a new leader was elected
	Leader     int32 // the new leader, when Elected
	Unclean    bool  // it was not in the ISR (unclean.leader.election.enable)
	Leaderless bool  // nobody could be elected: the partition has no leader
	Lost       *DataLost
}

// Leaderless reports whether the KRaft controller left the partition without
// a leader: its leader was fenced and no replica could be elected.
func (rs *ReplicaSet) Leaderless() bool { return rs.leaderless }

// FenceBroker is the KRaft controller's handling of a broker whose session
// expired, for this partition (ReplicationControlManager.handleBrokerFenced
// and PartitionChangeBuilder): the broker leaves the ISR unless it is the
// last member (without ELR, KIP-966, an ISR is never empty), and if it led
// the partition a new leader is elected (ElectLeader). why says why it was
// fenced, for the events. A broker that is neither in the ISR nor the leader
// changes nothing.
func (rs *ReplicaSet) FenceBroker(broker int32, unclean bool, why string) (Election, error) {
	var out Election
	if rs.replicas[broker] == nil || (!rs.isr[broker] && (rs.leader != broker || rs.leaderless)) {
		return out, nil
	}
	if rs.isr[broker] && len(rs.isr) > 1 {
		rs.removeISR(broker)
		out.LeftISR = true
		rs.env.Events.Emit(ISRShrank{TP: rs.tp, Broker: broker, Reason: why, ISR: rs.ISR()})
	}
	if rs.leader != broker || rs.leaderless {
		rs.advanceHighWatermark()
		return out, nil
	}
	el, err := rs.ElectLeader(unclean, broker)
	el.LeftISR = out.LeftISR
	return el, err
}

// ElectLeader elects a leader the way the KRaft controller does
// (PartitionChangeBuilder.electAnyLeader): the first replica in assignment
// order that is in the ISR and running, other than excluded (a broker being
// fenced; -1 for none); with unclean true and no such replica, the first
// running replica outside the ISR, which becomes the whole ISR and whose
// missing records are reported as lost (DataLost); otherwise the partition
// stays without a leader until a member of its ISR comes back. A partition
// whose leader is running and in the ISR keeps it.
func (rs *ReplicaSet) ElectLeader(unclean bool, excluded int32) (Election, error) {
	var out Election
	cur := rs.replicas[rs.leader]
	if !rs.leaderless && rs.leader != excluded && cur.Up() && rs.isr[rs.leader] {
		return out, nil
	}
	for _, b := range rs.assignment {
		if b != excluded && rs.isr[b] && rs.replicas[b].Up() {
			out.Elected, out.Leader = true, b
			rs.leaderless = false
			// A member that came back from a machine failure may have lost
			// records the HW covered (unflushed bytes) and still be the
			// last of the ISR: Kafka elects it all the same (without
			// eligible leader replicas, KIP-966), and the loss is real.
			r, hw := rs.replicas[b], rs.hw
			leo := r.LEO()
			if leo < hw {
				rs.hw, r.hw = leo, min(r.hw, leo)
			}
			if err := rs.changeLeader(b, "elected by the controller from the ISR"); err != nil {
				return out, err
			}
			if leo < hw {
				ev := DataLost{TP: rs.tp, Broker: b, From: hw, To: leo,
					Reason: fmt.Sprintf("broker %d, the last running member of the ISR, lost them to a machine failure and was elected all the same", b)}
				rs.env.Events.Emit(ev)
				out.Lost = &ev
			}
			return out, nil
		}
	}
	if unclean {
		for _, b := range rs.assignment {
			if b == excluded || !rs.replicas[b].Up() {
				continue
			}
			out.Elected, out.Leader, out.Unclean = true, b, true
			lost, err := rs.uncleanElection(b)
			out.Lost = lost
			return out, err
		}
	}
	out.Leaderless = true
	if !rs.leaderless {
		rs.leaderless = true
		rs.FailPending(rs.leaderChangeError(rs.leader))
		rs.env.Events.Emit(LeaderLost{TP: rs.tp, Leader: rs.leader, ISR: rs.ISR(), Unclean: unclean})
	}
	return out, nil
}

// uncleanElection makes broker, a running replica outside the ISR, the
// leader and the whole ISR (PartitionChangeBuilder.tryElection with an
// unclean result). Every record the HW covered beyond its LEO is gone; a
// DataLost event says which.
func (rs *ReplicaSet) uncleanElection(broker int32) (*DataLost, error) {
	r := rs.replicas[broker]
	hw, leo := rs.hw, r.LEO()
	old := slices.Clone(rs.isrOrder)
	rs.addISR(broker)
	rs.env.Events.Emit(ISRExpanded{TP: rs.tp, Broker: broker, Reason: "unclean election: the ISR restarts from the new leader", ISR: rs.ISR()})
	for _, b := range old {
		rs.removeISR(b)
		rs.env.Events.Emit(ISRShrank{TP: rs.tp, Broker: b, Reason: fmt.Sprintf("unclean election of broker %d: the ISR restarts from it", broker), ISR: rs.ISR()})
	}
	rs.leaderless = false
	// The new leader's log is the truth from now on: the HW cannot cover
	// what it does not have, and alone in the ISR it covers all it has.
	rs.hw = min(rs.hw, leo)
	r.hw = rs.hw
	if err := rs.changeLeader(broker, fmt.Sprintf("unclean election: broker %d was not in the ISR (unclean.leader.election.enable=true)", broker)); err != nil {
		return nil, err
	}
	if leo >= hw {
		return nil, nil
	}
	ev := DataLost{TP: rs.tp, Broker: broker, From: hw, To: leo,
		Reason: fmt.Sprintf("unclean election: new leader %d never had them, though the HW covered them and acks=all acknowledged them", broker)}
	rs.env.Events.Emit(ev)
	return &ev, nil
}

// LeaderLost: the controller fenced a partition's leader and could elect no
// one: no in-sync replica is running (and unclean election is off).
type LeaderLost struct {
	TP      topic.Partition
	Leader  int32   // the fenced leader
	ISR     []int32 // the ISR the controller keeps
	Unclean bool    // unclean.leader.election.enable (no replica could be elected at all)
}

// Kind returns "leader_lost".
func (LeaderLost) Kind() string { return "leader_lost" }

// String describes the event on one line.
func (e LeaderLost) String() string {
	why := "no in-sync replica is running and unclean.leader.election.enable=false"
	if e.Unclean {
		why = "no replica is running"
	}
	return fmt.Sprintf("%s has no leader: leader %d was fenced, %s (ISR %s)", e.TP, e.Leader, why, FormatBrokers(e.ISR))
}
