package engine

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/minikafka-lab/minikafka/engine/group"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// The auto.offset.reset policies.
const (
	ResetEarliest = "earliest"
	ResetLatest   = "latest"
	ResetError    = "error"
)

// ConsumerOptions configure a consumer (§11.1).
type ConsumerOptions struct {
	// GroupID is group.id; it may not be empty.
	GroupID string
	// AutoOffsetReset is auto.offset.reset: where a partition without a
	// committed offset starts, and where an out-of-range position resets:
	// "earliest" (the default when empty), "latest" or "error".
	AutoOffsetReset string
	// Isolation is isolation.level (decision 19). ReadCommitted stops at the
	// last stable offset and skips aborted transactions.
	Isolation Isolation
}

// Consumer reads partitions, tracks its positions and commits offsets for
// its group (§11.1). It is either manually assigned (Assign) or a group
// member (Subscribe). There is no revoke barrier (§11.4): a member keeps its
// local assignment until it calls RefreshAssignment, and commits made with an
// old generation are refused with ILLEGAL_GENERATION.
//
// Positions move past control batches (markers) and, for read_committed,
// past aborted batches, even when a poll returns no record (decision 19), so
// a consumer at the end of a transactional partition has no phantom lag.
type Consumer struct {
	c             *Cluster
	groupID       string
	memberID      string
	reset         string
	iso           Isolation
	assignment    []TopicPartition
	positions     map[TopicPartition]int64
	subscriptions []string
	generation    int32
	joined        bool
	closed        bool
}

// NewConsumer creates a consumer with member id member-{n}, n counting the
// consumers of this cluster instance (continuing after members still in a
// group from before a restart). An empty group id or an unknown reset policy
// is an argument error.
func (c *Cluster) NewConsumer(opts ConsumerOptions) (*Consumer, error) {
	if err := c.checkCoordination(); err != nil {
		return nil, err
	}
	if opts.GroupID == "" {
		return nil, kerr.Argument("group id cannot be empty")
	}
	if !utf8.ValidString(opts.GroupID) {
		return nil, kerr.Argument("group id %q is not valid UTF-8", opts.GroupID)
	}
	switch opts.AutoOffsetReset {
	case "":
		opts.AutoOffsetReset = ResetEarliest
	case ResetEarliest, ResetLatest, ResetError:
	default:
		return nil, kerr.Argument("auto.offset.reset must be earliest, latest or error (got %q)", opts.AutoOffsetReset)
	}
	if opts.Isolation != ReadUncommitted && opts.Isolation != ReadCommitted {
		return nil, kerr.Argument("unknown isolation level %d", opts.Isolation)
	}
	c.coord.consumerCount++
	con := &Consumer{c: c, groupID: opts.GroupID, memberID: fmt.Sprintf("member-%d", c.coord.consumerCount),
		reset: opts.AutoOffsetReset, iso: opts.Isolation, positions: map[TopicPartition]int64{}}
	c.coord.consumers = append(c.coord.consumers, con)
	return con, nil
}

// Consumers lists the consumers this cluster instance created, in creation
// order.
func (c *Cluster) Consumers() []*Consumer {
	if c.coord == nil {
		return nil
	}
	return slices.Clone(c.coord.consumers)
}

// MemberID is the consumer's member id ("member-1").
func (con *Consumer) MemberID() string { return con.memberID }

// GroupID is the consumer's group.
func (con *Consumer) GroupID() string { return con.groupID }

// Isolation is the consumer's isolation level.
func (con *Consumer) Isolation() Isolation { return con.iso }

// AutoOffsetReset is the consumer's reset policy.
func (con *Consumer) AutoOffsetReset() string { return con.reset }

// Closed reports whether the consumer was closed (or its cluster closed or
// crashed).
func (con *Consumer) Closed() bool { return con.closed }

// Assignment is the consumer's local assignment, sorted. For a group member
// it is what the coordinator said at the last Subscribe or
// RefreshAssignment, which may be stale.
func (con *Consumer) Assignment() []TopicPartition { return slices.Clone(con.assignment) }

// Subscriptions are the topics the consumer subscribed to, sorted.
func (con *Consumer) Subscriptions() []string { return slices.Clone(con.subscriptions) }

// Generation is the group generation the consumer last learned, and whether
// it has joined at all.
func (con *Consumer) Generation() (int32, bool) { return con.generation, con.joined }

// ConsumerPosition is one initialized position.
type ConsumerPosition struct {
	TP     TopicPartition
	Offset int64
}

// Positions lists the initialized positions, in assignment order.
func (con *Consumer) Positions() []ConsumerPosition {
	out := make([]ConsumerPosition, 0, len(con.positions))
	for _, tp := range con.assignment {
		if o, ok := con.positions[tp]; ok {
			out = append(out, ConsumerPosition{TP: tp, Offset: o})
		}
	}
	return out
}

