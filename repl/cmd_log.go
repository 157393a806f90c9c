package repl

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/minikafka-lab/minikafka/engine"
)

var logCommand = &Command{
	Name:    "log",
	Summary: "look at a replica's log on disk: segment files, batches, sparse index",
	Detail: `Each partition replica is a directory broker-ID/TOPIC-P/ of segment files:
00000000000000000000.log holds MKB1 batch frames back to back, and its
.index maps some batch offsets to byte positions. broker=ID picks the
replica (default: the leader).`,
	Chapter: 2,
	Group:   "The log on disk",
	Sub: []*Command{
		{
			Name:       "segments",
			Args:       "TP [broker=ID]",
			Summary:    "the segment files: base offset, next offset, bytes, index entries, newest timestamp",
			Positional: []Param{{Name: "TP", Values: livePartitions}},
			Keys:       []Param{{Name: "broker", Values: liveBrokers}},
			Run:        runLogSegments,
		},
		{
			Name:    "dump",
			Args:    "TP [broker=ID] [segment=BASE] [records]",
			Summary: "kafka-dump-log style: one line per batch with offsets, epoch, producer fields, position, CRC",
			Detail: `Prints each segment file as kafka-dump-log.sh prints a Kafka segment:
Dumping FILE, then one line per batch (baseOffset, lastOffset, count,
producer id/epoch/sequence, partitionLeaderEpoch, isTransactional,
isControl, position, CreateTime, size, crc, isvalid), and a line for
invalid bytes at the end of a damaged file. segment=BASE dumps one file;
records adds a line per record (Kafka's --deep-iteration --print-data-log).
MKB1 has no magic, compresscodec or deleteHorizonMs, so they are left out;
a null key prints key: null, a marker | offset: N endTxnMarker: COMMIT, and
a batch with a bad CRC ends the dump as invalid bytes. Under views=kafka
(rules=kafka) the lines are Kafka 4.0's (DumpLogSegments): the three
fields (magic being MKB1's format version), no key: or payload: for a null
key or value, Kafka's control-record line with coordinatorEpoch, a batch
with a bad CRC printed with isvalid: false and the dump going on, and
"Found N invalid bytes at the end of NAME". Sizes and CRCs stay MKB1's.`,
			Positional: []Param{{Name: "TP", Values: livePartitions}},
			Keys:       []Param{{Name: "broker", Values: liveBrokers}, {Name: "segment"}},
			Flags:      []Param{{Name: "records"}},
			Run:        runLogDump,
		},
		{
			Name:       "index",
			Args:       "TP [broker=ID] [segment=BASE]",
			Summary:    "the sparse offset index of each segment: offset and byte position",
			Positional: []Param{{Name: "TP", Values: livePartitions}},
			Keys:       []Param{{Name: "broker", Values: liveBrokers}, {Name: "segment"}},
			Detail: `A batch is indexed when it starts index.interval.bytes or more after the
last indexed batch (and the first batch always). A read looks up the
floor entry and scans forward from its position.`,
			Run: runLogIndex,
		},
	},
}

var corruptCommand = &Command{
	Name:    "corrupt",
	Args:    "TP [broker=ID] [segment=active|BASE] mode=garbage|truncate|flip [bytes=N] | journal mode=garbage|truncate|flip [bytes=N]",
	Summary: "damage a segment file (or the transaction journal) on disk, as a torn write or a bad disk would",
	Detail: `Writes real damage into the file; the running broker does not notice.
The next broker restart or cluster restart (after a crash) runs recovery,
which cuts a damaged active tail and reports it; a damaged closed segment
stops the open with STORAGE_ERROR.

  mode=garbage   append bytes that look like the start of a frame (a torn write)
  mode=truncate  cut bytes off the end of the file
  mode=flip      flip one bit, bytes=N before the end (default: the last byte)

bytes defaults to 16 (1 for flip); segment to the active one; broker to
the leader.

corrupt journal damages transactions.journal, the transaction
coordinator's journal, the same ways (garbage is the start of a journal
line without its end). The next cluster restart replays it up to the
first bad line and drops the rest (decision 17), and says so. The
coordinator keeps writing where its last line ended, so a transaction
step before the restart overwrites damage at the end.`,
	Chapter:    2,
	Group:      "The log on disk",
	Positional: []Param{{Name: "TP", Values: partitionsOrJournal}},
	Keys: []Param{
		{Name: "broker", Values: liveBrokers}, {Name: "segment", Values: choices("active")},
		{Name: "mode", Values: choices("garbage", "truncate", "flip")}, {Name: "bytes"},
	},
	Reports: []string{"segment_corrupted"},
	Run:     runCorrupt,
}

