package group

import (
	"maps"
	"slices"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/topic"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// State is a group's state (§11.2).
type State uint8

// Group states. PreparingRebalance exists only inside a synchronous
// rebalance, so callers see Empty or Stable.
const (
	Empty State = iota
	PreparingRebalance
	Stable
	// CompletingRebalance is a client-assigned group (classic.go) between
	// the end of a join round and its leader's assignment.
	CompletingRebalance
)

// String returns the spec's lowercase value: "empty", "preparing_rebalance"
// or "stable".
func (s State) String() string {
	switch s {
	case Empty:
		return "empty"
	case PreparingRebalance:
		return "preparing_rebalance"
	case Stable:
		return "stable"
	case CompletingRebalance:
		return "completing_rebalance"
	}
	return "unknown"
}

// KafkaName returns the name kafka-consumer-groups prints: "Empty",
// "PreparingRebalance" or "Stable".
func (s State) KafkaName() string {
	switch s {
	case Empty:
		return "Empty"
	case PreparingRebalance:
		return "PreparingRebalance"
	case Stable:
		return "Stable"
	case CompletingRebalance:
		return "CompletingRebalance"
	}
	return "Unknown"
}

// Topics reports the cluster's topics and their partition counts. The
// coordinator calls it on every rebalance and join, so new topics and
// partitions are picked up at the next membership change (creating a topic
// does not rebalance by itself).
type Topics func() map[string]int32

// JoinResult is what a member learns from join or assignment: the group's
// generation and the member's partitions, sorted by topic then partition.
type JoinResult struct {
	Generation int32
	Assignment []topic.Partition
}

// Expired names a member removed by session expiry.
type Expired struct {
	Group  string
	Member string
}

type member struct {
	subscriptions []string // sorted, unique
	deadlineMs    int64
}

type groupState struct {
	generation int32
	state      State
	members    map[string]*member
	assignment map[string][]topic.Partition
	// clientAssigned: the group's members assign partitions themselves
	// (Kafka's classic protocol, classic.go), so a membership change clears
	// the assignment instead of computing one.
	clientAssigned bool
}

// Coordinator is the group coordinator (§11.2). Groups are created by their
// first successful join and never deleted; generations only grow.
//
// With a groups file (OpenCoordinator), every membership change is written
// to it before it takes effect, as Kafka keeps group metadata in
// __consumer_offsets: after a restart the members are still there (a crash
// sends no LeaveGroup, decision 26) and each gets a fresh session of
// session.timeout.ms from the moment the coordinator loads them. Heartbeats
// are not written.
type Coordinator struct {
	clk              clock.Clock
	topics           Topics
	sessionTimeoutMs func() int64
	offsets          *OffsetStore
	fsys             vfs.FS
	path             string // groups file; "" keeps membership in memory only
	groups           map[string]*groupState
	// logBytes is the size of the groups log (groups_log.go), snapBytes
	// that of groups.json when it was last written; logDirty says the log
	// was appended to since the last Flush; needCompact that the next
	// change must rewrite groups.json (the log may end in a torn line).
	logBytes, snapBytes   int64
	logDirty, needCompact bool
}

// NewCoordinator returns an in-memory coordinator with no groups.
// sessionTimeoutMs reads session.timeout.ms (it may change while running);
// offsets is where fenced commits land.
func NewCoordinator(clk clock.Clock, topics Topics, sessionTimeoutMs func() int64, offsets *OffsetStore) *Coordinator {
	return &Coordinator{clk: clk, topics: topics, sessionTimeoutMs: sessionTimeoutMs, offsets: offsets, groups: map[string]*groupState{}}
}

// OpenCoordinator is NewCoordinator with membership persisted in path
// (groups.json) on fsys: the file is loaded (missing means no groups; anything
// malformed is STORAGE_ERROR "invalid group file {path}"), then the groups
// log next to it (groups.log) is replayed; every join, leave and expiry
// appends to that log, which is folded into groups.json as it grows and at
// Close (groups_log.go). Loaded members get the deadline now +
// session.timeout.ms.
func OpenCoordinator(fsys vfs.FS, path string, clk clock.Clock, topics Topics, sessionTimeoutMs func() int64, offsets *OffsetStore) (*Coordinator, error) {
	c := NewCoordinator(clk, topics, sessionTimeoutMs, offsets)
	c.fsys, c.path = fsys, path
	deadline := clock.AddMs(clk.NowMs(), sessionTimeoutMs())
	groups, err := loadGroups(fsys, path, deadline)
	if err != nil {
		return nil, err
	}
	c.snapBytes = int64(len(encodeGroups(groups)))
	if c.logBytes, c.needCompact, err = replayLog(fsys, logPath(path), groups, deadline); err != nil {
		return nil, err
	}
	c.groups = groups
	return c, nil
}

// Offsets returns the offset store the coordinator commits to (consumers with
// a manual assignment commit to it directly, without fencing).
func (c *Coordinator) Offsets() *OffsetStore { return c.offsets }

// SessionTimeoutMs returns session.timeout.ms.
func (c *Coordinator) SessionTimeoutMs() int64 { return c.sessionTimeoutMs() }

// Join adds member to group (or replaces its subscriptions) with a session
// deadline of now + session.timeout.ms, rebalances, and returns the member's
// new assignment. Every join, including a re-join, bumps the generation.
// Empty ids and subscriptions to topics the cluster does not have
// ("unknown subscribed topics: ['nope']") are argument errors, checked before
// anything changes.
func (c *Coordinator) Join(group, memberID string, subscriptions []string) (JoinResult, error) {
	if group == "" || !validID(group) {
		return JoinResult{}, kerr.Argument("group id must be a non-empty UTF-8 string")
	}
	if memberID == "" || !validID(memberID) {
		return JoinResult{}, kerr.Argument("member id must be a non-empty UTF-8 string")
	}
	subs := slices.Clone(subscriptions)
	slices.Sort(subs)
	subs = slices.Compact(subs)
	known := c.topics()
	var unknown []string
	for _, t := range subs {
		if _, ok := known[t]; !ok {
			unknown = append(unknown, "'"+t+"'")
		}
	}
	if len(unknown) > 0 {
		return JoinResult{}, kerr.Argument("unknown subscribed topics: [%s]", strings.Join(unknown, ", "))
	}
	g := c.groups[group]
	if g == nil {
		g = &groupState{members: map[string]*member{}, assignment: map[string][]topic.Partition{}}
	} else if g.clientAssigned && len(g.members) > 0 {
		return JoinResult{}, kerr.State("group %s has Kafka clients (classic protocol); MiniKafka consumers cannot join it", group)
	}
	// The group changes in place (copying it would make every join cost
	// the group's size); undo puts it back if the change cannot be written.
	undo := g.change(memberID)
	g.clientAssigned = false
	g.members[memberID] = &member{subscriptions: subs, deadlineMs: clock.AddMs(c.clk.NowMs(), c.sessionTimeoutMs())}
	counts := subscribedCounts(g, known)
	rebalanceWith(g, counts)
	if err := c.logChange(group, g, "join", []string{memberID}, subs, counts); err != nil {
		undo()
		return JoinResult{}, err
	}
	return c.Assignment(group, memberID)
}

// change prepares an in-place change of g that replaces or removes member
// id: the returned undo puts back g's generation, state, assignment and
// kind, and that member as it was.
func (g *groupState) change(id string) (undo func()) {
	saved := *g
	prev, had := g.members[id]
	return func() {
		if had {
			g.members[id] = prev
		} else {
			delete(g.members, id)
		}
		*g = saved
	}
}

// Leave removes member from group and rebalances. An unknown group or member
// is a silent no-op (no generation change); Leave reports whether it removed
// someone. It fails only when the groups file cannot be written, and then
// nothing changed.
func (c *Coordinator) Leave(group, memberID string) (bool, error) {
	g := c.groups[group]
	if g == nil || g.members[memberID] == nil {
		return false, nil
	}
	undo := g.change(memberID)
	delete(g.members, memberID)
	counts := subscribedCounts(g, c.topics())
	rebalanceWith(g, counts)
	if err := c.logChange(group, g, "leave", []string{memberID}, nil, counts); err != nil {
		undo()
		return false, err
	}
	return true, nil
}

// Heartbeat renews member's session (deadline = now + session.timeout.ms).
// Checks, in this order: the group exists (UNKNOWN_MEMBER "unknown group G"),
// the generation is current (ILLEGAL_GENERATION "generation {actual} does not
// match {expected}"), the member exists (UNKNOWN_MEMBER).
func (c *Coordinator) Heartbeat(group, memberID string, generation int32) error {
	g, err := c.group(group)
	if err != nil {
		return err
	}
	if err := checkGeneration(g, generation); err != nil {
		return err
	}
	m := g.members[memberID]
	if m == nil {
		return unknownMember(group, memberID)
	}
	m.deadlineMs = clock.AddMs(c.clk.NowMs(), c.sessionTimeoutMs())
	return nil
}

// ExpireMembers removes every member whose session deadline has passed
// (strictly: now > deadline). Groups are visited in id order and each group
// with expired members rebalances once. It returns the expired members,
// group by group in id order, members in id order. If the groups file cannot
// be written it stops there: the groups before are expired, that one and the
// rest are not.
func (c *Coordinator) ExpireMembers() ([]Expired, error) {
	now := c.clk.NowMs()
	var out []Expired
	for _, id := range slices.Sorted(maps.Keys(c.groups)) {
		var gone []Expired
		var names []string
		for _, m := range slices.Sorted(maps.Keys(c.groups[id].members)) {
			if now > c.groups[id].members[m].deadlineMs {
				gone = append(gone, Expired{Group: id, Member: m})
				names = append(names, m)
			}
		}
		if len(gone) == 0 {
			continue
		}
		next := c.groups[id].clone()
		for _, m := range names {
			delete(next.members, m)
		}
		counts := subscribedCounts(next, c.topics())
		rebalanceWith(next, counts)
		if err := c.logChange(id, next, "leave", names, nil, counts); err != nil {
			return out, err
		}
		out = append(out, gone...)
	}
	return out, nil
}

// Assignment returns the group's generation and member's partitions. Checks:
// the group exists, then the member (both UNKNOWN_MEMBER), then the group is
// STABLE (REBALANCE_IN_PROGRESS).
func (c *Coordinator) Assignment(group, memberID string) (JoinResult, error) {
	g, err := c.group(group)
	if err != nil {
		return JoinResult{}, err
	}
	if g.members[memberID] == nil {
		return JoinResult{}, unknownMember(group, memberID)
	}
	if g.state != Stable {
		return JoinResult{}, kerr.New(kerr.RebalanceInProgress, "%s", group)
	}
	return JoinResult{Generation: g.generation, Assignment: slices.Clone(g.assignment[memberID])}, nil
}

// State returns the group's state (UNKNOWN_MEMBER "unknown group G" when the
// group does not exist).
func (c *Coordinator) State(group string) (State, error) {
	g, err := c.group(group)
	if err != nil {
		return Empty, err
	}
	return g.state, nil
}

// Generation returns the group's current generation (UNKNOWN_MEMBER "unknown
// group G" when the group does not exist).
func (c *Coordinator) Generation(group string) (int32, error) {
	g, err := c.group(group)
	if err != nil {
		return 0, err
	}
	return g.generation, nil
}

// Commit is a fenced offset commit. The order of checks is normative (§11.2):
//  1. the group exists, else UNKNOWN_MEMBER "unknown group G";
//  2. the group is STABLE, else REBALANCE_IN_PROGRESS (everyone left or expired);
//  3. the generation is current, else ILLEGAL_GENERATION;
//  4. the member exists, else UNKNOWN_MEMBER;
//  5. every partition is in the member's assignment, else NOT_PARTITION_OWNER;
//  6. the offset store commit (negative offsets are an argument error).
func (c *Coordinator) Commit(group, memberID string, generation int32, offsets Offsets) error {
	g, err := c.group(group)
	if err != nil {
		return err
	}
	if g.state != Stable {
		return kerr.New(kerr.RebalanceInProgress, "%s", group)
	}
	if err := checkGeneration(g, generation); err != nil {
		return err
	}
	if g.members[memberID] == nil {
		return unknownMember(group, memberID)
	}
	if g.clientAssigned {
		// Kafka's rule: the coordinator checks the generation and the
		// member, not which partitions the member was given.
		return c.offsets.Commit(group, offsets)
	}
	owned := g.assignment[memberID]
	for tp := range offsets {
		if !slices.Contains(owned, tp) {
			return kerr.New(kerr.NotPartitionOwner, "%s", memberID)
		}
	}
	return c.offsets.Commit(group, offsets)
}

// rebalanceWith bumps the generation and recomputes the assignment
// (§11.2) from these partition counts.
func rebalanceWith(g *groupState, partitions map[string]int32) {
	g.state = PreparingRebalance
	g.generation++
	if len(g.members) == 0 {
		g.assignment = map[string][]topic.Partition{}
		g.state = Empty
		return
	}
	if g.clientAssigned {
		// The members compute the next assignment after they rejoin.
		g.assignment = map[string][]topic.Partition{}
		return
	}
	subs := make(map[string][]string, len(g.members))
	for id, m := range g.members {
		subs[id] = m.subscriptions
	}
	g.assignment = RoundRobin(subs, partitions)
	g.state = Stable
}

// store makes next the state of group id, rewriting the groups file (and
// folding the groups log into it) first when there is one.
func (c *Coordinator) store(id string, next *groupState) error {
	if c.path != "" {
		all := maps.Clone(c.groups)
		all[id] = next
		if err := c.compactLog(all); err != nil {
			return err
		}
	}
	c.groups[id] = next
	return nil
}

func (g *groupState) clone() *groupState {
	out := &groupState{generation: g.generation, state: g.state, clientAssigned: g.clientAssigned,
		members: make(map[string]*member, len(g.members)), assignment: maps.Clone(g.assignment)}
	for id, m := range g.members {
		cp := *m
		out.members[id] = &cp
	}
	return out
}

func (c *Coordinator) group(id string) (*groupState, error) {
	g := c.groups[id]
	if g == nil {
		return nil, kerr.New(kerr.UnknownMember, "unknown group %s", id)
	}
	return g, nil
}

func checkGeneration(g *groupState, generation int32) error {
	if generation != g.generation {
		return kerr.New(kerr.IllegalGeneration, "generation %d does not match %d", generation, g.generation)
	}
	return nil
}

func unknownMember(group, id string) error {
	return kerr.New(kerr.UnknownMember, "unknown member %s in group %s", id, group)
}
