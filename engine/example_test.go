package engine_test

import (
	"fmt"
	"os"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/producer"
	"github.com/minikafka-lab/minikafka/engine/record"
)

// The seeds' first experiment (§5.5): a 2-partition topic with one replica,
// a producer with batch.size 1, key "alice" lands on partition 1 at offset 0
// because crc32("alice") % 2 == 1, and the record is fetched back.
func ExampleCluster_firstRecord() {
	dir, _ := os.MkdirTemp("", "minikafka-example")
	defer os.RemoveAll(dir)

	cluster, _, err := engine.Open(engine.DefaultConfig(dir), nil)
	if err != nil {
		panic(err)
	}
	defer cluster.Close()
	if _, err := cluster.CreateTopic("orders", 2, 1); err != nil {
		panic(err)
	}
	opts := producer.DefaultOptions()
	opts.BatchSize = 1
	p, err := cluster.NewProducer(opts)
	if err != nil {
		panic(err)
	}
	future, err := p.Send("orders", producer.AnyPartition, record.Record{Key: []byte("alice"), Value: []byte("created"), TimestampMs: producer.NoTimestamp})
	if err != nil {
		panic(err)
	}
	md := future.Value()
	fmt.Printf("partition=%d offset=%d\n", md.Partition, md.Offset)

	records, err := cluster.Fetch(engine.TopicPartition{Topic: "orders", Partition: md.Partition}, 0, 10, engine.ReadUncommitted)
	if err != nil {
		panic(err)
	}
	for _, r := range records {
		fmt.Printf("(%d, %s, %s)\n", r.Offset, r.Key, r.Value)
	}
	// Output:
	// partition=1 offset=0
	// (0, alice, created)
}
