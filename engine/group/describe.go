package group

import (
	"maps"
	"slices"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// GroupListing is one line of `group list`.
type GroupListing struct {
	GroupID    string
	State      State // Empty for a group known only by its committed offsets
	Generation int32 // 0 for a group that never had a member
	Members    int
}

// GroupDescription is `group describe G` as plain values.
type GroupDescription struct {
	GroupID    string
	State      State
	Generation int32
	Members    []MemberDescription    // sorted by member id
	Partitions []PartitionDescription // every assigned or committed partition, sorted
}

// MemberDescription is one member of a group.
type MemberDescription struct {
	MemberID      string
	Subscriptions []string          // sorted
	Assignment    []topic.Partition // sorted; empty when the member got nothing
	DeadlineMs    int64             // the session expires when now > DeadlineMs
}

// PartitionDescription is one row of kafka-consumer-groups --describe before
// the cluster adds LOG-END-OFFSET and LAG: the committed offset (if any) and
// the member that owns the partition in the current generation (if any).
type PartitionDescription struct {
	Partition    topic.Partition
	Committed    int64 // meaningful when HasCommitted
	HasCommitted bool
	MemberID     string // "" when no member owns it
}

// ListGroups lists every group the coordinator knows plus every group that
// has committed offsets (a manually assigned consumer commits without
// joining, as in Kafka), sorted by id.
func (c *Coordinator) ListGroups() []GroupListing {
	ids := map[string]bool{}
	for id := range c.groups {
		ids[id] = true
	}
	for _, id := range c.offsets.Groups() {
		ids[id] = true
	}
	out := make([]GroupListing, 0, len(ids))
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		l := GroupListing{GroupID: id, State: Empty}
		if g := c.groups[id]; g != nil {
			l.State, l.Generation, l.Members = g.state, g.generation, len(g.members)
		}
		out = append(out, l)
	}
	return out
}

// Describe returns the group's state, generation, members with their
// assignments and session deadlines, and its partitions with committed
// offsets and owners. A group with neither members' history nor committed
// offsets is UNKNOWN_MEMBER "unknown group G".
func (c *Coordinator) Describe(group string) (GroupDescription, error) {
	g := c.groups[group]
	committed := c.offsets.GroupOffsets(group)
	if g == nil && !c.offsets.HasGroup(group) {
		return GroupDescription{}, kerr.New(kerr.UnknownMember, "unknown group %s", group)
	}
	d := GroupDescription{GroupID: group, State: Empty}
	rows := map[topic.Partition]*PartitionDescription{}
	if g != nil {
		d.State, d.Generation = g.state, g.generation
		for _, id := range slices.Sorted(maps.Keys(g.members)) {
			m := g.members[id]
			assigned := slices.Clone(g.assignment[id])
			if assigned == nil {
				assigned = []topic.Partition{}
			}
			d.Members = append(d.Members, MemberDescription{
				MemberID: id, Subscriptions: slices.Clone(m.subscriptions),
				Assignment: assigned, DeadlineMs: m.deadlineMs,
			})
			for _, tp := range assigned {
				rows[tp] = &PartitionDescription{Partition: tp, MemberID: id}
			}
		}
	}
	for _, co := range committed {
		r := rows[co.Partition]
		if r == nil {
			r = &PartitionDescription{Partition: co.Partition}
			rows[co.Partition] = r
		}
		r.Committed, r.HasCommitted = co.Offset, true
	}
	keys := slices.Collect(maps.Keys(rows))
	topic.Sort(keys)
	for _, tp := range keys {
		d.Partitions = append(d.Partitions, *rows[tp])
	}
	return d, nil
}
