package engine_test

import (
	"fmt"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// benchSnapshotCluster is the benchmarks' cluster: 3 brokers in memory,
// one topic of 6 partitions with replication factor 3, 1,000 keyed
// records (one batch each, acks=1), replicated to every follower.
func benchSnapshotCluster(b *testing.B) *engine.Cluster {
	b.Helper()
	cfg := engine.DefaultConfig("data")
	cfg.FS = vfs.NewMem()
	cfg.BrokerIDs = []int32{1, 2, 3}
	c, _, err := engine.Open(cfg, clock.NewManual(0))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.CreateTopic("orders", 6, 3); err != nil {
		b.Fatal(err)
	}
	for i := range 1000 {
		r := record.Record{Key: fmt.Appendf(nil, "k%d", i), Value: fmt.Appendf(nil, "value %d", i), TimestampMs: int64(i)}
		if _, err := c.Produce("orders", engine.AnyPartition, r, engine.Acks1); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := c.Replicate(nil, engine.AllFollowers); err != nil {
		b.Fatal(err)
	}
	c.TakeEvents()
	return c
}

// BenchmarkSnapshotRestore takes a snapshot of a 3-broker, 6-partition
// (replication factor 3), 1,000-record cluster in memory and restores it:
// one snapshot+restore pair per iteration (target: 50 µs). The sub-benchmarks
// measure each half alone, and a restore followed by one produce (the first
// write after a clone copies a page of the segment it appends to).
func BenchmarkSnapshotRestore(b *testing.B) {
	c := benchSnapshotCluster(b)
	b.Run("pair", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s, err := c.Snapshot()
			if err != nil {
				b.Fatal(err)
			}
			if _, err := engine.Restore(s); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("snapshot", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Snapshot(); err != nil {
				b.Fatal(err)
			}
		}
	})
	s, err := c.Snapshot()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("restore", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := engine.Restore(s); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("restore+produce", func(b *testing.B) {
		b.ReportAllocs()
		r := record.Record{Key: []byte("k1"), Value: []byte("one more"), TimestampMs: 5}
		for b.Loop() {
			rc, err := engine.Restore(s)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := rc.Produce("orders", engine.AnyPartition, r, engine.Acks1); err != nil {
				b.Fatal(err)
			}
		}
	})
}
