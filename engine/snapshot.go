package engine

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/group"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/producer"
	"github.com/minikafka-lab/minikafka/engine/replication"
	"github.com/minikafka-lab/minikafka/engine/storage"
	"github.com/minikafka-lab/minikafka/engine/txn"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// Snapshot is an immutable copy of a cluster's whole state, taken between
// two calls (Cluster.Snapshot): the files of its data directory, in a
// vfs.Mem, and everything the cluster holds in memory — every replica's log
// (segments, offsets, flushed positions, index entries), leaders, epochs,
// ISRs, HWs, diverged marks, pending acks=all waiters, broker-side producer
// state, the producers (options, identities, sticky partitions, buffered
// records, sequences, batches in flight, pending futures), the consumers
// (assignments, positions, generations), the consumer groups (classic ones
// included) and committed offsets, the transactions with their indexes and
// pending completions, the brokers, the event queue not taken yet, the
// handle ids, the clock, the configuration and the lifecycle state.
//
// Restore (or RestoreOn) builds an independent cluster from it that behaves
// exactly as the original would from the moment of the snapshot: the same
// calls give the same events, the same descriptions and the same file
// bytes. A snapshot can be restored any number of times, each restore
// independent of the others; nothing the original or a restored cluster
// does changes it. A snapshot holds no open file and no goroutine: it is
// freed like any value.
type Snapshot struct {
	c   *Cluster // a frozen copy: never run, only copied from
	mem *vfs.Mem // the data directory's files (c.cfg.FS)
}

// DataDir is the data directory the snapshot was taken of: a restore in
// memory keeps it.
func (s *Snapshot) DataDir() string { return s.c.cfg.DataDir }

// Now is the cluster clock's time when the snapshot was taken.
func (s *Snapshot) Now() int64 { return s.c.clock.NowMs() }

// Bytes is the size of the files the snapshot holds: its copy of the data
// directory (pages it shares copy-on-write with the cluster's vfs.Mem, or
// with other snapshots, counted in full).
func (s *Snapshot) Bytes() int64 { return s.mem.Used() }

// Snapshot copies the cluster's whole state into an immutable Snapshot
// (see there). It changes nothing in the cluster.
//
// The files are copied first: a cluster on a vfs.Mem is cloned in O(files)
// (pages shared copy-on-write, so the first write after it copies one
// page); a cluster on any other file system (the disk) has its data
// directory read into a new vfs.Mem. The memory state is then copied by
// the clone methods of each package (replication.Copier carries the
// copies, so that an Ack waited for by a replica set and by a producer's
// batch, or a log held by a replica and by a transaction index, stays one
// object), sharing what never changes once made (settled promises, sent
// batches, committed offsets and transaction entries, which are replaced
// and never changed in place).
//
// Snapshot refuses (ILLEGAL_STATE, the cluster unchanged) what it cannot
// copy faithfully:
//   - a cluster attached to something outside the engine (Attach): a
//     protocol adapter serving it holds parked requests and group rounds
//     that no copy could carry;
//   - a clock that is not a clock.Manual (a system clock's time is not
//     state: a copy could not behave the same);
//   - a vfs.Mem with injected faults in force (vfs.Mem.Inject): a copy of
//     the files would not fail where the original does;
//   - a log with a test's compaction fault hook.
func (c *Cluster) Snapshot() (*Snapshot, error) {
	if len(c.attached) > 0 {
		return nil, kerr.State("cluster is attached to %s: state outside the engine cannot be copied (detach first)", strings.Join(c.attached, ", "))
	}
	if _, ok := c.clock.(*clock.Manual); !ok {
		return nil, kerr.State("cluster clock is not a manual clock: its time cannot be copied")
	}
	var mem *vfs.Mem
	switch fsys := c.cfg.fs().(type) {
	case *vfs.Mem:
		if n := fsys.FaultsInForce(); n > 0 {
			return nil, kerr.State("the cluster's file system has %d injected fault(s) in force: a copy of its files would not fail where it does (clear them first)", n)
		}
		mem = fsys.Clone()
	default:
		var err error
		if mem, err = vfs.MemFrom(fsys, c.cfg.DataDir); err != nil {
			return nil, kerr.Wrap(kerr.StorageError, err, "snapshot: copy %s", c.cfg.DataDir)
		}
	}
	frozen, err := c.copyTo(mem, c.cfg.DataDir, false)
	if err != nil {
		return nil, err
	}
	return &Snapshot{c: frozen, mem: mem}, nil
}

