package group

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/topic"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

type fixture struct {
	clk    *clock.Manual
	topics map[string]int32
	store  *OffsetStore
	c      *Coordinator
}

// newFixture is the G scenarios' setup: session timeout 100 and topic orders
// with the given number of partitions.
func newFixture(t *testing.T, orders int32) *fixture {
	t.Helper()
	store, err := OpenOffsetStore(vfs.NewMem(), OffsetsFileName) // in memory: the coordinator's logic, not the file
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{clk: clock.NewManual(0), topics: map[string]int32{"orders": orders}, store: store}
	f.c = NewCoordinator(f.clk, func() map[string]int32 { return f.topics }, func() int64 { return 100 }, store)
	return f
}

func (f *fixture) join(t *testing.T, g, m string, topics ...string) JoinResult {
	t.Helper()
	r, err := f.c.Join(g, m, topics)
	if err != nil {
		t.Fatalf("join %s/%s: %v", g, m, err)
	}
	return r
}

func (f *fixture) leave(t *testing.T, g, m string) bool {
	t.Helper()
	removed, err := f.c.Leave(g, m)
	if err != nil {
		t.Fatal(err)
	}
	return removed
}

func (f *fixture) expire(t *testing.T) []Expired {
	t.Helper()
	exp, err := f.c.ExpireMembers()
	if err != nil {
		t.Fatal(err)
	}
	return exp
}

func (f *fixture) advance(t *testing.T, ms int64) {
	t.Helper()
	if err := f.clk.Advance(ms); err != nil {
		t.Fatal(err)
	}
}

func wantCode(t *testing.T, err error, code kerr.Code) {
	t.Helper()
	if !errors.Is(err, code) {
		t.Fatalf("got %v, want %s", err, code)
	}
}

func disjoint(a, b []topic.Partition) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// G1: join, join, refresh, leave.
func TestG1JoinAndLeave(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 4)
	a := f.join(t, "g", "a", "orders")
	if len(a.Assignment) != 4 {
		t.Fatalf("a got %v", a.Assignment)
	}
	b := f.join(t, "g", "b", "orders")
	if b.Generation != a.Generation+1 || len(b.Assignment) != 2 {
		t.Fatalf("b got %+v after a %+v", b, a)
	}
	a2, err := f.c.Assignment("g", "a")
	if err != nil {
		t.Fatal(err)
	}
	if len(a2.Assignment) != 2 || !disjoint(a2.Assignment, b.Assignment) {
		t.Fatalf("a %v b %v", a2.Assignment, b.Assignment)
	}
	if !f.leave(t, "g", "b") {
		t.Fatal("leave reported no member removed")
	}
	a3, err := f.c.Assignment("g", "a")
	if err != nil {
		t.Fatal(err)
	}
	if len(a3.Assignment) != 4 {
		t.Fatalf("a after b left: %v", a3.Assignment)
	}
	if st, _ := f.c.State("g"); st != Stable {
		t.Fatalf("state %v", st)
	}
}

// G2: the heartbeat lease.
func TestG2HeartbeatExtendsLease(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 4)
	r := f.join(t, "g", "a", "orders")
	f.advance(t, 80)
	if err := f.c.Heartbeat("g", "a", r.Generation); err != nil {
		t.Fatal(err)
	}
	f.advance(t, 80)
	if exp := f.expire(t); len(exp) != 0 {
		t.Fatalf("expired %v", exp)
	}
	got, err := f.c.Assignment("g", "a")
	if err != nil || len(got.Assignment) == 0 {
		t.Fatalf("assignment %v, %v", got, err)
	}
}

