package engine_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/storage"
)

func benchRecords(n, valueSize int) *record.Batch {
	value := make([]byte, valueSize)
	for i := range value {
		value[i] = byte('a' + i%26)
	}
	recs := make([]record.Record, n)
	for i := range recs {
		recs[i] = record.Record{Value: value, TimestampMs: int64(i)}
	}
	return record.NewBatch(recs)
}

// BenchmarkProduce compares appending the same batches through the cluster
// (replica set, producer state, HW, acknowledgement, events; one replica,
// acks=1) with appending them to a bare storage log. The cluster path should
// cost no more than 2x the bare append; `minikafka bench replicate` reports
// the ratio as go.produce.cluster_over_log.b512.time_ratio.
func BenchmarkProduce(b *testing.B) {
	for _, n := range []int{1, 512} {
		batch := benchRecords(n, 100)
		size := int64(batch.EncodedSize())
		b.Run(fmt.Sprintf("cluster/b%d", n), func(b *testing.B) {
			c, _, err := engine.Open(engine.DefaultConfig(b.TempDir()), clock.NewManual(0))
			if err != nil {
				b.Fatal(err)
			}
			defer c.Crash()
			c.CreateTopic("bench", 1, 1)
			tp := engine.TopicPartition{Topic: "bench"}
			b.SetBytes(size)
			for b.Loop() {
				if _, err := c.AppendBatch(tp, batch, engine.Acks1); err != nil {
					b.Fatal(err)
				}
				c.TakeEvents()
			}
		})
		b.Run(fmt.Sprintf("log/b%d", n), func(b *testing.B) {
			l, _, err := storage.Open(filepath.Join(b.TempDir(), "log"), storage.DefaultOptions(), 0)
			if err != nil {
				b.Fatal(err)
			}
			defer l.Crash(true)
			b.SetBytes(size)
			for b.Loop() {
				if _, _, err := l.Append(batch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkClusterFetch reads 10,000 records of 100-byte values through
// Cluster.Fetch, in batches of 1 and of 100 records. read_committed takes
// the consumers' read (batch by batch, skipping markers and hidden
// transactions); read_uncommitted the plain HW-bounded log read.
func BenchmarkClusterFetch(b *testing.B) {
	const total = 10000
	for _, n := range []int{1, 100} {
		c, _, err := engine.Open(engine.DefaultConfig(b.TempDir()), clock.NewManual(0))
		if err != nil {
			b.Fatal(err)
		}
		c.CreateTopic("bench", 1, 1)
		tp := engine.TopicPartition{Topic: "bench"}
		batch := benchRecords(n, 100)
		for range total / n {
			if _, err := c.AppendBatch(tp, batch, engine.Acks1); err != nil {
				b.Fatal(err)
			}
		}
		c.TakeEvents()
		for _, iso := range []engine.Isolation{engine.ReadCommitted, engine.ReadUncommitted} {
			b.Run(fmt.Sprintf("%s/b%d", iso, n), func(b *testing.B) {
				b.SetBytes(int64(total * 100))
				for b.Loop() {
					recs, err := c.Fetch(tp, 0, total, iso)
					if err != nil || len(recs) != total {
						b.Fatalf("fetched %d: %v", len(recs), err)
					}
				}
			})
		}
		c.Crash()
	}
}

// BenchmarkTransactionSend appends one-record transactional batches to one
// partition inside one open transaction (one replica: acks=all is
// acknowledged at once). Each send first checks the leader's transaction
// index for an earlier instance's open run (decision 44), which brings the
// index up to date with the previous send's batch.
func BenchmarkTransactionSend(b *testing.B) {
	c, _, err := engine.Open(engine.DefaultConfig(b.TempDir()), clock.NewManual(0))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Crash()
	if _, err := c.CreateTopic("bench", 1, 1); err != nil {
		b.Fatal(err)
	}
	if err := c.BeginTransaction("tx"); err != nil {
		b.Fatal(err)
	}
	r := record.Record{Value: make([]byte, 100), TimestampMs: 1}
	for b.Loop() {
		if _, err := c.TransactionSend("tx", "bench", 0, r); err != nil {
			b.Fatal(err)
		}
		c.TakeEvents()
	}
}

// lifecycleCluster opens a cluster of three brokers on the disk with one
// topic of partitions partitions (rf=3) and one record in every replica
// log.
func lifecycleCluster(b *testing.B, dir string, partitions int) engine.Config {
	b.Helper()
	cfg := engine.DefaultConfig(dir)
	cfg.BrokerIDs = []int32{1, 2, 3}
	c, _, err := engine.Open(cfg, clock.NewManual(0))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.CreateTopic("bench", partitions, 3); err != nil {
		b.Fatal(err)
	}
	batch := benchRecords(1, 100)
	for p := 0; p < partitions; p++ {
		if _, err := c.AppendBatch(engine.TopicPartition{Topic: "bench", Partition: int32(p)}, batch, engine.Acks1); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := c.Replicate(nil, engine.AllFollowers); err != nil {
		b.Fatal(err)
	}
	if err := c.Close(); err != nil {
		b.Fatal(err)
	}
	return cfg
}

// BenchmarkClusterClose times a graceful close of 100 partitions (rf=3)
// on the disk after one record was appended to every partition (every
// leader log changed). `minikafka bench restart` measures the same at
// larger sizes.
func BenchmarkClusterClose(b *testing.B) {
	cfg := lifecycleCluster(b, b.TempDir(), 100)
	batch := benchRecords(1, 100)
	for b.Loop() {
		b.StopTimer()
		c, _, err := engine.Open(cfg, clock.NewManual(0))
		if err != nil {
			b.Fatal(err)
		}
		for p := 0; p < 100; p++ {
			if _, err := c.AppendBatch(engine.TopicPartition{Topic: "bench", Partition: int32(p)}, batch, engine.Acks1); err != nil {
				b.Fatal(err)
			}
		}
		c.TakeEvents()
		b.StartTimer()
		if err := c.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClusterOpen times opening 100 partitions (rf=3) after a clean
// close.
func BenchmarkClusterOpen(b *testing.B) {
	cfg := lifecycleCluster(b, b.TempDir(), 100)
	for b.Loop() {
		c, _, err := engine.Open(cfg, clock.NewManual(0))
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := c.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}
