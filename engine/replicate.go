package engine

import (
	"errors"
	"fmt"

	"github.com/minikafka-lab/minikafka/engine/replication"
)

// PartitionReplication is one partition's part of a replication step.
type PartitionReplication struct {
	TP TopicPartition
	replication.PartitionFetch
	// Skipped says why the partition did not replicate (its leader is down).
	Skipped string
}

// ReplicationReport is what one Replicate call did, partition by partition.
type ReplicationReport struct {
	Partitions []PartitionReplication
}

// Copied sums the batches and bytes copied.
func (r ReplicationReport) Copied() (batches int, bytes int64) {
	for _, p := range r.Partitions {
		for _, f := range p.Followers {
			batches += f.Batches
			bytes += f.Bytes
		}
	}
	return batches, bytes
}

// FollowerFetch is one follower's part of a replication step.
type FollowerFetch = replication.FollowerFetch

// Replicate runs one follower fetch step (§9.2): on one partition (tp not
// nil) or on every partition in topic, partition order (tp nil), for one
// follower or for AllFollowers. Each step copies the leader's stored batch
// bytes within replica.fetch.max.bytes, then refreshes the ISR, which
// advances the HW and resolves acks=all waiters.
//
// On every partition, partitions whose leader is down are skipped (and
// reported), as are partitions where follower is not a follower; a partition
// that fails does not stop the others (the errors are joined, in partition
// order). On one partition, a down leader is LEADER_NOT_AVAILABLE. A named
// follower that is down is BROKER_NOT_AVAILABLE; an unknown one is an
// argument error.
func (c *Cluster) Replicate(tp *TopicPartition, follower int32) (ReplicationReport, error) {
	defer c.drainDiskFailures()
	var rep ReplicationReport
	if err := c.guard(); err != nil {
		return rep, err
	}
	if follower != AllFollowers {
		b, err := c.broker(follower)
		if err != nil {
			return rep, err
		}
		if !b.up {
			return rep, replication.BrokerDown(follower)
		}
	}
	fetch := func(rs *replication.ReplicaSet) (replication.PartitionFetch, error) {
		if follower == AllFollowers {
			return rs.FetchFollowers()
		}
		return rs.FetchFollower(follower)
	}
	if tp != nil {
		rs, err := c.replicaSet(*tp)
		if err != nil {
			return rep, err
		}
		pr := PartitionReplication{TP: *tp}
		pr.PartitionFetch, err = fetch(rs)
		if err == nil || pr.Followers != nil {
			rep.Partitions = append(rep.Partitions, pr)
		}
		c.retryOrphanMarkers()
		return rep, err
	}
	var errs []error
	for _, t := range c.sortedTPs() {
		rs := c.sets[t]
		pr := PartitionReplication{TP: t}
		if follower != AllFollowers && (rs.Replica(follower) == nil || rs.Leader() == follower) {
			continue
		}
		if !rs.Online() {
			pr.Skipped = fmt.Sprintf("leader %d is down", rs.Leader())
			rep.Partitions = append(rep.Partitions, pr)
			continue
		}
		var err error
		pr.PartitionFetch, err = fetch(rs)
		rep.Partitions = append(rep.Partitions, pr)
		if err != nil {
			// One partition's failure (a damaged leader segment, a
			// compaction gap) does not stop the others from replicating.
			errs = append(errs, err)
		}
	}
	c.retryOrphanMarkers()
	return rep, errors.Join(errs...)
}

// RefreshISR re-evaluates a partition's ISR now (§10.1), as Advance does for
// every partition.
func (c *Cluster) RefreshISR(tp TopicPartition) error {
	defer c.drainDiskFailures()
	if err := c.guard(); err != nil {
		return err
	}
	rs, err := c.replicaSet(tp)
	if err != nil {
		return err
	}
	rs.RefreshISR()
	c.retryOrphanMarkers()
	return nil
}

// Promote makes an in-sync replica the partition's leader (§10.4, see
// replication.ReplicaSet.Promote) and saves the new leader and epoch in
// metadata.json. A crashed broker cannot be promoted (BROKER_NOT_AVAILABLE);
// a broker outside the ISR is NOT_IN_SYNC_REPLICA.
func (c *Cluster) Promote(tp TopicPartition, broker int32) error {
	defer c.drainDiskFailures()
	if err := c.guard(); err != nil {
		return err
	}
	rs, err := c.replicaSet(tp)
	if err != nil {
		return err
	}
	if err := rs.Promote(broker); err != nil {
		return err
	}
	c.leaderChanged(tp) // transactions: index the new leader log (transactions.go)
	return c.syncMetadata()
}

// Rejoin brings a follower back after a failover (§10.5): it truncates to
// the HW if above it, takes the current epoch and leaves the ISR until it
// meets the ISR rules again.
func (c *Cluster) Rejoin(tp TopicPartition, broker int32) error {
	defer c.drainDiskFailures()
	if err := c.guard(); err != nil {
		return err
	}
	rs, err := c.replicaSet(tp)
	if err != nil {
		return err
	}
	return rs.Rejoin(broker)
}

// RemoveFromISR takes a follower out of the ISR (the leader cannot be
// removed), which may fail pending acks=all waiters.
func (c *Cluster) RemoveFromISR(tp TopicPartition, broker int32) error {
	if err := c.guard(); err != nil {
		return err
	}
	rs, err := c.replicaSet(tp)
	if err != nil {
		return err
	}
	return rs.RemoveFromISR(broker)
}

// PartitionState describes a partition as plain values: leader, epoch,
// every replica (role, LEO, log start, ISR membership, last fetch, up,
// diverged), HW, LSO, log start, pending acks and producer state.
func (c *Cluster) PartitionState(tp TopicPartition) (PartitionState, error) {
	if err := c.guard(); err != nil {
		return PartitionState{}, err
	}
	rs, err := c.replicaSet(tp)
	if err != nil {
		return PartitionState{}, err
	}
	st := rs.State()
	st.LSO = c.lso(tp, st.HW)
	return st, nil
}

// PartitionStates describes every partition, in topic, partition order.
func (c *Cluster) PartitionStates() ([]PartitionState, error) {
	if err := c.guard(); err != nil {
		return nil, err
	}
	var out []PartitionState
	for _, tp := range c.sortedTPs() {
		st := c.sets[tp].State()
		st.LSO = c.lso(tp, st.HW)
		out = append(out, st)
	}
	return out, nil
}
