package repl

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
)

var consumerCommand = &Command{
	Name:    "consumer",
	Summary: "named consumers: positions, polls, commits, and consumer groups",
	Detail: `A consumer reads partitions from a position (the next offset it will
read) and commits positions for its group. It is either assigned
partitions by hand (assign) or a member of its group (subscribe), which
the coordinator assigns round-robin. There is no revoke barrier: after a
rebalance, a member keeps its old assignment until it refreshes.`,
	Chapter: 7,
	Group:   "Consumers and groups",
	Sub: []*Command{
		{
			Name:    "create",
			Args:    "NAME [group=G] [auto.offset.reset=earliest|latest|error] [isolation.level=read_uncommitted|read_committed] [isolation=…]",
			Summary: "create a named consumer (its group defaults to NAME)",
			Detail: `auto.offset.reset says where a partition without a committed offset
starts: earliest (the log start, the default), latest (the end), or error
(OFFSET_OUT_OF_RANGE). isolation.level=read_committed (Kafka's name;
isolation= is the same) stops at the last stable offset and skips
aborted transactions. The member id is member-N, N counting the
consumers of this cluster since it was opened.`,
			Positional: []Param{{Name: "NAME"}},
			Keys: []Param{
				{Name: "group", Values: liveGroups},
				{Name: "auto.offset.reset", Values: choices("earliest", "latest", "error")},
				{Name: "isolation.level", Values: choices("read_uncommitted", "read_committed")},
				{Name: "isolation", Values: choices("read_uncommitted", "read_committed")},
			},
			Run: runConsumerCreate,
		},
		{
			Name:       "assign",
			Args:       "NAME TP...",
			Summary:    "assign partitions by hand (no group membership)",
			Positional: []Param{{Name: "NAME", Values: liveConsumers}, {Name: "TP", Rest: true, Values: livePartitions}},
			Run:        runConsumerAssign,
		},
		{
			Name:    "subscribe",
			Args:    "NAME TOPIC...",
			Summary: "join the consumer's group for these topics; the group rebalances",
			Detail: `The coordinator starts a new generation and assigns every partition
round-robin over the members (sorted by member id). Only the joining
consumer learns its new assignment; the others keep their old one until
consumer refresh (MiniKafka has no revoke barrier), and their commits
fail with ILLEGAL_GENERATION meanwhile.`,
			Positional: []Param{{Name: "NAME", Values: liveConsumers}, {Name: "TOPIC", Rest: true, Values: liveTopics}},
			Run:        runConsumerSubscribe,
		},
		{
			Name:    "assignment",
			Args:    "NAME",
			Summary: "the consumer's own view: its generation and partitions, which may be stale",
			Detail: `Prints what the consumer believes it owns, as it learned at its last
subscribe or refresh, and whether the group has moved on since (the
coordinator's current generation and assignment for it). Nothing is asked
of the coordinator, so nothing changes: consumer refresh does that.`,
			Positional: []Param{{Name: "NAME", Values: liveConsumers}},
			Run:        runConsumerAssignment,
		},
		{
			Name:       "refresh",
			Args:       "NAME",
			Summary:    "ask the coordinator for the current generation and assignment",
			Positional: []Param{{Name: "NAME", Values: liveConsumers}},
			Run:        runConsumerRefresh,
		},
		{
			Name:    "poll",
			Args:    "NAME [max=N]",
			Summary: "read up to max records (default 100) from the assigned partitions and advance the positions",
			Detail: `Each assigned partition starts at its committed offset, else where
auto.offset.reset says. Records print in the produce syntax; the
positions after the poll follow. Positions move past transaction markers
(and, for read_committed, aborted batches) even when nothing is returned.`,
			Positional: []Param{{Name: "NAME", Values: liveConsumers}},
			Keys:       []Param{{Name: "max"}},
			Run:        runConsumerPoll,
		},
		{
			Name:       "seek",
			Args:       "NAME TP OFFSET | NAME TP offset=N",
			Summary:    "set the position of an assigned partition",
			Positional: []Param{{Name: "NAME", Values: liveConsumers}, {Name: "TP", Values: livePartitions}, {Name: "OFFSET", Optional: true}},
			Keys:       []Param{{Name: "offset"}},
			Run:        runConsumerSeek,
		},
		{
			Name:       "position",
			Args:       "NAME [TP]",
			Summary:    "the next offset the consumer reads from each partition",
			Positional: []Param{{Name: "NAME", Values: liveConsumers}, {Name: "TP", Optional: true, Values: livePartitions}},
			Run:        runConsumerPosition,
		},
		{
			Name:    "commit",
			Args:    "NAME [TP=OFFSET...]",
			Summary: "commit offsets for the consumer's group: every position, or the ones given",
			Detail: `Without TP=OFFSET, every initialized position is committed (Kafka's
commitSync()); with them, exactly those offsets (commitSync(offsets)),
e.g. consumer commit c1 orders-1=2. An offset is the next one to read.
A group member commits through the coordinator, which checks its
generation (ILLEGAL_GENERATION) and that it owns each partition
(NOT_PARTITION_OWNER); an empty group refuses (REBALANCE_IN_PROGRESS).
A hand-assigned consumer writes its group's offsets directly.`,
			Positional: []Param{{Name: "NAME", Values: liveConsumers}},
			FreeKeys:   true,
			Run:        runConsumerCommit,
		},
		{
			Name:       "committed",
			Args:       "NAME [TP]",
			Summary:    "the group's committed offsets (where a restarted consumer resumes)",
			Positional: []Param{{Name: "NAME", Values: liveConsumers}, {Name: "TP", Optional: true, Values: livePartitions}},
			Run:        runConsumerCommitted,
		},
		{
			Name:       "lag",
			Args:       "NAME [TP]",
			Summary:    "how far each position is behind the HW (the LSO for read_committed)",
			Positional: []Param{{Name: "NAME", Values: liveConsumers}, {Name: "TP", Optional: true, Values: livePartitions}},
			Run:        runConsumerLag,
		},
		{
			Name:    "heartbeat",
			Args:    "NAME",
			Summary: "renew the member's session (session.timeout.ms) with its generation",
			Detail: `A member that does not heartbeat within session.timeout.ms of clock time
expires at the next clock advance and its group rebalances. A heartbeat
with an old generation is ILLEGAL_GENERATION: refresh first.`,
			Positional: []Param{{Name: "NAME", Values: liveConsumers}},
			Run:        runConsumerHeartbeat,
		},
		{
			Name:    "close",
			Args:    "NAME",
			Summary: "close the consumer; a member leaves its group, which rebalances",
			Detail: `The member leaves its group at once (Kafka's LeaveGroup) and nothing is
committed. A Kafka consumer with enable.auto.commit=true, the default,
commits its consumed positions as it closes
(ConsumerCoordinator.close); commit first to do the same here.`,
			Positional: []Param{{Name: "NAME", Values: liveConsumers}},
			Run:        runConsumerClose,
		},
		{
			Name:    "list",
			Summary: "every consumer: member id, group, assignment, positions",
			Run:     runConsumerList,
		},
	},
}