var retentionCommand = &Command{
	Name:    "retention",
	Args:    "TP [retention.ms=D] [retention.bytes=N] [broker=ID]",
	Summary: "delete the oldest closed segments that the time or size rule selects, now",
	Detail: `Runs retention on every running replica of TP (or broker=ID): walking the
closed segments oldest first, a segment whose newest record is older than
retention.ms goes; then, while the log is larger than retention.bytes (log
bytes only), the next oldest goes. The active segment is never deleted.
The log start offset moves up; offsets are never renumbered.`,
	Chapter:    3,
	Group:      "The log on disk",
	Positional: []Param{{Name: "TP", Values: livePartitions}},
	Keys:       []Param{{Name: "retention.ms"}, {Name: "retention.bytes"}, {Name: "broker", Values: liveBrokers}},
	Reports:    []string{"segments_deleted"},
	Run:        runRetention,
}

var compactCommand = &Command{
	Name:    "compact",
	Args:    "TP [delete.retention.ms=D] [broker=ID]",
	Summary: "keep only the latest record per key in the closed segments, now",
	Detail: `Runs log compaction on every running replica of TP (or broker=ID). In
the closed segments, only the latest record of each key survives (the
active segment counts when deciding what is latest, but is not
rewritten); offsets never change, so gaps appear. A tombstone that is
the latest for its key is kept for delete.retention.ms (default 1 day),
then dropped. Keyless records and transaction markers are kept.`,
	Chapter:    3,
	Group:      "The log on disk",
	Positional: []Param{{Name: "TP", Values: livePartitions}},
	Keys:       []Param{{Name: "delete.retention.ms"}, {Name: "broker", Values: liveBrokers}},
	Reports:    []string{"log_compacted"},
	Run:        runCompact,
}

// replicaBroker reads broker=ID, the replica of tp a command works on
// (default: the leader).
func (s *Session) replicaBroker(a *Args, tp engine.TopicPartition) (int32, error) {
	st, err := s.cluster.PartitionState(tp)
	if err != nil {
		return 0, err
	}
	b := a.Broker("broker", st.Leader)
	return b, a.Err()
}

// replicaLog describes the log of broker=ID (default: the leader) of tp.
func (s *Session) replicaLog(a *Args, tp engine.TopicPartition) (engine.LogDescription, error) {
	b, err := s.replicaBroker(a, tp)
	if err != nil {
		return engine.LogDescription{}, err
	}
	return s.cluster.DescribeLog(tp, b)
}

// relPath shows a file below the data directory, so that output does not
// depend on where the (temporary) directory is.
func (s *Session) relPath(p string) string {
	if r, err := filepath.Rel(s.cfg.DataDir, p); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return p
}

// segmentsView is the result of log segments.
type segmentsView struct {
	Topic     string        `json:"topic"`
	Partition int32         `json:"partition"`
	Broker    int32         `json:"broker"`
	LogStart  int64         `json:"log_start_offset"`
	LEO       int64         `json:"leo"`
	SizeBytes int64         `json:"size_bytes"`
	Unflushed int64         `json:"unflushed_bytes"`
	Dir       string        `json:"dir"`
	Segments  []segmentView `json:"segments"`
}

type segmentView struct {
	File         string `json:"file"`
	Base         int64  `json:"base_offset"`
	NextOffset   int64  `json:"next_offset"`
	SizeBytes    int64  `json:"size_bytes"`
	IndexEntries int    `json:"index_entries"`
	MaxTimestamp int64  `json:"max_timestamp_ms"`
	Active       bool   `json:"active"`
}

