package engine_test

import (
	"slices"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/group"
	"github.com/minikafka-lab/minikafka/engine/kerr"
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