// G3: both members expire after 101 ms; one rebalance; state EMPTY.
func TestG3ExpiryIsStrictAndOneRebalance(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 4)
	f.join(t, "g", "a", "orders")
	b := f.join(t, "g", "b", "orders")
	if err := f.c.Heartbeat("g", "b", b.Generation); err != nil {
		t.Fatal(err)
	}
	f.advance(t, 100)
	if exp := f.expire(t); len(exp) != 0 {
		t.Fatalf("at exactly the deadline nothing expires, got %v", exp)
	}
	f.advance(t, 1)
	exp := f.expire(t)
	want := []Expired{{"g", "a"}, {"g", "b"}}
	if !reflect.DeepEqual(exp, want) {
		t.Fatalf("expired %v, want %v", exp, want)
	}
	if st, _ := f.c.State("g"); st != Empty {
		t.Fatalf("state %v", st)
	}
	if gen, _ := f.c.Generation("g"); gen != b.Generation+1 {
		t.Fatalf("generation %d, want %d (one rebalance for both)", gen, b.Generation+1)
	}
	if exp := f.expire(t); len(exp) != 0 {
		t.Fatalf("second expiry %v", exp)
	}
}

func TestExpiryVisitsGroupsInOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2)
	f.join(t, "zeta", "m1", "orders")
	f.join(t, "alpha", "m2", "orders")
	f.join(t, "alpha", "m1", "orders")
	f.advance(t, 101)
	want := []Expired{{"alpha", "m1"}, {"alpha", "m2"}, {"zeta", "m1"}}
	if got := f.expire(t); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v want %v", got, want)
	}
}

// G5: a's commit with the old generation is fenced.
func TestG5StaleGenerationCommit(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2)
	a := f.join(t, "g", "a", "orders")
	f.join(t, "g", "b", "orders")
	err := f.c.Commit("g", "a", a.Generation, Offsets{{Topic: "orders", Partition: 0}: 1})
	wantCode(t, err, kerr.IllegalGeneration)
	if got := kerr.MessageOf(err); got != "generation 1 does not match 2" {
		t.Fatalf("message %q", got)
	}
	if _, ok := f.store.Get("g", topic.Partition{Topic: "orders", Partition: 0}); ok {
		t.Fatal("fenced commit was stored")
	}
}

// G6: committing another member's partition is NOT_PARTITION_OWNER.
func TestG6NotPartitionOwner(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2)
	f.join(t, "g", "a", "orders")
	b := f.join(t, "g", "b", "orders")
	a, err := f.c.Assignment("g", "a")
	if err != nil {
		t.Fatal(err)
	}
	err = f.c.Commit("g", "a", a.Generation, Offsets{b.Assignment[0]: 1})
	wantCode(t, err, kerr.NotPartitionOwner)
	if err := f.c.Commit("g", "a", a.Generation, Offsets{a.Assignment[0]: 3}); err != nil {
		t.Fatal(err)
	}
	if o, ok := f.store.Get("g", a.Assignment[0]); !ok || o != 3 {
		t.Fatalf("committed %d %v", o, ok)
	}
}

// §16.2 at the coordinator: the rebalance lab's landmarks, and §11.4 (no
// revoke barrier: member 1's old view would overlap until it refreshes).
func TestRebalanceLabLandmarks(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 4)
	m1 := f.join(t, "workers", "member-1", "orders")
	if m1.Generation != 1 || !reflect.DeepEqual(m1.Assignment, tps("orders", 0, 1, 2, 3)) {
		t.Fatalf("member 1: %+v", m1)
	}
	m2 := f.join(t, "workers", "member-2", "orders")
	if m2.Generation != 2 || !reflect.DeepEqual(m2.Assignment, tps("orders", 1, 3)) {
		t.Fatalf("member 2: %+v", m2)
	}
	// member 1's local view is still gen 1 with all four: its commits are fenced.
	wantCode(t, f.c.Commit("workers", "member-1", m1.Generation, Offsets{{Topic: "orders", Partition: 1}: 0}), kerr.IllegalGeneration)
	m1, _ = f.c.Assignment("workers", "member-1")
	if !reflect.DeepEqual(m1.Assignment, tps("orders", 0, 2)) || !disjoint(m1.Assignment, m2.Assignment) {
		t.Fatalf("member 1 after refresh: %+v", m1)
	}
	f.leave(t, "workers", "member-2")
	m1, _ = f.c.Assignment("workers", "member-1")
	if m1.Generation != 3 || !reflect.DeepEqual(m1.Assignment, tps("orders", 0, 1, 2, 3)) {
		t.Fatalf("member 1 after leave: %+v", m1)
	}
}

