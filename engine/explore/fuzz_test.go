package explore_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/explore"
)

// FuzzParseOps: any list either parses into known kinds, sorted and
// without repeats, each named in the list, or is an error; nothing panics.
func FuzzParseOps(f *testing.F) {
	for _, s := range []string{"produce", "produce,replicate,crash", "crash-keep, clock", "", ",", "fly", "produce,produce", "PROMOTE"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, list string) {
		ops, err := explore.ParseOps(list)
		if err != nil {
			return
		}
		if len(ops) == 0 || !slices.IsSorted(ops) || len(slices.Compact(slices.Clone(ops))) != len(ops) {
			t.Fatalf("%q: %v", list, ops)
		}
		for _, k := range ops {
			if !strings.Contains(list, k.String()) {
				t.Fatalf("%q gave %s", list, k)
			}
		}
	})
}
