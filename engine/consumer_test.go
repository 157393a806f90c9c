package engine_test

import (
	"errors"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
)

func (f *fixture) produce(topicName string, partition int32, values ...string) {
	f.t.Helper()
	for _, v := range values {
		if _, err := f.c.Produce(topicName, partition, rec(v), engine.Acks1); err != nil {
			f.t.Fatalf("produce %s: %v", v, err)
		}
	}
}

func (f *fixture) poll(con *engine.Consumer, max int) []engine.StoredRecord {
	f.t.Helper()
	recs, err := con.Poll(max)
	if err != nil {
		f.t.Fatalf("poll %s: %v", con.MemberID(), err)
	}
	return recs
}

func offsetsOf(recs []engine.StoredRecord) []int64 {
	out := []int64{}
	for _, r := range recs {
		out = append(out, r.Offset)
	}
	return out
}

func valuesOf(recs []engine.StoredRecord) []string {
	out := []string{}
	for _, r := range recs {
		out = append(out, string(r.Value))
	}
	return out
}

func (f *fixture) assign(con *engine.Consumer, tps ...engine.TopicPartition) {
	f.t.Helper()
	if err := con.Assign(tps); err != nil {
		f.t.Fatalf("assign: %v", err)
	}
}

func (f *fixture) position(con *engine.Consumer, p engine.TopicPartition) int64 {
	f.t.Helper()
	o, err := con.Position(p)
	if err != nil {
		f.t.Fatalf("position: %v", err)
	}
	return o
}

func (f *fixture) lag(con *engine.Consumer, p engine.TopicPartition) int64 {
	f.t.Helper()
	o, err := con.Lag(p)
	if err != nil {
		f.t.Fatalf("lag: %v", err)
	}
	return o
}

func (f *fixture) commit(con *engine.Consumer) {
	f.t.Helper()
	if err := con.Commit(); err != nil {
		f.t.Fatalf("commit %s: %v", con.MemberID(), err)
	}
}

func (f *fixture) committed(groupID string, p engine.TopicPartition) (int64, bool) {
	f.t.Helper()
	o, ok, err := f.c.CommittedOffset(groupID, p)
	if err != nil {
		f.t.Fatal(err)
	}
	return o, ok
}

// CO1: position vs commit.
func TestCO1PositionVersusCommit(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 1, 1)
	f.produce("t", 0, "0", "1", "2")
	p := tp("t", 0)
	con := f.consumer("g", nil)
	f.assign(con, p)
	wantInts(t, "poll(2)", offsetsOf(f.poll(con, 2)), []int64{0, 1})
	if f.position(con, p) != 2 || f.lag(con, p) != 1 {
		t.Fatalf("position %d lag %d", f.position(con, p), f.lag(con, p))
	}
	if _, ok, _ := con.Committed(p); ok {
		t.Fatal("committed before commit")
	}
	f.commit(con)
	if o, ok, _ := con.Committed(p); !ok || o != 2 {
		t.Fatalf("committed %d %v", o, ok)
	}
	if err := con.Seek(p, 0); err != nil {
		t.Fatal(err)
	}
	wantInts(t, "after seek", offsetsOf(f.poll(con, 1)), []int64{0})
}

// CO2: latest starts at the HW.
func TestCO2Latest(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 1, 1)
	f.produce("t", 0, "old")
	con := f.consumer("g", func(o *engine.ConsumerOptions) { o.AutoOffsetReset = engine.ResetLatest })
	f.assign(con, tp("t", 0))
	if recs := f.poll(con, 1); len(recs) != 0 || f.position(con, tp("t", 0)) != 1 {
		t.Fatalf("poll %v position %d", recs, f.position(con, tp("t", 0)))
	}
}

// CO3: the budget is shared across partitions; §11.1's budget example.
func TestCO3SharedBudget(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 2, 1)
	f.produce("t", 0, "a")
	f.produce("t", 1, "b")
	con := f.consumer("g", nil)
	f.assign(con, tp("t", 1), tp("t", 0), tp("t", 0))
	wantStrings(t, "assignment", tpNames(con.Assignment()), []string{"t-0", "t-1"})
	if recs := f.poll(con, 1); len(recs) != 1 {
		t.Fatalf("poll(1) gave %d records", len(recs))
	}

	g := open(t, []int32{1}, nil)
	g.topic("a", 1, 1)
	g.topic("e", 2, 1)
	g.produce("a", 0, "a0")
	g.produce("e", 0, "e0", "e1", "e2")
	g.produce("e", 1, "x")
	sub := g.consumer("g", nil)
	g.subscribe(sub, "a", "e")
	wantStrings(t, "assignment", tpNames(sub.Assignment()), []string{"a-0", "e-0", "e-1"})
	recs := g.poll(sub, 4)
	wantStrings(t, "poll(4)", valuesOf(recs), []string{"a0", "e0", "e1", "e2"})
	if _, err := sub.Position(tp("e", 1)); !errors.Is(err, kerr.InvalidArgument) {
		t.Fatalf("e-1 got a position: %v", err)
	}
	if recs := g.poll(sub, 0); len(recs) != 0 {
		t.Fatal("poll(0) returned records")
	}
	if _, err := sub.Position(tp("e", 1)); !errors.Is(err, kerr.InvalidArgument) {
		t.Fatal("poll(0) initialized a position")
	}
}

