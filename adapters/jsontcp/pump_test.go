package jsontcp

import (
	"errors"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
)

// One partition that cannot replicate (here a leader segment damaged while
// the cluster runs) does not stop the pump's due work: the linger flush and
// the session expiry still run, and Pump reports the replication error.
func TestPumpRunsDueWorkWhenAPartitionFails(t *testing.T) {
	c := openCluster(t, 2, func(cfg *engine.Config) { cfg.SegmentBytes = 120 })
	b := NewClusterBackend(c)
	if _, err := c.CreateTopic("broken", 1, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateTopic("fine", 1, 1); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"aaaa", "bbbb", "cccc"} {
		if _, err := c.Produce("broken", 0, record.Record{Value: []byte(strings.Repeat(v, 10))}, engine.Acks1); err != nil {
			t.Fatal(err)
		}
	}
	broken := engine.TopicPartition{Topic: "broken", Partition: 0}
	if _, err := c.Corrupt(broken, 1, 0, engine.CorruptFlip, 0); err != nil {
		t.Fatal(err)
	}

	opts := engine.DefaultProducerOptions()
	opts.Name, opts.LingerMs = "lingering", 100
	p, err := c.NewProducer(opts)
	if err != nil {
		t.Fatal(err)
	}
	fut, err := p.Send("fine", 0, record.Record{Value: []byte("v"), TimestampMs: engine.NoTimestamp})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.JoinGroup("g", "m1", []string{"fine"}); err != nil {
		t.Fatal(err)
	}
	session := c.Config().SessionTimeoutMs
	if err := c.Clock().(*clock.Manual).Advance(session + 1); err != nil {
		t.Fatal(err)
	}

	err = b.Pump()
	if !errors.Is(err, kerr.CorruptBatch) {
		t.Fatalf("pump: %v, want the broken partition's CORRUPT_BATCH", err)
	}
	if fut.State() != engine.Done {
		t.Fatalf("the linger flush did not run: future %v %v", fut.State(), fut.Err())
	}
	d, err := c.DescribeGroup("g")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Members) != 0 {
		t.Fatalf("session expiry did not run: members %v", d.Members)
	}
}
