package explore

import (
	"crypto/sha256"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/invariant"
	"github.com/minikafka-lab/minikafka/engine/statekey"
)

// Key identifies a state: a SHA-256 over everything that decides what the
// state does next.
//
//   - The engine: the clock, the controller's timers and the data
//     directory's files, current and durable (Cluster.WriteStateKey); each
//     broker's state; each partition's leader, epoch, HW, LSO, ISR (stored
//     order) and each replica's LEO, HW, log start, ISR membership, last
//     fetch time, running, diverged and reconciling marks; the pending
//     acks=all waiters (partition, target, deadline). A replica's
//     leader-epoch entries are not written: they are rebuilt from the
//     epochs its batches carry, which the files hold.
//   - What the property holds the cluster to (Monitor.WriteKey): the
//     acknowledged records and what a consumer saw.
//   - The budgets: crashes and values used.
//
// Left out, because nothing that follows depends on them: the ids of
// handles (ack #N) and the events already taken. Broker ids are not made
// symmetric: an election takes the first ISR member in assignment order
// (as Kafka's PartitionChangeBuilder does), so relabelling brokers changes
// what happens. Record values are symmetric by construction: the k-th
// produce of a schedule always writes vk.
type Key [sha256.Size]byte

// key computes the key of c, observed as obs, followed by m, with the
// budgets used.
func (s *search) key(c *engine.Cluster, obs invariant.Observation, m *invariant.Monitor, faults, values int) Key {
	return stateKey(c, obs, m, faults, values)
}

func stateKey(c *engine.Cluster, obs invariant.Observation, m *invariant.Monitor, faults, values int) Key {
	h := sha256.New()
	w := statekey.New(h)
	w.Int(int64(faults))
	w.Int(int64(values))
	c.WriteStateKey(h)
	for _, b := range obs.Brokers {
		w.Int(int64(b.ID))
		w.Bool(b.Up)
		w.Bool(b.Fenced)
		w.String(b.LogDirFailure)
	}
	for _, p := range obs.Partitions {
		w.String(p.TP.Topic)
		w.Int(int64(p.TP.Partition))
		w.Int(int64(p.Leader))
		w.Int(int64(p.LeaderEpoch))
		w.Bool(p.Online)
		w.Bool(p.Leaderless)
		w.Int(p.HW)
		w.Int(p.LSO)
		w.IDs(p.ISRStored)
		for _, r := range p.Replicas {
			w.Int(int64(r.Broker))
			w.Int(r.LEO)
			w.Int(r.HW)
			w.Int(r.LogStart)
			w.Bool(r.InISR)
			w.Int(r.LastFetchMs)
			w.Bool(r.Up)
			w.Bool(r.Diverged)
			w.Bool(r.Reconciling)
		}
		for _, pe := range p.Producers {
			w.Int(pe.PID)
			w.Int(int64(pe.Epoch))
			w.Int(int64(pe.BaseSequence))
			w.Int(int64(pe.LastSequence))
			w.Int(pe.BaseOffset)
			w.Int(pe.NextOffset)
			w.Int(int64(pe.Registered))
		}
	}
	for _, a := range c.PendingAcks() {
		w.String(a.TP.Topic)
		w.Int(int64(a.TP.Partition))
		w.Int(a.Target)
		w.Int(a.DeadlineMs)
		v := a.Value()
		w.Bool(v.Duplicate)
		w.Int(v.BaseOffset)
	}
	m.WriteKey(h)
	var k Key
	h.Sum(k[:0])
	return k
}
