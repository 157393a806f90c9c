package txn

import (
	"reflect"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/group"
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

// TestJournalRoundTripsEveryName: a journal line gives back every valid
// UTF-8 transaction id and group id byte for byte, and every id CheckID
// accepts is one of them.
func TestJournalRoundTripsEveryName(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		id := trickyName().Draw(t, "id")
		if err := CheckID(id); err != nil {
			t.Fatalf("CheckID(%q): %v", id, err)
		}
		e := Entry{ID: id, State: PrepareCommit,
			Partitions:    []topic.Partition{{Topic: "out", Partition: 0}},
			FirstOffsets:  map[topic.Partition]int64{{Topic: "out", Partition: 0}: 4},
			StagedOffsets: map[string]group.Offsets{}}
		for _, g := range rapid.SliceOfNDistinct(trickyName(), 0, 3, func(s string) string { return s }).Draw(t, "groups") {
			e.StagedOffsets[g] = group.Offsets{{Topic: "in", Partition: 1}: 9}
		}
		line := e.AppendLine(nil)
		back, err := ParseLine(line[:len(line)-1])
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if !reflect.DeepEqual(back, e) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", back, e)
		}
	})
}
