package engine

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/group"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/txn"
)

// coordination is the cluster's consumer-group and transaction side: the
// offset store (offsets.json), the group coordinator (groups.json), the
// transaction coordinator (transactions.journal), the transaction indexes
// of the partition leaders, and the consumers this cluster created.
type coordination struct {
	offsets       *group.OffsetStore
	groups        *group.Coordinator
	txns          *txnLayer
	consumers     []*Consumer
	consumerCount int
}

// CoordinationReport is what opening the coordinators found and did: the
// transaction journal's recovery (lines kept, bytes dropped) and what
// transaction recovery did with unfinished transactions (decision 15).
type CoordinationReport struct {
	Journal      txn.JournalRecovery
	Transactions txn.Recovery
	// MarkerErrors lists recovery markers that could not be appended now:
	// a transaction's stays prepared (retry it with commit or abort); an
	// orphan run's is appended after a replication step has grown the ISR.
	MarkerErrors []string
	// Groups is the number of consumer groups loaded (groups.json and
	// offsets.json).
	Groups int
}

// openCoordination loads offsets.json, groups.json and the transaction
// journal, builds the leaders' transaction indexes and finishes what the
// journal left unstable (markers are appended with acks=all; completion
// follows their acknowledgement). It runs at the end of Open, once every
// replica set exists.
func (c *Cluster) openCoordination(report *OpenReport) error {
	dir, fsys := c.cfg.DataDir, c.cfg.fs()
	offsets, err := group.OpenOffsetStore(fsys, filepath.Join(dir, group.OffsetsFileName))
	if err != nil {
		return err
	}
	groups, err := group.OpenCoordinator(fsys, filepath.Join(dir, group.GroupsFileName), c.clock,
		c.topicPartitionCounts, c.sessionTimeoutMs, offsets)
	if err != nil {
		return err
	}
	m, jrep, err := txn.Open(fsys, filepath.Join(dir, txn.JournalFileName), offsets)
	if err != nil {
		return err
	}
	layer := &txnLayer{c: c, m: m, indexes: map[TopicPartition]*leaderIndex{}, begun: map[string]uint64{},
		pending: map[int64]*TxnCompletion{}}
	// The indexes read from clean-shutdown markers, as index would build
	// them from the leader logs (shutdownstate.go).
	for tp, idx := range c.openedIndexes {
		rs := c.sets[tp]
		if lg, err := rs.LeaderLog(); err == nil && lg != nil {
			layer.indexes[tp] = &leaderIndex{idx: idx, log: lg, leader: rs.Leader(), epoch: rs.LeaderEpoch(), leo: lg.LEO()}
		}
	}
	c.openedIndexes = nil
	c.coord = &coordination{offsets: offsets, groups: groups, txns: layer, consumerCount: highestMemberNumber(groups)}
	c.txns = layer
	report.Coordination.Journal = jrep
	report.Coordination.Groups = len(groups.ListGroups())
	layer.opening = true
	rec, problems, err := layer.recover()
	layer.opening = false
	report.Coordination.Transactions = rec
	report.Coordination.MarkerErrors = problems
	if err != nil {
		_ = m.Close()
		c.coord, c.txns = nil, noTransactions{}
		return err
	}
	return nil
}

// highestMemberNumber finds the largest n of a loaded member "member-n", so
// that new consumers do not take the id of a member still in a group after a
// crash (the spec numbers from 1 per cluster instance; with persisted
// membership numbering continues after the members that are still there).
func highestMemberNumber(g *group.Coordinator) int {
	high := 0
	for _, l := range g.ListGroups() {
		d, err := g.Describe(l.GroupID)
		if err != nil {
			continue
		}
		for _, m := range d.Members {
			var n int
			if _, err := fmt.Sscanf(m.MemberID, "member-%d", &n); err == nil && fmt.Sprintf("member-%d", n) == m.MemberID && n > high {
				high = n
			}
		}
	}
	return high
}

// sessionTimeoutMs is the group coordinator's view of session.timeout.ms.
func (c *Cluster) sessionTimeoutMs() int64 { return c.cfg.SessionTimeoutMs }

