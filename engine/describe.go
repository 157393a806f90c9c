package engine

import (
	"errors"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/storage"
)

// The description API: what a replica's log holds, as plain values. The
// REPL's log views, its checks, the picture, the tools and the invariants
// (engine/invariant) read logs only through these methods, never through a
// live log. Every value returned is a copy the caller owns: keeping it,
// changing it or passing it on cannot change the cluster, and the cluster
// changing afterwards does not change it. Describing never changes the
// cluster and never emits an event.

// LogSegment describes one segment of a replica's log.
type LogSegment struct {
	Base         int64  // the first offset the segment may hold; its files are named after it
	NextOffset   int64  // the offset after its last batch
	SizeBytes    int64  // bytes of its .log file, including bytes not yet handed to the OS
	IndexEntries int    // entries of its sparse offset index
	MaxTimestamp int64  // the newest record timestamp; -1 without records
	Active       bool   // the last segment, the one appends go to
	LogPath      string // its .log file
	IndexPath    string // its .index file
}

// LogDescription describes one replica's log: its offsets, sizes and
// segments.
type LogDescription struct {
	TP             TopicPartition
	Broker         int32
	Dir            string // the replica's directory: <data>/broker-<id>/<topic>-<p>
	LogStart       int64  // the base offset of the first segment
	LEO            int64  // the log end offset: the offset the next append gets
	SizeBytes      int64  // log bytes of every segment (index files are not counted, decision 2)
	UnflushedBytes int64  // bytes appended since the last flush: what a machine crash drops
	Segments       []LogSegment
}

// IndexEntry is one entry of a segment's sparse offset index: the batch at
// Offset starts at byte Position of the segment file.
type IndexEntry struct {
	Offset   int64
	Position int64
}

// LogBatch is one stored batch of a replica's log: its header fields, the
// exact frame bytes as stored (MKB1, record/record.go) and where it is.
// Frame is a copy the caller owns.
type LogBatch struct {
	Meta     record.Meta
	Frame    []byte
	Segment  int64 // base offset of the segment holding it
	Position int64 // byte position in that segment's file
}

// LogRecord is a record of a replica's log with its absolute offset.
type LogRecord struct {
	Offset int64
	record.Record
}

// Records decodes the batch's records with their absolute offsets, in
// order; a control batch (a transaction marker) has none. Compaction may
// leave gaps between the offsets.
func (b LogBatch) Records() ([]LogRecord, error) {
	if b.Meta.IsControl() {
		return nil, nil
	}
	d, err := record.Decode(b.Frame)
	if err != nil {
		return nil, err
	}
	out := make([]LogRecord, len(d.Records))
	for i, r := range d.Records {
		out[i] = LogRecord{Offset: d.BaseOffset + int64(d.OffsetDeltas[i]), Record: r}
	}
	return out, nil
}

// DescribeLog describes broker's replica log of tp (UNKNOWN_PARTITION when
// the broker has no replica of it, BROKER_NOT_AVAILABLE while it is down).
func (c *Cluster) DescribeLog(tp TopicPartition, broker int32) (LogDescription, error) {
	l, err := c.replicaLog(tp, broker)
	if err != nil {
		return LogDescription{}, err
	}
	d := LogDescription{TP: tp, Broker: broker, Dir: l.Dir(), LogStart: l.LogStartOffset(), LEO: l.LEO(),
		SizeBytes: l.SizeBytes(), UnflushedBytes: l.UnflushedBytes()}
	for _, s := range l.Segments() {
		d.Segments = append(d.Segments, logSegment(s))
	}
	return d, nil
}

func logSegment(s storage.SegmentInfo) LogSegment {
	return LogSegment{Base: s.Base, NextOffset: s.NextOffset, SizeBytes: s.SizeBytes, IndexEntries: s.IndexEntries,
		MaxTimestamp: s.MaxTimestamp, Active: s.Active, LogPath: s.LogPath, IndexPath: s.IndexPath}
}

// LogIndex returns the sparse offset index of one segment of broker's
// replica log of tp: segmentBase is the segment's base offset, or -1 for
// the active segment (an unknown base is INVALID_ARGUMENT).
func (c *Cluster) LogIndex(tp TopicPartition, broker int32, segmentBase int64) ([]IndexEntry, error) {
	l, err := c.replicaLog(tp, broker)
	if err != nil {
		return nil, err
	}
	entries, err := l.Index(segmentBase)
	if err != nil {
		return nil, err
	}
	out := make([]IndexEntry, len(entries))
	for i, e := range entries {
		out[i] = IndexEntry{Offset: e.Offset, Position: e.Position}
	}
	return out, nil
}

// LogBatches returns the batches of broker's replica log of tp that hold
// offsets in [from, to): every batch whose next offset is above from and
// whose base offset is below to (to < 0 means up to the LEO), in log order,
// at most limit of them (limit <= 0: no limit). It reads the replica's log as
// it is, regardless of the high watermark, and checks each frame's CRC: a
// damaged frame is CORRUPT_BATCH naming its segment and position. The cost
// is that of the bytes returned (plus at most index.interval.bytes before
// them), not of the log's size.
func (c *Cluster) LogBatches(tp TopicPartition, broker int32, from, to int64, limit int) ([]LogBatch, error) {
	l, err := c.replicaLog(tp, broker)
	if err != nil {
		return nil, err
	}
	var out []LogBatch
	err = l.Batches(from, func(rb storage.RawBatch) error {
		if to >= 0 && rb.Meta.BaseOffset >= to {
			return errStopScan
		}
		// Batches reads into fresh buffers it never reuses: the frame is
		// the caller's already.
		out = append(out, LogBatch{Meta: rb.Meta, Frame: rb.Frame, Segment: rb.Segment, Position: rb.Position})
		if limit > 0 && len(out) >= limit {
			return errStopScan
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStopScan) {
		return nil, err
	}
	return out, nil
}

// errStopScan ends a log scan early.
var errStopScan = errors.New("stop scan")

// replicaLog returns one broker's log of a partition: UNKNOWN_PARTITION when
// the broker has no replica, BROKER_NOT_AVAILABLE while it is down.
func (c *Cluster) replicaLog(tp TopicPartition, broker int32) (*storage.Log, error) {
	if err := c.guard(); err != nil {
		return nil, err
	}
	rs, err := c.replicaSet(tp)
	if err != nil {
		return nil, err
	}
	r := rs.Replica(broker)
	if r == nil {
		return nil, kerr.New(kerr.UnknownPartition, "broker %d has no replica for %s", broker, tp)
	}
	if !r.Up() {
		return nil, kerr.New(kerr.BrokerNotAvailable, "broker %d is down", broker)
	}
	return r.Log(), nil
}

// leaderLog returns the partition leader's log (LEADER_NOT_AVAILABLE while
// the leader is down).
func (c *Cluster) leaderLog(tp TopicPartition) (*storage.Log, error) {
	if err := c.guard(); err != nil {
		return nil, err
	}
	rs, err := c.replicaSet(tp)
	if err != nil {
		return nil, err
	}
	return rs.LeaderLog()
}
