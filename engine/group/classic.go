package group

import (
	"maps"
	"slices"

	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// ClassicMember is one member of a completed join round of Kafka's classic
// group protocol: its id and the topics it subscribes to.
type ClassicMember struct {
	ID            string
	Subscriptions []string
}

// Kafka's classic group protocol assigns partitions on the client side: the
// members rejoin in rounds, the coordinator picks a leader, and the leader
// sends everybody's assignment back in SyncGroup. The wire adapter runs the
// rounds (who has rejoined, whose reply is parked); the coordinator keeps
// what the rest of the engine reads and enforces: membership, generations,
// assignments, session deadlines and fenced commits.
//
// A client-assigned group's life:
//
//	CompleteJoin  members replaced, generation+1, no assignment: CompletingRebalance
//	CompleteSync  the leader's assignment installed: Stable
//	Leave/expiry  member removed, generation+1, assignment cleared:
//	              PreparingRebalance (Empty when nobody is left); the others
//	              learn it from their next heartbeat or commit and rejoin
//
// Commits are checked as Kafka checks them: the generation and the member,
// not partition ownership (a cooperative member commits what it is giving
// up).

// CompleteJoin ends a join round of group: its members become exactly
// members, the generation moves on, the assignment is empty until
// CompleteSync, and the group is marked client-assigned. Subscriptions to
// unknown topics are kept (a client may subscribe to a topic before it
// exists). It returns the new generation. A group of native consumers (it
// has members and is not client-assigned) is a state error.
func (c *Coordinator) CompleteJoin(group string, members []ClassicMember) (int32, error) {
	if group == "" || !validID(group) {
		return 0, kerr.Argument("group id must be a non-empty UTF-8 string")
	}
	next := &groupState{members: map[string]*member{}, assignment: map[string][]topic.Partition{}}
	if g := c.groups[group]; g != nil {
		if !g.clientAssigned && len(g.members) > 0 {
			return 0, kerr.State("group %s has MiniKafka consumers; Kafka clients cannot join it", group)
		}
		next = g.clone()
		next.members = map[string]*member{}
		next.assignment = map[string][]topic.Partition{}
	}
	deadline := clock.AddMs(c.clk.NowMs(), c.sessionTimeoutMs())
	for _, m := range members {
		if m.ID == "" || !validID(m.ID) {
			return 0, kerr.Argument("member id must be a non-empty UTF-8 string")
		}
		for _, t := range m.Subscriptions {
			if !validID(t) {
				return 0, kerr.Argument("member %s subscribes to a topic name that is not UTF-8: %q", m.ID, t)
			}
		}
		subs := slices.Clone(m.Subscriptions)
		slices.Sort(subs)
		next.members[m.ID] = &member{subscriptions: slices.Compact(subs), deadlineMs: deadline}
	}
	next.clientAssigned = true
	next.generation++
	next.state = CompletingRebalance
	if len(next.members) == 0 {
		next.state = Empty
	}
	if err := c.store(group, next); err != nil {
		return 0, err
	}
	return next.generation, nil
}

// CompleteSync installs the leader's assignment for generation: the group
// becomes Stable. Every member of the assignment must be a member and no
// partition may be given twice (INVALID_ARGUMENT); a stale generation is
// ILLEGAL_GENERATION; a group that is not waiting for an assignment is
// REBALANCE_IN_PROGRESS.
func (c *Coordinator) CompleteSync(group string, generation int32, assignment map[string][]topic.Partition) error {
	g, err := c.group(group)
	if err != nil {
		return err
	}
	if err := checkGeneration(g, generation); err != nil {
		return err
	}
	if !g.clientAssigned || g.state != CompletingRebalance {
		return kerr.New(kerr.RebalanceInProgress, "%s", group)
	}
	owner := map[topic.Partition]string{}
	next := g.clone()
	next.assignment = map[string][]topic.Partition{}
	for _, id := range slices.Sorted(maps.Keys(assignment)) {
		if next.members[id] == nil {
			return kerr.Argument("assignment for %s, who is not a member of %s", id, group)
		}
		tps := slices.Clone(assignment[id])
		topic.Sort(tps)
		tps = slices.Compact(tps)
		for _, tp := range tps {
			if other, taken := owner[tp]; taken {
				return kerr.Argument("%s is assigned to both %s and %s", tp, other, id)
			}
			owner[tp] = id
		}
		next.assignment[id] = tps
	}
	next.state = Stable
	return c.store(group, next)
}

// ClassicHeartbeat is Heartbeat for a client-assigned group: the same
// checks and session renewal, then REBALANCE_IN_PROGRESS while the group
// waits for its members to rejoin (Kafka's answer in PreparingRebalance).
func (c *Coordinator) ClassicHeartbeat(group, memberID string, generation int32) error {
	if err := c.Heartbeat(group, memberID, generation); err != nil {
		return err
	}
	if g := c.groups[group]; g.state == PreparingRebalance {
		return kerr.New(kerr.RebalanceInProgress, "%s", group)
	}
	return nil
}

// CommitStandalone commits offsets for a group that has no members, without
// a generation (Kafka's commit with generation -1 from a consumer that
// assigned its partitions itself). A group with members is
// UNKNOWN_MEMBER, as Kafka answers an unknown member id.
func (c *Coordinator) CommitStandalone(group string, offsets Offsets) error {
	if group == "" || !validID(group) {
		return kerr.Argument("group id must be a non-empty UTF-8 string")
	}
	if g := c.groups[group]; g != nil && len(g.members) > 0 {
		return kerr.New(kerr.UnknownMember, "group %s has members: a commit needs a member id and generation", group)
	}
	return c.offsets.Commit(group, offsets)
}

// IsClientAssigned reports whether group is a classic-protocol group.
func (c *Coordinator) IsClientAssigned(group string) bool {
	g := c.groups[group]
	return g != nil && g.clientAssigned
}

// Members returns the ids of group's members, sorted (none for an unknown
// group).
func (c *Coordinator) Members(group string) []string {
	g := c.groups[group]
	if g == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(g.members))
}