func liveConsumers(s *Session) []string {
	var out []string
	for _, c := range s.consumers {
		if !c.c.Closed() {
			out = append(out, c.name)
		}
	}
	return out
}

func liveGroups(s *Session) []string {
	gs, err := s.cluster.ListGroups()
	if err != nil {
		return nil
	}
	var out []string
	for _, g := range gs {
		out = append(out, g.GroupID)
	}
	return out
}

// namedConsumer is a consumer the learner named, with the number of
// records its polls returned (check consumer C polled).
type namedConsumer struct {
	name   string
	c      *engine.Consumer
	polled int64
}

func (s *Session) consumerEntry(name string) (*namedConsumer, error) {
	for _, c := range s.consumers {
		if c.name == name {
			return c, nil
		}
	}
	return nil, &hintedError{err: kerr.Argument("unknown consumer %q", name),
		hint: fmt.Sprintf("`consumer list` shows the consumers; `consumer create %s` makes one", Quote(name))}
}

func (s *Session) consumerNamed(name string) (*engine.Consumer, error) {
	nc, err := s.consumerEntry(name)
	if err != nil {
		return nil, err
	}
	return nc.c, nil
}

// consumerName is the REPL name of a member id, or "".
func (s *Session) consumerName(memberID string) string {
	for _, c := range s.consumers {
		if c.c.MemberID() == memberID {
			return c.name
		}
	}
	return ""
}

