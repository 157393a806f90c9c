package txn

import (
	"maps"
	"slices"

	"github.com/minikafka-lab/minikafka/engine/topic"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// Clone copies the transaction coordinator into a copy of its cluster
// (engine.Cluster's Snapshot and Restore): its journal continues at path on
// fsys (a copy of this journal's file, opened at the first append) and its
// completed commits go to offsets, the copy's offset store. The entries are
// shared: store replaces an id's entry, never changes one in place. The
// finished instances' runs are copied (retire changes them in place).
func (m *Manager) Clone(fsys vfs.FS, path string, offsets OffsetCommitter) *Manager {
	c := &Manager{journal: &Journal{fsys: fsys, path: path, size: m.journal.size},
		offsets: offsets, txns: maps.Clone(m.txns), finished: make(map[string]map[topic.Partition]finishedRun, len(m.finished))}
	for id, runs := range m.finished {
		c.finished[id] = maps.Clone(runs)
	}
	return c
}

// Clone returns an independent copy of the index.
func (x *Index) Clone() *Index {
	c := &Index{next: x.next, runs: make(map[string][]Run, len(x.runs)), open: maps.Clone(x.open), closed: slices.Clone(x.closed)}
	for id, runs := range x.runs {
		c.runs[id] = slices.Clone(runs)
	}
	return c
}
