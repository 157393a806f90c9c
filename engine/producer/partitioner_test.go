package producer

import (
	"errors"
	"hash/crc32"
	"slices"
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

// Kafka's own murmur2 test vectors (clients UtilsTest.testMurmur2), and the
// seeds' key: toPositive(murmur2("alice")) = 1951417749, so a Kafka
// producer puts alice on partition 1 of 2 and 0 of 3
// (BuiltInPartitioner.partitionForKey).
func TestMurmur2UtilsTestVectors(t *testing.T) {
	for key, want := range map[string]int32{
		"21":                         -973932308,
		"foobar":                     -790332482,
		"a-little-bit-long-string":   -985981536,
		"a-little-bit-longer-string": -1486304829,
		"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
		"abc": 479470107,
	} {
		if got := Murmur2Hash([]byte(key)); got != want {
			t.Errorf("murmur2(%q) = %d, want %d", key, got, want)
		}
	}
	if got := toPositive(Murmur2Hash([]byte("alice"))); got != 1951417749 {
		t.Errorf("toPositive(murmur2(alice)) = %d", got)
	}
	if a, b := Murmur2Partition([]byte("alice"), 2), Murmur2Partition([]byte("alice"), 3); a != 1 || b != 0 {
		t.Errorf("alice: partition %d of 2, %d of 3; want 1 and 0", a, b)
	}
	p := NewPartitionerWith(&Settings{Partitioner: Murmur2})
	if got, _ := p.Choose("t", 3, []byte("alice")); got != 0 {
		t.Errorf("Choose alice = %d", got)
	}
	// An empty key is a key: murmur2 of no bytes.
	if got, _ := p.Choose("t", 3, []byte{}); got != Murmur2Partition(nil, 3) {
		t.Errorf("empty key = %d", got)
	}
}

// Kafka's sticky partitioner for keyless records (KIP-480, KIP-794 in 3.3,
// BuiltInPartitioner): the partition is chosen at random among those with a
// leader and kept until batch.size bytes were produced to it and its batch
// is done (or twice batch.size in any case); then another random one. The
// generator is seeded, so the same script chooses the same partitions.
func TestKafkaStickyPartitionerKIP794(t *testing.T) {
	run := func() []int32 {
		p := NewPartitionerWith(&Settings{Partitioner: Murmur2})
		p.Available = func(string, int32) []int32 { return []int32{0, 2} } // partition 1 has no leader
		var out []int32
		for range 12 {
			part, _ := p.Choose("t", 3, nil)
			out = append(out, part)
			p.Appended("t", 3, part, 100, 300, true) // three 100-byte records fill a batch
		}
		return out
	}
	got := run()
	for i := 0; i < len(got); i += 3 {
		if got[i] != got[i+1] || got[i] != got[i+2] {
			t.Fatalf("switched before batch.size bytes: %v", got)
		}
	}
	for _, part := range got {
		if part == 1 {
			t.Fatalf("chose a partition without a leader: %v", got)
		}
	}
	if again := run(); !slices.Equal(again, got) {
		t.Fatalf("not deterministic: %v then %v", got, again)
	}
	// While the batch is incomplete the switch waits, up to twice
	// batch.size.
	p := NewPartitionerWith(&Settings{Partitioner: Murmur2})
	first, _ := p.Choose("t", 50, nil)
	p.Appended("t", 50, first, 300, 300, false)
	if now, _ := p.Choose("t", 50, nil); now != first {
		t.Fatalf("switched with an incomplete batch")
	}
	p.Appended("t", 50, first, 300, 300, false)
	moved := false
	for range 4 { // a random choice may pick the same partition again
		now, _ := p.Choose("t", 50, nil)
		moved = moved || now != first
		p.Appended("t", 50, now, 600, 300, false)
	}
	if !moved {
		t.Fatalf("never switched after twice batch.size")
	}
	// MiniKafka's rule ignores Appended, Kafka's ignores OnBatchClosed.
	mk := NewPartitioner()
	mk.Appended("t", 3, 0, 1<<20, 1, true)
	if got, _ := mk.Choose("t", 3, nil); got != 0 {
		t.Fatalf("crc32 sticky moved on Appended: %d", got)
	}
	k := NewPartitionerWith(&Settings{Partitioner: Murmur2})
	before, _ := k.Choose("t", 3, nil)
	k.OnBatchClosed("t", 3, before)
	if after, _ := k.Choose("t", 3, nil); after != before {
		t.Fatalf("murmur2 sticky moved on OnBatchClosed")
	}
}

// TestPeekChangesNothing: Peek says what Choose would pick now, and asking
// changes nothing: under Kafka's rule the sticky partition is not chosen
// early (the random generator stays put), so a partitioner asked before
// the partitions with a leader change chooses as one never asked.
func TestPeekChangesNothing(t *testing.T) {
	for _, settings := range []*Settings{nil, {Partitioner: Murmur2}} {
		asked, quiet := NewPartitionerWith(settings), NewPartitionerWith(settings)
		avail := []int32{0, 1, 2, 3, 4, 5, 6}
		asked.Available = func(string, int32) []int32 { return avail }
		quiet.Available = asked.Available
		for i := range 20 {
			var key []byte
			if i%3 == 0 {
				key = []byte{byte(i)}
			}
			peeked, _ := asked.Peek("t", 7, key)
			if again, _ := asked.Peek("t", 7, key); again != peeked {
				t.Fatalf("peek moved: %d then %d", peeked, again)
			}
			avail = avail[1:] // a leader goes away between the question and the record
			a, _ := asked.Choose("t", 7, key)
			b, _ := quiet.Choose("t", 7, key)
			if a != b {
				t.Fatalf("%v, record %d: the partitioner asked before chose %d, the other %d", settings, i, a, b)
			}
			if now, _ := asked.Peek("t", 7, key); now != a {
				t.Fatalf("peek after choosing %d says %d", a, now)
			}
			asked.Appended("t", 7, a, 100, 150, true)
			quiet.Appended("t", 7, b, 100, 150, true)
			if len(avail) == 1 {
				avail = []int32{0, 1, 2, 3, 4, 5, 6}
			}
		}
	}
}
