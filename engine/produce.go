package engine

import (
	"fmt"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/producer"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/replication"
)

// Produce appends one record as its own batch: the REPL's produce command and
// the JSON/TCP adapter's produce. partition AnyPartition uses the cluster's
// partitioner (crc32 of the key; keyless records go to the topic's sticky
// partition, which moves on once such a batch succeeds — decision 3); an
// explicit partition is checked (UNKNOWN_PARTITION). A negative timestamp
// means the clock's time. The Ack is done at once for acks 0 and 1 and may be
// pending for acks=all. Any error means nothing was appended.
func (c *Cluster) Produce(topicName string, partition int32, r record.Record, acks AckMode) (*Ack, error) {
	defer c.drainDiskFailures()
	if err := c.guard(); err != nil {
		return nil, err
	}
	if err := acks.Check(); err != nil {
		return nil, err
	}
	count, err := c.partitionCount(topicName)
	if err != nil {
		return nil, err
	}
	if partition == AnyPartition {
		partition, _ = c.partitioner.Choose(topicName, count, r.Key)
	} else if partition < 0 || partition >= count {
		return nil, kerr.New(kerr.UnknownPartition, "%s-%d", topicName, partition)
	}
	if r.TimestampMs < 0 {
		r.TimestampMs = c.clock.NowMs()
	}
	tp := TopicPartition{Topic: topicName, Partition: partition}
	ack, err := c.sets[tp].Append(record.NewBatch([]record.Record{r}), acks, "produce")
	if err != nil {
		return nil, err
	}
	if r.Key == nil {
		// Kafka's sticky partitioner counts the bytes added to the
		// partition; the batch is sent at once.
		c.partitioner.Appended(topicName, count, partition, producer.EstimateSize(r), producer.DefaultOptions().BatchSize, true)
		c.awaitKeyless(ack, count)
	}
	return ack, nil
}

// AppendBatch appends an unassigned batch to a partition's leader with the
// given acks (§9.4). A batch whose LeaderEpoch is set (>= 0) states the epoch
// the caller believes current; a stale one is FENCED_LEADER_EPOCH. The Ack is
// done at once for acks 0 and 1 and may be pending for acks=all. Any error
// means nothing was appended.
//
// Transactional batches and control markers are an argument error: they go
// through BeginTransaction, TransactionSend and CommitTransaction or
// AbortTransaction. Read isolation is decided by the markers in the log
// (decision 14), so a marker appended here would decide the fate of another
// transaction's records.
func (c *Cluster) AppendBatch(tp TopicPartition, b *record.Batch, acks AckMode) (*Ack, error) {
	defer c.drainDiskFailures()
	if err := c.guard(); err != nil {
		return nil, err
	}
	if b != nil && (b.Transactional || b.Control != record.NoControl) {
		return nil, kerr.Argument("append takes plain batches: transactional batches and markers go through the transaction API (begin, send, commit or abort)")
	}
	return c.appendBatch(tp, b, acks, "append")
}

// appendBatch appends to tp's replica set; the caller has checked the
// lifecycle.
func (c *Cluster) appendBatch(tp TopicPartition, b *record.Batch, acks AckMode, source string) (*Ack, error) {
	rs, err := c.replicaSet(tp)
	if err != nil {
		return nil, err
	}
	return rs.Append(b, acks, source)
}

func (c *Cluster) partitionCount(topicName string) (int32, error) {
	n, ok := c.topics[topicName]
	if !ok {
		return 0, kerr.New(kerr.UnknownTopic, "%s", topicName)
	}
	return n, nil
}

// PartitionFor is the partition Produce would choose now for a record of
// topicName with this key (UNKNOWN_TOPIC for an unknown topic): the
// cluster's partitioner on the key for a keyed record (an empty key is a
// key), and the topic's sticky partition for a null key, which moves on
// after each successful keyless batch (decision 3). It changes nothing.
// Everything outside engine/producer that needs the keyed rule asks here,
// so the partitioner the cluster runs with is the only one.
func (c *Cluster) PartitionFor(topicName string, key []byte) (int32, error) {
	if err := c.guard(); err != nil {
		return 0, err
	}
	count, err := c.partitionCount(topicName)
	if err != nil {
		return 0, err
	}
	return c.partitioner.Peek(topicName, count, key)
}

