package engine

import (
	"fmt"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/storage"
)

// A broker's log directory (<data>/broker-<id>) fails when the file system
// refuses an operation on one of its replica logs (ENOSPC, EIO, a file
// removed behind the engine's back: storage.IsDiskError). Kafka then stops
// serving every replica in that directory and, when it was the broker's
// only log directory, halts the broker (ReplicaManager.handleLogDirFailure,
// LogManager.handleLogDirFailure); it stays offline until the broker
// restarts. A MiniKafka broker has exactly one log directory, so a failed
// directory takes the broker down the same way: its replicas stop
// serving and fetching, partitions it led go offline, their pending acks
// fail, and the bytes already handed to the OS stay where they are (the
// process did not die, its disk did). The operation that failed returns its
// STORAGE_ERROR (Kafka's KAFKA_STORAGE_ERROR) and acknowledged nothing; the
// views say which directory failed and why; `broker restart ID` brings the
// broker back once the disk is usable again, with real recovery.

// diskFailure is a log directory failure waiting to be applied.
type diskFailure struct {
	broker int32
	tp     TopicPartition
	err    error
}

// noteDiskFailure is replication.Env.DiskFailed: it queues the failure, to
// be applied once the step that hit it is over (drainDiskFailures), so that
// no replica set is stopped in the middle of its own step.
func (c *Cluster) noteDiskFailure(broker int32, tp TopicPartition, err error) {
	c.diskFailures = append(c.diskFailures, diskFailure{broker, tp, err})
}

// noteIfDisk queues err as broker's log directory failure when the file
// system caused it (for the log tools, which use a log directly).
func (c *Cluster) noteIfDisk(broker int32, tp TopicPartition, err error) {
	if storage.IsDiskError(err) {
		c.noteDiskFailure(broker, tp, err)
	}
}

// drainDiskFailures applies the queued log directory failures, in the order
// they happened: each broker whose directory failed goes offline (once).
// Every public operation that can write a replica log defers it.
func (c *Cluster) drainDiskFailures() {
	for len(c.diskFailures) > 0 {
		f := c.diskFailures[0]
		c.diskFailures = c.diskFailures[1:]
		c.logDirFailed(f)
	}
}

// logDirFailed takes broker f.broker offline because its log directory
// failed: the LogDirFailed event first, then its effects (those of a
// broker crash that keeps the bytes handed to the OS).
func (c *Cluster) logDirFailed(f diskFailure) {
	b := c.brokers[f.broker]
	if b == nil || !b.up {
		return
	}
	b.up = false
	b.dirFailure = fmt.Sprintf("log directory %s failed: %s: %s", brokerDirName(f.broker), f.tp, kerr.MessageOf(f.err))
	ev := LogDirFailed{Broker: f.broker, Dir: brokerDirName(f.broker), TP: f.tp, Reason: kerr.MessageOf(f.err)}
	pos := c.events.Emit(ev)
	for _, tp := range c.sortedTPs() {
		rs := c.sets[tp]
		if rs.Replica(f.broker) == nil {
			continue
		}
		if rs.Leader() == f.broker {
			ev.Offline = append(ev.Offline, tp)
			c.leaderDown(tp)
		}
		// The log is closed as a halted process leaves it: what the OS
		// has stays, nothing more is written (its disk refuses writes).
		_, _ = rs.CrashReplica(f.broker, true)
	}
	c.events.Replace(pos, ev)
}
