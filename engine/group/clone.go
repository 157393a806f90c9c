package group

import (
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// Clone copies the coordinator into a copy of its cluster
// (engine.Cluster's Snapshot and Restore): the same groups, generations,
// members with their session deadlines, and assignments. What belongs to
// the copy is given: its file system and groups file (a copy of this
// one's), its clock, its view of the topics and of session.timeout.ms (the
// copy's functions, never the original's), and its offset store.
func (c *Coordinator) Clone(fsys vfs.FS, path string, clk clock.Clock, topics Topics, sessionTimeoutMs func() int64, offsets *OffsetStore) *Coordinator {
	out := &Coordinator{clk: clk, topics: topics, sessionTimeoutMs: sessionTimeoutMs, offsets: offsets,
		fsys: fsys, path: path, groups: make(map[string]*groupState, len(c.groups)),
		logBytes: c.logBytes, snapBytes: c.snapBytes, logDirty: c.logDirty, needCompact: c.needCompact}
	if c.path == "" {
		out.fsys, out.path = nil, ""
	}
	for id, g := range c.groups {
		// A group's state is replaced on every change but its members'
		// deadlines change in place (Heartbeat): copied.
		out.groups[id] = g.clone()
	}
	return out
}

// Clone copies the offset store onto fsys, at path (a copy of its file).
// The committed offsets are shared: CommitMany replaces the map and the
// groups it changes, and never changes one in place.
func (s *OffsetStore) Clone(fsys vfs.FS, path string) *OffsetStore {
	return &OffsetStore{fsys: fsys, path: path, groups: s.groups}
}
