// Package dumplog renders segment files the way Kafka's kafka-dump-log.sh
// (kafka.tools.DumpLogSegments) renders them, so that what a learner sees
// here is what they will see on a real broker. It serves both the
// `minikafka dump-log FILE` subcommand and the REPL's `log dump`.
//
// Text output, one line per batch after a two-line header:
//
//	Dumping 00000000000000000000.log
//	Log starting offset: 0
//	baseOffset: 0 lastOffset: 0 count: 1 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 0 isTransactional: false isControl: false position: 0 CreateTime: 0 size: 81 crc: 1234567890 isvalid: true
//
// With records (Kafka's --deep-iteration --print-data-log) each batch line
// is followed by one line per record:
//
//	| offset: 0 CreateTime: 0 keySize: -1 valueSize: 7 sequence: -1 headerKeys: [] key: null payload: value-0
//
// and a control batch by `| offset: N endTxnMarker: COMMIT` (or ABORT).
// CreateTime on a batch line is the batch's max timestamp. Bytes print as
// text when they are printable UTF-8 and as `hex:0a1b…` otherwise; null
// prints as `null` with size -1. A damaged tail ends the dump with
// `Found N invalid bytes at the end of FILE: REASON`.
//
// Kafka prints three batch fields that MKB1 does not have: magic,
// compresscodec and deleteHorizonMs. They are left out rather than faked.
// KafkaText is the views=kafka rendering, Kafka 4.0's lines (see there).
// The count is the number of records stored in the batch (a control batch
// stores none), which after compaction can be below lastOffset-baseOffset+1.
//
// JSON output (--format json) is one object per line per batch, and a
// final {"invalid_bytes":N,"position":P,"reason":"..."} for a damaged tail.
// Index files dump as `offset: O position: P` lines, as Kafka does.
package dumplog

import (
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/minikafka-lab/minikafka/engine/record"
)

// Frame is one valid batch of a segment, as stored.
type Frame struct {
	Position int64  // byte position in the segment file
	Bytes    []byte // the whole MKB1 frame
	Meta     record.Meta
}

// Invalid describes the bytes at the end of a segment that are not a valid
// frame (what recovery would truncate).
type Invalid struct {
	Position int64 // first invalid byte
	Bytes    int64 // invalid bytes from Position to the end of the file
	Reason   string
	// Data holds those bytes when they were read from the file (KafkaText
	// splits them into batches by their length fields).
	Data []byte
}

// Segment is what a dump shows: a file name (printed as given), the base
// offset ("Log starting offset"), the valid frames and the damaged tail.
type Segment struct {
	Name       string
	BaseOffset int64
	Frames     []Frame
	Invalid    *Invalid // nil when the whole file is valid
}

// Text writes the Kafka-style text dump of seg; with records it adds one
// line per record (or per control marker).
func Text(w io.Writer, seg Segment, records bool) error {
	d := newTextDumper(w, records)
	d.header(seg.Name, seg.BaseOffset)
	for _, f := range seg.Frames {
		if err := d.frame(f); err != nil {
			return err
		}
	}
	d.tail(seg.Name, seg.Invalid)
	return d.ew.err
}

// dumper writes a dump one frame at a time, so that a file is dumped
// without holding more than one frame (DumpFile).
type dumper interface {
	header(name string, base int64)
	frame(f Frame) error
	tail(name string, inv *Invalid) // inv may be nil
	err() error
}

// textDumper writes the text dump.
type textDumper struct {
	ew      *errWriter
	records bool
}

func newTextDumper(w io.Writer, records bool) *textDumper {
	return &textDumper{ew: &errWriter{w: w}, records: records}
}

func (d *textDumper) err() error { return d.ew.err }

func (d *textDumper) header(name string, base int64) {
	d.ew.printf("Dumping %s\n", name)
	d.ew.printf("Log starting offset: %d\n", base)
}

func (d *textDumper) frame(f Frame) error {
	ew := d.ew
	m := f.Meta
	ew.printf("baseOffset: %d lastOffset: %d count: %d baseSequence: %d lastSequence: %d producerId: %d producerEpoch: %d partitionLeaderEpoch: %d isTransactional: %t isControl: %t position: %d CreateTime: %d size: %d crc: %d isvalid: true\n",
		m.BaseOffset, m.LastOffset(), m.RecordCount, m.BaseSequence, m.LastSequence(), m.ProducerID, m.ProducerEpoch,
		m.LeaderEpoch, m.Transactional, m.IsControl(), f.Position, m.MaxTimestamp, m.Size, m.CRC)
	if !d.records {
		return ew.err
	}
	if m.IsControl() {
		ew.printf("| offset: %d endTxnMarker: %s\n", m.BaseOffset, strings.ToUpper(m.Control.String()))
		return ew.err
	}
	b, err := record.Decode(f.Bytes)
	if err != nil {
		return fmt.Errorf("batch at position %d: %w", f.Position, err)
	}
	for i, r := range b.Records {
		ew.printf("%s key: %s payload: %s\n", kafkaRecordLine(b, i), Bytes(r.Key), Bytes(r.Value))
	}
	return ew.err
}

func (d *textDumper) tail(name string, inv *Invalid) {
	if inv != nil {
		d.ew.printf("Found %d invalid bytes at the end of %s: %s\n", inv.Bytes, name, inv.Reason)
	}
}

// size is a field's length, -1 for null.
func size(b []byte) int {
	if b == nil {
		return -1
	}
	return len(b)
}

// Bytes renders an optional byte string for a dump: "null", the text when
// it is printable UTF-8, else "hex:" and its hex digits.
func Bytes(b []byte) string {
	if b == nil {
		return "null"
	}
	if printable(b) {
		return string(b)
	}
	return "hex:" + hex.EncodeToString(b)
}

func printable(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// errWriter keeps the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
