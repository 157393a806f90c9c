package engine_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/producer"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/storage"
	"github.com/minikafka-lab/minikafka/engine/vfs"
	"github.com/minikafka-lab/minikafka/tools/bench"
)

// reportCPU reports the CPU time per operation since start (cpu-ns/op): on
// a shared machine it moves less than the elapsed time.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// benchCluster opens a cluster with cfg on a manual clock, with the topic
// "bench" of partitions partitions and one replica; it crashes when b
// ends.
func benchCluster(b *testing.B, cfg engine.Config, partitions int) *engine.Cluster {
	b.Helper()
	c, _, err := engine.Open(cfg, clock.NewManual(0))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Crash() })
	if _, err := c.CreateTopic("bench", partitions, 1); err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkProducerClient compares the producer client (Send of each
// record, the accumulator, one flush at batch.size, the append through the
// cluster, settling every record's future) with the bare storage append of
// the same 512-record batch, both without fsync (vfs.NoSync), so that the
// figures are CPU, not the disk's latency. The client should cost at most 2x the append
// in CPU (cpu-ns/op) and allocate at most 64 bytes per record (-benchmem,
// divided by 512).
func BenchmarkProducerClient(b *testing.B) {
	const n = 512
	batch := benchRecords(n, 100)
	size := int64(batch.EncodedSize())
	b.Run(fmt.Sprintf("client/b%d", n), func(b *testing.B) {
		cfg := engine.DefaultConfig(b.TempDir())
		cfg.FS = vfs.NoSync(vfs.OS)
		c := benchCluster(b, cfg, 1)
		opts := producer.DefaultOptions()
		opts.BatchSize = n * producer.EstimateSize(batch.Records[0])
		opts.MaxBufferBytes = 4 * opts.BatchSize
		p, err := c.NewProducer(opts)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(size)
		b.ReportAllocs()
		defer reportCPU(b, cpuTime())
		for b.Loop() {
			var last *producer.Future
			for _, r := range batch.Records {
				if last, err = p.Send("bench", 0, r); err != nil {
					b.Fatal(err)
				}
			}
			if !last.Settled() {
				b.Fatal("the batch did not flush at batch.size")
			}
			c.TakeEvents()
		}
	})
	b.Run(fmt.Sprintf("log/b%d", n), func(b *testing.B) {
		o := storage.DefaultOptions()
		o.FS = vfs.NoSync(vfs.OS)
		l, _, err := storage.Open(filepath.Join(b.TempDir(), "log"), o, 0)
		if err != nil {
			b.Fatal(err)
		}
		defer l.Crash(true)
		b.SetBytes(size)
		b.ReportAllocs()
		defer reportCPU(b, cpuTime())
		for b.Loop() {
			if _, _, err := l.Append(batch); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkGroupJoin joins 1,000 members, one after the other, to one group
// on a fresh cluster (groups persisted on disk); one iteration is the 1,000
// joins. Target: at most 0.3 s.
func BenchmarkGroupJoin(b *testing.B) {
	const members = 1000
	for b.Loop() {
		b.StopTimer()
		c := benchCluster(b, engine.DefaultConfig(b.TempDir()), 4)
		b.StartTimer()
		for i := range members {
			if _, err := c.JoinGroup("g", fmt.Sprintf("m-%04d", i), []string{"bench"}); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		c.Crash()
		b.StartTimer()
	}
}

// BenchmarkReadCommittedAfterTransactions fetches 100 records from the
// middle of a partition that holds 10,000 committed one-record
// transactions, read_committed and read_uncommitted. read_committed should
// cost at most 2x the plain fetch.
func BenchmarkReadCommittedAfterTransactions(b *testing.B) {
	const txns = 10000
	c := benchCluster(b, engine.DefaultConfig(b.TempDir()), 1)
	r := record.Record{Value: make([]byte, 100), TimestampMs: 1}
	for range txns {
		if err := c.BeginTransaction("tx"); err != nil {
			b.Fatal(err)
		}
		if _, err := c.TransactionSend("tx", "bench", 0, r); err != nil {
			b.Fatal(err)
		}
		if _, err := c.CommitTransaction("tx"); err != nil {
			b.Fatal(err)
		}
		c.TakeEvents()
	}
	tp := engine.TopicPartition{Topic: "bench"}
	for _, iso := range []engine.Isolation{engine.ReadCommitted, engine.ReadUncommitted} {
		b.Run(iso.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				recs, err := c.Fetch(tp, txns, 100, iso)
				if err != nil || len(recs) != 100 && iso == engine.ReadUncommitted {
					b.Fatalf("fetched %d: %v", len(recs), err)
				}
			}
		})
	}
}

// cpuTime is the CPU time the process used so far (bench.ProcessCPU; 0
// where the system cannot tell).
func cpuTime() time.Duration {
	d, _ := bench.ProcessCPU()
	return d
}
