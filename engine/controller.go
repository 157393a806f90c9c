package engine

import (
	"fmt"
	"sort"

	"github.com/minikafka-lab/minikafka/engine/replication"
)

// kraft reports whether the KRaft controller runs (controller=kraft).
func (c *Cluster) kraft() bool { return c.cfg.Rules.Controller == ControllerKRaft }

// runController is the KRaft controller's step in Advance (controller=kraft;
// under controller=manual it does nothing and a learner promotes by hand).
// Running brokers heartbeat on every clock step, so only a crashed broker's
// session can expire: one whose last heartbeat is more than
// broker.session.timeout.ms ago is fenced (BrokerHeartbeatManager
// .hasValidSession: the session holds while lastContact + timeout >= now),
// oldest first, one at a time (ReplicationControlManager
// .maybeFenceOneStaleBroker). Fencing removes the broker from every ISR and
// elects new leaders for the partitions it led, uncleanly if
// unclean.leader.election.enable allows it and no ISR member runs. A
// partition left without a leader gets one when a member of its ISR returns
// (RestartBroker) or, with unclean.leader.election.enable, at the
// controller's periodic check for unclean elections, every
// unclean.leader.election.interval.ms (KAFKA-12670, 3.9: a setting turned on
// later takes effect at the next check).
func (c *Cluster) runController() {
	if !c.kraft() {
		return
	}
	now := c.clock.NowMs()
	for {
		id, ok := c.staleBroker(now)
		if !ok {
			break
		}
		c.fenceBroker(id, now)
	}
	if now >= c.uncleanCheckDueMs {
		c.uncleanCheckDueMs = now + c.cfg.UncleanLeaderElectionIntervalMs
		c.electLeaderless(c.cfg.Rules.UncleanLeaderElection)
	}
}

// staleBroker is the crashed, unfenced broker with the oldest heartbeat
// whose session has expired.
func (c *Cluster) staleBroker(now int64) (int32, bool) {
	var stale []int32
	for _, id := range c.sortedBrokers() {
		b := c.brokers[id]
		if !b.up && !b.fenced && b.lastHeartbeatMs+c.cfg.BrokerSessionTimeoutMs < now {
			stale = append(stale, id)
		}
	}
	if len(stale) == 0 {
		return 0, false
	}
	sort.SliceStable(stale, func(i, j int) bool {
		return c.brokers[stale[i]].lastHeartbeatMs < c.brokers[stale[j]].lastHeartbeatMs
	})
	return stale[0], true
}

// fenceBroker fences one broker: it leaves every ISR (the last member of an
// ISR stays), and each partition it led elects a leader. A broker that
// restarts under the KRaft controller is fenced first if its old session is
// still valid, so it comes back outside every ISR it could leave and catches
// up by fetching: Kafka refuses the new incarnation's registration while the
// old session is valid (ClusterControlManager.registerBroker:
// DuplicateBrokerRegistrationException), so the broker registers only after
// the controller fenced the old one. (Where eligible leader replicas are
// enabled, ReplicationControlManager.handleBrokerUncleanShutdown,
// KAFKA-15586, also takes a broker registering after an unclean shutdown out
// of every ISR.)
func (c *Cluster) fenceBroker(id int32, now int64) {
	b := c.brokers[id]
	b.fenced = true
	silent := now - b.lastHeartbeatMs
	c.events.Emit(BrokerFenced{Broker: id, SilentMs: silent, TimeoutMs: c.cfg.BrokerSessionTimeoutMs, Restarting: b.up || silent <= c.cfg.BrokerSessionTimeoutMs})
	why := fmt.Sprintf("broker %d fenced by the controller: no heartbeat for %d ms > broker.session.timeout.ms=%d", id, silent, c.cfg.BrokerSessionTimeoutMs)
	if silent <= c.cfg.BrokerSessionTimeoutMs {
		why = fmt.Sprintf("broker %d fenced by the controller: it restarted (a new incarnation)", id)
	}
	changed := false
	for _, tp := range c.sortedTPs() {
		el, err := c.sets[tp].FenceBroker(id, c.cfg.Rules.UncleanLeaderElection, why)
		if err != nil {
			c.events.Emit(ControllerFailed{TP: tp, Message: err.Error()})
			continue
		}
		if el.Elected {
			changed = true
			c.leaderChanged(tp) // transactions: index the new leader log (transactions.go)
		}
	}
	if changed {
		c.syncMetadata()
	}
}

