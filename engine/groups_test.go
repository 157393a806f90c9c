package engine_test

import (
	"slices"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/group"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/producer"
)

func (f *fixture) consumer(groupID string, tweak func(*engine.ConsumerOptions)) *engine.Consumer {
	f.t.Helper()
	opts := engine.ConsumerOptions{GroupID: groupID}
	if tweak != nil {
		tweak(&opts)
	}
	con, err := f.c.NewConsumer(opts)
	if err != nil {
		f.t.Fatalf("consumer: %v", err)
	}
	return con
}

func (f *fixture) subscribe(con *engine.Consumer, topics ...string) {
	f.t.Helper()
	if err := con.Subscribe(topics); err != nil {
		f.t.Fatalf("subscribe %s: %v", con.MemberID(), err)
	}
}

func (f *fixture) refresh(con *engine.Consumer) {
	f.t.Helper()
	if err := con.RefreshAssignment(); err != nil {
		f.t.Fatalf("refresh %s: %v", con.MemberID(), err)
	}
}

func tpNames(tps []engine.TopicPartition) []string {
	out := []string{}
	for _, p := range tps {
		out = append(out, p.String())
	}
	return out
}

func overlap(a, b []engine.TopicPartition) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// §16.2, the rebalance lab's landmarks: member 1 owns orders-0..3; after
// member 2 joins it owns orders-1 and orders-3 while member 1's local view is
// stale; after a refresh there is no overlap; after member 2 leaves, member 1
// owns everything again.
func TestRebalanceLab(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("orders", 4, 1)
	m1, m2 := f.consumer("workers", nil), f.consumer("workers", nil)
	if m1.MemberID() != "member-1" || m2.MemberID() != "member-2" {
		t.Fatalf("member ids %s %s", m1.MemberID(), m2.MemberID())
	}
	all := []string{"orders-0", "orders-1", "orders-2", "orders-3"}
	f.subscribe(m1, "orders")
	if gen, _ := m1.Generation(); gen != 1 {
		t.Fatalf("generation %d", gen)
	}
	wantStrings(t, "member 1", tpNames(m1.Assignment()), all)
	f.subscribe(m2, "orders")
	wantStrings(t, "member 2", tpNames(m2.Assignment()), []string{"orders-1", "orders-3"})
	wantStrings(t, "member 1 local view before refresh", tpNames(m1.Assignment()), all)
	if gen, _ := m2.Generation(); gen != 2 {
		t.Fatalf("generation %d", gen)
	}
	f.refresh(m1)
	wantStrings(t, "member 1", tpNames(m1.Assignment()), []string{"orders-0", "orders-2"})
	if overlap(m1.Assignment(), m2.Assignment()) {
		t.Fatal("overlap after refresh")
	}
	if err := m2.Close(); err != nil {
		t.Fatal(err)
	}
	f.refresh(m1)
	wantStrings(t, "member 1", tpNames(m1.Assignment()), all)
	d, err := f.c.DescribeGroup("workers")
	if err != nil || d.Generation != 3 || d.State != group.Stable || len(d.Members) != 1 {
		t.Fatalf("describe %+v %v", d, err)
	}
}

// G4: two cluster consumers subscribe; after the first refreshes, each
// holds two partitions, disjoint.
func TestG4ClusterConsumers(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("orders", 4, 1)
	a, b := f.consumer("g", nil), f.consumer("g", nil)
	f.subscribe(a, "orders")
	f.subscribe(b, "orders")
	f.refresh(a)
	if len(a.Assignment()) != 2 || len(b.Assignment()) != 2 || overlap(a.Assignment(), b.Assignment()) {
		t.Fatalf("a %v b %v", a.Assignment(), b.Assignment())
	}
	err := a.Subscribe([]string{"nope"})
	wantCode(t, err, kerr.InvalidArgument, "unknown subscribed topics: ['nope']")
	wantStrings(t, "subscriptions after a failed subscribe", a.Subscriptions(), []string{"orders"})
}

