package engine

import (
	"errors"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/replication"
	"github.com/minikafka-lab/minikafka/engine/storage"
)

// BrokerState describes one broker as plain values.
type BrokerState struct {
	ID             int32
	Up             bool
	Fenced         bool // the KRaft controller fenced it (controller=kraft)
	LeaderOf       []TopicPartition
	ReplicaOf      []TopicPartition
	UnflushedBytes int64 // what a machine crash would drop now
	// LogDirFailure says why the broker is down when its log directory
	// failed (a disk error); "" for a running or crashed broker.
	LogDirFailure string
}

// Brokers describes every broker, by id.
func (c *Cluster) Brokers() ([]BrokerState, error) {
	if err := c.guard(); err != nil {
		return nil, err
	}
	var out []BrokerState
	tps := c.sortedTPs()
	for _, id := range c.sortedBrokers() {
		st := BrokerState{ID: id, Up: c.brokers[id].up, Fenced: c.brokers[id].fenced, LogDirFailure: c.brokers[id].dirFailure}
		for _, tp := range tps {
			rs := c.sets[tp]
			r := rs.Replica(id)
			if r == nil {
				continue
			}
			st.ReplicaOf = append(st.ReplicaOf, tp)
			if rs.Leader() == id {
				st.LeaderOf = append(st.LeaderOf, tp)
			}
			if l := r.Log(); l != nil {
				st.UnflushedBytes += l.UnflushedBytes()
			}
		}
		out = append(out, st)
	}
	return out, nil
}

func (c *Cluster) broker(id int32) (*brokerInfo, error) {
	b := c.brokers[id]
	if b == nil {
		return nil, kerr.Argument("unknown broker %d", id)
	}
	return b, nil
}

// CrashBroker fails one broker as a machine failure would (decisions.md,
// per-broker crash). Its replicas stop fetching and serving; each of its logs
// closes without a clean-shutdown marker and, unless keepUnflushed, loses
// the bytes appended since its last flush (storage Crash(false)). Partitions
// it leads go offline: produce and fetch fail with LEADER_NOT_AVAILABLE and
// their pending acks=all waiters fail, until a promotion or a restart. Under
// controller=manual a crashed follower stays in the ISR until
// replica.lag.time.max.ms of clock time passes without a fetch (MiniKafka's
// rule); under controller=kraft the controller fences the broker once it
// has been silent for longer than broker.session.timeout.ms, removes it from
// every ISR and elects new leaders (see runController), which is how Kafka
// notices a dead broker.
func (c *Cluster) CrashBroker(id int32, keepUnflushed bool) error {
	if err := c.guard(); err != nil {
		return err
	}
	b, err := c.broker(id)
	if err != nil {
		return err
	}
	if !b.up {
		return kerr.State("broker %d is already down", id)
	}
	b.up = false
	b.lastHeartbeatMs = c.clock.NowMs()
	// The crash is announced before its effects (failed acks); its totals
	// are filled in once every replica has stopped.
	ev := BrokerCrashed{Broker: id, KeepUnflushed: keepUnflushed}
	if c.kraft() {
		ev.sessionTimeoutMs = c.cfg.BrokerSessionTimeoutMs
	}
	pos := c.events.Emit(ev)
	var errs []error
	for _, tp := range c.sortedTPs() {
		rs := c.sets[tp]
		if rs.Replica(id) == nil {
			continue
		}
		if rs.Leader() == id {
			ev.Offline = append(ev.Offline, tp)
			c.leaderDown(tp) // transactions: what the leader's log holds (transactions.go)
		}
		lost, err := rs.CrashReplica(id, keepUnflushed)
		ev.DroppedBytes += lost
		if err != nil {
			errs = append(errs, err)
		}
	}
	c.events.Replace(pos, ev)
	return errors.Join(errs...)
}

// RestartReport is what a broker restart did: each replica's recovery
// report, and what the replica did once back.
type RestartReport struct {
	Broker   int32
	Replicas []ReplicaRestart
}

// ReplicaRestart is one replica's restart.
type ReplicaRestart struct {
	TP       TopicPartition
	Recovery storage.RecoveryReport
	replication.RestartOutcome
}

