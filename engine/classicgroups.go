package engine

import "github.com/minikafka-lab/minikafka/engine/group"

// ClassicGroupMember is one member of a completed join round of Kafka's
// classic group protocol: its id and subscriptions.
type ClassicGroupMember = group.ClassicMember

// The classic group protocol (Kafka's JoinGroup/SyncGroup, with the
// assignment computed by the group's leader, a client) is run by the wire
// adapter; the group itself stays here, so that `group describe` shows it
// and commits are fenced by the engine (engine/group/classic.go).

// CompleteClassicJoin ends a join round of groupID: its members become
// exactly members, the generation moves on and the group waits for its
// leader's assignment (CompleteClassicSync). A group of MiniKafka consumers
// is a state error. It returns the new generation.
func (c *Cluster) CompleteClassicJoin(groupID string, members []ClassicGroupMember) (int32, error) {
	if err := c.checkCoordination(); err != nil {
		return 0, err
	}
	return c.coord.groups.CompleteJoin(groupID, members)
}

// CompleteClassicSync installs the leader's assignment for generation:
// ILLEGAL_GENERATION for a stale one, REBALANCE_IN_PROGRESS when the group
// is not waiting for one, an argument error for a stranger or a partition
// given twice.
func (c *Cluster) CompleteClassicSync(groupID string, generation int32, assignment map[string][]TopicPartition) error {
	if err := c.checkCoordination(); err != nil {
		return err
	}
	return c.coord.groups.CompleteSync(groupID, generation, assignment)
}

// ClassicGroupHeartbeat is GroupHeartbeat for a classic group: the same
// checks and session renewal, then REBALANCE_IN_PROGRESS while its members
// must rejoin.
func (c *Cluster) ClassicGroupHeartbeat(groupID, memberID string, generation int32) error {
	if err := c.checkCoordination(); err != nil {
		return err
	}
	return c.coord.groups.ClassicHeartbeat(groupID, memberID, generation)
}

// CommitStandaloneOffsets commits offsets for a group without members and
// without a generation (a consumer that assigned its partitions itself);
// UNKNOWN_MEMBER when the group has members.
func (c *Cluster) CommitStandaloneOffsets(groupID string, offsets map[TopicPartition]int64) error {
	if err := c.checkCoordination(); err != nil {
		return err
	}
	return c.coord.groups.CommitStandalone(groupID, group.Offsets(offsets))
}

// ClassicGroup reports whether groupID is a classic-protocol group (its
// members assign partitions themselves), and its members' ids, sorted.
func (c *Cluster) ClassicGroup(groupID string) (classic bool, members []string, err error) {
	if err := c.checkCoordination(); err != nil {
		return false, nil, err
	}
	return c.coord.groups.IsClientAssigned(groupID), c.coord.groups.Members(groupID), nil
}