func (v segmentsView) writeText(w io.Writer, _ *style) error {
	fmt.Fprintf(w, "%s/  log-start=%d  LEO=%d  %s (%d unflushed)\n", v.Dir, v.LogStart, v.LEO, plural(int(v.SizeBytes), "byte", "bytes"), v.Unflushed)
	var rows [][]string
	for _, sg := range v.Segments {
		active, ts := "", fmt.Sprint(sg.MaxTimestamp)
		if sg.Active {
			active = "active"
		}
		if sg.MaxTimestamp < 0 {
			ts = "-"
		}
		rows = append(rows, []string{sg.File, fmt.Sprint(sg.Base), fmt.Sprint(sg.NextOffset), fmt.Sprint(sg.SizeBytes), fmt.Sprint(sg.IndexEntries), ts, active})
	}
	return renderTable(w, []string{"SEGMENT", "BASE", "NEXT-OFFSET", "BYTES", "INDEX-ENTRIES", "MAX-TIMESTAMP", "ACTIVE"}, rows)
}

func runLogSegments(s *Session, w io.Writer, a *Args) error {
	tp := a.TP(0)
	if err := a.Err(); err != nil {
		return err
	}
	l, err := s.replicaLog(a, tp)
	if err != nil {
		return err
	}
	v := segmentsView{Topic: tp.Topic, Partition: tp.Partition, Broker: l.Broker, LogStart: l.LogStart, LEO: l.LEO,
		SizeBytes: l.SizeBytes, Unflushed: l.UnflushedBytes, Dir: s.relPath(l.Dir)}
	for _, sg := range l.Segments {
		v.Segments = append(v.Segments, segmentView{File: filepath.Base(sg.LogPath), Base: sg.Base, NextOffset: sg.NextOffset,
			SizeBytes: sg.SizeBytes, IndexEntries: sg.IndexEntries, MaxTimestamp: sg.MaxTimestamp, Active: sg.Active})
	}
	return s.emit(w, v)
}

// indexView is the result of log index.
type indexView struct {
	Broker   int32          `json:"broker"`
	Segments []segmentIndex `json:"segments"`
}

type segmentIndex struct {
	File    string       `json:"file"`
	Base    int64        `json:"base_offset"`
	Entries []indexEntry `json:"entries"`
}

type indexEntry struct {
	Offset   int64 `json:"offset"`
	Position int64 `json:"position"`
}

// writeText prints what kafka-dump-log prints for an index file:
// "offset: 0 position: 0" per entry.
func (v indexView) writeText(w io.Writer, _ *style) error {
	for _, sg := range v.Segments {
		fmt.Fprintf(w, "Dumping %s (%s)\n", sg.File, plural(len(sg.Entries), "entry", "entries"))
		for _, e := range sg.Entries {
			fmt.Fprintf(w, "offset: %d position: %d\n", e.Offset, e.Position)
		}
	}
	return nil
}

// segmentArg reads segment=active|BASE: -1 for the active segment, or a base
// offset; ok is false when the key is absent.
func segmentArg(a *Args) (base int64, ok bool) {
	if !a.Has("segment") {
		return -1, false
	}
	if a.String("segment", "") == "active" {
		return -1, true
	}
	return a.Int("segment", -1, 0, math.MaxInt64), true
}

// selectSegments returns the segments segment= picks (all when absent).
func selectSegments(l engine.LogDescription, base int64, given bool) ([]engine.LogSegment, error) {
	all := l.Segments
	if !given {
		return all, nil
	}
	for _, sg := range all {
		if (base < 0 && sg.Active) || sg.Base == base {
			return []engine.LogSegment{sg}, nil
		}
	}
	var bases []string
	for _, sg := range all {
		bases = append(bases, fmt.Sprint(sg.Base))
	}
	return nil, fmt.Errorf("no segment with base offset %d (segments: %s)", base, strings.Join(bases, ", "))
}