// RestartBroker brings a crashed broker back. Each of its logs is reopened
// with real recovery (storage.Open: a torn tail is repaired and reported).
// The restart is all or nothing: when a log cannot be reopened (a damaged
// closed segment), the logs already reopened are closed again without a
// clean-shutdown marker, the broker stays crashed in every view, nothing is
// announced, and the errors of every log that failed are returned; once the
// damage is repaired, restarting again works. (A torn tail that recovery
// cut in a log that did reopen stays cut: those bytes were invalid anyway.)
//
// On success a follower above the HW truncates to it, a follower below the
// HW leaves the ISR, and each catches up at the next Replicate. A partition
// it led comes back online in a new leader epoch (saved in metadata.json):
// led by it again, or — when it lost records the HW covered — by the first
// running in-sync replica that has them; only when none has them does the
// HW drop, and a DataLost event says so.
func (c *Cluster) RestartBroker(id int32) (RestartReport, error) {
	defer c.drainDiskFailures()
	rep := RestartReport{Broker: id}
	if err := c.guard(); err != nil {
		return rep, err
	}
	b, err := c.broker(id)
	if err != nil {
		return rep, err
	}
	if b.up {
		return rep, kerr.State("broker %d is running", id)
	}
	type reopened struct {
		tp       TopicPartition
		log      *storage.Log
		recovery storage.RecoveryReport
	}
	var logs []reopened
	var errs []error
	for _, tp := range c.sortedTPs() {
		rs := c.sets[tp]
		if r := rs.Replica(id); r == nil || r.Up() {
			continue
		}
		l, recovery, err := storage.Open(c.replicaDir(tp, id), c.storageOptions(), rs.LeaderEpoch())
		if err != nil {
			errs = append(errs, err)
			continue
		}
		logs = append(logs, reopened{tp, l, recovery})
	}
	if len(errs) > 0 {
		for _, r := range logs {
			// Closed as the crash left it: no marker, so the next restart
			// recovers it again.
			if err := r.log.Crash(true); err != nil {
				errs = append(errs, err)
			}
		}
		return rep, errors.Join(errs...)
	}
	if c.kraft() && !b.fenced {
		// A new incarnation cannot register while the crashed one's
		// session is valid (ClusterControlManager.registerBroker:
		// DuplicateBrokerRegistrationException); it retries until the
		// controller fences the old one. MiniKafka does not make the
		// learner wait for broker.session.timeout.ms: the old session ends
		// now.
		c.fenceBroker(id, c.clock.NowMs())
	}
	b.up, b.dirFailure = true, ""
	b.fenced = false // it registers again: the controller unfences it
	b.lastHeartbeatMs = c.clock.NowMs()
	// Announced before what each replica does on its way back.
	pos := c.events.Emit(BrokerRestarted{Broker: id})
	newLeaders := false
	for _, r := range logs {
		tp, rs := r.tp, c.sets[r.tp]
		if r.recovery.Truncation != nil {
			c.events.Emit(RecoveryTruncated{TP: tp, Broker: id, Truncation: *r.recovery.Truncation})
		}
		out, err := rs.RestartReplica(id, r.log)
		rep.Replicas = append(rep.Replicas, ReplicaRestart{TP: tp, Recovery: r.recovery, RestartOutcome: out})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if out.LeaderChanged {
			newLeaders = true
			c.leaderChanged(tp) // transactions: index the new leader log (transactions.go)
		}
	}
	if newLeaders {
		// One save for every partition whose leader or epoch changed.
		if err := c.syncMetadata(); err != nil {
			errs = append(errs, err)
		}
	}
	c.events.Replace(pos, BrokerRestarted{Broker: id, Replicas: len(rep.Replicas)})
	if c.kraft() {
		// An unfenced broker can lead the partitions left without a
		// leader, uncleanly if the setting allows it
		// (ReplicationControlManager.handleBrokerUnfenced).
		c.electLeaderless(c.cfg.Rules.UncleanLeaderElection)
	}
	return rep, errors.Join(errs...)
}