// §11.4: a member with a stale local view commits with its old generation
// and is fenced.
func TestNoRevokeBarrierStaleCommitFenced(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("orders", 4, 1)
	for p := int32(0); p < 4; p++ {
		f.produce("orders", p, "v")
	}
	m1, m2 := f.consumer("workers", nil), f.consumer("workers", nil)
	f.subscribe(m1, "orders")
	if n := len(f.poll(m1, 10)); n != 4 {
		t.Fatalf("m1 read %d", n)
	}
	f.subscribe(m2, "orders")
	wantCode(t, m1.Commit(), kerr.IllegalGeneration, "generation 1 does not match 2")
	f.refresh(m1)
	f.commit(m1) // only its own partitions' positions are left
	if o, ok := f.committed("workers", tp("orders", 0)); !ok || o != 1 {
		t.Fatalf("orders-0 committed %d %v", o, ok)
	}
	if _, ok := f.committed("workers", tp("orders", 1)); ok {
		t.Fatal("m1 committed a partition it no longer owns")
	}
}

// G2 and G3 through the cluster: Advance runs session expiry after the ISR
// refresh; a heartbeat keeps a member; expired members are reported in one
// event per group and then get UNKNOWN_MEMBER.
func TestSessionExpiryInAdvance(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, func(c *engine.Config) { c.SessionTimeoutMs = 100 })
	f.topic("orders", 2, 1)
	a, b := f.consumer("g", nil), f.consumer("g", nil)
	f.subscribe(a, "orders")
	f.subscribe(b, "orders")
	f.c.TakeEvents()
	f.advance(80)
	if err := b.Heartbeat(); err != nil {
		t.Fatal(err)
	}
	f.advance(20) // t=100: a's deadline, not past it
	if evs := membersExpired(f.c.TakeEvents()); len(evs) != 0 {
		t.Fatalf("expired at the deadline: %v", evs)
	}
	f.advance(1)
	evs := membersExpired(f.c.TakeEvents())
	if len(evs) != 1 || evs[0].Group != "g" || len(evs[0].Members) != 1 || evs[0].Members[0] != "member-1" || evs[0].Generation != 3 {
		t.Fatalf("events %+v", evs)
	}
	wantCode(t, a.Heartbeat(), kerr.IllegalGeneration, "")
	wantCode(t, a.RefreshAssignment(), kerr.UnknownMember, "")
	f.refresh(b)
	if len(b.Assignment()) != 2 {
		t.Fatalf("b %v", b.Assignment())
	}
	f.advance(81)
	d, _ := f.c.DescribeGroup("g")
	if d.State != group.Empty || d.Generation != 4 {
		t.Fatalf("after b expired: %+v", d)
	}
	f.c.TakeEvents()
	// session.timeout.ms applies at once
	if _, err := f.c.SetConfig("session.timeout.ms", "5"); err != nil {
		t.Fatal(err)
	}
	f.subscribe(b, "orders")
	f.advance(6)
	if evs := membersExpired(f.c.TakeEvents()); len(evs) != 1 {
		t.Fatalf("with session.timeout.ms=5: %+v", evs)
	}
}

func membersExpired(evs []engine.Event) []engine.MembersExpired {
	var out []engine.MembersExpired
	for _, e := range evs {
		if m, ok := e.(engine.MembersExpired); ok {
			out = append(out, m)
		}
	}
	return out
}

// Decision 26: a crash sends no LeaveGroup. After a restart the members are
// still in the group, and they leave only when session.timeout.ms passes
// without a heartbeat. A graceful close makes them leave at once.
func TestCrashKeepsMembersUntilSessionExpiry(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, func(c *engine.Config) { c.SessionTimeoutMs = 100 })
	f.topic("orders", 2, 1)
	a, b := f.consumer("g", nil), f.consumer("g", nil)
	f.subscribe(a, "orders")
	f.subscribe(b, "orders")
	if err := f.c.Crash(); err != nil {
		t.Fatal(err)
	}
	if !a.Closed() {
		t.Fatal("crash left the consumer open")
	}
	f.reopen()
	d, err := f.c.DescribeGroup("g")
	if err != nil || d.State != group.Stable || len(d.Members) != 2 || d.Generation != 2 {
		t.Fatalf("after crash and restart: %+v %v", d, err)
	}
	c := f.consumer("g", nil)
	if c.MemberID() != "member-3" {
		t.Fatalf("new consumer took id %s", c.MemberID())
	}
	f.advance(101)
	if evs := membersExpired(f.c.TakeEvents()); len(evs) != 1 || len(evs[0].Members) != 2 {
		t.Fatalf("expiry events %+v", evs)
	}
	f.subscribe(c, "orders")
	f.restart() // graceful: c leaves
	d, _ = f.c.DescribeGroup("g")
	if d.State != group.Empty || len(d.Members) != 0 {
		t.Fatalf("after close and restart: %+v", d)
	}
	if con := f.consumer("g", nil); con.MemberID() != "member-1" {
		t.Fatalf("numbering after a clean close: %s", con.MemberID())
	}
}