// PendingAcks lists every pending acks=all acknowledgement, by id.
func (c *Cluster) PendingAcks() []*Ack {
	var out []*Ack
	for _, tp := range c.sortedTPs() {
		out = append(out, c.sets[tp].PendingAcks()...)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].ID() < out[j-1].ID(); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// producerPort is what producers see of the cluster.
type producerPort struct{ c *Cluster }

func (p producerPort) Writable() error { return p.c.guardFlush() }

func (p producerPort) PartitionCount(topicName string) (int32, error) {
	if err := p.c.guardFlush(); err != nil {
		return 0, err
	}
	return p.c.partitionCount(topicName)
}

func (p producerPort) AvailablePartitions(topicName string, count int32) []int32 {
	return p.c.availablePartitions(topicName, count)
}

// availablePartitions lists the partitions of a topic that have a running
// leader, for Kafka's sticky partitioner.
func (c *Cluster) availablePartitions(topicName string, count int32) []int32 {
	var out []int32
	for p := int32(0); p < count; p++ {
		if rs := c.sets[TopicPartition{Topic: topicName, Partition: p}]; rs != nil && rs.Online() {
			out = append(out, p)
		}
	}
	return out
}

func (p producerPort) AppendBatch(tp TopicPartition, b *record.Batch, acks replication.AckMode, source string) (*replication.Ack, error) {
	defer p.c.drainDiskFailures()
	if err := p.c.guardFlush(); err != nil {
		return nil, err
	}
	return p.c.appendBatch(tp, b, acks, source)
}

// NewProducer creates a producer (§8.3, §8.5). Options start from
// producer.DefaultOptions(). An empty name becomes producer-{n}, n counting
// every producer this cluster instance created. An idempotent producer gets
// its identity from producer-identities.json (a new name: a new PID, epoch 0;
// a known name: the same PID, epoch + 1) and the epoch is registered on every
// existing partition, which fences an older instance of the same name; a
// name whose epoch is already 2^31-1 is ILLEGAL_STATE, and identity store
// failures are STORAGE_ERROR (decision 29). Acks 1 is upgraded
// to all for idempotent producers and acks 0 is an argument error
// (decision 4).
func (c *Cluster) NewProducer(opts producer.Options) (*producer.Producer, error) {
	if err := c.guard(); err != nil {
		return nil, err
	}
	acks, err := producer.ResolveAcks(opts.Acks, opts.Idempotent)
	if err != nil {
		return nil, err
	}
	opts.Acks = acks
	if _, err := producer.NewAccumulator(opts.BatchSize, opts.LingerMs, opts.MaxBufferBytes); err != nil {
		return nil, err
	}
	if opts.Name == "" {
		opts.Name = fmt.Sprintf("producer-%d", len(c.producers)+1)
	}
	if err := producer.ValidateName(opts.Name); err != nil {
		return nil, err
	}
	var id producer.Identity
	if opts.Idempotent {
		next, err := c.identities.Next(opts.Name)
		if err != nil {
			return nil, err
		}
		for _, tp := range c.sortedTPs() {
			if err := c.sets[tp].CheckProducerEpoch(next.PID, next.Epoch); err != nil {
				return nil, err
			}
		}
		if id, err = c.identities.Allocate(opts.Name); err != nil {
			return nil, err
		}
		for _, tp := range c.sortedTPs() {
			if err := c.sets[tp].RegisterProducerEpoch(id.PID, id.Epoch); err != nil {
				return nil, err // unreachable: checked above
			}
		}
	}
	p, err := producer.New(c.producerEnv(int64(len(c.producers)+1)), opts, id)
	if err != nil {
		return nil, err
	}
	c.producers = append(c.producers, p)
	return p, nil
}

// Producers lists the producers this cluster created, in creation order.
func (c *Cluster) Producers() []*producer.Producer {
	return append([]*producer.Producer(nil), c.producers...)
}

// Producer finds a producer by name (the most recent one with that name).
func (c *Cluster) Producer(name string) (*producer.Producer, error) {
	for i := len(c.producers) - 1; i >= 0; i-- {
		if c.producers[i].Name() == name {
			return c.producers[i], nil
		}
	}
	return nil, kerr.Argument("unknown producer %q", name)
}
