package producer

import (
	"hash/crc32"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// KeyPartition is the keyed rule: the unsigned CRC-32/IEEE of the key modulo
// the partition count (MiniKafka's rule; Kafka hashes with murmur2). count
// must be positive.
func KeyPartition(key []byte, count int32) int32 {
	return int32(crc32.ChecksumIEEE(key) % uint32(count))
}

// Partitioner chooses partitions (§8.1): keyed records hash; keyless (null
// key) records go to the topic's sticky partition, which starts at 0 and
// moves on after a batch holding a keyless record succeeds. The sticky state
// is per topic (decision 3, as Kafka's KIP-480), not per partition count as in
// the reference.
type Partitioner struct {
	sticky map[string]int32
}

// NewPartitioner returns a partitioner whose sticky partitions are all 0.
func NewPartitioner() *Partitioner { return &Partitioner{sticky: map[string]int32{}} }

// Choose picks the partition of a record with this key among count
// partitions of topic. A nil key is keyless; an empty key is a key.
func (p *Partitioner) Choose(topic string, count int32, key []byte) (int32, error) {
	if count <= 0 {
		return 0, kerr.Argument("partition count must be positive (got %d)", count)
	}
	if key != nil {
		return KeyPartition(key, count), nil
	}
	return p.sticky[topic] % count, nil
}

// OnBatchClosed is called after a batch holding at least one keyless record
// was appended successfully to partition of topic: if that is the sticky
// partition, the sticky partition moves to the next one.
func (p *Partitioner) OnBatchClosed(topic string, count, partition int32) {
	if count <= 0 {
		return
	}
	if p.sticky[topic]%count == partition {
		p.sticky[topic] = (partition + 1) % count
	}
}