// logSegmentsArg resolves `TP [broker=ID] [segment=active|BASE]`, shared by
// log index and log dump: the replica's log description and the segments
// chosen (all of them without segment=).
func logSegmentsArg(s *Session, a *Args) (engine.LogDescription, []engine.LogSegment, error) {
	tp := a.TP(0)
	base, given := segmentArg(a)
	if err := a.Err(); err != nil {
		return engine.LogDescription{}, nil, err
	}
	l, err := s.replicaLog(a, tp)
	if err != nil {
		return engine.LogDescription{}, nil, err
	}
	segs, err := selectSegments(l, base, given)
	if err != nil {
		return engine.LogDescription{}, nil, a.usage("%v", err)
	}
	return l, segs, nil
}

func runLogIndex(s *Session, w io.Writer, a *Args) error {
	l, segs, err := logSegmentsArg(s, a)
	if err != nil {
		return err
	}
	v := indexView{Broker: l.Broker}
	for _, sg := range segs {
		entries, err := s.cluster.LogIndex(l.TP, l.Broker, sg.Base)
		if err != nil {
			return err
		}
		si := segmentIndex{File: filepath.Base(sg.IndexPath), Base: sg.Base, Entries: []indexEntry{}}
		for _, e := range entries {
			si.Entries = append(si.Entries, indexEntry{Offset: e.Offset, Position: e.Position})
		}
		v.Segments = append(v.Segments, si)
	}
	return s.emit(w, v)
}

// corrupted is the result of corrupt.
type corrupted struct {
	Broker     *int32 `json:"broker"` // null for the journal
	File       string `json:"file"`
	Mode       string `json:"mode"`
	Position   int64  `json:"position"`
	Bytes      int    `json:"bytes"`
	SizeBefore int64  `json:"size_before"`
	SizeAfter  int64  `json:"size_after"`
}

func (c corrupted) writeText(w io.Writer, _ *style) error {
	var what string
	switch c.Mode {
	case "garbage":
		what = fmt.Sprintf("appended %s at byte %d", plural(c.Bytes, "garbage byte", "garbage bytes"), c.Position)
	case "truncate":
		what = fmt.Sprintf("cut %s off the end", plural(c.Bytes, "byte", "bytes"))
	default:
		what = fmt.Sprintf("flipped a bit of byte %d", c.Position)
	}
	_, err := fmt.Fprintf(w, "%s: %s (%d -> %d bytes); recovery sees it at the next restart\n", c.File, what, c.SizeBefore, c.SizeAfter)
	return err
}

func runCorrupt(s *Session, w io.Writer, a *Args) error {
	if a.Len() > 0 && a.Pos(0) == "journal" {
		return runCorruptJournal(s, w, a)
	}
	tp := a.TP(0)
	base, _ := segmentArg(a)
	modeName := a.Choice("mode", "", "garbage", "truncate", "flip")
	n := a.Int("bytes", 0, 1, math.MaxInt32)
	if !a.Has("mode") {
		a.fail("missing mode=garbage|truncate|flip")
	}
	if err := a.Err(); err != nil {
		return err
	}
	mode, err := engine.ParseCorruptMode(modeName)
	if err != nil {
		return err
	}
	b, err := s.replicaBroker(a, tp)
	if err != nil {
		return err
	}
	rep, err := s.cluster.Corrupt(tp, b, base, mode, int(n))
	if err != nil {
		return err
	}
	return s.emit(w, corrupted{Broker: &b, File: s.relPath(rep.Path), Mode: rep.Mode.String(), Position: rep.Position,
		Bytes: rep.Bytes, SizeBefore: rep.SizeBefore, SizeAfter: rep.SizeAfter})
}

// retained is the result of retention.
type retained struct {
	Replicas []retainedReplica `json:"replicas"`
}

type retainedReplica struct {
	Broker          int32   `json:"broker"`
	DeletedSegments []int64 `json:"deleted_segments"`
	LogStartTo      int64   `json:"log_start_offset"`
	logStartFrom    int64
}

