package txn

import (
	"maps"
	"slices"

	"github.com/minikafka-lab/minikafka/engine/topic"
)

// PartitionOffset is an offset in one partition.
type PartitionOffset struct {
	Partition topic.Partition
	Offset    int64
}

// StagedOffset is one consumer offset a transaction will publish on commit.
type StagedOffset struct {
	Group     string
	Partition topic.Partition
	Offset    int64
}

// Description is one row of `txn list`, as plain values.
type Description struct {
	ID            string
	State         State
	Partitions    []topic.Partition // sorted
	FirstOffsets  []PartitionOffset // sorted by partition
	StagedOffsets []StagedOffset    // by group, then partition
}

// Describe returns transaction id's description.
func (m *Manager) Describe(id string) (Description, bool) {
	e := m.txns[id]
	if e == nil {
		return Description{}, false
	}
	d := Description{ID: e.ID, State: e.State, Partitions: slices.Clone(e.Partitions)}
	if d.Partitions == nil {
		d.Partitions = []topic.Partition{}
	}
	for _, tp := range sortedKeys(e.FirstOffsets) {
		d.FirstOffsets = append(d.FirstOffsets, PartitionOffset{Partition: tp, Offset: e.FirstOffsets[tp]})
	}
	for _, g := range slices.Sorted(maps.Keys(e.StagedOffsets)) {
		offs := e.StagedOffsets[g]
		for _, tp := range sortedKeys(offs) {
			d.StagedOffsets = append(d.StagedOffsets, StagedOffset{Group: g, Partition: tp, Offset: offs[tp]})
		}
	}
	return d, true
}

// List describes every transaction the coordinator knows, sorted by id
// (`txn list`). The open offsets of a partition (which transactions hold its
// LSO back) come from that partition's Index: OpenRuns and UnstableRuns.
func (m *Manager) List() []Description {
	out := make([]Description, 0, len(m.txns))
	for _, id := range m.IDs() {
		d, _ := m.Describe(id)
		out = append(out, d)
	}
	return out
}
