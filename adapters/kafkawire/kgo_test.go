package kafkawire

import (
	"fmt"
	"testing"
	"time"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestKgoKeyedProduceAcksAllConsumeInOrder: a kgo producer sends keyed
// records with acks=all through a 3-broker cluster (rf 3); every record
// comes back exactly once, in order within its partition, with its key,
// value, headers and timestamp, and each key stays on one partition.
func TestKgoKeyedProduceAcksAllConsumeInOrder(t *testing.T) {
	tc := startCluster(t, 3)
	tc.createTopic("orders", 3, 3)
	p := tc.client(kgo.RequiredAcks(kgo.AllISRAcks()), kgo.DefaultProduceTopic("orders"))
	cx := ctx(t, 30*time.Second)
	const n = 300
	ts := time.UnixMilli(1_700_000_000_000)
	for i := range n {
		r := &kgo.Record{
			Key:       []byte(fmt.Sprintf("key-%d", i%7)),
			Value:     []byte(fmt.Sprintf("v%d", i)),
			Headers:   []kgo.RecordHeader{{Key: "i", Value: []byte(fmt.Sprint(i))}},
			Timestamp: ts.Add(time.Duration(i) * time.Millisecond),
		}
		p.Produce(cx, r, func(_ *kgo.Record, err error) {
			if err != nil {
				t.Errorf("produce %d: %v", i, err)
			}
		})
	}
	if err := p.Flush(cx); err != nil {
		t.Fatal(err)
	}
	// acks=all: every acknowledged record is below the HW of every replica set.
	tc.do(func(c *engine.Cluster) error {
		total := int64(0)
		for part := int32(0); part < 3; part++ {
			hw, err := c.HighWatermark(engine.TopicPartition{Topic: "orders", Partition: part})
			if err != nil {
				return err
			}
			total += hw
		}
		if total != n {
			t.Errorf("HWs add up to %d, want %d", total, n)
		}
		return nil
	})
	cons := tc.client(kgo.ConsumeTopics("orders"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	recs := consumeAll(t, cx, cons, n)
	if len(recs) != n {
		t.Fatalf("got %d records, want %d", len(recs), n)
	}
	seen := map[string]bool{}
	keyPart := map[string]int32{}
	lastIndex := map[int32]int{}
	nextOffset := map[int32]int64{}
	for _, r := range recs {
		v := string(r.Value)
		if seen[v] {
			t.Fatalf("record %s consumed twice", v)
		}
		seen[v] = true
		var i int
		fmt.Sscanf(v, "v%d", &i)
		if got := string(r.Headers[0].Value); got != fmt.Sprint(i) {
			t.Errorf("record %s: header %q", v, got)
		}
		if want := ts.Add(time.Duration(i) * time.Millisecond); !r.Timestamp.Equal(want) {
			t.Errorf("record %s: timestamp %v, want %v", v, r.Timestamp, want)
		}
		if p, ok := keyPart[string(r.Key)]; ok && p != r.Partition {
			t.Errorf("key %s on partitions %d and %d", r.Key, p, r.Partition)
		}
		keyPart[string(r.Key)] = r.Partition
		if last, ok := lastIndex[r.Partition]; ok && i <= last {
			t.Errorf("partition %d: record %d after %d", r.Partition, i, last)
		}
		lastIndex[r.Partition] = i
		if r.Offset != nextOffset[r.Partition] {
			t.Errorf("partition %d: offset %d, want %d", r.Partition, r.Offset, nextOffset[r.Partition])
		}
		nextOffset[r.Partition] = r.Offset + 1
	}
}
