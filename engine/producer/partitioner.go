package producer

import (
	"hash/crc32"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// Strategy is the partitioner rule (the partitioner= knob).
type Strategy uint8

// The two partitioner rules.
const (
	// CRC32 is MiniKafka's rule (§8.1): a keyed record goes to the unsigned
	// CRC-32/IEEE of its key modulo the partition count; keyless records
	// stick to one partition per topic, starting at 0, which moves to the
	// next partition after a batch holding a keyless record succeeds.
	CRC32 Strategy = iota
	// Murmur2 is Kafka's rule (BuiltInPartitioner): a keyed record goes to
	// toPositive(murmur2(key)) modulo the partition count (Utils.murmur2);
	// keyless records stick to a partition chosen at random among the
	// partitions with a leader, which changes once batch.size bytes were
	// produced to it (KIP-794, Kafka 3.3+).
	Murmur2
)

var strategyNames = []string{"crc32", "murmur2"}

// ParseStrategy reads "crc32" or "murmur2".
func ParseStrategy(s string) (Strategy, error) {
	for i, n := range strategyNames {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return Strategy(i), nil
		}
	}
	return 0, kerr.Argument("partitioner must be crc32 or murmur2 (got %q)", s)
}

// String returns "crc32" or "murmur2".
func (s Strategy) String() string {
	if int(s) < len(strategyNames) {
		return strategyNames[s]
	}
	return "invalid"
}

// StrategyNames lists the knob's values, MiniKafka's first.
func StrategyNames() []string { return append([]string(nil), strategyNames...) }

// Settings are the producer rules a cluster shares with its producers. They
// are read through a pointer, so `config set partitioner=...` applies at
// once.
type Settings struct {
	Partitioner Strategy
}

// KeyPartition is the keyed rule: the unsigned CRC-32/IEEE of the key modulo
// the partition count (MiniKafka's rule; Kafka hashes with murmur2). count
// must be positive.
func KeyPartition(key []byte, count int32) int32 {
	return int32(crc32.ChecksumIEEE(key) % uint32(count))
}

