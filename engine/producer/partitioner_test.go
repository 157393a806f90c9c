package producer

import (
	"errors"
	"hash/crc32"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/replication"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// P1: a keyed record goes to crc32(key) % n, every time; the spec's examples.
func TestKeyedPartitionP1(t *testing.T) {
	t.Parallel()
	p := NewPartitioner()
	want := int32(crc32.ChecksumIEEE([]byte("user-42")) % 3)
	for range 3 {
		if got, _ := p.Choose("t", 3, []byte("user-42")); got != want {
			t.Fatalf("user-42 -> %d, want %d", got, want)
		}
	}
	for _, c := range []struct {
		key   string
		count int32
		want  int32
	}{{"alice", 2, 1}, {"alice", 3, 2}, {"same", 2, 0}, {"user-42", 2, 1}} {
		if got := KeyPartition([]byte(c.key), c.count); got != c.want {
			t.Errorf("crc32(%q) %% %d = %d, want %d", c.key, c.count, got, c.want)
		}
	}
	if _, err := p.Choose("t", 0, nil); !errors.Is(err, kerr.InvalidArgument) {
		t.Fatalf("count 0: %v", err)
	}
}

// P2: keyless records stick to one partition until a batch closes on it.
func TestStickyPartitionP2(t *testing.T) {
	t.Parallel()
	p := NewPartitioner()
	first, _ := p.Choose("t", 3, nil)
	second, _ := p.Choose("t", 3, nil)
	if first != second {
		t.Fatalf("sticky moved without a batch: %d then %d", first, second)
	}
	p.OnBatchClosed("t", 3, first)
	if got, _ := p.Choose("t", 3, nil); got != (first+1)%3 {
		t.Fatalf("after the batch: %d", got)
	}
	p.OnBatchClosed("t", 3, 0) // not the sticky partition: no move
	if got, _ := p.Choose("t", 3, nil); got != (first+1)%3 {
		t.Fatalf("a batch on another partition moved it: %d", got)
	}
	// An empty key is a key, not keyless.
	if got, _ := p.Choose("t", 3, []byte{}); got != KeyPartition([]byte{}, 3) {
		t.Fatalf("empty key: %d", got)
	}
}

// E9 (decision 3): the sticky partition is per topic. The reference, which
// shares it per partition count, sends keyless records to a, b, a, two, b
// (3-, 3-, 3-, 2-, 3-partition topics) to 0, 1, 2, 0, 0; per topic it is
// 0, 0, 1, 0, 1.
func TestStickyPerTopicE9(t *testing.T) {
	t.Parallel()
	p := NewPartitioner()
	counts := map[string]int32{"a": 3, "b": 3, "two": 2}
	var got []int32
	for _, name := range []string{"a", "b", "a", "two", "b"} {
		part, _ := p.Choose(name, counts[name], nil)
		got = append(got, part)
		p.OnBatchClosed(name, counts[name], part)
	}
	want := []int32{0, 0, 1, 0, 1}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

func TestAccumulatorBounds(t *testing.T) {
	t.Parallel()
	a, err := NewAccumulator(68, 10, 80)
	if err != nil {
		t.Fatal(err)
	}
	tp := topic.Partition{Topic: "t"}
	r40 := record.Record{Value: []byte("a")} // 39 + 1
	if EstimateSize(r40) != 40 {
		t.Fatal("estimate")
	}
	full, err := a.Add(tp, Entry{Record: r40, Size: 40}, 100)
	if err != nil || full {
		t.Fatalf("first: %v %v", full, err)
	}
	full, err = a.Add(tp, Entry{Record: r40, Size: 40}, 105) // 80 >= 68
	if err != nil || !full {
		t.Fatalf("second: %v %v", full, err)
	}
	if _, err := a.Add(topic.Partition{Topic: "u"}, Entry{Size: 1}, 105); !errors.Is(err, kerr.ProducerBufferFull) {
		t.Fatalf("third: %v", err)
	}
	if due := a.Due(109); len(due) != 0 {
		t.Fatalf("due too early: %v", due)
	}
	if due := a.Due(110); len(due) != 1 || due[0] != tp {
		t.Fatalf("due: %v", due)
	}
	if got := a.Pop(tp); len(got) != 2 || a.Bytes() != 0 || a.Records() != 0 {
		t.Fatalf("pop: %d entries, %d bytes", len(got), a.Bytes())
	}
	for _, bad := range [][3]int64{{0, 0, 1}, {1, -1, 1}, {1, 0, 0}} {
		if _, err := NewAccumulator(bad[0], bad[1], bad[2]); !errors.Is(err, kerr.InvalidArgument) {
			t.Errorf("NewAccumulator%v: %v", bad, err)
		}
	}
}

func TestAccumulatorDueIsSorted(t *testing.T) {
	t.Parallel()
	a, _ := NewAccumulator(1<<20, 0, 1<<20)
	for _, tp := range []topic.Partition{{Topic: "b"}, {Topic: "a", Partition: 2}, {Topic: "a"}} {
		a.Add(tp, Entry{Size: 40}, 0)
	}
	due := a.Due(0)
	if len(due) != 3 || due[0].String() != "a-0" || due[1].String() != "a-2" || due[2].String() != "b-0" {
		t.Fatalf("due %v", due)
	}
}

// Decision 4: every spelling of acks 1 is upgraded to all for an idempotent
// producer; acks 0 is an argument error.
func TestResolveAcksDecision4(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"1", "all", "-1"} {
		a, _ := replication.ParseAcks(in)
		got, err := ResolveAcks(a, true)
		if err != nil || got != replication.AcksAll {
			t.Errorf("%s: %v %v", in, got, err)
		}
	}
	_, err := ResolveAcks(replication.Acks0, true)
	if !errors.Is(err, kerr.InvalidArgument) || kerr.MessageOf(err) != "idempotent producer requires acks=all" {
		t.Fatalf("acks 0: %v", err)
	}
	if got, _ := ResolveAcks(replication.Acks0, false); got != replication.Acks0 {
		t.Fatal("plain producer keeps acks 0")
	}
}