// Restore builds a running copy of the snapshot's cluster in memory: on a
// fresh clone of the snapshot's vfs.Mem (O(files), pages shared
// copy-on-write), in the same data directory path. The copy is independent
// of the original, of the snapshot and of every other restore.
//
// The copy is the original at the moment of the snapshot, with these
// differences a caller must know: it has its own clock (a clock.Manual at
// the snapshot's time: Cluster.Clock), its own file system (Config().FS)
// and nothing attached; the producers, consumers and pending handles it
// holds are copies, which Producers, Consumers, Producer, Consumer, Ack,
// Future and Completion find by name, member id or handle id. A handle
// that had settled before the snapshot is shared with the original: it
// never changes again, so a caller may keep it.
func Restore(s *Snapshot) (*Cluster, error) {
	return s.c.copyTo(s.mem.Clone(), s.c.cfg.DataDir, true)
}

// RestoreOn is Restore onto the directory dir of fsys (the disk, for a
// session that must stay on it): the snapshot's data directory is written
// there (every file synced, vfs.CopyTree), and the copy runs on fsys in
// dir. dir must be missing or empty (an argument error otherwise, and
// nothing is written).
func RestoreOn(s *Snapshot, fsys vfs.FS, dir string) (*Cluster, error) {
	if fsys == nil {
		fsys = vfs.OS
	}
	if dir == "" {
		return nil, kerr.Argument("a restore needs a directory")
	}
	if es, err := fsys.ReadDir(dir); err == nil && len(es) > 0 {
		return nil, kerr.Argument("cannot restore into %s: the directory is not empty", dir)
	}
	if err := vfs.MkdirAllSynced(fsys, dir, 0o755); err != nil {
		return nil, kerr.Wrap(kerr.StorageError, err, "restore: create %s", dir)
	}
	if err := vfs.CopyTree(fsys, dir, s.mem, s.c.cfg.DataDir); err != nil {
		return nil, kerr.Wrap(kerr.StorageError, err, "restore: write %s", dir)
	}
	return s.c.copyTo(fsys, dir, true)
}

// Attach records that owner keeps state about the cluster outside it — a
// protocol adapter serving it (parked produces and long polls, group
// rounds) — until the returned function detaches it. Snapshot refuses a
// cluster while anything is attached: that state would be missing from the
// copy. Detaching twice does nothing.
func (c *Cluster) Attach(owner string) (detach func()) {
	c.attachSeq++
	id := c.attachSeq
	c.attachIDs = append(c.attachIDs, id)
	c.attached = append(c.attached, owner)
	return func() {
		if i := slices.Index(c.attachIDs, id); i >= 0 {
			c.attachIDs = slices.Delete(c.attachIDs, i, i+1)
			c.attached = slices.Delete(c.attached, i, i+1)
		}
	}
}

// clusterCopy is the memory of a cluster's copy: the cluster and what it
// owns alone, in one allocation (the copier too, emptied once the copy is
// made).
type clusterCopy struct {
	c         Cluster
	clock     clock.Manual
	settings  replication.Settings
	psettings producer.Settings
	events    replication.EventLog
	env       replication.Env
	copier    replication.Copier
}