func (con *Consumer) check() error {
	if err := con.c.checkCoordination(); err != nil {
		return err
	}
	if con.closed {
		return kerr.State("consumer is closed")
	}
	return nil
}

// Assign sets a manual assignment: every partition must exist (UNKNOWN_TOPIC,
// UNKNOWN_PARTITION); the assignment becomes the sorted, de-duplicated list
// and positions of partitions no longer assigned are dropped. A subscribed
// consumer cannot be assigned (argument error).
func (con *Consumer) Assign(tps []TopicPartition) error {
	if err := con.check(); err != nil {
		return err
	}
	if con.joined {
		return kerr.Argument("cannot directly assign a subscribed consumer")
	}
	for _, tp := range tps {
		if _, err := con.c.replicaSet(tp); err != nil {
			return err
		}
	}
	next := slices.Clone(tps)
	topic.Sort(next)
	con.apply(slices.Compact(next))
	return nil
}

// Subscribe joins the consumer's group with these topics (sorted, unique)
// and applies the new generation and assignment. Unknown topics are an
// argument error ("unknown subscribed topics: ['nope']") and leave the
// consumer as it was.
func (con *Consumer) Subscribe(topics []string) error {
	if err := con.check(); err != nil {
		return err
	}
	subs := slices.Clone(topics)
	slices.Sort(subs)
	subs = slices.Compact(subs)
	if len(subs) == 0 {
		return kerr.Argument("subscribe needs at least one topic")
	}
	res, err := con.c.coord.groups.Join(con.groupID, con.memberID, subs)
	if err != nil {
		return err
	}
	con.subscriptions, con.joined = subs, true
	con.applyJoin(res)
	return nil
}

// RefreshAssignment asks the coordinator for the member's current
// generation and assignment (UNKNOWN_MEMBER after its session expired).
// Other members' joins are never pushed: this is how the consumer sees them.
// A consumer that never joined asks too (§11.1, decision 42): the
// coordinator does not know its member, so the answer is UNKNOWN_MEMBER
// (`unknown group G`, or the member id when the group exists), and nothing
// changes.
func (con *Consumer) RefreshAssignment() error {
	if err := con.check(); err != nil {
		return err
	}
	res, err := con.c.coord.groups.Assignment(con.groupID, con.memberID)
	if err != nil {
		return err
	}
	if !con.joined {
		// Member ids are never reused within a cluster instance, so a
		// member that never joined cannot be in a group.
		return kerr.New(kerr.UnknownMember, "unknown member %s in group %s", con.memberID, con.groupID)
	}
	con.applyJoin(res)
	return nil
}

// Heartbeat renews the member's session with its local generation
// (ILLEGAL_GENERATION when the group moved on, UNKNOWN_MEMBER after expiry).
func (con *Consumer) Heartbeat() error {
	if err := con.check(); err != nil {
		return err
	}
	if !con.joined {
		return kerr.Argument("consumer has not joined a group")
	}
	return con.c.coord.groups.Heartbeat(con.groupID, con.memberID, con.generation)
}

func (con *Consumer) applyJoin(res group.JoinResult) {
	con.generation = res.Generation
	con.apply(res.Assignment)
}

func (con *Consumer) apply(assignment []TopicPartition) {
	con.assignment = assignment
	for tp := range con.positions {
		if !slices.Contains(assignment, tp) {
			delete(con.positions, tp)
		}
	}
}

// Poll returns up to maxRecords records from the assigned partitions, in
// assignment order, the budget shared greedily (§11.1). A partition without
// a position starts at the committed offset, else per auto.offset.reset
// (earliest: the log start; latest: the end, i.e. the HW, or the LSO for
// read_committed; error: OFFSET_OUT_OF_RANGE). An out-of-range position
// resets the same way, unless the policy is error. maxRecords 0 returns at
// once; a negative value is an argument error.
//
// A poll is all or nothing: when a partition fails (its leader is down, an
// out-of-range position under auto.offset.reset=error), no record is
// returned and every position is left where it was, so nothing the caller
// never saw is skipped.
func (con *Consumer) Poll(maxRecords int) ([]StoredRecord, error) {
	if err := con.check(); err != nil {
		return nil, err
	}
	if maxRecords < 0 {
		return nil, kerr.Argument("max records cannot be negative (got %d)", maxRecords)
	}
	var out []StoredRecord
	saved := maps.Clone(con.positions)
	for _, tp := range con.assignment {
		if len(out) >= maxRecords {
			break
		}
		recs, err := con.pollPartition(tp, maxRecords-len(out))
		if err != nil {
			con.positions = saved
			return nil, err
		}
		out = append(out, recs...)
	}
	return out, nil
}