func (r retained) writeText(w io.Writer, _ *style) error {
	for _, x := range r.Replicas {
		if len(x.DeletedSegments) == 0 {
			fmt.Fprintf(w, "broker %d: nothing to delete (log start stays %d)\n", x.Broker, x.LogStartTo)
			continue
		}
		bases := make([]string, len(x.DeletedSegments))
		for i, b := range x.DeletedSegments {
			bases[i] = fmt.Sprint(b)
		}
		fmt.Fprintf(w, "broker %d: deleted %s with base %s; log start %d -> %d\n", x.Broker,
			plural(len(bases), "segment", "segments"), strings.Join(bases, ", "), x.logStartFrom, x.LogStartTo)
	}
	return nil
}

func runRetention(s *Session, w io.Writer, a *Args) error {
	tp := a.TP(0)
	ms := a.Duration("retention.ms", -1)
	bytes := a.Int("retention.bytes", -1, 1, math.MaxInt64)
	if !a.Has("retention.ms") && !a.Has("retention.bytes") {
		a.fail("give retention.ms=D, retention.bytes=N, or both")
	}
	if err := a.Err(); err != nil {
		return err
	}
	broker := s.toolBroker(a)
	if err := a.Err(); err != nil {
		return err
	}
	before := map[int32]int64{}
	if st, err := s.cluster.PartitionState(tp); err == nil {
		for _, r := range st.Replicas {
			before[r.Broker] = r.LogStart
		}
	}
	outs, err := s.cluster.ApplyRetention(tp, broker, ms, bytes)
	if err != nil {
		return err
	}
	res := retained{Replicas: []retainedReplica{}}
	for _, o := range outs {
		res.Replicas = append(res.Replicas, retainedReplica{Broker: o.Broker, DeletedSegments: append([]int64{}, o.Deleted...),
			LogStartTo: o.LogStart, logStartFrom: before[o.Broker]})
	}
	return s.emit(w, res)
}

// toolBroker reads broker=ID for retention and compaction: every running
// replica when absent.
func (s *Session) toolBroker(a *Args) int32 {
	if !a.Has("broker") {
		return engine.AllReplicas
	}
	return a.Broker("broker", 0)
}

// compacted is the result of compact.
type compacted struct {
	Replicas []compactedReplica `json:"replicas"`
}

type compactedReplica struct {
	Broker            int32   `json:"broker"`
	SourceSegments    []int64 `json:"source_segments"`
	RecordsBefore     int     `json:"records_before"`
	RecordsAfter      int     `json:"records_after"`
	TombstonesDropped int     `json:"tombstones_dropped"`
}

func (c compacted) writeText(w io.Writer, _ *style) error {
	for _, x := range c.Replicas {
		if len(x.SourceSegments) == 0 {
			fmt.Fprintf(w, "broker %d: no closed segment to compact (the active segment is never rewritten)\n", x.Broker)
			continue
		}
		fmt.Fprintf(w, "broker %d: compacted %s: %s -> %d, %s dropped\n", x.Broker,
			plural(len(x.SourceSegments), "closed segment", "closed segments"), plural(x.RecordsBefore, "record", "records"),
			x.RecordsAfter, plural(x.TombstonesDropped, "tombstone", "tombstones"))
	}
	return nil
}

// defaultDeleteRetentionMs is Kafka's delete.retention.ms default: one day.
const defaultDeleteRetentionMs = 86_400_000

func runCompact(s *Session, w io.Writer, a *Args) error {
	tp := a.TP(0)
	drm := a.Duration("delete.retention.ms", defaultDeleteRetentionMs)
	if err := a.Err(); err != nil {
		return err
	}
	broker := s.toolBroker(a)
	if err := a.Err(); err != nil {
		return err
	}
	outs, err := s.cluster.Compact(tp, broker, drm)
	if err != nil {
		return err
	}
	res := compacted{Replicas: []compactedReplica{}}
	for _, o := range outs {
		res.Replicas = append(res.Replicas, compactedReplica{Broker: o.Broker, SourceSegments: append([]int64{}, o.SourceSegments...),
			RecordsBefore: o.RecordsBefore, RecordsAfter: o.RecordsAfter, TombstonesDropped: o.TombstonesDropped})
	}
	return s.emit(w, res)
}