// topicPartitionCounts is the group coordinator's view of the topics.
func (c *Cluster) topicPartitionCounts() map[string]int32 { return maps.Clone(c.topics) }

// closeCoordination is Close's step for groups and transactions: every open
// consumer closes (subscribed ones leave their group), the offset store is
// flushed (offsets.json is always written), the groups log is folded into
// groups.json and the journal is closed.
func (c *Cluster) closeCoordination() error {
	if c.coord == nil {
		return nil
	}
	var errs []error
	for _, con := range c.coord.consumers {
		if !con.closed {
			errs = append(errs, con.close())
		}
	}
	errs = append(errs, c.coord.offsets.Flush(), c.coord.groups.Close(), c.coord.txns.m.Close())
	return errors.Join(errs...)
}

// crashCoordination is Crash's step: consumers stop without leaving their
// groups (a crash sends no LeaveGroup, decision 26: they stay members until
// session.timeout.ms passes, even across a restart, since membership is in
// groups.json); nothing is flushed, since offsets, groups and the journal
// were written when they changed.
func (c *Cluster) crashCoordination() error {
	if c.coord == nil {
		return nil
	}
	for _, con := range c.coord.consumers {
		con.closed = true
	}
	return c.coord.txns.m.Close()
}

// flushCoordination is the flush cycle's step: the offset store is
// written and the groups log synced.
func (c *Cluster) flushCoordination() error {
	if c.coord == nil {
		return nil
	}
	return errors.Join(c.coord.offsets.Flush(), c.coord.groups.Flush())
}

// expireGroupMembers is Advance's session-expiry step: members whose session
// deadline has passed leave their groups, each group rebalancing once. A
// groups file that cannot be written is a background failure: it becomes
// the terminal error (nothing changed for that group).
func (c *Cluster) expireGroupMembers() {
	if c.coord == nil {
		return
	}
	expired, err := c.coord.groups.ExpireMembers()
	var byGroup []MembersExpired
	for _, e := range expired {
		if n := len(byGroup); n == 0 || byGroup[n-1].Group != e.Group {
			byGroup = append(byGroup, MembersExpired{Group: e.Group})
		}
		byGroup[len(byGroup)-1].Members = append(byGroup[len(byGroup)-1].Members, e.Member)
	}
	for _, ev := range byGroup {
		ev.Generation, _ = c.coord.groups.Generation(ev.Group)
		c.events.Emit(ev)
	}
	if err != nil {
		c.fail(err)
	}
}

// GroupAssignment is what a member learns from a join: the group's
// generation and the member's partitions, sorted by topic then partition.
type GroupAssignment = group.JoinResult

// JoinGroup joins memberID, chosen by the caller (a protocol client's
// member id), to groupID with these topic subscriptions, rebalances, and
// returns the member's generation and assignment (§11.2; every join bumps
// the generation). Empty ids and unknown topics are argument errors,
// checked before anything changes. Consumers (NewConsumer) join through
// Subscribe instead; this is the door for adapters whose clients name
// their own members.
func (c *Cluster) JoinGroup(groupID, memberID string, topics []string) (GroupAssignment, error) {
	if err := c.checkCoordination(); err != nil {
		return GroupAssignment{}, err
	}
	return c.coord.groups.Join(groupID, memberID, topics)
}

// GroupHeartbeat renews a member's session (UNKNOWN_MEMBER for an unknown
// group or member, ILLEGAL_GENERATION for a stale generation).
func (c *Cluster) GroupHeartbeat(groupID, memberID string, generation int32) error {
	if err := c.checkCoordination(); err != nil {
		return err
	}
	return c.coord.groups.Heartbeat(groupID, memberID, generation)
}

// LeaveGroup removes a member from its group, which rebalances at once. An
// unknown group or member is a silent no-op; it reports whether it removed
// someone.
func (c *Cluster) LeaveGroup(groupID, memberID string) (bool, error) {
	if err := c.checkCoordination(); err != nil {
		return false, err
	}
	return c.coord.groups.Leave(groupID, memberID)
}

