package explore

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/invariant"
)

// Key identifies a state: a SHA-256 over everything that decides what the
// state does next.
//
//   - The engine: the clock, the controller's timers and the data
//     directory's files, current and durable (Cluster.WriteStateKey); each
//     broker's state; each partition's leader, epoch, HW, LSO, ISR (stored
//     order) and each replica's LEO, HW, log start, ISR membership, last
//     fetch time, running, diverged and reconciling marks and leader-epoch
//     entries; the pending acks=all waiters (partition, target, deadline).
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

// keyWriter encodes a state for hashing.
type keyWriter struct {
	h   hash.Hash
	buf [binary.MaxVarintLen64]byte
}

func (w *keyWriter) int(v int64) {
	n := binary.PutVarint(w.buf[:], v)
	w.h.Write(w.buf[:n])
}

func (w *keyWriter) bool(b bool) {
	if b {
		w.int(1)
	} else {
		w.int(0)
	}
}

func (w *keyWriter) str(s string) {
	w.int(int64(len(s)))
	w.h.Write([]byte(s))
}

func (w *keyWriter) ids(ids []int32) {
	w.int(int64(len(ids)))
	for _, id := range ids {
		w.int(int64(id))
	}
}

// key computes the key of c, observed as obs, followed by m, with the
// budgets used.
func (s *search) key(c *engine.Cluster, obs invariant.Observation, m *invariant.Monitor, faults, values int) Key {
	return stateKey(c, obs, m, faults, values)
}

func stateKey(c *engine.Cluster, obs invariant.Observation, m *invariant.Monitor, faults, values int) Key {
	w := &keyWriter{h: sha256.New()}
	w.int(int64(faults))
	w.int(int64(values))
	c.WriteStateKey(w.h)
	for _, b := range obs.Brokers {
		w.int(int64(b.ID))
		w.bool(b.Up)
		w.bool(b.Fenced)
		w.str(b.LogDirFailure)
	}
	for _, p := range obs.Partitions {
		w.str(p.TP.Topic)
		w.int(int64(p.TP.Partition))
		w.int(int64(p.Leader))
		w.int(int64(p.LeaderEpoch))
		w.bool(p.Online)
		w.bool(p.Leaderless)
		w.int(p.HW)
		w.int(p.LSO)
		w.ids(p.ISRStored)
		for _, r := range p.Replicas {
			w.int(int64(r.Broker))
			w.int(r.LEO)
			w.int(r.HW)
			w.int(r.LogStart)
			w.bool(r.InISR)
			w.int(r.LastFetchMs)
			w.bool(r.Up)
			w.bool(r.Diverged)
			w.bool(r.Reconciling)
			epochs, _ := c.LeaderEpochs(p.TP, r.Broker)
			w.int(int64(len(epochs)))
			for _, e := range epochs {
				w.int(int64(e.Epoch))
				w.int(e.StartOffset)
			}
		}
		for _, pe := range p.Producers {
			w.int(pe.PID)
			w.int(int64(pe.Epoch))
			w.int(int64(pe.BaseSequence))
			w.int(int64(pe.LastSequence))
			w.int(pe.BaseOffset)
			w.int(pe.NextOffset)
			w.int(int64(pe.Registered))
		}
	}
	for _, a := range c.PendingAcks() {
		w.str(a.TP.Topic)
		w.int(int64(a.TP.Partition))
		w.int(a.Target)
		w.int(a.DeadlineMs)
		v := a.Value()
		w.bool(v.Duplicate)
		w.int(v.BaseOffset)
	}
	m.WriteKey(w.h)
	var k Key
	w.h.Sum(k[:0])
	return k
}
