package repl

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/minikafka-lab/minikafka/engine"
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
	var pos []string
	for _, e := range p.Positions {
		pos = append(pos, fmt.Sprintf("%s-%d=%d", e.Topic, e.Partition, e.Offset))
	}
	_, err := fmt.Fprintf(w, "(%s; positions %s)\n", plural(len(p.Records), "record", "records"), listOrNone(pos))
	return err
}

func runConsumerPoll(s *Session, w io.Writer, a *Args) error {
	max := a.Int("max", 100, 0, math.MaxInt32)
	if err := a.Err(); err != nil {
		return err
	}
	c, err := s.consumerNamed(a.Pos(0))
	if err != nil {
		return err
	}
	recs, err := c.Poll(int(max))
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
	off := a.PosInt(2, "OFFSET", math.MinInt64, math.MaxInt64)
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
	var parts []string
	for _, e := range r.Offsets {
		parts = append(parts, fmt.Sprintf("%s-%d=%d", e.Topic, e.Partition, e.Offset))
	}
	if len(parts) == 0 {
		_, err := fmt.Fprintf(w, "%s has no positions to commit (poll first)\n", r.Consumer)
		return err
	}
	_, err := fmt.Fprintf(w, "group %s committed %s\n", r.Group, strings.Join(parts, " "))
	return err
}

func runConsumerCommit(s *Session, w io.Writer, a *Args) error {
	c, err := s.consumerNamed(a.Pos(0))
	if err != nil {
		return err
	}
	if err := c.Commit(); err != nil {
		return err
	}
	return s.emit(w, committedResult{Consumer: a.Pos(0), Group: c.GroupID(), Offsets: newConsumerView(a.Pos(0), c).Positions})
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
	for _, st := range r.Stale {
		fmt.Fprintf(w, "%s (%s) still holds %s from before; the group now gives it %s (consumer refresh %s)\n",
			st.Name, st.MemberID, listOrNone(st.Local), listOrNone(st.Assignment), st.Name)
	}
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
