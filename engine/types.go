package engine

import (
	"strings"

	"github.com/minikafka-lab/minikafka/engine/group"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/producer"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/replication"
	"github.com/minikafka-lab/minikafka/engine/storage"
	"github.com/minikafka-lab/minikafka/engine/topic"
	"github.com/minikafka-lab/minikafka/engine/txn"
)

// TopicPartition is the address of one ordered log ("orders-0").
type TopicPartition = topic.Partition

// ParseTopicPartition reads "orders-0", splitting at the last '-'.
func ParseTopicPartition(s string) (TopicPartition, error) { return topic.Parse(s) }

// AckMode is the producer's acks setting.
type AckMode = replication.AckMode

// The ack modes.
const (
	Acks0   = replication.Acks0
	Acks1   = replication.Acks1
	AcksAll = replication.AcksAll
)

// ParseAcks reads "0", "1", "all" or "-1".
func ParseAcks(s string) (AckMode, error) { return replication.ParseAcks(s) }

// Ack is the pending acknowledgement of an append (a deterministic promise).
type Ack = replication.Ack

// ProduceResult is where an appended batch went.
type ProduceResult = replication.ProduceResult

// HandleState is a pending handle's state: pending, done, failed, cancelled.
type HandleState = replication.HandleState

// The handle states.
const (
	Pending   = replication.Pending
	Done      = replication.Done
	Failed    = replication.Failed
	Cancelled = replication.Cancelled
)

// AnyPartition asks the partitioner to choose the partition; NoTimestamp asks
// for the cluster clock's time.
const (
	AnyPartition int32 = -1
	NoTimestamp  int64 = -1
)

// AllFollowers, passed as Replicate's follower, fetches for every follower.
// (Broker ids may be 0, so 0 cannot mean "all".)
const AllFollowers int32 = -1

// Isolation is a fetch's isolation level.
type Isolation uint8

// The isolation levels. Both stop at the high watermark; read_committed also
// stops at the last stable offset and hides control batches and aborted
// transactions.
const (
	ReadUncommitted Isolation = iota
	ReadCommitted
)

// String returns "read_uncommitted" or "read_committed".
func (i Isolation) String() string {
	if i == ReadCommitted {
		return "read_committed"
	}
	return "read_uncommitted"
}

// ParseIsolation reads "read_uncommitted" or "read_committed".
func ParseIsolation(s string) (Isolation, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "read_uncommitted":
		return ReadUncommitted, nil
	case "read_committed":
		return ReadCommitted, nil
	}
	return 0, kerr.Argument("isolation must be read_uncommitted or read_committed (got %q)", s)
}

// StoredRecord is a fetched record with its address.
type StoredRecord struct {
	Topic     string
	Partition int32
	Offset    int64
	record.Record
}

// TopicMetadata describes a topic; Partitions are in numeric order.
type TopicMetadata struct {
	Name       string
	Partitions []PartitionMetadata
}

// PartitionMetadata is one partition's replicas, leader and leader epoch.
type PartitionMetadata struct {
	Topic       string
	Partition   int32
	Replicas    []int32
	Leader      int32
	LeaderEpoch int32
}

// TP returns the partition's address.
func (p PartitionMetadata) TP() TopicPartition {
	return TopicPartition{Topic: p.Topic, Partition: p.Partition}
}

// PartitionState describes one partition as plain values (see
// replication.PartitionState).
type PartitionState = replication.PartitionState

// ReplicaState describes one replica.
type ReplicaState = replication.ReplicaState

// ProducerEntry is the broker-side state of one idempotent producer.
type ProducerEntry = replication.ProducerEntry

// Producer is a producer created by NewProducer.
type Producer = producer.Producer

// ProducerOptions configure NewProducer; start from DefaultProducerOptions.
type ProducerOptions = producer.Options

// DefaultProducerOptions: batch.size 16384, linger.ms 0, buffer.memory 1 MiB,
// acks 1, not idempotent, named producer-{n}.
func DefaultProducerOptions() ProducerOptions { return producer.DefaultOptions() }

// Future is a producer's pending record result.
type Future = producer.Future

// RecordMetadata is where a sent record went.
type RecordMetadata = producer.RecordMetadata

// GroupState is a consumer group's state (§11.2): String() is the spec's
// lowercase value, KafkaName() what kafka-consumer-groups prints.
type GroupState = group.State

// The group states, in order. PreparingRebalance exists only inside a
// synchronous rebalance, so callers see Empty or Stable.
const (
	GroupEmpty              = group.Empty
	GroupPreparingRebalance = group.PreparingRebalance
	GroupStable             = group.Stable
)

// GroupListing is one line of `group list`.
type GroupListing = group.GroupListing

// GroupMember describes one member of a group: id, subscriptions,
// assignment and session deadline (copies).
type GroupMember = group.MemberDescription

// TransactionState is a transaction's state (§12.1): String() is the
// journal's lowercase value, KafkaName() Kafka's display name.
type TransactionState = txn.State

// The transaction states, in order.
const (
	TransactionOngoing        = txn.Ongoing
	TransactionPrepareCommit  = txn.PrepareCommit
	TransactionCompleteCommit = txn.CompleteCommit
	TransactionPrepareAbort   = txn.PrepareAbort
	TransactionCompleteAbort  = txn.CompleteAbort
)

// TransactionJournalFileName is the transaction coordinator's journal in the
// data directory.
const TransactionJournalFileName = txn.JournalFileName

// CorruptMode is a kind of damage Corrupt does to a segment file.
type CorruptMode = storage.CorruptMode

// The damage modes: garbage appends bytes that look like the start of a
// frame (a torn write), truncate cuts bytes off the end, flip flips the
// lowest bit of one byte.
const (
	CorruptGarbage  = storage.Garbage
	CorruptTruncate = storage.Truncate
	CorruptFlip     = storage.Flip
)

// ParseCorruptMode reads "garbage", "truncate" or "flip".
func ParseCorruptMode(s string) (CorruptMode, error) { return storage.ParseCorruptMode(s) }

// DefaultCorruptBytes is the amount Corrupt uses when given 0: 1 for flip
// (the last byte), 16 otherwise.
func DefaultCorruptBytes(m CorruptMode) int { return storage.DefaultCorruptBytes(m) }

// CorruptReport says what Corrupt changed.
type CorruptReport = storage.CorruptReport
