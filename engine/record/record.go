// Package record defines records, record batches and control batches, and the
// MKB1 frame that stores them (§6.1–§6.2 of the spec).
//
// # Null and empty
//
// Keys, values and header values are optional byte strings: a nil slice is
// null, a non-nil slice of length zero is the empty string. The two are
// different everywhere (codec, compaction, JSON). The decoder always returns a
// non-nil slice for a present field, even of length zero.
//
// # The MKB1 frame
//
// All integers are big-endian; the CRC is CRC-32/IEEE over the payload only.
//
//	frame header (12 bytes)
//	   0  4  magic "MKB1"
//	   4  4  u32 payload length
//	   8  4  u32 CRC-32/IEEE of the payload
//	payload header (40 bytes)
//	   0  1  u8  format version (1)
//	   1  8  i64 base offset
//	   9  4  u32 leader epoch
//	  13  8  i64 producer id (-1 none)
//	  21  4  i32 producer epoch (-1 none)
//	  25  4  i32 base sequence (-1 none)
//	  29  1  u8  flags: 0x01 transactional, 0x02 commit, 0x04 abort
//	  30  4  i32 last offset delta
//	  34  2  u16 transactional id length
//	  36  4  u32 record count
//	  40  L      transactional id (UTF-8)
//	records, each:
//	   0  4  i32 offset delta
//	   4  8  i64 timestamp ms
//	  12  4  i32 key length (-1 null)
//	  16  4  i32 value length (-1 null)
//	  20  2  u16 header count
//	  22     key, value, then headers: u16 key length, key, i32 value length (-1 null), value
package record

