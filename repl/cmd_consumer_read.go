package repl

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// The consumer subcommands that read and commit: poll, seek, position,
// committed, lag, commit, heartbeat, close.

// polled is the result of consumer poll.
type polled struct {
	Consumer  string          `json:"consumer"`
	Records   []jsonRecord    `json:"records"`
	Positions []positionEntry `json:"positions"`
	lines     []string
}

func (p polled) writeText(w io.Writer, _ *style) error {
	for _, l := range p.lines {
		fmt.Fprintln(w, l)
	}
	_, err := fmt.Fprintf(w, "(%s; positions %s)\n", plural(len(p.Records), "record", "records"), listOrNone(positionTexts(p.Positions)))
	return err
}

func runConsumerPoll(s *Session, w io.Writer, a *Args) error {
	max := a.Int("max", 100, 0, math.MaxInt32)
	if err := a.Err(); err != nil {
		return err
	}
	nc, err := s.consumerEntry(a.Pos(0))
	if err != nil {
		return err
	}
	c := nc.c
	recs, err := c.Poll(int(max))
	nc.polled += int64(len(recs))
	if err != nil {
		return err
	}
	res := polled{Consumer: a.Pos(0), Records: []jsonRecord{}, Positions: newConsumerView(a.Pos(0), c).Positions}
	for _, r := range recs {
		res.Records = append(res.Records, newJSONRecord(r.Offset, r.Record))
		res.lines = append(res.lines, recordLine(engine.TopicPartition{Topic: r.Topic, Partition: r.Partition}.String(), r.Offset, r.Record))
	}
	return s.emit(w, res)
}

func runConsumerSeek(s *Session, w io.Writer, a *Args) error {
	tp := a.TP(1)
	var off int64
	switch {
	case a.Len() > 2 && a.Has("offset"):
		a.fail("give the offset once: consumer seek C TP 5, or consumer seek C TP offset=5")
	case a.Len() > 2:
		off = a.PosInt(2, "OFFSET", math.MinInt64, math.MaxInt64)
	case a.Has("offset"):
		off = a.Int("offset", 0, math.MinInt64, math.MaxInt64)
	default:
		a.fail("missing OFFSET: consumer seek C TP 5, or consumer seek C TP offset=5")
	}
	if err := a.Err(); err != nil {
		return err
	}
	c, err := s.consumerNamed(a.Pos(0))
	if err != nil {
		return err
	}
	return c.Seek(tp, off)
}

// offsetList is the result of consumer position, committed and lag.
type offsetList struct {
	Consumer string        `json:"consumer"`
	What     string        `json:"what"`
	Offsets  []offsetEntry `json:"offsets"`
}

type offsetEntry struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Value     *int64 `json:"value"` // null: nothing committed / not initialized
}

func (l offsetList) writeText(w io.Writer, _ *style) error {
	if len(l.Offsets) == 0 {
		_, err := fmt.Fprintf(w, "%s has no partitions assigned\n", l.Consumer)
		return err
	}
	for _, e := range l.Offsets {
		v := "none"
		if e.Value != nil {
			v = fmt.Sprint(*e.Value)
		}
		fmt.Fprintf(w, "%s-%d %s %s\n", e.Topic, e.Partition, l.What, v)
	}
	return nil
}

// consumerOffsets builds position, committed or lag for one partition (TP
// given) or every assigned one.
func (s *Session) consumerOffsets(w io.Writer, a *Args, what string, get func(*engine.Consumer, engine.TopicPartition) (*int64, error)) error {
	var tps []engine.TopicPartition
	if a.Len() > 1 {
		tps = []engine.TopicPartition{a.TP(1)}
	}
	if err := a.Err(); err != nil {
		return err
	}
	c, err := s.consumerNamed(a.Pos(0))
	if err != nil {
		return err
	}
	if tps == nil {
		tps = c.Assignment()
	}
	res := offsetList{Consumer: a.Pos(0), What: what, Offsets: []offsetEntry{}}
	for _, tp := range tps {
		v, err := get(c, tp)
		if err != nil {
			return err
		}
		res.Offsets = append(res.Offsets, offsetEntry{Topic: tp.Topic, Partition: tp.Partition, Value: v})
	}
	return s.emit(w, res)
}

