package jsontcp

import "github.com/minikafka-lab/minikafka/engine/topic"

// Backend is what the adapter translates requests into: one method per
// operation, plus the background pump. The server calls it from a single
// goroutine, never concurrently. ClusterBackend binds it to *engine.Cluster;
// tests use fakes.
//
// Errors are returned as the engine returns them: a *kerr.Error with a domain
// code keeps that code on the wire, kerr.InvalidArgument becomes
// INVALID_REQUEST, kerr.IllegalState becomes ILLEGAL_STATE, anything else
// INTERNAL.
type Backend interface {
	// CreateTopic creates a topic.
	CreateTopic(name string, partitions, replicationFactor int) error
	// Metadata describes a topic, partitions in numeric order.
	Metadata(topic string) (TopicMetadata, error)
	// Produce appends one record. When the acknowledgement is not known yet
	// (acks=all waiting for followers) it returns a non-nil PendingAck and a
	// result whose Partition is already set.
	Produce(p ProduceRequest) (ProduceResult, PendingAck, error)
	// Fetch reads committed (HW-bounded, or LSO-bounded for read_committed)
	// records of one partition.
	Fetch(f FetchRequest) ([]Record, error)
	// JoinGroup joins (or rejoins) a consumer group with a client-chosen member id.
	JoinGroup(groupID, memberID string, topics []string) (JoinResult, error)
	// Heartbeat checks a member's generation and refreshes its session.
	Heartbeat(groupID, memberID string, generation int32) error
	// CommitOffsets commits offsets for a member, with full generation and
	// ownership fencing.
	CommitOffsets(groupID, memberID string, generation int32, offsets []OffsetCommit) error
	// Pump runs one round of the cluster's background work without moving
	// its clock: a follower fetch on every partition (which advances high
	// watermarks and settles acks=all waiters), then whatever is due on the
	// clock (ISR time lag, session expiry), even when the fetch failed on
	// some partition. The server calls it on a timer.
	Pump() error
}

// PendingAck is a produce waiting for its acknowledgement.
type PendingAck interface {
	// Poll reports whether the acknowledgement is settled and, if so, the
	// result or the error. It is called on the backend's goroutine.
	Poll() (result ProduceResult, done bool, err error)
}

// Acks is the produce acknowledgement mode.
type Acks int

// The acknowledgement modes.
const (
	AcksLeader Acks = iota // "1": the leader appended (the default)
	AcksNone               // "0": nothing is waited for; no offset is returned
	AcksAll                // "all" / "-1": every in-sync replica has the record
)

// String returns the wire spelling: "0", "1" or "all".
func (a Acks) String() string {
	switch a {
	case AcksNone:
		return "0"
	case AcksAll:
		return "all"
	default:
		return "1"
	}
}

// Isolation is a fetch's isolation level.
type Isolation int

// The isolation levels.
const (
	ReadUncommitted Isolation = iota // bounded by the high watermark (default)
	ReadCommitted                    // bounded by the last stable offset
)

// String returns the wire spelling.
func (i Isolation) String() string {
	if i == ReadCommitted {
		return "read_committed"
	}
	return "read_uncommitted"
}

// ProduceRequest is a decoded produce.
type ProduceRequest struct {
	Topic string
	// Partition is the target partition when Explicit; otherwise the
	// cluster's partitioner chooses.
	Partition int32
	Explicit  bool
	// Key and Value are nil for null bytes.
	Key, Value []byte
	Acks       Acks
}

// ProduceResult is where a produced record went.
type ProduceResult struct {
	Partition int32
	// Offset is the record's offset; it is unknown (null on the wire) with acks=0.
	Offset      int64
	OffsetKnown bool
}

// FetchRequest is a decoded fetch.
type FetchRequest struct {
	Partition  topic.Partition
	Offset     int64
	MaxRecords int // >= 0; 0 returns no records
	Isolation  Isolation
}

// Record is one fetched record; nil Key or Value is null.
type Record struct {
	Offset     int64
	Key, Value []byte
}

// TopicMetadata describes a topic.
type TopicMetadata struct {
	Topic      string
	Partitions []PartitionMetadata
}

// PartitionMetadata describes one partition's replicas and leader.
type PartitionMetadata struct {
	Partition   int32
	LeaderID    int32
	LeaderEpoch int32
	Replicas    []int32
}

// JoinResult is a member's generation and assignment after a join.
type JoinResult struct {
	Generation int32
	Assignment []topic.Partition
}

// OffsetCommit is one offset to commit: the next offset to consume.
type OffsetCommit struct {
	Partition topic.Partition
	Offset    int64
}
