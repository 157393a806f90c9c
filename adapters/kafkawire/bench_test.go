package kafkawire

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// benchProduce produces b.N records of 100 bytes with a kgo producer
// (16 KiB batches, acks=1, no compression) to bootstrap and reports
// records/s and MB/s.
func benchProduce(b *testing.B, bootstrap string) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.DefaultProduceTopic("bench"),
		kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite(),
		kgo.ProducerBatchMaxBytes(16<<10), kgo.ProducerBatchCompression(kgo.NoCompression()),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// Warm up: metadata and connections.
	if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("warm")}).FirstErr(); err != nil {
		b.Fatal(err)
	}
	value := make([]byte, 100)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		cl.Produce(ctx, &kgo.Record{Value: value}, func(_ *kgo.Record, err error) {
			if err != nil {
				b.Error(err)
			}
		})
	}
	if err := cl.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	elapsed := time.Since(start).Seconds()
	b.ReportMetric(float64(b.N)/elapsed, "records/s")
	b.ReportMetric(float64(b.N*len(value))/elapsed/1e6, "MB/s")
}

// BenchmarkProduceThroughput compares the listener with franz-go's kfake
// on the same kgo producer: go test -run XXX -bench ProduceThroughput
// ./adapters/kafkawire (the goal: the listener at >= 1x kfake).
func BenchmarkProduceThroughput(b *testing.B) {
	b.Run("listener", func(b *testing.B) {
		tc := startCluster(b, 1)
		tc.createTopic("bench", 1, 1)
		benchProduce(b, tc.srv.Bootstrap())
	})
	b.Run("kfake", func(b *testing.B) {
		fake, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "bench"))
		if err != nil {
			b.Fatal(err)
		}
		defer fake.Close()
		benchProduce(b, fake.ListenAddrs()[0])
	})
}
