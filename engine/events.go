package engine

import (
	"fmt"

	"github.com/minikafka-lab/minikafka/engine/producer"
	"github.com/minikafka-lab/minikafka/engine/replication"
	"github.com/minikafka-lab/minikafka/engine/storage"
)

// Event is one change a call made, for the teaching trace (TakeEvents). Each
// has a stable Kind and a one-line String. The concrete types are below;
// callers switch on them.
type Event = replication.Event

// Replication events (see package replication).
type (
	HWMoved            = replication.HWMoved
	ISRShrank          = replication.ISRShrank
	ISRExpanded        = replication.ISRExpanded
	FollowerFetched    = replication.FollowerFetched
	ReplicaTruncated   = replication.ReplicaTruncated
	FollowerReset      = replication.FollowerReset
	ReplicaDiverged    = replication.ReplicaDiverged
	LeaderChanged      = replication.LeaderChanged
	LeaderEpochChecked = replication.LeaderEpochChecked
	FollowerHWLearned  = replication.FollowerHWLearned
	DataLost           = replication.DataLost
	AckResolved        = replication.AckResolved
	AckFailed          = replication.AckFailed
	AckCancelled       = replication.AckCancelled
)

// Producer events (see package producer).
type (
	BatchFlushed   = producer.BatchFlushed
	FuturesSettled = producer.FuturesSettled
)

// BrokerCrashed: a broker failed (CrashBroker).
type BrokerCrashed struct {
	Broker        int32
	KeepUnflushed bool
	DroppedBytes  int64            // unflushed bytes lost
	Offline       []TopicPartition // partitions it led
	// sessionTimeoutMs is broker.session.timeout.ms under controller=kraft
	// (0 under controller=manual): the controller fences the broker after
	// that long. Unexported: the event's JSON stays the same under both
	// rule sets.
	sessionTimeoutMs int64
}

// Kind returns "broker_crashed".
func (BrokerCrashed) Kind() string { return "broker_crashed" }

// String describes the event on one line.
func (e BrokerCrashed) String() string {
	s := fmt.Sprintf("broker %d crashed", e.Broker)
	if e.KeepUnflushed {
		s += " (unflushed bytes kept)"
	} else {
		s += ", dropping " + plural(int(e.DroppedBytes), "unflushed byte", "unflushed bytes")
	}
	if len(e.Offline) > 0 {
		if e.sessionTimeoutMs > 0 {
			s += fmt.Sprintf("; offline until the controller fences it (after broker.session.timeout.ms=%d) and elects new leaders, or a restart: ", e.sessionTimeoutMs) + tpList(e.Offline)
		} else {
			s += "; offline until a promotion or a restart: " + tpList(e.Offline)
		}
	}
	return s
}

// LogDirFailed: the file system refused an operation on one of a broker's
// replica logs, so its log directory failed and the broker went offline
// (engine/logdir.go). Offline lists the partitions it led.
type LogDirFailed struct {
	Broker  int32
	Dir     string // relative to the data directory: broker-2
	TP      TopicPartition
	Reason  string
	Offline []TopicPartition
}

// Kind returns "log_dir_failed".
func (LogDirFailed) Kind() string { return "log_dir_failed" }

// String describes the event on one line.
func (e LogDirFailed) String() string {
	s := fmt.Sprintf("broker %d: log directory %s failed (%s: %s): its replicas stop, as Kafka stops a broker whose only log directory failed", e.Broker, e.Dir, e.TP, e.Reason)
	if len(e.Offline) > 0 {
		s += "; offline until a promotion or a restart: " + tpList(e.Offline)
	}
	return s
}

// BrokerRestarted: a crashed broker came back (RestartBroker).
type BrokerRestarted struct {
	Broker   int32
	Replicas int // replicas reopened
}

// Kind returns "broker_restarted".
func (BrokerRestarted) Kind() string { return "broker_restarted" }

// String describes the event on one line.
func (e BrokerRestarted) String() string {
	return fmt.Sprintf("broker %d restarted: %s recovered", e.Broker, plural(e.Replicas, "replica log", "replica logs"))
}

// RecoveryTruncated: recovery cut a torn or corrupt tail off a replica's
// active segment, at open or at a broker restart.
type RecoveryTruncated struct {
	TP         TopicPartition
	Broker     int32
	Truncation storage.Truncation
}

// Kind returns "recovery_truncated".
func (RecoveryTruncated) Kind() string { return "recovery_truncated" }

// String describes the event on one line.
func (e RecoveryTruncated) String() string {
	t := e.Truncation
	return fmt.Sprintf("%s broker %d recovery truncated %s at byte %d: dropped %s, kept %s (%s)",
		e.TP, e.Broker, t.Segment, t.Position, plural(int(t.BytesDropped), "byte", "bytes"), plural(t.BatchesKept, "batch", "batches"), t.Reason)
}