// Murmur2Hash is Kafka's 32-bit murmur2 hash of data, bit for bit as
// org.apache.kafka.common.utils.Utils.murmur2 computes it (seed 0x9747b28c).
func Murmur2Hash(data []byte) int32 {
	const (
		seed uint32 = 0x9747b28c
		m    uint32 = 0x5bd1e995
		r           = 24
	)
	n := len(data)
	h := seed ^ uint32(n)
	for i := 0; i+4 <= n; i += 4 {
		k := uint32(data[i]) | uint32(data[i+1])<<8 | uint32(data[i+2])<<16 | uint32(data[i+3])<<24
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
	}
	tail := n &^ 3
	switch n % 4 {
	case 3:
		h ^= uint32(data[tail+2]) << 16
		fallthrough
	case 2:
		h ^= uint32(data[tail+1]) << 8
		fallthrough
	case 1:
		h ^= uint32(data[tail])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return int32(h)
}

// toPositive is Kafka's Utils.toPositive: the sign bit masked off.
func toPositive(n int32) int32 { return n & 0x7fffffff }

// Murmur2Partition is Kafka's keyed rule (BuiltInPartitioner.partitionForKey):
// toPositive(murmur2(key)) modulo the partition count. count must be
// positive.
func Murmur2Partition(key []byte, count int32) int32 {
	return toPositive(Murmur2Hash(key)) % count
}

// stickyState is Kafka's per-topic sticky partition: the partition and the
// bytes produced to it since it was chosen (StickyPartitionInfo).
type stickyState struct {
	partition int32
	produced  int64
}

// Partitioner chooses partitions (§8.1) by the rule its Settings name:
// keyed records hash; keyless (null key) records go to the topic's sticky
// partition. Under CRC32 the sticky state is per topic (decision 3, as
// Kafka's KIP-480) and moves after a batch holding a keyless record
// succeeds; under Murmur2 it follows Kafka's built-in partitioner. Random
// choices come from the partitioner's own seeded generator, so a script
// chooses the same partitions on every run.
type Partitioner struct {
	settings *Settings // nil means MiniKafka's rule
	sticky   map[string]int32
	kafka    map[string]*stickyState
	rng      uint64
	// Available, when set, lists the partitions of a topic that have a
	// leader; Kafka's sticky partitioner picks among those (all partitions
	// when none has one).
	Available func(topic string, count int32) []int32
}

// stickySeed seeds every partitioner's generator.
const stickySeed = 0x4b61666b61 // "Kafka"

// NewPartitioner returns a partitioner with MiniKafka's rule whose sticky
// partitions are all 0.
func NewPartitioner() *Partitioner { return NewPartitionerWith(nil) }

// NewPartitionerWith returns a partitioner that follows the rule in
// settings (nil: MiniKafka's).
func NewPartitionerWith(settings *Settings) *Partitioner {
	return &Partitioner{settings: settings, sticky: map[string]int32{}, kafka: map[string]*stickyState{}, rng: stickySeed}
}

// Strategy is the rule in force.
func (p *Partitioner) Strategy() Strategy {
	if p.settings == nil {
		return CRC32
	}
	return p.settings.Partitioner
}

// Choose picks the partition of a record with this key among count
// partitions of topic. A nil key is keyless; an empty key is a key.
func (p *Partitioner) Choose(topic string, count int32, key []byte) (int32, error) {
	if count <= 0 {
		return 0, kerr.Argument("partition count must be positive (got %d)", count)
	}
	kafka := p.Strategy() == Murmur2
	switch {
	case key != nil && kafka:
		return Murmur2Partition(key, count), nil
	case key != nil:
		return KeyPartition(key, count), nil
	case kafka:
		return p.kafkaSticky(topic, count).partition, nil
	}
	return p.sticky[topic] % count, nil
}

// Peek is the partition Choose would pick now, without Choose's side
// effect: under Kafka's rule, a topic without a sticky partition yet gets
// none (the random generator is left where it was), so asking changes
// nothing that a later Choose sees.
func (p *Partitioner) Peek(topic string, count int32, key []byte) (int32, error) {
	if key != nil || count <= 0 || p.Strategy() != Murmur2 {
		return p.Choose(topic, count, key)
	}
	if st := p.kafka[topic]; st != nil && st.partition < count {
		return st.partition, nil
	}
	rng := p.rng
	partition := p.nextPartition(topic, count)
	p.rng = rng
	return partition, nil
}

// StickyPartition is the partition a keyless record of topic would go to
// now.
func (p *Partitioner) StickyPartition(topic string, count int32) int32 {
	if p.Strategy() == Murmur2 {
		return p.kafkaSticky(topic, count).partition
	}
	return p.sticky[topic] % count
}

// kafkaSticky returns the topic's sticky state, choosing a partition when
// there is none yet (or the partition count shrank).
func (p *Partitioner) kafkaSticky(topic string, count int32) *stickyState {
	st := p.kafka[topic]
	if st == nil || st.partition >= count {
		st = &stickyState{partition: p.nextPartition(topic, count)}
		p.kafka[topic] = st
	}
	return st
}

// nextPartition is BuiltInPartitioner.nextPartition without load statistics
// (uniform): a random partition among those with a leader, or among all.
func (p *Partitioner) nextPartition(topic string, count int32) int32 {
	random := toPositive(int32(p.next()))
	if p.Available != nil {
		if avail := p.Available(topic, count); len(avail) > 0 {
			return avail[random%int32(len(avail))]
		}
	}
	return random % count
}

// next is one step of splitmix64.
func (p *Partitioner) next() uint64 {
	p.rng += 0x9e3779b97f4a7c15
	z := p.rng
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// OnBatchClosed is MiniKafka's sticky rule, called after a batch holding at
// least one keyless record was appended successfully to partition of topic:
// if that is the sticky partition, the sticky partition moves to the next
// one. Under Kafka's rule it does nothing (see Appended).
func (p *Partitioner) OnBatchClosed(topic string, count, partition int32) {
	if count <= 0 || p.Strategy() != CRC32 {
		return
	}
	if p.sticky[topic]%count == partition {
		p.sticky[topic] = (partition + 1) % count
	}
}

// Appended is Kafka's sticky rule (BuiltInPartitioner.updatePartitionInfo),
// called when a keyless record of bytes bytes was added for partition of
// topic: the bytes count towards the sticky partition, which changes to a
// new random one once batchSize bytes were produced to it and its batch is
// complete (batchDone: it was sent, or filled), or once twice batchSize
// bytes were. Under MiniKafka's rule it does nothing (see OnBatchClosed).
func (p *Partitioner) Appended(topic string, count, partition int32, bytes, batchSize int64, batchDone bool) {
	if count <= 0 || p.Strategy() != Murmur2 {
		return
	}
	st := p.kafka[topic]
	if st == nil || st.partition != partition {
		return
	}
	st.produced += bytes
	if (st.produced >= batchSize && batchDone) || st.produced >= 2*batchSize {
		p.kafka[topic] = &stickyState{partition: p.nextPartition(topic, count)}
	}
}