// CommitGroupOffsets is a member's fenced offset commit, with the checks of
// §11.2 in their normative order: the group exists (UNKNOWN_MEMBER), is
// STABLE (REBALANCE_IN_PROGRESS), the generation is current
// (ILLEGAL_GENERATION), the member exists (UNKNOWN_MEMBER), every partition
// is assigned to it (NOT_PARTITION_OWNER); negative offsets are argument
// errors. Nothing is committed unless every check passes.
func (c *Cluster) CommitGroupOffsets(groupID, memberID string, generation int32, offsets map[TopicPartition]int64) error {
	if err := c.checkCoordination(); err != nil {
		return err
	}
	return c.coord.groups.Commit(groupID, memberID, generation, group.Offsets(offsets))
}

// CommittedOffset returns a group's committed offset for a partition, and
// false when there is none.
func (c *Cluster) CommittedOffset(groupID string, tp TopicPartition) (int64, bool, error) {
	if err := c.checkCoordination(); err != nil {
		return 0, false, err
	}
	o, ok := c.coord.offsets.Get(groupID, tp)
	return o, ok, nil
}

// ListGroups lists the consumer groups (`group list`): every group that ever
// had a member, plus every group with committed offsets, sorted by id.
func (c *Cluster) ListGroups() ([]GroupListing, error) {
	if err := c.checkCoordination(); err != nil {
		return nil, err
	}
	return c.coord.groups.ListGroups(), nil
}

// GroupPartition is one row of `group describe` in kafka-consumer-groups'
// shape: GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID.
type GroupPartition struct {
	TP TopicPartition
	// CurrentOffset is the committed offset; -1 when nothing is committed.
	CurrentOffset int64
	// LogEndOffset is the partition's high watermark (what a consumer can
	// reach).
	LogEndOffset int64
	// Lag is LogEndOffset - CurrentOffset; -1 when nothing is committed.
	Lag int64
	// ConsumerID is the member that owns the partition now; "" for none.
	ConsumerID string
}

// GroupDescription is `group describe G`.
type GroupDescription struct {
	GroupID    string
	State      GroupState // State.KafkaName() is what Kafka prints
	Generation int32
	Members    []GroupMember
	Partitions []GroupPartition
}

// DescribeGroup describes a group (UNKNOWN_MEMBER "unknown group G" when the
// group has neither members' history nor committed offsets).
func (c *Cluster) DescribeGroup(groupID string) (GroupDescription, error) {
	if err := c.checkCoordination(); err != nil {
		return GroupDescription{}, err
	}
	d, err := c.coord.groups.Describe(groupID)
	if err != nil {
		return GroupDescription{}, err
	}
	out := GroupDescription{GroupID: d.GroupID, State: d.State, Generation: d.Generation, Members: d.Members}
	for _, p := range d.Partitions {
		row := GroupPartition{TP: p.Partition, CurrentOffset: -1, LogEndOffset: -1, Lag: -1, ConsumerID: p.MemberID}
		if rs := c.sets[p.Partition]; rs != nil {
			row.LogEndOffset = rs.HighWatermark()
		}
		if p.HasCommitted {
			row.CurrentOffset = p.Committed
			if row.LogEndOffset >= 0 {
				row.Lag = max(0, row.LogEndOffset-p.Committed)
			}
		}
		out.Partitions = append(out.Partitions, row)
	}
	return out, nil
}

// MembersExpired: members' sessions ran out (Advance); their group
// rebalanced once, into Generation.
type MembersExpired struct {
	Group      string
	Members    []string
	Generation int32
}

// Kind returns "members_expired".
func (MembersExpired) Kind() string { return "members_expired" }

// String describes the event on one line.
func (e MembersExpired) String() string {
	return fmt.Sprintf("group %s: session expired for %s (no heartbeat within session.timeout.ms); rebalanced to generation %d",
		e.Group, strings.Join(e.Members, ", "), e.Generation)
}

// checkCoordination returns the guard error, or a state error when the
// cluster has no coordinators (an Open that failed half-way).
func (c *Cluster) checkCoordination() error {
	if err := c.guard(); err != nil {
		return err
	}
	if c.coord == nil {
		return kerr.State("consumer groups and transactions are not open")
	}
	return nil
}
