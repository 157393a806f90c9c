package group

import (
	"maps"
	"slices"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/topic"
	"pgregory.net/rapid"
)

// trickyName draws non-empty valid UTF-8 names rich in what JSON escapes
// (see the producer package's test of the same name).
func trickyName() *rapid.Generator[string] {
	special := []rune{0, 1, 0x1f, '"', '\\', '/', '\n', '\r', '\t', '\b', '\f', 0x7f, 0x80, 0xa0, 'é',
		'<', '>', '&', 0x2028, 0x2029, 0xfeff, 0xfffd, 0xfffe, 0xffff, 0x10000, 0x1f600, 0x10ffff}
	return rapid.StringOfN(rapid.OneOf(rapid.SampledFrom(special), rapid.Rune()), 1, 12, -1)
}

// TestOffsetsAndGroupsRoundTripEveryName: offsets.json and groups.json give
// back every valid UTF-8 group id and member id byte for byte.
func TestOffsetsAndGroupsRoundTripEveryName(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ids := rapid.SliceOfNDistinct(trickyName(), 1, 5, func(s string) string { return s }).Draw(t, "groups")
		offsets := map[string]Offsets{}
		groups := map[string]*groupState{}
		for _, id := range ids {
			offsets[id] = Offsets{{Topic: "orders", Partition: 0}: rapid.Int64Min(0).Draw(t, "offset")}
			members := rapid.SliceOfNDistinct(trickyName(), 0, 4, func(s string) string { return s }).Draw(t, "members")
			g := &groupState{generation: int32(len(members)), members: map[string]*member{}, assignment: map[string][]topic.Partition{}}
			for i, m := range members {
				g.members[m] = &member{subscriptions: []string{"orders"}, deadlineMs: 7}
				g.assignment[m] = []topic.Partition{{Topic: "orders", Partition: int32(i)}}
			}
			groups[id] = g
		}
		gotOffsets, err := decodeOffsets(encodeOffsets(offsets))
		if err != nil {
			t.Fatalf("offsets %q: %v", encodeOffsets(offsets), err)
		}
		if !maps.EqualFunc(gotOffsets, offsets, func(a, b Offsets) bool { return maps.Equal(a, b) }) {
			t.Fatalf("offsets round trip:\n got %v\nwant %v", gotOffsets, offsets)
		}
		gotGroups, err := decodeGroups(encodeGroups(groups), 7)
		if err != nil {
			t.Fatalf("groups %q: %v", encodeGroups(groups), err)
		}
		if !slices.Equal(slices.Sorted(maps.Keys(gotGroups)), slices.Sorted(maps.Keys(groups))) {
			t.Fatalf("group ids: got %q, want %q", slices.Sorted(maps.Keys(gotGroups)), slices.Sorted(maps.Keys(groups)))
		}
		for id, g := range groups {
			got := gotGroups[id]
			if !slices.Equal(slices.Sorted(maps.Keys(got.members)), slices.Sorted(maps.Keys(g.members))) {
				t.Fatalf("group %q members: got %q, want %q", id, slices.Sorted(maps.Keys(got.members)), slices.Sorted(maps.Keys(g.members)))
			}
			for m, tps := range g.assignment {
				if !slices.Equal(got.assignment[m], tps) {
					t.Fatalf("group %q member %q assignment: got %v, want %v", id, m, got.assignment[m], tps)
				}
			}
		}
	})
}
