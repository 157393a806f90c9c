package engine

import (
	"fmt"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/replication"
	"github.com/minikafka-lab/minikafka/engine/storage"
)

// AllReplicas, passed as a broker to ApplyRetention or Compact, runs the tool
// on every running replica of the partition, in assignment order.
const AllReplicas int32 = -1

// RetentionOutcome is what retention did to one replica's log.
type RetentionOutcome struct {
	Broker   int32
	Deleted  []int64 // base offsets of the deleted segments, sorted
	LogStart int64   // the log start afterwards
}

// CompactionOutcome is what compaction did to one replica's log.
type CompactionOutcome struct {
	Broker int32
	storage.CompactionResult
}

// logsFor returns the running replica logs a tool acts on: one broker's, or
// every running replica's for AllReplicas.
func (c *Cluster) logsFor(tp TopicPartition, broker int32) ([]int32, *replication.ReplicaSet, error) {
	if err := c.guard(); err != nil {
		return nil, nil, err
	}
	rs, err := c.replicaSet(tp)
	if err != nil {
		return nil, nil, err
	}
	if broker != AllReplicas {
		if _, err := c.replicaLog(tp, broker); err != nil {
			return nil, nil, err
		}
		return []int32{broker}, rs, nil
	}
	var out []int32
	for _, b := range rs.Assignment() {
		if rs.Replica(b).Up() {
			out = append(out, b)
		}
	}
	return out, rs, nil
}

// ApplyRetention runs retention (§7.1) now on one replica's log or on every
// running replica's (AllReplicas): closed segments whose newest record is
// older than retentionMs, or beyond retentionBytes of log bytes, are deleted
// as a prefix (retentionMs < 0 and retentionBytes <= 0 mean no limit).
// Retention is an explicit log-level tool (decision 10): it is not bounded
// by the HW, and a follower left below its leader's new log start resets to
// it at its next fetch (decision 11).
func (c *Cluster) ApplyRetention(tp TopicPartition, broker int32, retentionMs, retentionBytes int64) ([]RetentionOutcome, error) {
	defer c.drainDiskFailures()
	brokers, rs, err := c.logsFor(tp, broker)
	if err != nil {
		return nil, err
	}
	c.indexBeforeRemoval(tp)
	var out []RetentionOutcome
	for _, b := range brokers {
		l := rs.Replica(b).Log()
		deleted, err := l.ApplyRetention(c.clock.NowMs(), retentionMs, retentionBytes)
		if err != nil {
			c.noteIfDisk(b, tp, err)
			return out, err
		}
		o := RetentionOutcome{Broker: b, Deleted: deleted, LogStart: l.LogStartOffset()}
		out = append(out, o)
		if len(deleted) > 0 {
			c.events.Emit(SegmentsDeleted{TP: tp, Broker: b, Bases: deleted, LogStart: o.LogStart})
		}
	}
	return out, nil
}

// Compact runs log compaction (§7.2) now on one replica's log or on every
// running replica's (AllReplicas), with the cluster clock's time and
// delete.retention.ms for tombstones. Offsets never change; closed segments
// keep only the latest record per key.
func (c *Cluster) Compact(tp TopicPartition, broker int32, deleteRetentionMs int64) ([]CompactionOutcome, error) {
	defer c.drainDiskFailures()
	if deleteRetentionMs < 0 {
		return nil, kerr.Argument("delete.retention.ms cannot be negative (got %d)", deleteRetentionMs)
	}
	brokers, rs, err := c.logsFor(tp, broker)
	if err != nil {
		return nil, err
	}
	c.indexBeforeRemoval(tp)
	var out []CompactionOutcome
	for _, b := range brokers {
		res, err := rs.Replica(b).Log().Compact(c.clock.NowMs(), deleteRetentionMs, nil)
		if err != nil {
			c.noteIfDisk(b, tp, err)
			return out, err
		}
		out = append(out, CompactionOutcome{Broker: b, CompactionResult: res})
		if len(res.SourceSegments) > 0 {
			c.events.Emit(LogCompacted{TP: tp, Broker: b, Result: res})
		}
	}
	return out, nil
}

// Corrupt damages one replica's segment file on disk (segmentBase -1 is the
// active segment; n 0 is the mode's default amount). The damage shows at the
// next open of that log: a cluster reopen or a restart of the broker, whose
// recovery report says what it repaired.
func (c *Cluster) Corrupt(tp TopicPartition, broker int32, segmentBase int64, mode CorruptMode, n int) (CorruptReport, error) {
	l, err := c.replicaLog(tp, broker)
	if err != nil {
		return CorruptReport{}, err
	}
	rep, err := l.Corrupt(segmentBase, mode, n)
	if err != nil {
		return rep, err
	}
	c.events.Emit(SegmentCorrupted{TP: tp, Broker: broker, Report: rep})
	return rep, nil
}

// SegmentsDeleted: retention deleted a prefix of closed segments.
type SegmentsDeleted struct {
	TP       TopicPartition
	Broker   int32
	Bases    []int64
	LogStart int64
}

// Kind returns "segments_deleted".
func (SegmentsDeleted) Kind() string { return "segments_deleted" }

// String describes the event on one line.
func (e SegmentsDeleted) String() string {
	bases := make([]string, len(e.Bases))
	for i, b := range e.Bases {
		bases[i] = fmt.Sprint(b)
	}
	return fmt.Sprintf("%s broker %d retention deleted segments [%s]; log start %d", e.TP, e.Broker, strings.Join(bases, " "), e.LogStart)
}

// LogCompacted: compaction rewrote a replica's closed segments.
type LogCompacted struct {
	TP     TopicPartition
	Broker int32
	Result storage.CompactionResult
}

// Kind returns "log_compacted".
func (LogCompacted) Kind() string { return "log_compacted" }

// String describes the event on one line.
func (e LogCompacted) String() string {
	return fmt.Sprintf("%s broker %d compacted %s: %s -> %d (%s dropped)",
		e.TP, e.Broker, plural(len(e.Result.SourceSegments), "closed segment", "closed segments"),
		plural(e.Result.RecordsBefore, "record", "records"), e.Result.RecordsAfter, plural(e.Result.TombstonesDropped, "tombstone", "tombstones"))
}

// SegmentCorrupted: a segment file was damaged on disk on purpose.
type SegmentCorrupted struct {
	TP     TopicPartition
	Broker int32
	Report storage.CorruptReport
}

// Kind returns "segment_corrupted".
func (SegmentCorrupted) Kind() string { return "segment_corrupted" }

// String describes the event on one line.
func (e SegmentCorrupted) String() string {
	r := e.Report
	return fmt.Sprintf("%s broker %d %s: %s %s at byte %d (size %d -> %d); recovery sees it at the next open",
		e.TP, e.Broker, r.File, r.Mode, plural(r.Bytes, "byte", "bytes"), r.Position, r.SizeBefore, r.SizeAfter)
}