func (con *Consumer) pollPartition(tp TopicPartition, budget int) ([]StoredRecord, error) {
	pos, ok := con.positions[tp]
	if !ok {
		start, err := con.startPosition(tp)
		if err != nil {
			return nil, err
		}
		pos = start
		con.positions[tp] = pos
	}
	recs, next, err := con.c.consumerFetch(tp, pos, budget, con.iso)
	var oor *kerr.Error
	if errors.As(err, &oor) && oor.Code == kerr.OffsetOutOfRange && con.reset != ResetError {
		if pos, err = con.resetPosition(tp); err != nil {
			return nil, err
		}
		con.positions[tp] = pos
		recs, next, err = con.c.consumerFetch(tp, pos, budget, con.iso)
	}
	if err != nil {
		return nil, err
	}
	con.positions[tp] = next
	return recs, nil
}

// startPosition is a partition's first position: the committed offset, else
// the reset policy.
func (con *Consumer) startPosition(tp TopicPartition) (int64, error) {
	if o, ok := con.c.coord.offsets.Get(con.groupID, tp); ok {
		return o, nil
	}
	if con.reset == ResetError {
		start, end, err := con.bounds(tp)
		if err != nil {
			return 0, err
		}
		return 0, kerr.OutOfRange(-1, start, end)
	}
	return con.resetPosition(tp)
}

func (con *Consumer) resetPosition(tp TopicPartition) (int64, error) {
	start, end, err := con.bounds(tp)
	if err != nil {
		return 0, err
	}
	if con.reset == ResetLatest {
		// Retention on the leader is not bounded by the HW (decision 10):
		// the end can lie below the log start until the followers reset.
		return max(end, start), nil
	}
	return start, nil
}

// bounds returns the leader's log start and the consumer's end: the HW, or
// the LSO for read_committed.
func (con *Consumer) bounds(tp TopicPartition) (int64, int64, error) {
	rs, err := con.c.replicaSet(tp)
	if err != nil {
		return 0, 0, err
	}
	l, err := rs.LeaderLog()
	if err != nil {
		return 0, 0, err
	}
	end := rs.HighWatermark()
	if con.iso == ReadCommitted {
		end = con.c.lso(tp, end)
	}
	return l.LogStartOffset(), end, nil
}

// Position is the next offset the consumer will read from tp (argument error
// when it is not initialized).
func (con *Consumer) Position(tp TopicPartition) (int64, error) {
	if err := con.check(); err != nil {
		return 0, err
	}
	o, ok := con.positions[tp]
	if !ok {
		return 0, kerr.Argument("position of %s is not initialized (poll first)", tp)
	}
	return o, nil
}

// Seek sets tp's position without a range check (an out-of-range position
// is handled by the next poll). tp must be assigned and offset >= 0
// (argument errors).
func (con *Consumer) Seek(tp TopicPartition, offset int64) error {
	if err := con.check(); err != nil {
		return err
	}
	if !slices.Contains(con.assignment, tp) {
		return kerr.Argument("%s is not assigned", tp)
	}
	if offset < 0 {
		return kerr.Argument("seek offset cannot be negative (got %d)", offset)
	}
	con.positions[tp] = offset
	return nil
}

// Committed returns the group's committed offset for tp, and false when
// there is none.
func (con *Consumer) Committed(tp TopicPartition) (int64, bool, error) {
	if err := con.check(); err != nil {
		return 0, false, err
	}
	o, ok := con.c.coord.offsets.Get(con.groupID, tp)
	return o, ok, nil
}

// Commit commits every initialized position. A group member commits through
// the coordinator, fenced by its generation and assignment (§11.2); a
// manually assigned consumer writes the offset store directly, unfenced.
func (con *Consumer) Commit() error {
	if err := con.check(); err != nil {
		return err
	}
	offsets := group.Offsets{}
	for tp, o := range con.positions {
		offsets[tp] = o
	}
	if con.joined {
		return con.c.coord.groups.Commit(con.groupID, con.memberID, con.generation, offsets)
	}
	return con.c.coord.offsets.Commit(con.groupID, offsets)
}

// CommitOffsets commits explicit offsets for the consumer's group exactly
// as Commit commits its positions: a group member through the coordinator,
// fenced by its generation and assignment (§11.2); a manually assigned
// consumer straight into the offset store, unfenced. The consumer's
// positions do not change.
func (con *Consumer) CommitOffsets(offsets map[TopicPartition]int64) error {
	if err := con.check(); err != nil {
		return err
	}
	if con.joined {
		return con.c.coord.groups.Commit(con.groupID, con.memberID, con.generation, group.Offsets(offsets))
	}
	return con.c.coord.offsets.Commit(con.groupID, group.Offsets(offsets))
}

