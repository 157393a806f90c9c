package group

import (
	"maps"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/topic"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// TestCoordinatorInvariants drives joins, leaves, heartbeats, clock advances,
// expiries and commits at random and checks after every step:
//   - a STABLE generation never assigns one partition to two members, assigns
//     only subscribed topics, and assigns every partition of a subscribed topic;
//   - EMPTY exactly when there are no members;
//   - generations never decrease, and change exactly when membership changes;
//   - committed offsets only ever come from fenced, owned commits.
func TestCoordinatorInvariants(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(rt *rapid.T) {
		clk := clock.NewManual(0)
		topics := map[string]int32{"a": 2, "b": 3, "c": 1}
		store, err := OpenOffsetStore(vfs.NewMem(), OffsetsFileName) // in memory: the coordinator's logic, not the file
		if err != nil {
			rt.Fatal(err)
		}
		c := NewCoordinator(clk, func() map[string]int32 { return topics }, func() int64 { return 50 }, store)
		groupIDs := []string{"g1", "g2"}
		memberIDs := []string{"m1", "m2", "m10", "m3"}
		topicNames := []string{"a", "b", "c"}
		lastGen := map[string]int32{}
		genGen := rapid.SampledFrom(groupIDs)
		memGen := rapid.SampledFrom(memberIDs)
		committed := map[string]Offsets{}

		rt.Repeat(map[string]func(*rapid.T){
			"join": func(t *rapid.T) {
				g, m := genGen.Draw(t, "group"), memGen.Draw(t, "member")
				subs := rapid.SliceOfDistinct(rapid.SampledFrom(topicNames), func(s string) string { return s }).Draw(t, "subs")
				before, _ := c.Generation(g)
				r, err := c.Join(g, m, subs)
				if err != nil {
					t.Fatalf("join: %v", err)
				}
				if r.Generation != before+1 {
					t.Fatalf("join: generation %d after %d", r.Generation, before)
				}
			},
			"leave": func(t *rapid.T) {
				g, m := genGen.Draw(t, "group"), memGen.Draw(t, "member")
				before, _ := c.Generation(g)
				removed, err := c.Leave(g, m)
				if err != nil {
					t.Fatal(err)
				}
				after, _ := c.Generation(g)
				if removed != (after == before+1) || (!removed && after != before) {
					t.Fatalf("leave removed=%v generation %d → %d", removed, before, after)
				}
			},
			"heartbeat": func(t *rapid.T) {
				g, m := genGen.Draw(t, "group"), memGen.Draw(t, "member")
				gen, err := c.Generation(g)
				if err != nil {
					return
				}
				_ = c.Heartbeat(g, m, gen)
			},
			"advance": func(t *rapid.T) {
				if err := clk.Advance(int64(rapid.IntRange(0, 40).Draw(t, "ms"))); err != nil {
					t.Fatal(err)
				}
			},
			"expire": func(t *rapid.T) {
				exp, err := c.ExpireMembers()
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range exp {
					if _, err := c.Assignment(e.Group, e.Member); err == nil {
						t.Fatalf("expired member %v still has an assignment", e)
					}
				}
			},
			"commit": func(t *rapid.T) {
				g, m := genGen.Draw(t, "group"), memGen.Draw(t, "member")
				gen, err := c.Generation(g)
				if err != nil {
					return
				}
				gen -= int32(rapid.IntRange(0, 1).Draw(t, "stale"))
				tp := topic.Partition{Topic: rapid.SampledFrom(topicNames).Draw(t, "topic"), Partition: int32(rapid.IntRange(0, 2).Draw(t, "p"))}
				off := int64(rapid.IntRange(0, 100).Draw(t, "offset"))
				r, aerr := c.Assignment(g, m)
				err = c.Commit(g, m, gen, Offsets{tp: off})
				allowed := aerr == nil && r.Generation == gen && slices.Contains(r.Assignment, tp)
				if (err == nil) != allowed {
					t.Fatalf("commit %s/%s gen %d %s: err %v, allowed %v", g, m, gen, tp, err, allowed)
				}
				if err == nil {
					if committed[g] == nil {
						committed[g] = Offsets{}
					}
					committed[g][tp] = off
				}
			},
			"": func(t *rapid.T) {
				for _, g := range groupIDs {
					gen, err := c.Generation(g)
					if err != nil {
						continue
					}
					if gen < lastGen[g] {
						t.Fatalf("generation of %s went back %d → %d", g, lastGen[g], gen)
					}
					lastGen[g] = gen
					d, err := c.Describe(g)
					if err != nil {
						t.Fatal(err)
					}
					if (d.State == Empty) != (len(d.Members) == 0) || d.State == PreparingRebalance {
						t.Fatalf("group %s state %v with %d members", g, d.State, len(d.Members))
					}
					owner := map[topic.Partition]string{}
					subscribed := map[string]bool{}
					for _, m := range d.Members {
						for _, s := range m.Subscriptions {
							subscribed[s] = true
						}
						for _, tp := range m.Assignment {
							if prev, dup := owner[tp]; dup {
								t.Fatalf("generation %d of %s assigns %s to %s and %s", gen, g, tp, prev, m.MemberID)
							}
							owner[tp] = m.MemberID
							if !slices.Contains(m.Subscriptions, tp.Topic) {
								t.Fatalf("%s owns %s without subscribing", m.MemberID, tp)
							}
						}
					}
					for _, tn := range slices.Sorted(maps.Keys(subscribed)) {
						for p := int32(0); p < topics[tn]; p++ {
							if _, ok := owner[topic.Partition{Topic: tn, Partition: p}]; !ok {
								t.Fatalf("%s-%d unassigned in %s", tn, p, g)
							}
						}
					}
				}
				for g, offs := range committed {
					for tp, o := range offs {
						if got, ok := store.Get(g, tp); !ok || got != o {
							t.Fatalf("store %s %s = %d %v, want %d", g, tp, got, ok, o)
						}
					}
					if len(store.GroupOffsets(g)) != len(offs) {
						t.Fatalf("store has extra offsets for %s", g)
					}
				}
			},
		})
	})
}
