package dumplog

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/record"
)

// KafkaText writes seg as Kafka 4.0's kafka-dump-log.sh prints a v2 log
// segment (DumpLogSegments.dumpLog and printBatchLevel), the views=kafka
// rendering of `log dump`:
//
//   - each batch line carries deleteHorizonMs, magic (MKB1's format
//     version) and compresscodec: none, where Kafka prints them;
//   - a record line prints key: only for a record with a key and payload:
//     only for one with a value (a tombstone line ends after its key);
//   - a transaction marker prints Kafka's control-record line
//     (`endTxnMarker: COMMIT coordinatorEpoch: 0`) with the sizes of Kafka's
//     EndTransactionMarker (key 4 bytes, value 6); MKB1 stores no record in
//     a marker, so its CreateTime is -1, and MiniKafka has no coordinator
//     epoch (0); its count is the one offset it takes;
//   - damaged bytes are read batch by batch by their length field, as
//     FileLogInputStream does: a batch whose CRC does not match is printed
//     with isvalid: false and the dump goes on; only bytes that cannot hold
//     a batch end it, with Kafka's `Found N invalid bytes at the end of
//     NAME` (the file name only).
//
// Sizes and CRCs are MKB1's, not record batch v2's.
func KafkaText(w io.Writer, seg Segment, records bool) error {
	var tail io.ReaderAt
	if seg.Invalid != nil && seg.Invalid.Data != nil {
		tail = bytesAt{data: seg.Invalid.Data, base: seg.Invalid.Position}
	}
	d := newKafkaDumper(w, records, tail)
	d.header(seg.Name, seg.BaseOffset)
	for _, f := range seg.Frames {
		if err := d.frame(f); err != nil {
			return err
		}
	}
	d.tail(seg.Name, seg.Invalid)
	return d.err()
}

// kafkaDumper writes KafkaText one frame at a time (DumpFile); src, when
// not nil, holds the file's bytes at their file positions, so that the
// damaged tail can be read on batch by batch without holding it.
type kafkaDumper struct {
	ew      *errWriter
	records bool
	src     io.ReaderAt
}

func newKafkaDumper(w io.Writer, records bool, src io.ReaderAt) *kafkaDumper {
	return &kafkaDumper{ew: &errWriter{w: w}, records: records, src: src}
}

func (d *kafkaDumper) err() error { return d.ew.err }

func (d *kafkaDumper) header(name string, base int64) {
	d.ew.printf("Dumping %s\n", name)
	d.ew.printf("Log starting offset: %d\n", base)
}

func (d *kafkaDumper) frame(f Frame) error {
	b, err := record.Decode(f.Bytes)
	if err != nil {
		return fmt.Errorf("batch at position %d: %w", f.Position, err)
	}
	kafkaBatch(d.ew, f.Meta, f.Position, f.Bytes, b, true, d.records)
	return d.ew.err
}

// tail reads the damaged bytes batch by batch by their length field, as
// FileLogInputStream does, printing batches whose only fault is their CRC
// with isvalid: false; what cannot hold a batch ends the dump.
func (d *kafkaDumper) tail(name string, inv *Invalid) {
	if inv == nil {
		return
	}
	pos, end := inv.Position, inv.Position+inv.Bytes
	if d.src != nil {
		var header [record.FrameHeaderSize]byte
		for end-pos >= record.FrameHeaderSize {
			if _, err := d.src.ReadAt(header[:], pos); err != nil {
				break
			}
			n, err := record.FrameLength(header[:], record.DefaultMaxBatchBytes)
			if err != nil || int64(n) > end-pos {
				break
			}
			frame := make([]byte, n)
			if _, err := d.src.ReadAt(frame, pos); err != nil {
				break
			}
			m, b, crcOK, err := record.DecodeIgnoringCRC(frame, record.DefaultMaxBatchBytes)
			if err != nil {
				break
			}
			kafkaBatch(d.ew, m, pos, frame, b, crcOK, d.records)
			pos += int64(n)
		}
	}
	if end > pos {
		d.ew.printf("Found %d invalid bytes at the end of %s\n", end-pos, filepath.Base(name))
	}
}

// bytesAt reads a byte slice that starts at file position base.
type bytesAt struct {
	data []byte
	base int64
}

func (b bytesAt) ReadAt(p []byte, off int64) (int, error) {
	off -= b.base
	if off < 0 || off >= int64(len(b.data)) {
		return 0, io.EOF
	}
	n := copy(p, b.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// kafkaBatch prints one batch line and, with records, its record lines.
func kafkaBatch(ew *errWriter, m record.Meta, pos int64, frame []byte, b *record.Batch, valid, records bool) {
	count := m.RecordCount
	if m.IsControl() {
		count = int(m.LastOffsetDelta) + 1
	}
	ew.printf("baseOffset: %d lastOffset: %d count: %d baseSequence: %d lastSequence: %d producerId: %d producerEpoch: %d partitionLeaderEpoch: %d isTransactional: %t isControl: %t deleteHorizonMs: OptionalLong.empty position: %d CreateTime: %d size: %d magic: %d compresscodec: none crc: %d isvalid: %t\n",
		m.BaseOffset, m.LastOffset(), count, m.BaseSequence, m.LastSequence(), m.ProducerID, m.ProducerEpoch,
		m.LeaderEpoch, m.Transactional, m.IsControl(), pos, m.MaxTimestamp, m.Size, frame[record.FrameHeaderSize], m.CRC, valid)
	if !records {
		return
	}
	if m.IsControl() {
		ew.printf("| offset: %d CreateTime: -1 keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] endTxnMarker: %s coordinatorEpoch: 0\n",
			m.BaseOffset, strings.ToUpper(m.Control.String()))
		return
	}
	for i, r := range b.Records {
		line := kafkaRecordLine(b, i)
		if r.Key != nil {
			line += " key: " + Bytes(r.Key)
		}
		if r.Value != nil {
			line += " payload: " + Bytes(r.Value)
		}
		ew.printf("%s\n", line)
	}
}

// kafkaRecordLine is the start of kafka-dump-log's line for record i of b,
// up to its header keys (the key and payload follow, as each view prints
// them): offset, CreateTime, sizes, the record's own sequence (-1 for an
// unsequenced batch).
func kafkaRecordLine(b *record.Batch, i int) string {
	r := b.Records[i]
	seq := int64(-1)
	if b.BaseSequence >= 0 {
		seq = int64(b.BaseSequence) + int64(b.OffsetDeltas[i])
	}
	keys := make([]string, len(r.Headers))
	for j, h := range r.Headers {
		keys[j] = h.Key
	}
	return fmt.Sprintf("| offset: %d CreateTime: %d keySize: %d valueSize: %d sequence: %d headerKeys: [%s]",
		b.BaseOffset+int64(b.OffsetDeltas[i]), r.TimestampMs, size(r.Key), size(r.Value), seq, strings.Join(keys, ","))
}