// CO4 (at-least-once): process before commit replays after a failure.
func TestCO4ProcessBeforeCommitReplays(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 1, 1)
	f.produce("t", 0, "work")
	a := f.consumer("g", nil)
	f.assign(a, tp("t", 0))
	wantInts(t, "a", offsetsOf(f.poll(a, 10)), []int64{0})
	// a crashes before committing; b takes over
	b := f.consumer("g", nil)
	f.assign(b, tp("t", 0))
	wantInts(t, "b replays", offsetsOf(f.poll(b, 10)), []int64{0})
}

// CO5 (at-most-once): commit before process skips after a failure.
func TestCO5CommitBeforeProcessSkips(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 1, 1)
	f.produce("t", 0, "work")
	a := f.consumer("g", nil)
	f.assign(a, tp("t", 0))
	f.poll(a, 10)
	f.commit(a)
	// a crashes before processing "work": it is lost for the group
	b := f.consumer("g", nil)
	f.assign(b, tp("t", 0))
	if recs := f.poll(b, 10); len(recs) != 0 {
		t.Fatalf("b read %v", valuesOf(recs))
	}
}

// CO6: committed offsets survive a restart.
func TestCO6OffsetsSurviveRestart(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 1, 1)
	f.produce("t", 0, "x")
	a := f.consumer("g", nil)
	f.assign(a, tp("t", 0))
	f.poll(a, 10)
	f.commit(a)
	f.restart()
	b := f.consumer("g", nil)
	f.assign(b, tp("t", 0))
	if o, ok, _ := b.Committed(tp("t", 0)); !ok || o != 1 {
		t.Fatalf("committed %d %v", o, ok)
	}
	if recs := f.poll(b, 10); len(recs) != 0 {
		t.Fatalf("b read %v", valuesOf(recs))
	}
}

// §11.1 observed: a committed offset below the log start resets (earliest)
// to the log start.
func TestRetentionResetsToLogStart(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, func(c *engine.Config) { c.SegmentBytes = 1 })
	f.topic("t", 1, 1)
	f.produce("t", 0, "0", "1", "2", "3")
	p := tp("t", 0)
	a := f.consumer("g", nil)
	f.assign(a, p)
	f.poll(a, 1)
	f.commit(a)
	l, err := f.c.LeaderLog(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.ApplyRetention(f.c.Now(), -1, 1); err != nil {
		t.Fatal(err)
	}
	if l.LogStartOffset() != 3 {
		t.Fatalf("log start %d", l.LogStartOffset())
	}
	b := f.consumer("g", nil)
	f.assign(b, p)
	wantInts(t, "after reset", offsetsOf(f.poll(b, 10)), []int64{3})

	c := f.consumer("g", func(o *engine.ConsumerOptions) { o.AutoOffsetReset = engine.ResetError })
	f.assign(c, p)
	_, err = c.Poll(10)
	wantCode(t, err, kerr.OffsetOutOfRange, "offset 1 outside retained range [3, 4]")
}

func TestResetErrorWithoutCommit(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 1, 1)
	f.produce("t", 0, "x")
	con := f.consumer("g", func(o *engine.ConsumerOptions) { o.AutoOffsetReset = engine.ResetError })
	f.assign(con, tp("t", 0))
	_, err := con.Poll(1)
	wantCode(t, err, kerr.OffsetOutOfRange, "offset -1 outside retained range [0, 1]")
}

