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
	ew := &errWriter{w: w}
	ew.printf("Dumping %s\n", seg.Name)
	ew.printf("Log starting offset: %d\n", seg.BaseOffset)
	for _, f := range seg.Frames {
		b, err := record.Decode(f.Bytes)
		if err != nil {
			return fmt.Errorf("batch at position %d: %w", f.Position, err)
		}
		kafkaBatch(ew, f.Meta, f.Position, f.Bytes, b, true, records)
	}
	if inv := seg.Invalid; inv != nil {
		rest, pos := inv.Data, inv.Position
		for len(rest) >= record.FrameHeaderSize {
			n, err := record.FrameLength(rest, record.DefaultMaxBatchBytes)
			if err != nil || n > len(rest) {
				break
			}
			m, b, crcOK, err := record.DecodeIgnoringCRC(rest[:n], record.DefaultMaxBatchBytes)
			if err != nil {
				break
			}
			kafkaBatch(ew, m, pos, rest[:n], b, crcOK, records)
			rest, pos = rest[n:], pos+int64(n)
		}
		if inv.Data == nil {
			rest = make([]byte, inv.Bytes) // only the count is known
		}
		if len(rest) > 0 {
			ew.printf("Found %d invalid bytes at the end of %s\n", len(rest), filepath.Base(seg.Name))
		}
	}
	return ew.err
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
		seq := int64(-1)
		if b.BaseSequence >= 0 {
			seq = int64(b.BaseSequence) + int64(b.OffsetDeltas[i])
		}
		keys := make([]string, len(r.Headers))
		for j, h := range r.Headers {
			keys[j] = h.Key
		}
		line := fmt.Sprintf("| offset: %d CreateTime: %d keySize: %d valueSize: %d sequence: %d headerKeys: [%s]",
			b.BaseOffset+int64(b.OffsetDeltas[i]), r.TimestampMs, size(r.Key), size(r.Value), seq, strings.Join(keys, ","))
		if r.Key != nil {
			line += " key: " + Bytes(r.Key)
		}
		if r.Value != nil {
			line += " payload: " + Bytes(r.Value)
		}
		ew.printf("%s\n", line)
	}
}