// copyTo copies the cluster's state for files that fsys holds in dir (a
// copy of the cluster's data directory). The caller has checked that the
// cluster can be copied. A copy that will run (a restore, not a
// snapshot's frozen copy) takes the data directory's lock, as Open does,
// unless the cluster is closed (Close gave its lock back).
func (c *Cluster) copyTo(fsys vfs.FS, dir string, run bool) (*Cluster, error) {
	a := &clusterCopy{settings: *c.settings, psettings: *c.psettings, events: c.events.Copy()}
	a.clock = *clock.NewManual(c.clock.NowMs())
	n := &a.c
	// The configuration is shared but for the file system and the data
	// directory: SetConfig replaces it, and nothing changes its broker
	// list in place.
	n.cfg, n.clock, n.settings, n.psettings, n.events, n.ids = c.cfg, &a.clock, &a.settings, &a.psettings, &a.events, c.ids.Clone()
	n.cfg.FS, n.cfg.DataDir = fsys, dir
	n.state, n.terminal, n.failNext = c.state, c.terminal, c.failNext
	n.uncleanCheckDueMs, n.diskFailures = c.uncleanCheckDueMs, slices.Clone(c.diskFailures)
	n.topics = maps.Clone(c.topics)
	n.sets = make(map[TopicPartition]*replication.ReplicaSet, len(c.sets))
	n.brokers = make(map[int32]*brokerInfo, len(c.brokers))
	a.env = replication.Env{Clock: n.clock, Events: n.events, IDs: n.ids, Settings: n.settings, Dispatch: n.dispatcher()}
	if c.env.DiskFailed != nil {
		a.env.DiskFailed = n.noteDiskFailure
	}
	n.env = &a.env
	rebase := func(p string) string { return p }
	if dir != c.cfg.DataDir {
		from := filepath.Clean(c.cfg.DataDir)
		rebase = func(p string) string {
			rel, err := filepath.Rel(from, p)
			if err != nil {
				return p // not under the data directory: unreachable
			}
			return filepath.Join(dir, rel)
		}
	}
	cp := &a.copier
	*cp = replication.Copier{Env: n.env, FS: fsys, Rebase: rebase}
	replicas, logs, segments := 0, 0, 0
	for _, rs := range c.sets {
		r, l, s := rs.CopySize()
		replicas, logs, segments = replicas+r, logs+l, segments+s
	}
	cp.Reserve(len(c.sets), replicas, logs, segments)
	for tp, rs := range c.sets {
		s, err := rs.Clone(cp)
		if err != nil {
			return nil, err
		}
		n.sets[tp] = s
	}
	infos := make([]brokerInfo, 0, len(c.brokers))
	for id, b := range c.brokers {
		infos = append(infos, *b)
		n.brokers[id] = &infos[len(infos)-1]
	}
	n.identities = c.identities.Clone(fsys, dir)
	var available func(string, int32) []int32
	if c.partitioner.Available != nil {
		available = n.availablePartitions
	}
	n.partitioner = c.partitioner.Clone(n.psettings, available)
	if len(c.producers) > 0 {
		n.producers = make([]*producer.Producer, len(c.producers))
		for i, p := range c.producers {
			n.producers[i] = p.Clone(n.producerEnv(int64(i+1)), cp)
		}
	}
	if len(c.keyless) > 0 {
		n.keyless = make(map[int64]keylessWait, len(c.keyless))
		for id, w := range c.keyless {
			n.keyless[id] = keylessWait{ack: cp.Ack(w.ack), count: w.count}
		}
	}
	n.txns = noTransactions{}
	if c.coord != nil {
		coord, err := c.coord.copyTo(c, n, cp)
		if err != nil {
			return nil, err
		}
		n.coord, n.txns = coord, coord.txns
	}
	// The copier's map leads to the original's pending acks (and through
	// their listeners to the original cluster): the copy must not keep it.
	*cp = replication.Copier{}
	if run && n.state != Closed {
		unlock, err := vfs.Lock(fsys, dir)
		if err != nil {
			return nil, kerr.Wrap(kerr.IllegalState, err, "restore: %s", kerr.MessageOf(err))
		}
		n.unlock = unlock
	}
	return n, nil
}

// copyLog returns the copy in n of a log of c: a replica's log is the one
// its copied replica holds; any other (a crashed leader's, which a
// transaction index still names) gets a copy of its own.
func copyLog(c, n *Cluster, tp TopicPartition, l *storage.Log, cp *replication.Copier) (*storage.Log, error) {
	if l == nil {
		return nil, nil
	}
	if rs := c.sets[tp]; rs != nil {
		if b, ok := rs.LogHolder(l); ok {
			return n.sets[tp].Replica(b).Log(), nil
		}
	}
	return cp.Log(l)
}

