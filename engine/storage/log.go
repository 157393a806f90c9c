package storage

import (
	"sort"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
)

// maxKeptFrameBuffer is the largest encode buffer a Log keeps between
// appends; a larger one (a huge batch) is dropped after use.
const maxKeptFrameBuffer = 1 << 20

// Log is one partition replica's log: an ordered list of segments, the last
// of which is active (§6.5). It is not safe for concurrent use; the engine
// is single-threaded and serializes calls per partition.
//
// After Close or Crash every method that reads or writes returns an
// ILLEGAL_STATE error; the accessors (LEO, LogStartOffset, ...) keep
// answering with the last values.
type Log struct {
	dir   string
	opts  Options
	epoch int32
	segs  []*segment

	// frameBuf is where Append encodes a batch before writing it.
	frameBuf []byte
	scanBuf  []byte
	readBuf  []byte // Fetch's reusable read window
	// dirDirty says the directory has a change that no fsync made durable
	// yet: the clean-shutdown marker consumed by Open. Every path that makes
	// segment changes durable fsyncs the directory first when it is set, so
	// a machine failure can never bring back a marker that no longer
	// describes the files.
	dirDirty bool
	closed   bool
	// rewrites counts the calls that may have removed or replaced stored
	// batches (truncation, reset, retention, compaction, deliberate
	// corruption): what was derived from the batches must be derived again.
	rewrites int64
	// damaged is set by Corrupt: the next Close writes no shutdown state.
	damaged bool
	// shutdown is the caller's state for the clean-shutdown marker
	// (SetShutdownState), valid while the log is at shutdownAt.
	shutdown   []byte
	shutdownAt shutdownPoint
	// opened is the caller's state read from the trusted marker at Open.
	opened []byte
	// compactions counts compactions run by this Log, for the temporary
	// directories' deterministic token.
	compactions int
	// faults, when set by a test, can fail a named step of Compact.
	faults func(step string) error
}

// SegmentInfo describes one segment.
type SegmentInfo struct {
	Base, NextOffset int64
	SizeBytes        int64 // log bytes
	IndexEntries     int
	MaxTimestamp     int64 // -1 without records
	Active           bool
	LogPath          string
	IndexPath        string
}

// RawBatch is one stored batch as bytes, with its metadata and location.
type RawBatch struct {
	Frame    []byte // the exact stored bytes (do not modify)
	Meta     record.Meta
	Segment  int64 // base offset of the segment holding it
	Position int64 // byte position in that segment
}

// LogRecord is a record with its absolute offset.
type LogRecord struct {
	Offset int64
	record.Record
}

// AppendInfo says where an append went.
type AppendInfo struct {
	BaseOffset, NextOffset int64
	Segment                int64 // base offset of the segment written
	Position               int64 // byte position in that segment
	Size                   int   // frame bytes
	Rolled                 bool  // a new segment was started first
}

func (l *Log) active() *segment { return l.segs[len(l.segs)-1] }

func (l *Log) usable() error {
	if l.closed {
		return kerr.State("log %s is closed", l.dir)
	}
	return nil
}

// Dir returns the log directory.
func (l *Log) Dir() string { return l.dir }

// Options returns the options the log runs with (defaults filled in).
func (l *Log) Options() Options { return l.opts }

// LEO is the log end offset: the offset the next append gets.
func (l *Log) LEO() int64 { return l.active().next }

// LogStartOffset is the base offset of the first retained segment.
func (l *Log) LogStartOffset() int64 { return l.segs[0].base }

// LeaderEpoch is the epoch stamped on the next Append.
func (l *Log) LeaderEpoch() int32 { return l.epoch }

// SetLeaderEpoch sets the epoch stamped on future Appends.
func (l *Log) SetLeaderEpoch(e int32) { l.epoch = e }

// SizeBytes is the log bytes of all segments. Index files are not counted
// (decision 2, like Kafka's retention.bytes).
func (l *Log) SizeBytes() int64 {
	var n int64
	for _, s := range l.segs {
		n += s.size
	}
	return n
}

// UnflushedBytes is the number of bytes appended since the last flush: what
// Crash(false) would lose.
func (l *Log) UnflushedBytes() int64 {
	var n int64
	for _, s := range l.segs {
		n += s.size - s.synced
	}
	return n
}

// Segments describes every segment, oldest first; the last is active.
func (l *Log) Segments() []SegmentInfo {
	out := make([]SegmentInfo, len(l.segs))
	for i, s := range l.segs {
		out[i] = s.info(i == len(l.segs)-1)
	}
	return out
}

// Index returns the sparse index entries of the segment with this base
// offset (-1 = the active segment). An unknown base is an argument error.
func (l *Log) Index(base int64) ([]IndexEntry, error) {
	s, err := l.segmentByBase(base)
	if err != nil {
		return nil, err
	}
	return append([]IndexEntry(nil), s.index.entries...), nil
}

// segmentByBase finds a segment by base offset; -1 is the active segment.
func (l *Log) segmentByBase(base int64) (*segment, error) {
	if base == -1 {
		return l.active(), nil
	}
	i := sort.Search(len(l.segs), func(i int) bool { return l.segs[i].base >= base })
	if i == len(l.segs) || l.segs[i].base != base {
		return nil, kerr.Argument("no segment with base offset %d in %s", base, l.dir)
	}
	return l.segs[i], nil
}

// segmentFor returns the index of the last segment whose base is <= offset,
// or 0 when offset precedes every segment.
func (l *Log) segmentFor(offset int64) int {
	i := sort.Search(len(l.segs), func(i int) bool { return l.segs[i].base > offset })
	return max(i-1, 0)
}

// needsDirSync says a segment's creation or the marker's deletion is not
// durable yet.
func (l *Log) needsDirSync() bool {
	need := l.dirDirty
	for _, s := range l.segs {
		need = need || !s.durable
	}
	return need
}

// syncDirIfNeeded fsyncs the directory when a segment's creation or the
// marker's deletion is not durable yet.
func (l *Log) syncDirIfNeeded() error {
	if !l.needsDirSync() {
		return nil
	}
	if err := l.syncDir(l.dir); err != nil {
		return err
	}
	l.markDurable()
	return nil
}