func TestConsumerArgumentErrors(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 1, 1)
	_, err := f.c.NewConsumer(engine.ConsumerOptions{})
	wantCode(t, err, kerr.InvalidArgument, "group id")
	_, err = f.c.NewConsumer(engine.ConsumerOptions{GroupID: "g", AutoOffsetReset: "middle"})
	wantCode(t, err, kerr.InvalidArgument, "auto.offset.reset")
	con := f.consumer("g", nil)
	wantCode(t, con.Assign([]engine.TopicPartition{tp("nope", 0)}), kerr.UnknownTopic, "")
	wantCode(t, con.Assign([]engine.TopicPartition{tp("t", 5)}), kerr.UnknownPartition, "")
	wantCode(t, con.Heartbeat(), kerr.InvalidArgument, "consumer has not joined a group")
	wantCode(t, con.Seek(tp("t", 0), 0), kerr.InvalidArgument, "t-0 is not assigned")
	f.assign(con, tp("t", 0))
	wantCode(t, con.Seek(tp("t", 0), -1), kerr.InvalidArgument, "")
	_, err = con.Position(tp("t", 0))
	wantCode(t, err, kerr.InvalidArgument, "not initialized")
	_, err = con.Poll(-1)
	wantCode(t, err, kerr.InvalidArgument, "")
	sub := f.consumer("g2", nil)
	f.subscribe(sub, "t")
	wantCode(t, sub.Assign([]engine.TopicPartition{tp("t", 0)}), kerr.InvalidArgument, "cannot directly assign a subscribed consumer")
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = sub.Poll(1)
	wantCode(t, err, kerr.IllegalState, "consumer is closed")
	if err := sub.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
}

// A seek beyond the log end is handled at the next poll: earliest resets to
// the log start.
func TestSeekOutOfRangeResets(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 1, 1)
	f.produce("t", 0, "a", "b")
	con := f.consumer("g", nil)
	f.assign(con, tp("t", 0))
	if err := con.Seek(tp("t", 0), 99); err != nil {
		t.Fatal(err)
	}
	wantStrings(t, "after reset", valuesOf(f.poll(con, 10)), []string{"a", "b"})
}

// A consumer never reads beyond the HW: with acks=all not yet replicated
// the record is in the leader log but not visible.
func TestConsumerStopsAtHW(t *testing.T) {
	t.Parallel()
	f := open(t, two, nil)
	f.topic("t", 1, 2)
	if _, err := f.c.Produce("t", 0, rec("x"), engine.Acks1); err != nil {
		t.Fatal(err)
	}
	con := f.consumer("g", nil)
	f.assign(con, tp("t", 0))
	if recs := f.poll(con, 10); len(recs) != 0 || f.lag(con, tp("t", 0)) != 0 {
		t.Fatalf("read beyond the HW: %v", valuesOf(recs))
	}
	f.replicate(nil)
	wantStrings(t, "after replication", valuesOf(f.poll(con, 10)), []string{"x"})
}

// Decision 31: consumers and groups are guarded like everything else.
func TestConsumersAfterClose(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 1, 1)
	con := f.consumer("g", nil)
	if err := f.c.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := f.c.NewConsumer(engine.ConsumerOptions{GroupID: "g"})
	wantCode(t, err, kerr.IllegalState, "cluster is closed")
	_, err = f.c.ListGroups()
	wantCode(t, err, kerr.IllegalState, "cluster is closed")
	_, err = con.Poll(1)
	wantCode(t, err, kerr.IllegalState, "cluster is closed")
	wantCode(t, f.c.BeginTransaction("t1"), kerr.IllegalState, "cluster is closed")
	if !con.Closed() {
		t.Fatal("close did not close the consumer")
	}
}

// Decision 42 (issue 18's script): `consumer refresh` of a consumer that
// never joined asks the coordinator like any refresh (§11.1), which answers
// UNKNOWN_MEMBER: `unknown group G` while the group does not exist, the
// member id once it does. Heartbeat keeps its argument error. Nothing
// changes: the consumer stays unjoined and can still be assigned by hand.
//
//	cluster open brokers=1
//	topic create b partitions=1 rf=1
//	consumer create c1 group=g1
//	consumer refresh c1
func TestRefreshBeforeJoinIsUnknownMemberDecision42(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("b", 1, 1)
	c1 := f.consumer("g1", nil)
	wantCode(t, c1.RefreshAssignment(), kerr.UnknownMember, "unknown group g1")
	c2 := f.consumer("g1", nil)
	f.subscribe(c2, "b")
	wantCode(t, c1.RefreshAssignment(), kerr.UnknownMember, "unknown member member-1 in group g1")
	wantCode(t, c1.Heartbeat(), kerr.InvalidArgument, "consumer has not joined a group")
	if gen, joined := c1.Generation(); joined || gen != 0 || len(c1.Assignment()) != 0 {
		t.Fatalf("after the refused refresh: generation %d joined %v assignment %v", gen, joined, c1.Assignment())
	}
	f.assign(c1, tp("b", 0))
	wantCode(t, c1.RefreshAssignment(), kerr.UnknownMember, "unknown member member-1 in group g1")
	wantStrings(t, "manual assignment", tpNames(c1.Assignment()), []string{"b-0"})
}
