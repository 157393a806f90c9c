package replication

import (
	"maps"
	"slices"

	"github.com/minikafka-lab/minikafka/engine/storage"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// Copier carries one copy of a cluster's state (engine.Cluster.Snapshot
// and Restore) through the packages that hold parts of it. It copies each
// pending Ack once, so an Ack reachable twice (waited for by a replica set
// and by a producer's batch or a transaction's completion) stays one object
// in the copy, and it carves the copies of the replica sets, replicas and
// logs from a few large allocations (Reserve).
//
// What is copied and what is shared: a pending promise is copied (it will
// settle in the copy, not in the original), with its listeners, which name
// their owners by id and are heard by the copy's dispatcher; a settled
// promise never changes again, so the original and the copy share it. A
// log is copied for the copy's file system (storage.Log.Clone). Everything
// else is copied by the clone methods of its package.
type Copier struct {
	// Env is the copy's environment: its clock, event log, handle ids,
	// settings and dispatcher.
	Env *Env
	// FS is the file system the copy's files live in, a copy of the
	// original's files.
	FS vfs.FS
	// Rebase maps a path of the original's data directory to the same path
	// in the copy's (the identity when the copy keeps the directory).
	Rebase func(string) string

	acks map[*Ack]*Ack
	logs storage.Slab
	sets []ReplicaSet
	reps []Replica
}

// Reserve makes room for the copies of sets replica sets with replicas
// replicas, logs logs and segments segments in all.
func (cp *Copier) Reserve(sets, replicas, logs, segments int) {
	cp.sets = make([]ReplicaSet, 0, sets)
	cp.reps = make([]Replica, 0, replicas)
	cp.logs.Reserve(logs, segments)
}

// Ack returns the copy of a: a itself when it has settled (and for nil),
// else its one copy, made on first sight, with its listeners (they name
// their owners by id) going to the copy's dispatcher.
func (cp *Copier) Ack(a *Ack) *Ack {
	if a == nil || a.Settled() {
		return a
	}
	if c, ok := cp.acks[a]; ok {
		return c
	}
	c := new(Ack)
	*c = *a // a new field of a plain kind comes along by itself
	c.Promise = a.Promise.Clone(cp.Env.Dispatch)
	if cp.acks == nil {
		cp.acks = map[*Ack]*Ack{}
	}
	cp.acks[a] = c
	return c
}

// Log returns a copy of l (nil for nil) on the copy's file system. Every
// call makes a new copy: a log referred to twice (a replica's, and a
// transaction index's) must be mapped by the caller (ReplicaSet.Clone
// copies each replica's log; the copy's replica holds it).
func (cp *Copier) Log(l *storage.Log) (*storage.Log, error) {
	if l == nil {
		return nil, nil
	}
	return cp.logs.Clone(l, cp.FS, cp.Rebase(l.Dir()))
}

// Clone returns a copy of a pending promise for a copy of its cluster
// whose dispatcher is d: the same id, state, value and listeners. A
// settled promise is never copied (Copier.Ack shares it); Clone of one
// returns it as it is, without listeners.
func (p *Promise[T]) Clone(d Dispatcher) Promise[T] {
	c := Promise[T]{id: p.id, state: p.state, value: p.value, err: p.err}
	if len(p.listeners) > 0 {
		// The listeners are plain data; the copy's array is its own from
		// its first Listen (the capacity is clipped).
		c.listeners, c.d = p.listeners[:len(p.listeners):len(p.listeners)], d
	}
	return c
}

// Clone copies the replica set into cp's copy of its cluster: the same
// leader, epoch, ISR (and its stored order), HW, leaderless mark,
// replicas (their logs copied by cp; each replica's own view: fetch times,
// diverged marks, learned HW, reconciliation), acks=all waiters (their
// Acks by cp, so that a producer's batch waits on the same copy) and
// producer state. The assignment is shared: it never changes.
func (rs *ReplicaSet) Clone(cp *Copier) (*ReplicaSet, error) {
	if cap(cp.sets) == len(cp.sets) {
		cp.sets = make([]ReplicaSet, 0, max(1, 2*cap(cp.sets)))
	}
	// A copy by value (a new field of a plain kind comes along by
	// itself), then every field that holds a reference, copied.
	cp.sets = append(cp.sets, *rs)
	c := &cp.sets[len(cp.sets)-1]
	c.env, c.isr, c.isrOrder = cp.Env, maps.Clone(rs.isr), slices.Clone(rs.isrOrder)
	c.replicas, c.waiters = make(map[int32]*Replica, len(rs.replicas)), nil
	if cap(cp.reps)-len(cp.reps) < len(rs.byID) {
		cp.reps = make([]Replica, 0, max(len(rs.byID), 2*cap(cp.reps)))
	}
	for _, b := range rs.byID {
		r := rs.replicas[b]
		l, err := cp.Log(r.log)
		if err != nil {
			return nil, err
		}
		cp.reps = append(cp.reps, *r)
		n := &cp.reps[len(cp.reps)-1]
		n.log = l
		c.replicas[b] = n
	}
	if len(rs.waiters) > 0 {
		c.waiters = make([]*waiter, len(rs.waiters))
		ws := make([]waiter, len(rs.waiters))
		for i, w := range rs.waiters {
			ws[i] = *w
			ws[i].ack = cp.Ack(w.ack)
			c.waiters[i] = &ws[i]
		}
	}
	c.producers = rs.producers.clone(cp.Env)
	return c, nil
}

// clone copies the producer state for a copy whose environment is env:
// the remembered batches change in place (RegisterEpoch, Record), so each
// producer's are copied; the rules are the copy's settings'.
func (m *ProducerStateManager) clone(env *Env) *ProducerStateManager {
	c := &ProducerStateManager{states: make(map[int64]*producerState, len(m.states)), epochs: maps.Clone(m.epochs)}
	if m.rules != nil {
		c.rules = &env.Settings.Rules
	}
	if len(m.states) > 0 {
		sts := make([]producerState, 0, len(m.states))
		for pid, st := range m.states {
			sts = append(sts, producerState{epoch: st.epoch, batches: slices.Clone(st.batches)})
			c.states[pid] = &sts[len(sts)-1]
		}
	}
	return c
}

// Clone returns a copy of the id source: the copy hands out the same ids
// next, independently.
func (s *IDSource) Clone() *IDSource { return &IDSource{last: s.last} }

// Copy returns a copy of the event log: the events not taken yet (plain
// values, shared) in a list of the copy's own.
func (l *EventLog) Copy() EventLog { return EventLog{events: slices.Clone(l.events)} }

// CopySize counts what Copier.Reserve needs for the replica set's copy:
// its replicas, the logs of the running ones and their segments.
func (rs *ReplicaSet) CopySize() (replicas, logs, segments int) {
	for _, b := range rs.byID {
		if l := rs.replicas[b].log; l != nil {
			logs++
			segments += l.SegmentCount()
		}
	}
	return len(rs.byID), logs, segments
}

// LogHolder returns the broker whose replica holds the log l now.
func (rs *ReplicaSet) LogHolder(l *storage.Log) (int32, bool) {
	for _, b := range rs.byID {
		if rs.replicas[b].log == l {
			return b, true
		}
	}
	return 0, false
}
