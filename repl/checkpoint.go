package repl

import (
	"io"
	"maps"
	"slices"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// Checkpoints make undo and fork switch cheap in a long session: a branch
// keeps an engine snapshot of its world every checkpointEvery commands that
// changed the cluster, and at the points where it was forked. A world is
// rebuilt from the nearest checkpoint at or before the point wanted, with
// the few commands after it replayed; without one, by replay from the
// start (replayRewinder). The engine's snapshot behaves exactly as the
// cluster it was taken of, so both give the same world.

// checkpointEvery is how many commands that changed the cluster a branch
// runs between two checkpoints, at first. maxCheckpoints bounds the
// checkpoints a branch keeps (branch points aside): when there would be
// more, every other older one is dropped and the spacing doubles, so a
// long session keeps O(maxCheckpoints) snapshots and undo replays O(its
// length / maxCheckpoints) commands at most.
//
// maxCheckpointBytes bounds one checkpoint's copy of the data directory: a
// world with more in its files is not kept (undo replays from an earlier
// checkpoint or from the start instead, and the next try waits twice as
// long), and maxCheckpointTotal bounds them all, so a branch's checkpoints
// hold at most about maxCheckpointTotal + maxCheckpointBytes. A session of
// 1,000 commands has about 100 KB.
const (
	checkpointEvery    = 16
	maxCheckpoints     = 32
	maxCheckpointBytes = 2 << 20
	// maxCheckpointTotal bounds the bytes of all a branch's checkpoints
	// that are not branch points: past it, thin drops every other older
	// one, as past maxCheckpoints.
	maxCheckpointTotal = 8 << 20
)

// checkpoint is a branch's world after its first at steps, kept as an
// engine snapshot and the session-side fields of the world, with the named
// clients as indexes into the cluster's lists (a restored cluster's clients
// are copies, found again by position).
type checkpoint struct {
	at     int
	pinned bool // a branch point: kept when the others are thinned
	snap   *engine.Snapshot
	// w is the world with no cluster, clock, data directory or clients.
	w         world
	producers []keptProducer
	consumers []keptConsumer
}

type keptProducer struct {
	name    string
	index   int // in Cluster.Producers
	futures []keptFuture
	// acked and failed are the producer's counts of released futures
	// (namedProducer.track).
	acked, failed int64
}

// keptFuture is a future a named producer holds: a settled one never
// changes again and is shared; a pending one is found in the restored
// cluster by its id.
type keptFuture struct {
	settled *engine.Future
	id      int64
}

type keptConsumer struct {
	name   string
	index  int // in Cluster.Consumers
	polled int64
}

// takeCheckpoint snapshots the session's world as the state after at
// steps. It refuses a world in a directory the session did not make (the
// learner's --data or dir=: undo never goes back into it) and what the
// engine cannot snapshot (a served cluster, injected disk faults).
//
// Nor does it snapshot while the session serves JSON/TCP or Kafka
// clients: their requests run on the server's goroutine, which owns the
// cluster between commands, and undo cannot go back past serve start or
// kafka listen anyway.
func (s *Session) takeCheckpoint(at int) (checkpoint, error) {
	if s.server != nil || s.kafka != nil {
		return checkpoint{}, kerr.State("the session serves clients outside it")
	}
	if s.cluster == nil || s.temp == "" {
		return checkpoint{}, kerr.State("the cluster is not in a directory of the session's own")
	}
	// The files' size first, from the listings: a world too large to keep
	// is refused without reading it into memory.
	if n, err := vfs.TreeSize(s.cluster.FS(), s.cluster.DataDir()); err != nil || n > s.tl.checkpointBytes {
		return checkpoint{}, kerr.State("the data directory holds %d bytes, more than a checkpoint keeps", n)
	}
	snap, err := s.cluster.Snapshot()
	if err != nil {
		return checkpoint{}, err
	}
	if n := snap.Bytes(); n > s.tl.checkpointBytes {
		return checkpoint{}, kerr.State("the data directory holds %d bytes, more than a checkpoint keeps", n)
	}
	cp := checkpoint{at: at, snap: snap, w: s.world}
	cp.w.cluster, cp.w.clock, cp.w.temp, cp.w.producers, cp.w.consumers = nil, nil, "", nil, nil
	cp.w.backlog, cp.w.lastKnown = slices.Clone(s.backlog), maps.Clone(s.lastKnown)
	ps := s.cluster.Producers()
	for _, np := range s.producers {
		i := slices.Index(ps, np.p)
		if i < 0 {
			return checkpoint{}, kerr.State("producer %s is not the cluster's", np.name)
		}
		kp := keptProducer{name: np.name, index: i, acked: np.acked, failed: np.failed}
		for _, f := range np.futures {
			if f.Settled() {
				kp.futures = append(kp.futures, keptFuture{settled: f})
			} else {
				kp.futures = append(kp.futures, keptFuture{id: f.ID()})
			}
		}
		cp.producers = append(cp.producers, kp)
	}
	cs := s.cluster.Consumers()
	for _, nc := range s.consumers {
		i := slices.Index(cs, nc.c)
		if i < 0 {
			return checkpoint{}, kerr.State("consumer %s is not the cluster's", nc.name)
		}
		cp.consumers = append(cp.consumers, keptConsumer{name: nc.name, index: i, polled: nc.polled})
	}
	return cp, nil
}

// restore builds a running world from the checkpoint, in a fresh temporary
// directory, as a replay would: on the session's file system without
// fsync (see replaySession).
func (cp *checkpoint) restore(s *Session) (*world, error) {
	fsys := replayFS(s.opts.FS)
	dir, err := tempDataDir(fsys)
	if err != nil {
		return nil, err
	}
	c, err := engine.RestoreOn(cp.snap, fsys, dir)
	if err != nil {
		removeTempDataDir(fsys, dir)
		return nil, err
	}
	w := cp.w
	w.cluster, w.temp = c, dir
	w.cfg.FS, w.cfg.DataDir = fsys, dir
	w.backlog, w.lastKnown = slices.Clone(cp.w.backlog), maps.Clone(cp.w.lastKnown)
	clk, ok := c.Clock().(*clock.Manual)
	if !ok {
		shut(c, dir)
		return nil, kerr.New(kerr.Internal, "a restored cluster has no manual clock")
	}
	w.clock = clk
	ps, cs := c.Producers(), c.Consumers()
	for _, kp := range cp.producers {
		np := &namedProducer{name: kp.name, p: ps[kp.index], acked: kp.acked, failed: kp.failed, kept: len(kp.futures)}
		for _, kf := range kp.futures {
			f := kf.settled
			if f == nil {
				if f, err = c.Future(kf.id); err != nil {
					shut(c, dir)
					return nil, kerr.Wrap(kerr.Internal, err, "restore producer %s", kp.name)
				}
			}
			np.futures = append(np.futures, f)
		}
		w.producers = append(w.producers, np)
	}
	for _, kc := range cp.consumers {
		w.consumers = append(w.consumers, &namedConsumer{name: kc.name, c: cs[kc.index], polled: kc.polled})
	}
	return &w, nil
}

// replayFS is the file system a rebuilt world runs on: the session's
// (the disk when nil), without fsync (see replaySession).
func replayFS(base vfs.FS) vfs.FS {
	if base == nil {
		base = vfs.OS
	}
	return vfs.NoSync(base)
}

// snapshotRewinder rebuilds a world from the branch's nearest checkpoint
// at or after the replay's start, replaying the commands after it; with
// none, it replays from the start as replayRewinder does.
type snapshotRewinder struct{}

func (snapshotRewinder) rebuild(s *Session, what string, steps []step, cps []checkpoint) (*world, error) {
	from, err := s.replayStart(what, steps)
	if err != nil {
		return nil, err
	}
	var cp *checkpoint
	for i := range cps {
		if c := &cps[i]; c.at >= from && c.at <= len(steps) && (cp == nil || c.at > cp.at) {
			cp = c
		}
	}
	if cp == nil {
		return replayRewinder{}.rebuild(s, what, steps, nil)
	}
	w, err := cp.restore(s)
	if err != nil {
		return nil, err
	}
	fresh := s.replayShell()
	fresh.world = *w
	return fresh.replaySteps(steps[cp.at:])
}

// replayShell is a session for replaying commands on a world given to it:
// the session's options as replaySession sets them, and no world yet.
func (s *Session) replayShell() *Session {
	return &Session{opts: s.replayOptions(), reg: s.reg, st: newStyle(false), format: FormatText, tl: newReplayTimeline()}
}

// replaySteps runs again, on the session, the steps that changed state
// (inspections change nothing); each must succeed or fail as it did the
// first time. The world it leads to is the caller's; the session is
// dropped.
func (fresh *Session) replaySteps(steps []step) (*world, error) {
	for _, st := range steps {
		if st.effect != EffectChange {
			continue
		}
		err := fresh.Exec(io.Discard, st.line)
		if (err == nil) != st.ok || IsInternal(err) {
			fresh.Close()
			return nil, kerr.New(kerr.Internal, "replaying %q did not do what it did the first time (%v): the state cannot be rebuilt", st.line, err)
		}
	}
	w := fresh.world
	fresh.world = world{} // the world is the caller's now
	if err := fresh.Close(); err != nil {
		_ = err // the shell holds nothing but its sandbox, if any
	}
	return &w, nil
}

// noteCheckpoint keeps a checkpoint of the current branch when enough
// commands have changed the cluster since the last one (or since the
// branch's last reset or start). A world that cannot be snapshotted is
// simply not kept: undo then replays further.
func (s *Session) noteCheckpoint() {
	b := s.tl.cur
	if !s.tl.checkpoints || b.every == 0 {
		return
	}
	b.changed++
	if b.changed < b.every {
		return
	}
	b.changed = 0
	cp, err := s.takeCheckpoint(len(b.steps))
	if err != nil {
		// A world that cannot be kept now (too large, served) is tried
		// again after twice as many commands: a long session over the
		// size bound pays O(log its length) snapshots, not one per
		// checkpointEvery commands.
		b.every *= 2
		return
	}
	b.checkpoints = append(b.checkpoints, cp)
	b.thin(s.tl.checkpointTotal)
}

// recount sets changed from the steps after the branch's last checkpoint
// (after undo cut the steps, or when a fork copies the branch).
func (b *branch) recount() {
	last := 0
	if n := len(b.checkpoints); n > 0 {
		last = min(b.checkpoints[n-1].at, len(b.steps))
	}
	b.changed = 0
	for _, st := range b.steps[last:] {
		if st.reset {
			b.changed = 0
		}
		if st.ok && st.effect == EffectChange {
			b.changed++
		}
	}
}

// pinCheckpoint keeps a checkpoint of the current branch's world as it is
// now, a branch point, if the world can be snapshotted.
func (s *Session) pinCheckpoint() {
	b := s.tl.cur
	if !s.tl.checkpoints {
		return
	}
	if n := len(b.checkpoints); n > 0 && b.checkpoints[n-1].at == len(b.steps) {
		b.checkpoints[n-1].pinned = true
		return
	}
	cp, err := s.takeCheckpoint(len(b.steps))
	if err != nil {
		return
	}
	cp.pinned = true
	b.checkpoints = append(b.checkpoints, cp)
}

// thin drops every other older checkpoint that is not a branch point, and
// doubles the spacing, when the branch keeps more than maxCheckpoints.
func (b *branch) thin(total int64) {
	for b.overBudget(total) {
		unpinned := 0
		for _, cp := range b.checkpoints {
			if !cp.pinned {
				unpinned++
			}
		}
		k := 0
		b.checkpoints = slices.DeleteFunc(b.checkpoints, func(cp checkpoint) bool {
			if cp.pinned {
				return false
			}
			k++
			return k%2 == 1 && k < unpinned
		})
		b.every *= 2
	}
}

// overBudget reports whether the branch keeps more checkpoints (branch
// points aside) than maxCheckpoints, or more bytes in them than total
// (maxCheckpointTotal), with more than one to drop.
func (b *branch) overBudget(total int64) bool {
	unpinned, bytes := 0, int64(0)
	for _, cp := range b.checkpoints {
		if !cp.pinned {
			unpinned++
			bytes += cp.snap.Bytes()
		}
	}
	return unpinned > maxCheckpoints || (unpinned > 1 && bytes > total)
}

// cutCheckpoints drops the checkpoints after the branch's first n steps:
// undo took those steps back.
func (b *branch) cutCheckpoints(n int) {
	b.checkpoints = slices.DeleteFunc(b.checkpoints, func(cp checkpoint) bool { return cp.at > n })
	b.recount()
}
