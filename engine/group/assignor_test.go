package group

import (
	"fmt"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/minikafka-lab/minikafka/engine/topic"
)

func tps(t string, ps ...int32) []topic.Partition {
	out := []topic.Partition{}
	for _, p := range ps {
		out = append(out, topic.Partition{Topic: t, Partition: p})
	}
	return out
}

func concat(lists ...[]topic.Partition) []topic.Partition {
	out := []topic.Partition{}
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// A1: a and b on orders 0..3 → a (0, 2), b (1, 3), disjoint.
func TestRoundRobinA1TwoMembersOneTopic(t *testing.T) {
	t.Parallel()
	got := RoundRobin(map[string][]string{"a": {"orders"}, "b": {"orders"}}, map[string]int32{"orders": 4})
	want := map[string][]topic.Partition{"a": tps("orders", 0, 2), "b": tps("orders", 1, 3)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// A2: orders-only{orders} and all{orders, payments}: payments-0 goes to all,
// never to orders-only.
func TestRoundRobinA2SubscriptionAware(t *testing.T) {
	t.Parallel()
	got := RoundRobin(
		map[string][]string{"orders-only": {"orders"}, "all": {"orders", "payments"}},
		map[string]int32{"orders": 2, "payments": 1})
	p0 := topic.Partition{Topic: "payments", Partition: 0}
	for _, tp := range got["orders-only"] {
		if tp == p0 {
			t.Fatalf("payments-0 assigned to orders-only: %v", got)
		}
	}
	found := false
	for _, tp := range got["all"] {
		found = found || tp == p0
	}
	if !found {
		t.Fatalf("payments-0 not assigned to all: %v", got)
	}
	want := map[string][]topic.Partition{"all": concat(tps("orders", 0), tps("payments", 0)), "orders-only": tps("orders", 1)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// §11.3 observed: the cursor carries over between topics.
func TestRoundRobinCursorCarriesAcrossTopics(t *testing.T) {
	t.Parallel()
	got := RoundRobin(
		map[string][]string{"a": {"x", "y"}, "b": {"x", "y"}, "c": {"y"}},
		map[string]int32{"x": 3, "y": 3})
	want := map[string][]topic.Partition{
		"a": concat(tps("x", 0, 2), tps("y", 0)),
		"b": concat(tps("x", 1), tps("y", 1)),
		"c": tps("y", 2),
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// §11.3 observed: ids sort as byte strings, so m10 < m2 < m9.
func TestRoundRobinByteWiseMemberOrder(t *testing.T) {
	t.Parallel()
	subs := map[string][]string{"m2": {"t"}, "m9": {"t"}, "m10": {"t"}}
	got := RoundRobin(subs, map[string]int32{"t": 4})
	want := map[string][]topic.Partition{"m10": tps("t", 0, 3), "m2": tps("t", 1), "m9": tps("t", 2)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestRoundRobinUnsubscribedTopicDoesNotMoveCursor(t *testing.T) {
	t.Parallel()
	// "b" has 5 partitions and nobody subscribes: the cursor stays where "a" left it.
	got := RoundRobin(map[string][]string{"m1": {"a", "c"}, "m2": {"a", "c"}, "idle": {}},
		map[string]int32{"a": 1, "b": 5, "c": 2})
	want := map[string][]topic.Partition{
		"idle": {},
		"m1":   concat(tps("a", 0), tps("c", 1)),
		"m2":   tps("c", 0),
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestRoundRobinNoMembers(t *testing.T) {
	t.Parallel()
	if got := RoundRobin(nil, map[string]int32{"a": 3}); len(got) != 0 {
		t.Fatalf("got %v", got)
	}
}

// Property: every partition of a subscribed topic is assigned exactly once,
// only to a subscriber; unsubscribed topics are not assigned; every member
// has a list.
func TestRoundRobinProperty(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		nTopics := rapid.IntRange(0, 5).Draw(t, "topics")
		parts := map[string]int32{}
		var names []string
		for i := 0; i < nTopics; i++ {
			name := fmt.Sprintf("t%d", i)
			names = append(names, name)
			parts[name] = int32(rapid.IntRange(1, 6).Draw(t, "partitions"))
		}
		nMembers := rapid.IntRange(0, 6).Draw(t, "members")
		subs := map[string][]string{}
		for i := 0; i < nMembers; i++ {
			var s []string
			for _, n := range names {
				if rapid.Bool().Draw(t, "sub") {
					s = append(s, n)
				}
			}
			subs[fmt.Sprintf("member-%d", i+1)] = s
		}
		got := RoundRobin(subs, parts)
		if len(got) != len(subs) {
			t.Fatalf("members %d, lists %d", len(subs), len(got))
		}
		owner := map[topic.Partition]string{}
		for m, list := range got {
			if list == nil {
				t.Fatalf("member %s has a nil list", m)
			}
			for _, tp := range list {
				if prev, dup := owner[tp]; dup {
					t.Fatalf("%s assigned to %s and %s", tp, prev, m)
				}
				owner[tp] = m
				subscribed := false
				for _, s := range subs[m] {
					subscribed = subscribed || s == tp.Topic
				}
				if !subscribed {
					t.Fatalf("%s assigned to non-subscriber %s", tp, m)
				}
			}
		}
		for _, n := range names {
			anyone := false
			for _, s := range subs {
				for _, x := range s {
					anyone = anyone || x == n
				}
			}
			for p := int32(0); p < parts[n]; p++ {
				_, ok := owner[topic.Partition{Topic: n, Partition: p}]
				if ok != anyone {
					t.Fatalf("%s-%d assigned=%v, subscribed by someone=%v", n, p, ok, anyone)
				}
			}
		}
	})
}