func runConsumerPosition(s *Session, w io.Writer, a *Args) error {
	return s.consumerOffsets(w, a, "position", func(c *engine.Consumer, tp engine.TopicPartition) (*int64, error) {
		if a.Len() == 1 { // every assigned partition: uninitialized ones print none
			for _, p := range c.Positions() {
				if p.TP == tp {
					o := p.Offset
					return &o, nil
				}
			}
			return nil, nil
		}
		o, err := c.Position(tp)
		return &o, err
	})
}

func runConsumerCommitted(s *Session, w io.Writer, a *Args) error {
	return s.consumerOffsets(w, a, "committed", func(c *engine.Consumer, tp engine.TopicPartition) (*int64, error) {
		o, ok, err := c.Committed(tp)
		if err != nil || !ok {
			return nil, err
		}
		return &o, nil
	})
}

func runConsumerLag(s *Session, w io.Writer, a *Args) error {
	return s.consumerOffsets(w, a, "lag", func(c *engine.Consumer, tp engine.TopicPartition) (*int64, error) {
		if a.Len() == 1 {
			if _, err := c.Position(tp); err != nil {
				return nil, nil // not initialized: no lag to speak of yet
			}
		}
		o, err := c.Lag(tp)
		return &o, err
	})
}

// committedResult is the result of consumer commit.
type committedResult struct {
	Consumer string          `json:"consumer"`
	Group    string          `json:"group"`
	Offsets  []positionEntry `json:"offsets"`
}

func (r committedResult) writeText(w io.Writer, _ *style) error {
	parts := positionTexts(r.Offsets)
	if len(parts) == 0 {
		_, err := fmt.Fprintf(w, "%s has no positions to commit (poll first)\n", r.Consumer)
		return err
	}
	_, err := fmt.Fprintf(w, "group %s committed %s\n", r.Group, strings.Join(parts, " "))
	return err
}

// tpOffsets reads the TP=OFFSET pairs of consumer commit and txn offsets
// (orders-0=5), leaving out the key skip; notTP is the message for a key
// that is not a partition (%s is the key).
func tpOffsets(a *Args, skip, notTP string) map[engine.TopicPartition]int64 {
	offsets := map[engine.TopicPartition]int64{}
	for _, p := range a.Pairs() {
		if p.Key == skip {
			continue
		}
		tp, err := topic.Parse(p.Key)
		if err != nil {
			a.fail(notTP, p.Key)
			break
		}
		n, err := parseInt(p.Value, 0, math.MaxInt64)
		if err != nil {
			a.fail("%s: %v", p.Key, err)
			break
		}
		offsets[tp] = n
	}
	return offsets
}

func runConsumerCommit(s *Session, w io.Writer, a *Args) error {
	offsets := tpOffsets(a, "", "%s= is not a partition such as orders-0=5")
	if err := a.Err(); err != nil {
		return err
	}
	c, err := s.consumerNamed(a.Pos(0))
	if err != nil {
		return err
	}
	if len(offsets) == 0 {
		if err := c.Commit(); err != nil {
			return err
		}
		return s.emit(w, committedResult{Consumer: a.Pos(0), Group: c.GroupID(), Offsets: newConsumerView(a.Pos(0), c).Positions})
	}
	if err := s.commitOffsets(c, offsets); err != nil {
		return err
	}
	res := committedResult{Consumer: a.Pos(0), Group: c.GroupID(), Offsets: []positionEntry{}}
	for _, tp := range sortedTPs(offsets) {
		res.Offsets = append(res.Offsets, positionEntry{Topic: tp.Topic, Partition: tp.Partition, Offset: offsets[tp]})
	}
	return s.emit(w, res)
}

// commitOffsets commits explicit offsets for a consumer exactly as
// Consumer.Commit commits its positions: a group member through the
// coordinator, fenced by its generation and assignment; a hand-assigned
// consumer straight into its group's offsets. Every partition must exist.
func (s *Session) commitOffsets(c *engine.Consumer, offsets map[engine.TopicPartition]int64) error {
	if c.Closed() {
		return kerr.State("consumer is closed")
	}
	for _, tp := range sortedTPs(offsets) {
		if _, err := s.cluster.PartitionState(tp); err != nil {
			return err
		}
	}
	return c.CommitOffsets(offsets)
}