import (
	"unicode/utf8"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// Format constants.
const (
	Magic             = "MKB1"
	FormatVersion     = 1
	FrameHeaderSize   = 12
	PayloadHeaderSize = 40
	// RecordOverhead is the fixed size of one record before its key, value
	// and headers.
	RecordOverhead = 22
	// DefaultMaxBatchBytes bounds a frame's payload when decoding (16 MiB).
	DefaultMaxBatchBytes = 16 << 20

	FlagTransactional = 0x01
	FlagCommit        = 0x02
	FlagAbort         = 0x04

	// NoProducerID, NoProducerEpoch, NoSequence and NoLeaderEpoch mark absent
	// producer and epoch fields; NoOffset marks an unassigned base offset.
	NoProducerID    = -1
	NoProducerEpoch = -1
	NoSequence      = -1
	NoLeaderEpoch   = -1
	NoOffset        = -1
)

// Header is a record header: a UTF-8 key and an optional byte value.
type Header struct {
	Key   string
	Value []byte // nil is null
}

// Record is one key/value record with a timestamp and headers.
type Record struct {
	Key         []byte // nil is null
	Value       []byte // nil is null; a keyed record with a null value is a tombstone
	TimestampMs int64
	Headers     []Header
}

// IsTombstone reports whether the record deletes its key under compaction.
func (r Record) IsTombstone() bool { return r.Key != nil && r.Value == nil }

// ControlType says whether a batch is a transaction marker, and which.
type ControlType uint8

// Control types. NoControl is a data batch.
const (
	NoControl ControlType = iota
	Commit
	Abort
)

// String returns "commit", "abort" or "" for data batches.
func (c ControlType) String() string {
	switch c {
	case Commit:
		return "commit"
	case Abort:
		return "abort"
	}
	return ""
}

// Batch is the unit of append, replication, storage and recovery. A batch is
// unassigned until the leader log gives it a base offset and leader epoch.
type Batch struct {
	BaseOffset      int64 // NoOffset until assigned
	LeaderEpoch     int32 // NoLeaderEpoch until assigned
	ProducerID      int64 // >= 0 means the batch is sequenced (idempotent)
	ProducerEpoch   int32
	BaseSequence    int32
	Transactional   bool   // the transactional id is present (data or marker)
	TransactionalID string // meaningful only when Transactional
	Control         ControlType
	LastOffsetDelta int32
	OffsetDeltas    []int32 // one per record; compaction leaves gaps
	Records         []Record
	Version         uint8
}

// NewBatch returns an unassigned data batch holding records with deltas
// 0..n-1 and no producer or transaction fields. It does not validate; Encode
// and Validate do.
func NewBatch(records []Record) *Batch {
	deltas := make([]int32, len(records))
	for i := range deltas {
		deltas[i] = int32(i)
	}
	last := int32(len(records) - 1)
	if last < 0 {
		last = 0
	}
	return &Batch{
		BaseOffset:      NoOffset,
		LeaderEpoch:     NoLeaderEpoch,
		ProducerID:      NoProducerID,
		ProducerEpoch:   NoProducerEpoch,
		BaseSequence:    NoSequence,
		LastOffsetDelta: last,
		OffsetDeltas:    deltas,
		Records:         records,
		Version:         FormatVersion,
	}
}

// NewControlBatch returns an unassigned transaction marker for txnID. It has
// no records and takes one offset.
func NewControlBatch(txnID string, ctl ControlType) *Batch {
	b := NewBatch(nil)
	b.Transactional = true
	b.TransactionalID = txnID
	b.Control = ctl
	return b
}

// Assigned reports whether the batch has a base offset.
func (b *Batch) Assigned() bool { return b.BaseOffset >= 0 }

// IsControl reports whether the batch is a transaction marker.
func (b *Batch) IsControl() bool { return b.Control != NoControl }

// LogicalCount is the number of offsets the batch occupies (last delta + 1).
func (b *Batch) LogicalCount() int64 { return int64(b.LastOffsetDelta) + 1 }

// NextOffset is the offset after the batch: base + last delta + 1.
func (b *Batch) NextOffset() int64 { return b.BaseOffset + b.LogicalCount() }

// LastOffset is the batch's last offset: base + last delta.
func (b *Batch) LastOffset() int64 { return b.BaseOffset + int64(b.LastOffsetDelta) }

// LastSequence is base sequence + logical count - 1, or -1 when unsequenced.
func (b *Batch) LastSequence() int32 {
	if b.BaseSequence < 0 {
		return NoSequence
	}
	return b.BaseSequence + b.LastOffsetDelta
}

// MaxTimestamp is the largest record timestamp, or -1 without records.
func (b *Batch) MaxTimestamp() int64 {
	max := int64(-1)
	for i, r := range b.Records {
		if i == 0 || r.TimestampMs > max {
			max = r.TimestampMs
		}
	}
	return max
}

// Flags returns the frame's flag byte for this batch.
func (b *Batch) Flags() uint8 {
	var f uint8
	if b.Transactional {
		f |= FlagTransactional
	}
	switch b.Control {
	case Commit:
		f |= FlagCommit
	case Abort:
		f |= FlagAbort
	}
	return f
}

// Assign returns a copy of an unassigned batch with its base offset and
// leader epoch set. Assigning an assigned batch is INVALID_RECORD.
func (b *Batch) Assign(baseOffset int64, leaderEpoch int32) (*Batch, error) {
	if b.Assigned() {
		return nil, kerr.New(kerr.InvalidRecord, "batch is already assigned")
	}
	if baseOffset < 0 {
		return nil, kerr.New(kerr.InvalidRecord, "base offset cannot be negative")
	}
	c := *b
	c.BaseOffset = baseOffset
	c.LeaderEpoch = leaderEpoch
	return &c, nil
}

// Validate checks the batch invariants of §6.1; a violation is INVALID_RECORD.
func (b *Batch) Validate() error {
	if b.Control == NoControl && len(b.Records) == 0 {
		return kerr.New(kerr.InvalidRecord, "data batch must contain at least one record")
	}
	if b.Control != NoControl {
		if len(b.Records) != 0 {
			return kerr.New(kerr.InvalidRecord, "control batch must not contain records")
		}
		if !b.Transactional {
			return kerr.New(kerr.InvalidRecord, "control batch requires a transactional ID")
		}
	}
	if b.Control > Abort {
		return kerr.New(kerr.InvalidRecord, "unknown control type %d", b.Control)
	}
	if b.BaseOffset < NoOffset {
		return kerr.New(kerr.InvalidRecord, "base offset cannot be negative")
	}
	if len(b.OffsetDeltas) != len(b.Records) {
		return kerr.New(kerr.InvalidRecord, "%d offset deltas for %d records", len(b.OffsetDeltas), len(b.Records))
	}
	for i, d := range b.OffsetDeltas {
		if d < 0 {
			return kerr.New(kerr.InvalidRecord, "offset deltas cannot be negative")
		}
		if i > 0 && d <= b.OffsetDeltas[i-1] {
			return kerr.New(kerr.InvalidRecord, "offset deltas must be strictly increasing")
		}
	}
	if b.LastOffsetDelta < 0 {
		return kerr.New(kerr.InvalidRecord, "last offset delta cannot be negative")
	}
	if n := len(b.OffsetDeltas); n > 0 && b.OffsetDeltas[n-1] > b.LastOffsetDelta {
		return kerr.New(kerr.InvalidRecord, "last offset delta %d is below the last record's delta %d", b.LastOffsetDelta, b.OffsetDeltas[n-1])
	}
	return nil
}

// checkEncodable adds the encoder's preconditions (§6.2.3) to Validate.
func (b *Batch) checkEncodable() error {
	if !b.Assigned() {
		return kerr.New(kerr.InvalidRecord, "batch must be assigned before encoding")
	}
	if b.Version != FormatVersion {
		return kerr.New(kerr.InvalidRecord, "unsupported format version %d", b.Version)
	}
	if b.LeaderEpoch < 0 {
		return kerr.New(kerr.InvalidRecord, "cannot encode an unassigned leader epoch %d", b.LeaderEpoch)
	}
	if err := b.Validate(); err != nil {
		return err
	}
	if b.Transactional {
		if len(b.TransactionalID) > 0xFFFF {
			return kerr.New(kerr.InvalidRecord, "transactional ID is too large")
		}
		if !utf8.ValidString(b.TransactionalID) {
			return kerr.New(kerr.InvalidRecord, "transactional ID is not valid UTF-8")
		}
	} else if b.TransactionalID != "" {
		return kerr.New(kerr.InvalidRecord, "transactional ID set on a non-transactional batch")
	}
	if len(b.Records) > 0x7FFFFFFF {
		return kerr.New(kerr.InvalidRecord, "too many records")
	}
	for _, r := range b.Records {
		if len(r.Headers) > 0xFFFF {
			return kerr.New(kerr.InvalidRecord, "too many headers")
		}
		if len(r.Key) > 0x7FFFFFFF || len(r.Value) > 0x7FFFFFFF {
			return kerr.New(kerr.InvalidRecord, "record field is too large")
		}
		for _, h := range r.Headers {
			if len(h.Key) > 0xFFFF {
				return kerr.New(kerr.InvalidRecord, "header key is too large")
			}
			if !utf8.ValidString(h.Key) {
				return kerr.New(kerr.InvalidRecord, "header key is not valid UTF-8")
			}
			if len(h.Value) > 0x7FFFFFFF {
				return kerr.New(kerr.InvalidRecord, "header value is too large")
			}
		}
	}
	return nil
}

// RecordSize is one record's encoded size.
func RecordSize(r Record) int {
	n := RecordOverhead + len(r.Key) + len(r.Value)
	for _, h := range r.Headers {
		n += 2 + len(h.Key) + 4 + len(h.Value)
	}
	return n
}

// EncodedSize is the batch's frame size in bytes:
// 12 + 40 + |txid| + Σ records (22 + |key| + |value| + Σ headers (6 + |hkey| + |hvalue|)).
func (b *Batch) EncodedSize() int {
	n := FrameHeaderSize + PayloadHeaderSize
	if b.Transactional {
		n += len(b.TransactionalID)
	}
	for _, r := range b.Records {
		n += RecordSize(r)
	}
	return n
}