// consumerView describes one consumer (create, subscribe, refresh, list).
type consumerView struct {
	Name          string          `json:"name"`
	MemberID      string          `json:"member_id"`
	Group         string          `json:"group"`
	Isolation     string          `json:"isolation"`
	Reset         string          `json:"auto_offset_reset"`
	Subscriptions []string        `json:"subscriptions"`
	Generation    *int32          `json:"generation"`
	Assignment    []string        `json:"assignment"`
	Positions     []positionEntry `json:"positions"`
	Closed        bool            `json:"closed"`
	// Stale lists other members whose local assignment is older than the
	// group's (they have not refreshed since a rebalance).
	Stale []staleMember `json:"stale_members,omitempty"`
	verb  string
}

type positionEntry struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
}

// positionTexts writes positions as TP=OFFSET: orders-0=5.
func positionTexts(ps []positionEntry) []string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%s-%d=%d", p.Topic, p.Partition, p.Offset))
	}
	return out
}

type staleMember struct {
	Name       string   `json:"name"`
	MemberID   string   `json:"member_id"`
	Local      []string `json:"local_assignment"`
	Assignment []string `json:"assignment"`
}

func newConsumerView(name string, c *engine.Consumer) consumerView {
	v := consumerView{Name: name, MemberID: c.MemberID(), Group: c.GroupID(), Isolation: c.Isolation().String(),
		Reset: c.AutoOffsetReset(), Subscriptions: append([]string{}, c.Subscriptions()...),
		Assignment: tpNames(c.Assignment()), Positions: []positionEntry{}, Closed: c.Closed()}
	if g, joined := c.Generation(); joined {
		v.Generation = &g
	}
	for _, p := range c.Positions() {
		v.Positions = append(v.Positions, positionEntry{Topic: p.TP.Topic, Partition: p.TP.Partition, Offset: p.Offset})
	}
	return v
}

func (v consumerView) writeText(w io.Writer, _ *style) error {
	switch v.verb {
	case "create":
		fmt.Fprintf(w, "consumer %s: %s in group %s (auto.offset.reset=%s, %s)\n", v.Name, v.MemberID, v.Group, v.Reset, v.Isolation)
	case "assign":
		fmt.Fprintf(w, "%s assigned %s\n", v.Name, listOrNone(v.Assignment))
	default:
		fmt.Fprintf(w, "%s (%s) is in group %s generation %d: assigned %s\n", v.Name, v.MemberID, v.Group, *v.Generation, listOrNone(v.Assignment))
	}
	writeStale(w, v.Stale)
	return nil
}

// writeStale says, for each other member whose local assignment is stale,
// what it holds and what the group gives it now.
func writeStale(w io.Writer, stale []staleMember) {
	for _, st := range stale {
		fmt.Fprintf(w, "%s (%s) still holds %s from before; the group now gives it %s (consumer refresh %s)\n",
			st.Name, st.MemberID, listOrNone(st.Local), listOrNone(st.Assignment), st.Name)
	}
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "nothing"
	}
	return strings.Join(names, ", ")
}

// staleMembers compares each other live member of group with the
// coordinator's current assignment.
func (s *Session) staleMembers(group, except string) []staleMember {
	d, err := s.cluster.DescribeGroup(group)
	if err != nil {
		return nil
	}
	var out []staleMember
	for _, m := range d.Members {
		name := s.consumerName(m.MemberID)
		if name == "" || name == except {
			continue
		}
		c, _ := s.consumerNamed(name)
		local, now := tpNames(c.Assignment()), tpNames(m.Assignment)
		if !slices.Equal(local, now) {
			out = append(out, staleMember{Name: name, MemberID: m.MemberID, Local: local, Assignment: now})
		}
	}
	return out
}