// assignmentView is the result of consumer assignment: the consumer's own
// view next to the coordinator's.
type assignmentView struct {
	Consumer   string   `json:"consumer"`
	MemberID   string   `json:"member_id"`
	Group      string   `json:"group"`
	Generation *int32   `json:"generation"` // null: not a group member
	Assignment []string `json:"assignment"`
	// The group's view, for a member: its current generation and what it
	// assigns this member now (null when the member is gone).
	GroupGeneration *int32   `json:"group_generation"`
	GroupAssignment []string `json:"group_assignment"`
	Stale           bool     `json:"stale"`
}

func (v assignmentView) writeText(w io.Writer, _ *style) error {
	if v.Generation == nil {
		_, err := fmt.Fprintf(w, "%s holds %s (assigned by hand, no group generation)\n", v.Consumer, listOrNone(v.Assignment))
		return err
	}
	fmt.Fprintf(w, "%s (%s) holds %s in generation %d", v.Consumer, v.MemberID, listOrNone(v.Assignment), *v.Generation)
	switch {
	case v.GroupGeneration == nil:
		fmt.Fprintf(w, "; the group no longer knows %s (consumer subscribe rejoins)\n", v.MemberID)
	case v.Stale:
		fmt.Fprintf(w, "; stale: group %s is at generation %d and gives it %s (consumer refresh %s)\n",
			v.Group, *v.GroupGeneration, listOrNone(v.GroupAssignment), v.Consumer)
	default:
		fmt.Fprintf(w, "; up to date with group %s\n", v.Group)
	}
	return nil
}

func runConsumerAssignment(s *Session, w io.Writer, a *Args) error {
	c, err := s.consumerNamed(a.Pos(0))
	if err != nil {
		return err
	}
	v := assignmentView{Consumer: a.Pos(0), MemberID: c.MemberID(), Group: c.GroupID(), Assignment: tpNames(c.Assignment())}
	gen, joined := c.Generation()
	if !joined {
		return s.emit(w, v)
	}
	v.Generation = &gen
	if d, err := s.cluster.DescribeGroup(c.GroupID()); err == nil {
		for _, m := range d.Members {
			if m.MemberID == c.MemberID() {
				g := d.Generation
				v.GroupGeneration, v.GroupAssignment = &g, tpNames(m.Assignment)
				v.Stale = g != gen || !slices.Equal(v.Assignment, v.GroupAssignment)
			}
		}
	}
	return s.emit(w, v)
}

func runConsumerHeartbeat(s *Session, w io.Writer, a *Args) error {
	c, err := s.consumerNamed(a.Pos(0))
	if err != nil {
		return err
	}
	return c.Heartbeat()
}

// closedConsumer is the result of consumer close.
type closedConsumer struct {
	Consumer string        `json:"consumer"`
	MemberID string        `json:"member_id"`
	Group    string        `json:"group"`
	Left     bool          `json:"left_group"`
	Stale    []staleMember `json:"stale_members,omitempty"`
}

func (r closedConsumer) writeText(w io.Writer, _ *style) error {
	if r.Left {
		fmt.Fprintf(w, "%s (%s) left group %s, which rebalanced\n", r.Consumer, r.MemberID, r.Group)
	} else {
		fmt.Fprintf(w, "%s closed\n", r.Consumer)
	}
	writeStale(w, r.Stale)
	return nil
}

func runConsumerClose(s *Session, w io.Writer, a *Args) error {
	c, err := s.consumerNamed(a.Pos(0))
	if err != nil {
		return err
	}
	_, joined := c.Generation()
	joined = joined && !c.Closed()
	if err := c.Close(); err != nil {
		return err
	}
	res := closedConsumer{Consumer: a.Pos(0), MemberID: c.MemberID(), Group: c.GroupID(), Left: joined}
	if joined {
		res.Stale = s.staleMembers(c.GroupID(), a.Pos(0))
	}
	return s.emit(w, res)
}
