package jsontcp

import (
	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
)

// ClusterBackend is the Backend over an *engine.Cluster: every operation is
// one call on the same cluster the direct API uses (§14.1 parity). It is not
// safe for concurrent use; the Server calls it from one goroutine.
type ClusterBackend struct {
	Cluster *engine.Cluster
	// KeepEvents leaves the cluster's event queue alone, for a caller that
	// reads the trace after each command (a REPL dispatching a request to
	// its own cluster). By default every call drains it: nobody reads the
	// trace behind a server, and it must not grow without bound.
	KeepEvents bool
}

// NewClusterBackend binds the adapter to c.
func NewClusterBackend(c *engine.Cluster) *ClusterBackend {
	return &ClusterBackend{Cluster: c}
}

// drain discards the cluster's event queue unless KeepEvents is set.
func (b *ClusterBackend) drain() {
	if !b.KeepEvents {
		b.Cluster.TakeEvents()
	}
}

// CreateTopic creates a topic.
func (b *ClusterBackend) CreateTopic(name string, partitions, replicationFactor int) error {
	defer b.drain()
	_, err := b.Cluster.CreateTopic(name, partitions, replicationFactor)
	return err
}

// Metadata describes a topic.
func (b *ClusterBackend) Metadata(name string) (TopicMetadata, error) {
	defer b.drain()
	t, err := b.Cluster.Topic(name)
	if err != nil {
		return TopicMetadata{}, err
	}
	m := TopicMetadata{Topic: t.Name, Partitions: make([]PartitionMetadata, len(t.Partitions))}
	for i, p := range t.Partitions {
		m.Partitions[i] = PartitionMetadata{
			Partition:   p.Partition,
			LeaderID:    p.Leader,
			LeaderEpoch: p.LeaderEpoch,
			Replicas:    append([]int32(nil), p.Replicas...),
		}
	}
	return m, nil
}

// Produce appends one record as its own batch, stamped with the cluster
// clock's time, without headers.
func (b *ClusterBackend) Produce(p ProduceRequest) (ProduceResult, PendingAck, error) {
	defer b.drain()
	partition := engine.AnyPartition
	if p.Explicit {
		if p.Partition < 0 {
			// The engine reads -1 as "let the partitioner choose"; an
			// explicit negative partition is simply one that does not exist.
			if _, err := b.Cluster.Topic(p.Topic); err != nil {
				return ProduceResult{}, nil, err
			}
			return ProduceResult{}, nil, kerr.New(kerr.UnknownPartition, "%s-%d", p.Topic, p.Partition)
		}
		partition = p.Partition
	}
	rec := record.Record{Key: p.Key, Value: p.Value, TimestampMs: engine.NoTimestamp}
	ack, err := b.Cluster.Produce(p.Topic, partition, rec, engineAcks(p.Acks))
	if err != nil {
		return ProduceResult{}, nil, err
	}
	pending := clusterAck{ack}
	res, done, err := pending.Poll()
	if !done {
		return ProduceResult{Partition: ack.TP.Partition}, pending, nil
	}
	return res, nil, err
}

// clusterAck is an engine Ack seen as a PendingAck.
type clusterAck struct{ ack *engine.Ack }

// Poll reports the Ack's outcome once it has settled.
func (a clusterAck) Poll() (ProduceResult, bool, error) {
	switch a.ack.State() {
	case engine.Pending:
		return ProduceResult{}, false, nil
	case engine.Done:
		v := a.ack.Value()
		return ProduceResult{Partition: v.TP.Partition, Offset: v.BaseOffset, OffsetKnown: v.OffsetsKnown}, true, nil
	case engine.Failed:
		return ProduceResult{}, true, a.ack.Err()
	default:
		return ProduceResult{}, true, kerr.State("the acknowledgement was cancelled (the cluster crashed)")
	}
}

func engineAcks(a Acks) engine.AckMode {
	switch a {
	case AcksNone:
		return engine.Acks0
	case AcksAll:
		return engine.AcksAll
	default:
		return engine.Acks1
	}
}

// Fetch reads records from the partition's leader, bounded by the high
// watermark (or the last stable offset for read_committed).
func (b *ClusterBackend) Fetch(f FetchRequest) ([]Record, error) {
	defer b.drain()
	iso := engine.ReadUncommitted
	if f.Isolation == ReadCommitted {
		iso = engine.ReadCommitted
	}
	stored, err := b.Cluster.Fetch(f.Partition, f.Offset, f.MaxRecords, iso)
	if err != nil {
		return nil, err
	}
	out := make([]Record, len(stored))
	for i, r := range stored {
		out[i] = Record{Offset: r.Offset, Key: r.Key, Value: r.Value}
	}
	return out, nil
}

// The group operations go to the cluster with the client's member id
// (§14.4), after the cluster's lifecycle guard like every other operation
// (decision 31): a closed or failed cluster refuses them.

// JoinGroup joins a member (chosen by the client) to a group.
func (b *ClusterBackend) JoinGroup(groupID, memberID string, topics []string) (JoinResult, error) {
	defer b.drain()
	j, err := b.Cluster.JoinGroup(groupID, memberID, topics)
	if err != nil {
		return JoinResult{}, err
	}
	return JoinResult{Generation: j.Generation, Assignment: j.Assignment}, nil
}

// Heartbeat checks a member's generation and refreshes its session.
func (b *ClusterBackend) Heartbeat(groupID, memberID string, generation int32) error {
	defer b.drain()
	return b.Cluster.GroupHeartbeat(groupID, memberID, generation)
}

// CommitOffsets commits a member's offsets, fenced by generation and ownership.
func (b *ClusterBackend) CommitOffsets(groupID, memberID string, generation int32, offsets []OffsetCommit) error {
	defer b.drain()
	m := make(map[engine.TopicPartition]int64, len(offsets))
	for _, o := range offsets {
		m[o.Partition] = o.Offset
	}
	return b.Cluster.CommitGroupOffsets(groupID, memberID, generation, m)
}

// Pump runs one follower fetch on every partition, then the work due on the
// clock, which a System clock moves by itself. The due work runs even when
// some partition fails to replicate: one broken partition must not stop
// linger flushes, ISR refreshes and session expiry. The error is the
// replication step's (RunDue reports none).
func (b *ClusterBackend) Pump() error {
	defer b.drain()
	_, err := b.Cluster.Replicate(nil, engine.AllFollowers)
	b.Cluster.RunDue()
	return err
}
