package replication

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/storage"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// benchBatch is n keyless records with valueSize-byte values.
func benchBatch(n, valueSize int) *record.Batch {
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

// newBenchSet builds a 3-replica set over fresh logs in dir.
func newBenchSet(b testing.TB, dir string) *ReplicaSet {
	b.Helper()
	logs := map[int32]*storage.Log{}
	for _, id := range []int32{1, 2, 3} {
		l, _, err := storage.Open(filepath.Join(dir, fmt.Sprint(id)), storage.DefaultOptions(), 0)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { l.Crash(true) })
		logs[id] = l
	}
	env := &Env{Clock: clock.NewManual(0), IDs: &IDSource{}, Settings: &Settings{
		MinInsyncReplicas: 1, Lag: LagConfig{MaxOffsets: 1 << 40, MaxTimeMs: 10_000}, FetchMaxBytes: 1 << 20}}
	rs, err := NewReplicaSet(env, topic.Partition{Topic: "bench"}, []int32{1, 2, 3}, 1, 0, logs)
	if err != nil {
		b.Fatal(err)
	}
	return rs
}

// BenchmarkFollowerCatchUp: a follower of a 3-replica partition copies the
// leader's 512-record batches (100-byte values) until it has caught up
// (go.replicate.b512.follower_MBps; the target is >= 300 MB/s). Each
// iteration copies 64 MiB-ish of batches into a fresh follower.
func BenchmarkFollowerCatchUp(b *testing.B) {
	batch := benchBatch(512, 100)
	const batches = 1000
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		rs := newBenchSet(b, b.TempDir())
		for range batches {
			if _, err := rs.Append(batch, Acks1, "bench"); err != nil {
				b.Fatal(err)
			}
		}
		size := rs.replicas[1].log.SizeBytes()
		b.SetBytes(size)
		b.StartTimer()
		for rs.replicas[2].LEO() < rs.replicas[1].LEO() {
			if _, err := rs.FetchFollower(2); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkFetchRound: the per-step cost of replication on a 3-replica
// partition: one small acks=1 append, then one fetch step for both
// followers (copy, ISR refresh, HW advance). What dominates here is not
// bytes but the step's own work, which should not grow with the log.
func BenchmarkFetchRound(b *testing.B) {
	rs := newBenchSet(b, b.TempDir())
	rs.env.Events = &EventLog{}
	batch := benchBatch(1, 100)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := rs.Append(batch, Acks1, "bench"); err != nil {
			b.Fatal(err)
		}
		if _, err := rs.FetchFollowers(); err != nil {
			b.Fatal(err)
		}
		rs.env.Events.Take()
	}
}