func TestRejoinBumpsGeneration(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1)
	r1 := f.join(t, "g", "a", "orders")
	r2 := f.join(t, "g", "a", "orders")
	if r2.Generation != r1.Generation+1 {
		t.Fatalf("generations %d then %d", r1.Generation, r2.Generation)
	}
}

func TestJoinArgumentErrorsChangeNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1)
	_, err := f.c.Join("", "a", []string{"orders"})
	wantCode(t, err, kerr.InvalidArgument)
	_, err = f.c.Join("g", "", []string{"orders"})
	wantCode(t, err, kerr.InvalidArgument)
	_, err = f.c.Join("g", "a", []string{"orders", "zz", "nope", "nope"})
	wantCode(t, err, kerr.InvalidArgument)
	if got := kerr.MessageOf(err); got != "unknown subscribed topics: ['nope', 'zz']" {
		t.Fatalf("message %q", got)
	}
	if _, err := f.c.State("g"); !errors.Is(err, kerr.UnknownMember) {
		t.Fatalf("failed join created the group: %v", err)
	}
	f.join(t, "g", "a", "orders")
	gen, _ := f.c.Generation("g")
	_, err = f.c.Join("g", "b", []string{"nope"})
	wantCode(t, err, kerr.InvalidArgument)
	if g2, _ := f.c.Generation("g"); g2 != gen {
		t.Fatalf("failed join changed generation %d → %d", gen, g2)
	}
	if len(f.c.ListGroups()[0:1]) != 1 || f.c.ListGroups()[0].Members != 1 {
		t.Fatalf("failed join added a member: %+v", f.c.ListGroups())
	}
}

func TestLeaveUnknownIsNoOp(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1)
	if f.leave(t, "nope", "a") {
		t.Fatal("leave of unknown group removed someone")
	}
	r := f.join(t, "g", "a", "orders")
	if f.leave(t, "g", "b") {
		t.Fatal("leave of unknown member removed someone")
	}
	if gen, _ := f.c.Generation("g"); gen != r.Generation {
		t.Fatalf("generation changed to %d", gen)
	}
}

// Heartbeat check order: group, generation, member (decision 21 for the
// unknown group's code and message).
func TestHeartbeatCheckOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1)
	err := f.c.Heartbeat("zzz", "a", 0)
	wantCode(t, err, kerr.UnknownMember)
	if kerr.MessageOf(err) != "unknown group zzz" {
		t.Fatalf("message %q", kerr.MessageOf(err))
	}
	r := f.join(t, "g", "a", "orders")
	// An unknown member with a wrong generation gets ILLEGAL_GENERATION first.
	wantCode(t, f.c.Heartbeat("g", "ghost", r.Generation+5), kerr.IllegalGeneration)
	wantCode(t, f.c.Heartbeat("g", "ghost", r.Generation), kerr.UnknownMember)
	if err := f.c.Heartbeat("g", "a", r.Generation); err != nil {
		t.Fatal(err)
	}
}

func TestAssignmentAndStateErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1)
	_, err := f.c.Assignment("g", "a")
	wantCode(t, err, kerr.UnknownMember)
	_, err = f.c.State("g")
	wantCode(t, err, kerr.UnknownMember)
	f.join(t, "g", "a", "orders")
	_, err = f.c.Assignment("g", "b")
	wantCode(t, err, kerr.UnknownMember)
}