// electLeaderless elects a leader for every partition the controller left
// without one, where it now can: from the ISR, or with unclean any running
// replica (handleBrokerUnfenced, maybeElectUncleanLeaders).
func (c *Cluster) electLeaderless(unclean bool) {
	changed := false
	for _, tp := range c.sortedTPs() {
		rs := c.sets[tp]
		if !rs.Leaderless() {
			continue
		}
		el, err := rs.ElectLeader(unclean, -1)
		if err != nil {
			c.events.Emit(ControllerFailed{TP: tp, Message: err.Error()})
			continue
		}
		if el.Elected {
			changed = true
			c.leaderChanged(tp)
		}
	}
	if changed {
		c.syncMetadata()
	}
}

// BrokerFenced: the KRaft controller fenced a crashed broker whose session
// expired (controller=kraft).
type BrokerFenced struct {
	Broker    int32
	SilentMs  int64 // time since its last heartbeat
	TimeoutMs int64 // broker.session.timeout.ms
	// Restarting is set when the broker restarted before its session
	// expired: its new incarnation ends the old session.
	Restarting bool
}

// Kind returns "broker_fenced".
func (BrokerFenced) Kind() string { return "broker_fenced" }

// String describes the event on one line.
func (e BrokerFenced) String() string {
	if e.Restarting {
		return fmt.Sprintf("controller fenced broker %d: it restarts as a new incarnation, which ends the old session (Kafka waits up to broker.session.timeout.ms=%d for it)", e.Broker, e.TimeoutMs)
	}
	return fmt.Sprintf("controller fenced broker %d: no heartbeat for %d ms > broker.session.timeout.ms=%d", e.Broker, e.SilentMs, e.TimeoutMs)
}

// ControllerFailed: the controller could not apply a decision to a
// partition (a log that could not be cut at an election).
type ControllerFailed struct {
	TP      TopicPartition
	Message string
}

// Kind returns "controller_failed".
func (ControllerFailed) Kind() string { return "controller_failed" }

// String describes the event on one line.
func (e ControllerFailed) String() string {
	return fmt.Sprintf("controller could not update %s: %s", e.TP, e.Message)
}

// LeaderLost is replication.LeaderLost: the controller fenced a leader and
// could elect nobody.
type LeaderLost = replication.LeaderLost

// EndOffsetForLeaderEpoch answers Kafka's OffsetsForLeaderEpoch for a
// partition from its leader (Partition.lastOffsetForLeaderEpoch): for the
// current epoch the leader's LEO; for an older one the largest epoch at most
// epoch in the leader's log and the start offset of the epoch after it; for
// a newer one, or -1, leader epoch -1 and end offset -1 (Kafka's
// UNDEFINED_EPOCH and UNDEFINED_EPOCH_OFFSET). It works under either rule
// set. The epochs come from the leader's epoch cache, found by binary
// search over its batch headers (MiniKafka keeps no leader-epoch checkpoint
// file), the same cache truncation=leader-epoch consults. UNKNOWN_TOPIC,
// UNKNOWN_PARTITION, and LEADER_NOT_AVAILABLE while the partition has no
// running leader; an epoch below -1 is an argument error. The Kafka wire
// adapter's OffsetForLeaderEpoch calls it.
func (c *Cluster) EndOffsetForLeaderEpoch(tp TopicPartition, epoch int32) (leaderEpoch int32, endOffset int64, err error) {
	if err := c.guard(); err != nil {
		return replication.UndefinedEpoch, replication.UndefinedEpochOffset, err
	}
	rs, err := c.replicaSet(tp)
	if err != nil {
		return replication.UndefinedEpoch, replication.UndefinedEpochOffset, err
	}
	return rs.EndOffsetForLeaderEpoch(epoch)
}

// LeaderEpochs lists one replica's leader-epoch entries (epoch and start
// offset), as Kafka's leader-epoch-checkpoint would hold them.
func (c *Cluster) LeaderEpochs(tp TopicPartition, broker int32) ([]replication.EpochEntry, error) {
	if err := c.guard(); err != nil {
		return nil, err
	}
	rs, err := c.replicaSet(tp)
	if err != nil {
		return nil, err
	}
	return rs.LeaderEpochs(broker)
}
