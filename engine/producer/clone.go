package producer

import (
	"maps"
	"slices"

	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/replication"
	"github.com/minikafka-lab/minikafka/engine/topic"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// Clone copies the producer into a copy of its cluster (engine.Cluster's
// Snapshot and Restore): env is what the copy lends it (its number stays
// the producer's), cp the copier of the cluster's state. Options, identity,
// partitioner (bound to the copy's rules and partitions), buffered
// records, sequences, the recent batches RetryBack resends, batches in
// flight and waiting, and pending futures are copied; every pending future
// is copied once, so the accumulator and a waiting batch hold the same
// copy, and every pending Ack through cp, so a waiting batch and the
// replica set's waiter hold the same copy. Settled futures and the batches
// sent (never changed after they are sent) are shared.
func (p *Producer) Clone(env Env, cp *replication.Copier) *Producer {
	var available func(string, int32) []int32
	if av, ok := env.Cluster.(availability); ok {
		available = av.AvailablePartitions
	}
	// The batches sent so far are shared with the copy: neither reuses
	// their records (recycle). A snapshot's producer is frozen already and
	// is not written to: restores from one snapshot may run concurrently.
	if p.frozen != p.flushes {
		p.frozen = p.flushes
	}
	c := &Producer{opts: p.opts, identity: p.identity, env: env, part: p.part.Clone(env.Settings, available),
		flushes: p.flushes, frozen: p.frozen,
		source: p.source, nextSeq: maps.Clone(p.nextSeq), sent: maps.Clone(p.sent), last: p.last, recent: slices.Clone(p.recent),
		closed: p.closed, batches: p.batches}
	futs := newFutureCopier()
	c.acc = p.acc.clone(futs)
	c.inflight = make(map[topic.Partition][]inflight, len(p.inflight))
	for tp, list := range p.inflight {
		l := make([]inflight, len(list))
		for i, in := range list {
			l[i] = inflight{batch: in.batch, ack: cp.Ack(in.ack)}
		}
		c.inflight[tp] = l
	}
	if len(p.awaiting) > 0 {
		c.awaiting = make(map[int64]*awaiting, len(p.awaiting))
		for n, a := range p.awaiting {
			fs := make([]*Future, len(a.futs))
			for i, f := range a.futs {
				fs[i] = futs.copy(f)
			}
			c.awaiting[n] = &awaiting{s: a.s, futs: fs, ack: cp.Ack(a.ack)}
		}
	}
	return c
}

// futureCopier copies each pending future once, and the state the
// futures of a batch share once per batch; settled futures are shared.
type futureCopier struct {
	futs    map[*Future]*Future
	batches map[*futureBatch]*futureBatch
}

func newFutureCopier() futureCopier {
	return futureCopier{futs: map[*Future]*Future{}, batches: map[*futureBatch]*futureBatch{}}
}

func (fc futureCopier) copy(f *Future) *Future {
	if f == nil || f.Settled() {
		return f
	}
	if c, ok := fc.futs[f]; ok {
		return c
	}
	c := &Future{ts: f.ts, b: fc.batch(f.b), index: f.index, state: f.state}
	fc.futs[f] = c
	return c
}

// batch copies a pending batch's shared state once.
func (fc futureCopier) batch(b *futureBatch) *futureBatch {
	if c, ok := fc.batches[b]; ok {
		return c
	}
	c := *b
	// A pending queue's ids grow as records are queued: each side
	// appends to its own.
	c.ids = slices.Clone(b.ids)
	fc.batches[b] = &c
	return &c
}

// clone copies the accumulator; its queues' futures go through fc.
func (a *Accumulator) clone(fc futureCopier) *Accumulator {
	c := &Accumulator{batchSize: a.batchSize, lingerMs: a.lingerMs, maxBuffer: a.maxBuffer, total: a.total,
		queues: make(map[topic.Partition]*queue, len(a.queues))}
	for tp, q := range a.queues {
		futures := make([]*Future, len(q.futures), cap(q.futures))
		for i, f := range q.futures {
			futures[i] = fc.copy(f)
		}
		records := make([]record.Record, len(q.records), cap(q.records))
		copy(records, q.records)
		c.queues[tp] = &queue{records: records, futures: futures, fb: fc.batch(q.fb), bytes: q.bytes, firstEnqueue: q.firstEnqueue}
	}
	return c
}

// Clone returns a copy of the partitioner for a copy of its cluster: the
// same sticky partitions (both rules' state) and random generator. What
// belongs to the copy is given: its rule settings and its view of the
// partitions with a leader (nil for none).
func (p *Partitioner) Clone(settings *Settings, available func(topic string, count int32) []int32) *Partitioner {
	c := &Partitioner{settings: settings, sticky: maps.Clone(p.sticky), kafka: make(map[string]*stickyState, len(p.kafka)),
		rng: p.rng, Available: available}
	for topic, st := range p.kafka {
		cp := *st // changed in place (Appended)
		c.kafka[topic] = &cp
	}
	return c
}

// Clone copies the identity store onto fsys, in dir (a copy of the store's
// directory). The identity map is shared: Allocate replaces it, never
// changes it in place.
func (s *IdentityStore) Clone(fsys vfs.FS, dir string) *IdentityStore {
	return &IdentityStore{fsys: fsys, dir: dir, ids: s.ids}
}