// The normative commit order (§11.2).
func TestCommitCheckOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2)
	tp0 := topic.Partition{Topic: "orders", Partition: 0}
	wantCode(t, f.c.Commit("g", "a", 0, Offsets{tp0: 1}), kerr.UnknownMember)
	r := f.join(t, "g", "a", "orders")
	// generation before member: an unknown member with a stale generation.
	wantCode(t, f.c.Commit("g", "ghost", r.Generation-1, Offsets{tp0: 1}), kerr.IllegalGeneration)
	wantCode(t, f.c.Commit("g", "ghost", r.Generation, Offsets{tp0: 1}), kerr.UnknownMember)
	// ownership before the offset store's validation.
	wantCode(t, f.c.Commit("g", "a", r.Generation, Offsets{{Topic: "other", Partition: 0}: -1}), kerr.NotPartitionOwner)
	wantCode(t, f.c.Commit("g", "a", r.Generation, Offsets{tp0: -1}), kerr.InvalidArgument)
	if _, ok := f.store.Get("g", tp0); ok {
		t.Fatal("negative commit stored")
	}
	// Everyone leaves: the group is EMPTY and commits are REBALANCE_IN_PROGRESS,
	// even with the right generation.
	f.leave(t, "g", "a")
	gen, _ := f.c.Generation("g")
	wantCode(t, f.c.Commit("g", "a", gen, Offsets{tp0: 1}), kerr.RebalanceInProgress)
}

// A new topic is picked up at the next membership change, not before.
func TestNewTopicWaitsForNextRebalance(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1)
	f.topics["payments"] = 1
	f.join(t, "g", "a", "orders", "payments")
	f.topics["zeta"] = 2
	r, _ := f.c.Assignment("g", "a")
	if len(r.Assignment) != 2 {
		t.Fatalf("got %v", r.Assignment)
	}
}

func TestDescribeAndList(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2)
	f.join(t, "workers", "member-2", "orders")
	r := f.join(t, "workers", "member-1", "orders")
	f.advance(t, 5)
	if err := f.c.Commit("workers", "member-1", r.Generation, Offsets{r.Assignment[0]: 7}); err != nil {
		t.Fatal(err)
	}
	if err := f.store.Commit("manual", Offsets{{Topic: "orders", Partition: 1}: 3}); err != nil {
		t.Fatal(err)
	}
	list := f.c.ListGroups()
	want := []GroupListing{{GroupID: "manual", State: Empty}, {GroupID: "workers", State: Stable, Generation: 2, Members: 2}}
	if !reflect.DeepEqual(list, want) {
		t.Fatalf("list %+v", list)
	}
	d, err := f.c.Describe("workers")
	if err != nil {
		t.Fatal(err)
	}
	if d.State.KafkaName() != "Stable" || d.Generation != 2 || len(d.Members) != 2 {
		t.Fatalf("describe %+v", d)
	}
	if d.Members[0].MemberID != "member-1" || d.Members[0].DeadlineMs != 100 ||
		!reflect.DeepEqual(d.Members[0].Assignment, tps("orders", 0)) {
		t.Fatalf("member %+v", d.Members[0])
	}
	wantRows := []PartitionDescription{
		{Partition: topic.Partition{Topic: "orders", Partition: 0}, Committed: 7, HasCommitted: true, MemberID: "member-1"},
		{Partition: topic.Partition{Topic: "orders", Partition: 1}, MemberID: "member-2"},
	}
	if !reflect.DeepEqual(d.Partitions, wantRows) {
		t.Fatalf("rows %+v", d.Partitions)
	}
	m, err := f.c.Describe("manual")
	if err != nil || m.State != Empty || len(m.Members) != 0 || len(m.Partitions) != 1 {
		t.Fatalf("manual %+v %v", m, err)
	}
	_, err = f.c.Describe("nope")
	wantCode(t, err, kerr.UnknownMember)
}

func TestStateNames(t *testing.T) {
	t.Parallel()
	for s, want := range map[State][2]string{
		Empty: {"empty", "Empty"}, PreparingRebalance: {"preparing_rebalance", "PreparingRebalance"}, Stable: {"stable", "Stable"},
	} {
		if s.String() != want[0] || s.KafkaName() != want[1] {
			t.Fatalf("%d: %s %s", s, s.String(), s.KafkaName())
		}
	}
}