// Lag is how far tp's position is behind the consumer's end: max(0, HW -
// position), or LSO - position for read_committed. The position must be
// initialized.
func (con *Consumer) Lag(tp TopicPartition) (int64, error) {
	pos, err := con.Position(tp)
	if err != nil {
		return 0, err
	}
	_, end, err := con.bounds(tp)
	if err != nil {
		return 0, err
	}
	return max(0, end-pos), nil
}

// Close closes the consumer; a group member leaves its group (its partitions
// are rebalanced at once). It does not commit. Closing twice is fine.
func (con *Consumer) Close() error {
	if err := con.c.checkCoordination(); err != nil {
		return err
	}
	if con.closed {
		return nil
	}
	return con.close()
}

// close closes the consumer; a group member leaves its group.
func (con *Consumer) close() error {
	con.closed = true
	if con.joined {
		_, err := con.c.coord.groups.Leave(con.groupID, con.memberID)
		return err
	}
	return nil
}

// String describes the consumer on one line.
func (con *Consumer) String() string {
	parts := make([]string, len(con.assignment))
	for i, tp := range con.assignment {
		parts[i] = tp.String()
	}
	return fmt.Sprintf("%s (group %s, %s) assigned [%s]", con.memberID, con.groupID, con.iso, strings.Join(parts, ", "))
}

// consumerReadChunk caps the byte budget of each leader read of a consumer
// fetch.
const consumerReadChunk = 1 << 20

// consumerBytesPerRecord sizes a consumer fetch's first leader read by the
// records asked for: budget records of this many bytes each (a batch's
// header shared among its records, small values). Each further read of
// the same fetch (the first one was all markers, hidden batches or larger
// records) asks for twice as much, up to consumerReadChunk, so a fetch of
// a few records never reads a megabyte and a fetch that needs more gets
// there in a few reads.
const consumerBytesPerRecord = 128

// consumerReadBytes is the byte budget of a consumer fetch's first leader
// read for budget records.
func consumerReadBytes(budget int) int {
	return min(max(budget, 1)*consumerBytesPerRecord, consumerReadChunk)
}

// consumerFetch is the consumer's read (§11.1 with decision 19), and
// Fetch's for read_committed: records of tp from offset, at most budget,
// below the HW (or the LSO for read_committed, which also skips aborted and
// open transactions' batches).
// It returns the position after what it examined: past every returned
// record and every skipped batch (markers, hidden transactions), so that
// control batches never hold a position back. An offset outside [log start,
// LEO] is OFFSET_OUT_OF_RANGE.
func (c *Cluster) consumerFetch(tp TopicPartition, offset int64, budget int, iso Isolation) ([]StoredRecord, int64, error) {
	if err := c.guard(); err != nil {
		return nil, offset, err
	}
	rs, err := c.replicaSet(tp)
	if err != nil {
		return nil, offset, err
	}
	l, err := rs.LeaderLog()
	if err != nil {
		return nil, offset, err
	}
	if offset < l.LogStartOffset() || offset > l.LEO() {
		return nil, offset, kerr.OutOfRange(offset, l.LogStartOffset(), l.LEO())
	}
	end := rs.HighWatermark()
	if iso == ReadCommitted {
		end = c.lso(tp, end)
	}
	// An empty read is an empty list (Fetch returns it); each record has
	// its own offset, so end-offset bounds the count.
	out := make([]StoredRecord, 0, max(0, min(int64(budget), end-offset, 1<<16)))
	next := offset
	// Once the budget is used up, the reads go on only to step over the
	// markers and hidden batches before the next data batch, whatever the
	// size of the read that returned the last record.
	for chunk := consumerReadBytes(budget); next < end && (budget > 0 || len(out) > 0); chunk = min(2*chunk, consumerReadChunk) {
		batches, err := l.ReadBatchesInto(&c.readBuf, next, chunk, end)
		if err != nil {
			return out, next, err
		}
		if len(batches) == 0 {
			break
		}
		for _, b := range batches {
			if b.Meta.IsControl() || iso == ReadCommitted && c.txns.HideCommitted(tp, b.Meta) {
				next = max(next, min(b.Meta.NextOffset(), end))
				continue
			}
			if budget == 0 {
				return out, next, nil // stop at the next data batch
			}
			// The records alias their frame, which the next read
			// overwrites: decode a copy of it.
			batch, err := record.DecodeLimit(bytes.Clone(b.Frame), l.Options().MaxBatchBytes)
			if err != nil {
				return out, next, err
			}
			for i, r := range batch.Records {
				o := batch.BaseOffset + int64(batch.OffsetDeltas[i])
				if o < next {
					continue
				}
				if o >= end || budget == 0 {
					return out, next, nil
				}
				out = append(out, StoredRecord{Topic: tp.Topic, Partition: tp.Partition, Offset: o, Record: r})
				next = o + 1
				budget--
			}
			next = max(next, min(b.Meta.NextOffset(), end)) // the whole batch was read
		}
	}
	return out, next, nil
}