func runConsumerCreate(s *Session, w io.Writer, a *Args) error {
	name := a.Pos(0)
	opts := engine.ConsumerOptions{
		GroupID:         a.String("group", name),
		AutoOffsetReset: a.Choice("auto.offset.reset", engine.ResetEarliest, engine.ResetEarliest, engine.ResetLatest, engine.ResetError),
	}
	iso := a.Choice("isolation", "read_uncommitted", "read_uncommitted", "read_committed")
	if a.Has("isolation.level") {
		if a.Has("isolation") {
			a.fail("isolation.level= and isolation= are the same setting: give one")
		}
		iso = a.Choice("isolation.level", "read_uncommitted", "read_uncommitted", "read_committed")
	}
	if err := a.Err(); err != nil {
		return err
	}
	if c, _ := s.consumerNamed(name); c != nil && !c.Closed() {
		return kerr.Argument("consumer %s exists (consumer close %s first)", name, name)
	}
	level, err := engine.ParseIsolation(iso)
	if err != nil {
		return err
	}
	opts.Isolation = level
	c, err := s.cluster.NewConsumer(opts)
	if err != nil {
		return err
	}
	s.consumers = slices.DeleteFunc(s.consumers, func(x *namedConsumer) bool { return x.name == name })
	s.consumers = append(s.consumers, &namedConsumer{name: name, c: c})
	v := newConsumerView(name, c)
	v.verb = "create"
	return s.emit(w, v)
}

// tpArgs reads the positional arguments from i on as partitions.
func tpArgs(a *Args, i int) []engine.TopicPartition {
	var tps []engine.TopicPartition
	for j := i; j < a.Len(); j++ {
		tps = append(tps, a.TP(j))
	}
	return tps
}

func runConsumerAssign(s *Session, w io.Writer, a *Args) error {
	tps := tpArgs(a, 1)
	if err := a.Err(); err != nil {
		return err
	}
	c, err := s.consumerNamed(a.Pos(0))
	if err != nil {
		return err
	}
	if err := c.Assign(tps); err != nil {
		return err
	}
	v := newConsumerView(a.Pos(0), c)
	v.verb = "assign"
	return s.emit(w, v)
}

func runConsumerSubscribe(s *Session, w io.Writer, a *Args) error {
	c, err := s.consumerNamed(a.Pos(0))
	if err != nil {
		return err
	}
	if err := c.Subscribe(a.Rest(1)); err != nil {
		return err
	}
	v := newConsumerView(a.Pos(0), c)
	v.Stale = s.staleMembers(c.GroupID(), a.Pos(0))
	return s.emit(w, v)
}

func runConsumerRefresh(s *Session, w io.Writer, a *Args) error {
	c, err := s.consumerNamed(a.Pos(0))
	if err != nil {
		return err
	}
	if err := c.RefreshAssignment(); err != nil {
		return err
	}
	return s.emit(w, newConsumerView(a.Pos(0), c))
}

// consumerList is the result of consumer list.
type consumerList struct {
	Consumers []consumerView `json:"consumers"`
}

func (l consumerList) writeText(w io.Writer, _ *style) error {
	if len(l.Consumers) == 0 {
		_, err := fmt.Fprintln(w, "(no consumers; consumer create NAME makes one)")
		return err
	}
	var rows [][]string
	for _, v := range l.Consumers {
		gen, state := "-", "open"
		if v.Generation != nil {
			gen = fmt.Sprint(*v.Generation)
		}
		if v.Closed {
			state = "closed"
		}
		rows = append(rows, []string{v.Name, v.MemberID, v.Group, gen, strings.Join(v.Assignment, ","), strings.Join(positionTexts(v.Positions), ","), state})
	}
	return renderTable(w, []string{"NAME", "MEMBER-ID", "GROUP", "GENERATION", "ASSIGNMENT", "POSITIONS", "STATE"}, rows)
}

func runConsumerList(s *Session, w io.Writer, a *Args) error {
	res := consumerList{Consumers: []consumerView{}}
	for _, c := range s.consumers {
		res.Consumers = append(res.Consumers, newConsumerView(c.name, c.c))
	}
	return s.emit(w, res)
}
