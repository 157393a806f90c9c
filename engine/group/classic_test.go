package group

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/topic"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

func tp(p int32) topic.Partition { return topic.Partition{Topic: "orders", Partition: p} }

// TestClassicGroupLifecycle follows a client-assigned group through Kafka's
// classic protocol: a join round, the leader's assignment, commits fenced
// by generation and member but not by ownership, a leave that clears the
// assignment and makes heartbeats answer REBALANCE_IN_PROGRESS, and the
// groups file keeping the group client-assigned.
func TestClassicGroupLifecycle(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 4)
	gen, err := f.c.CompleteJoin("g", []ClassicMember{{ID: "a-1", Subscriptions: []string{"orders"}}, {ID: "b-2", Subscriptions: []string{"orders"}}})
	if err != nil || gen != 1 {
		t.Fatalf("join: %d %v", gen, err)
	}
	if st, _ := f.c.State("g"); st != CompletingRebalance {
		t.Fatalf("state %v", st)
	}
	if err := f.c.Commit("g", "a-1", 1, Offsets{tp(0): 1}); !errors.Is(err, kerr.RebalanceInProgress) {
		t.Fatalf("commit before the assignment: %v", err)
	}
	if err := f.c.CompleteSync("g", 0, nil); !errors.Is(err, kerr.IllegalGeneration) {
		t.Fatalf("stale sync: %v", err)
	}
	if err := f.c.CompleteSync("g", 1, map[string][]topic.Partition{"a-1": {tp(0), tp(1)}, "b-2": {tp(1)}}); !errors.Is(err, kerr.InvalidArgument) {
		t.Fatalf("a partition given twice: %v", err)
	}
	if err := f.c.CompleteSync("g", 1, map[string][]topic.Partition{"a-1": {tp(1), tp(0)}, "b-2": {tp(2), tp(3)}}); err != nil {
		t.Fatal(err)
	}
	a, err := f.c.Assignment("g", "a-1")
	if err != nil || len(a.Assignment) != 2 || a.Assignment[0] != tp(0) {
		t.Fatalf("assignment %+v %v", a, err)
	}
	// Kafka checks generation and member, not ownership: a-1 may commit
	// partition 2 (a cooperative member commits what it gives up).
	if err := f.c.Commit("g", "a-1", 1, Offsets{tp(2): 5}); err != nil {
		t.Fatal(err)
	}
	if err := f.c.Commit("g", "a-1", 0, Offsets{tp(0): 1}); !errors.Is(err, kerr.IllegalGeneration) {
		t.Fatalf("stale generation: %v", err)
	}
	if err := f.c.ClassicHeartbeat("g", "b-2", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.Leave("g", "b-2"); err != nil {
		t.Fatal(err)
	}
	if st, _ := f.c.State("g"); st != PreparingRebalance {
		t.Fatalf("after a leave: %v", st)
	}
	if a, _ := f.c.Assignment("g", "a-1"); len(a.Assignment) != 0 {
		t.Fatalf("the assignment survived the leave: %+v", a)
	}
	if err := f.c.ClassicHeartbeat("g", "a-1", 2); !errors.Is(err, kerr.RebalanceInProgress) {
		t.Fatalf("heartbeat while members must rejoin: %v", err)
	}
	if err := f.c.CommitStandalone("g", Offsets{tp(0): 1}); !errors.Is(err, kerr.UnknownMember) {
		t.Fatalf("a standalone commit into a group with members: %v", err)
	}
	if _, err := f.c.Join("g", "native", []string{"orders"}); !errors.Is(err, kerr.IllegalState) {
		t.Fatalf("a MiniKafka consumer joined a group of Kafka clients: %v", err)
	}
	if !f.c.IsClientAssigned("g") {
		t.Fatal("the group forgot it is client-assigned")
	}
	// Reloaded from groups.json, the group is still client-assigned.
	path := filepath.Join(t.TempDir(), GroupsFileName)
	c, err := OpenCoordinator(vfs.OS, path, f.clk, func() map[string]int32 { return f.topics }, func() int64 { return 100 }, f.store)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CompleteJoin("h", []ClassicMember{{ID: "x-1"}}); err != nil {
		t.Fatal(err)
	}
	again, err := OpenCoordinator(vfs.OS, path, clock.NewManual(0), func() map[string]int32 { return f.topics }, func() int64 { return 100 }, f.store)
	if err != nil {
		t.Fatal(err)
	}
	if !again.IsClientAssigned("h") || again.Members("h")[0] != "x-1" {
		t.Fatal("groups.json lost the client-assigned group")
	}
}

// TestClassicJoinRefusesNativeGroup: a group of MiniKafka consumers cannot
// be taken over by a join round.
func TestClassicJoinRefusesNativeGroup(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2)
	f.join(t, "g", "member-1", "orders")
	if _, err := f.c.CompleteJoin("g", []ClassicMember{{ID: "a-1"}}); !errors.Is(err, kerr.IllegalState) {
		t.Fatalf("join round over a native group: %v", err)
	}
}