// `group describe`: kafka-consumer-groups' rows with committed offset,
// log-end offset (HW), lag and owner; `group list`.
func TestDescribeGroupRows(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("orders", 2, 1)
	f.produce("orders", 0, "a", "b", "c")
	f.produce("orders", 1, "d")
	con := f.consumer("workers", nil)
	f.subscribe(con, "orders")
	f.poll(con, 2)
	f.commit(con)
	manual := f.consumer("audit", nil)
	f.assign(manual, tp("orders", 1))
	f.poll(manual, 1)
	f.commit(manual)
	d, err := f.c.DescribeGroup("workers")
	if err != nil {
		t.Fatal(err)
	}
	want := []engine.GroupPartition{
		{TP: tp("orders", 0), CurrentOffset: 2, LogEndOffset: 3, Lag: 1, ConsumerID: "member-1"},
		{TP: tp("orders", 1), CurrentOffset: -1, LogEndOffset: 1, Lag: -1, ConsumerID: "member-1"},
	}
	if len(d.Partitions) != 2 || d.Partitions[0] != want[0] || d.Partitions[1] != want[1] {
		t.Fatalf("rows %+v", d.Partitions)
	}
	if d.State.KafkaName() != "Stable" || d.Members[0].MemberID != "member-1" {
		t.Fatalf("describe %+v", d)
	}
	list, err := f.c.ListGroups()
	if err != nil || len(list) != 2 || list[0].GroupID != "audit" || list[0].State != group.Empty || list[1].Members != 1 {
		t.Fatalf("list %+v %v", list, err)
	}
	_, err = f.c.DescribeGroup("nope")
	wantCode(t, err, kerr.UnknownMember, "unknown group nope")
}

// F1, the consumer-group parts, end to end: idempotent acks=all producer,
// replicate, a subscribed consumer reads and commits, its session expires,
// a second consumer takes the partition over, a promotion, and a restart
// that keeps both the committed offset and the new leader.
func TestFinalAcceptanceF1(t *testing.T) {
	t.Parallel()
	f := open(t, two, func(c *engine.Config) { c.MinInsyncReplicas = 2; c.SessionTimeoutMs = 10 })
	f.topic("orders", 2, 2)
	p := f.producer(func(o *producer.Options) { o.Idempotent, o.BatchSize = true, 1 })
	fut := f.send(p, "orders", engine.AnyPartition, keyed("user-42", "created"))
	f.replicate(nil)
	if fut.State() != engine.Done {
		t.Fatalf("send %v", fut.State())
	}
	md := fut.Value()
	part := tp("orders", md.Partition)
	first := f.consumer("workers", nil)
	f.subscribe(first, "orders")
	wantStrings(t, "poll", valuesOf(f.poll(first, 10)), []string{"created"})
	f.commit(first)
	f.advance(11)
	if len(membersExpired(f.c.TakeEvents())) == 0 {
		t.Fatal("nobody expired")
	}
	second := f.consumer("workers", nil)
	f.subscribe(second, "orders")
	if !slices.Contains(second.Assignment(), part) {
		t.Fatalf("%s not in %v", part, second.Assignment())
	}
	pm, _ := f.c.PartitionMetadata(part)
	other := pm.Replicas[0]
	if other == pm.Leader {
		other = pm.Replicas[1]
	}
	if err := f.c.Promote(part, other); err != nil {
		t.Fatal(err)
	}
	f.restart()
	if o, ok := f.committed("workers", part); !ok || o != md.Offset+1 {
		t.Fatalf("committed %d %v, want %d", o, ok, md.Offset+1)
	}
	if st := f.state(part); st.Leader != other {
		t.Fatalf("leader %d, want %d", st.Leader, other)
	}
}