// copyTo copies the consumer groups, offsets, transactions and consumers
// into n, the copy of their cluster.
func (co *coordination) copyTo(c, n *Cluster, cp *replication.Copier) (*coordination, error) {
	dir, fsys := n.cfg.DataDir, n.cfg.FS
	offsets := co.offsets.Clone(fsys, filepath.Join(dir, group.OffsetsFileName))
	out := &coordination{offsets: offsets, consumerCount: co.consumerCount,
		groups: co.groups.Clone(fsys, filepath.Join(dir, group.GroupsFileName), n.clock, n.topicPartitionCounts, n.sessionTimeoutMs, offsets)}
	l := co.txns
	layer := &txnLayer{c: n, m: l.m.Clone(fsys, filepath.Join(dir, txn.JournalFileName), offsets), opening: l.opening,
		indexes: make(map[TopicPartition]*leaderIndex, len(l.indexes)), begun: maps.Clone(l.begun),
		pending: make(map[int64]*TxnCompletion, len(l.pending))}
	for tp, li := range l.indexes {
		lg, err := copyLog(c, n, tp, li.log, cp)
		if err != nil {
			return nil, err
		}
		layer.indexes[tp] = &leaderIndex{idx: li.idx.Clone(), log: lg, leader: li.leader, epoch: li.epoch, leo: li.leo, orphans: li.orphans}
	}
	for id, h := range l.pending {
		layer.pending[id] = h.copyFor(cp)
	}
	out.txns = layer
	if len(co.consumers) > 0 {
		out.consumers = make([]*Consumer, len(co.consumers))
		for i, con := range co.consumers {
			cc := *con
			cc.c, cc.positions = n, maps.Clone(con.positions)
			out.consumers[i] = &cc
		}
	}
	return out, nil
}

// copyFor copies a pending completion: its markers' acknowledgements go
// through cp (a pending one is the replica set's waiter's copy).
func (h *TxnCompletion) copyFor(cp *replication.Copier) *TxnCompletion {
	c := &TxnCompletion{Promise: h.Promise.Clone(cp.Env.Dispatch), ID: h.ID, Outcome: h.Outcome,
		instance: h.instance, markers: h.markers, remaining: h.remaining}
	if h.Acks != nil {
		c.Acks = make([]*Ack, len(h.Acks))
		for i, a := range h.Acks {
			c.Acks[i] = cp.Ack(a)
		}
	}
	return c
}

// Consumer finds one of the cluster's consumers by member id ("member-1").
// A restored cluster's consumers are copies: this is how a caller finds
// them again.
func (c *Cluster) Consumer(memberID string) (*Consumer, error) {
	if c.coord != nil {
		for _, con := range c.coord.consumers {
			if con.memberID == memberID {
				return con, nil
			}
		}
	}
	return nil, kerr.Argument("unknown consumer %q", memberID)
}

// Ack finds a pending acks=all acknowledgement by its id. A settled one is
// an argument error: it never changes again, so a caller keeps the one it
// has (shared by a snapshot's restores).
func (c *Cluster) Ack(id int64) (*Ack, error) {
	for _, tp := range c.sortedTPs() {
		for _, a := range c.sets[tp].PendingAcks() {
			if a.ID() == id {
				return a, nil
			}
		}
	}
	return nil, kerr.Argument("no pending ack #%d", id)
}

// Future finds a pending record future of one of the cluster's producers
// by its id (a settled one, like a settled Ack, is an argument error).
func (c *Cluster) Future(id int64) (*Future, error) {
	for _, p := range c.producers {
		for _, f := range p.PendingFutures() {
			if f.ID() == id {
				return f, nil
			}
		}
	}
	return nil, kerr.Argument("no pending future #%d", id)
}

// Completion finds a pending commit or abort (CommitTransaction,
// AbortTransaction) by its id (a settled one is an argument error).
func (c *Cluster) Completion(id int64) (*TxnCompletion, error) {
	if c.coord != nil {
		if h := c.coord.txns.pending[id]; h != nil {
			return h, nil
		}
	}
	return nil, kerr.Argument("no pending transaction completion #%d", id)
}
