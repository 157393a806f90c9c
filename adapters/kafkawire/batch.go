package kafkawire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"unicode/utf8"

	"github.com/minikafka-lab/minikafka/engine/record"
)

// Record batch v2 (magic 2), the format of Produce and Fetch since Kafka
// 0.11 (KIP-98). All integers big-endian; the records section uses zig-zag
// varints:
//
//	 0  8  baseOffset
//	 8  4  batchLength (bytes after this field)
//	12  4  partitionLeaderEpoch
//	16  1  magic (2)
//	17  4  crc: CRC-32C of bytes 21..end
//	21  2  attributes: bits 0-2 codec, 3 LogAppendTime, 4 transactional, 5 control
//	23  4  lastOffsetDelta
//	27  8  baseTimestamp
//	35  8  maxTimestamp
//	43  8  producerId
//	51  2  producerEpoch
//	53  4  baseSequence
//	57  4  recordCount
//	61     records (compressed as a whole when the codec is not none)
//
// A record: varint length, int8 attributes, varlong timestampDelta, varint
// offsetDelta, varint keyLength (-1 null) key, varint valueLength value,
// varint headerCount, then per header varint keyLength key, varint
// valueLength (-1 null) value.
const (
	batchHeaderSize = 61
	batchMagic      = 2

	attrCodecMask     = 0x07
	attrTransactional = 0x10
	attrControl       = 0x20
)

// The codecs of attribute bits 0-2.
const (
	codecNone = iota
	codecGzip
	codecSnappy
	codecLZ4
	codecZstd
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Batch decoding errors; errCorrupt maps to CORRUPT_MESSAGE, the others to
// the code named.
var (
	errCorrupt     = errors.New("corrupt record batch")
	errInvalid     = errors.New("invalid record batch")
	errCompression = errors.New("unsupported compression codec")
)

// producedBatch is a decoded Produce batch: the engine batch (unassigned)
// and what the batch header said that the engine batch does not keep.
type producedBatch struct {
	batch *record.Batch
	codec int
}

// decodeProduceBatch decodes the records of one Produce partition: exactly
// one record batch v2, whole, with a valid CRC-32C. Compressed records are
// decompressed (at most maxDecompressed bytes). The result is an unassigned
// engine batch carrying the producer id, epoch and sequence, the
// transactional flag, every record's offset delta, timestamp, key, value
// and headers (nil stays null, empty stays empty). Keys, values and header
// values alias data (or the decompressed buffer).
func decodeProduceBatch(data []byte, maxDecompressed int) (producedBatch, error) {
	if len(data) < batchHeaderSize {
		return producedBatch{}, fmt.Errorf("%w: %d bytes is shorter than a batch header", errCorrupt, len(data))
	}
	length := int32(binary.BigEndian.Uint32(data[8:]))
	if int64(length)+12 != int64(len(data)) {
		return producedBatch{}, fmt.Errorf("%w: batch length %d does not match the %d bytes sent (one batch per partition)", errInvalid, length, len(data)-12)
	}
	if data[16] != batchMagic {
		return producedBatch{}, fmt.Errorf("%w: magic %d (only record batch v2 is accepted)", errCorrupt, int8(data[16]))
	}
	if crc := binary.BigEndian.Uint32(data[17:]); crc32.Checksum(data[21:], castagnoli) != crc {
		return producedBatch{}, fmt.Errorf("%w: CRC-32C mismatch", errCorrupt)
	}
	attrs := binary.BigEndian.Uint16(data[21:])
	if attrs&attrControl != 0 {
		return producedBatch{}, fmt.Errorf("%w: clients cannot produce control batches", errInvalid)
	}
	lastDelta := int32(binary.BigEndian.Uint32(data[23:]))
	baseTs := int64(binary.BigEndian.Uint64(data[27:]))
	count := int32(binary.BigEndian.Uint32(data[57:]))
	if count <= 0 {
		return producedBatch{}, fmt.Errorf("%w: a batch must hold at least one record (count %d)", errInvalid, count)
	}
	b := &record.Batch{
		BaseOffset:      record.NoOffset,
		LeaderEpoch:     record.NoLeaderEpoch,
		ProducerID:      int64(binary.BigEndian.Uint64(data[43:])),
		ProducerEpoch:   int32(int16(binary.BigEndian.Uint16(data[51:]))),
		BaseSequence:    int32(binary.BigEndian.Uint32(data[53:])),
		Transactional:   attrs&attrTransactional != 0,
		LastOffsetDelta: lastDelta,
		Version:         record.FormatVersion,
	}
	if b.ProducerID < 0 {
		b.ProducerID, b.ProducerEpoch, b.BaseSequence = record.NoProducerID, record.NoProducerEpoch, record.NoSequence
	}
	codec := int(attrs & attrCodecMask)
	recs := data[batchHeaderSize:]
	switch codec {
	case codecNone:
	case codecGzip, codecSnappy, codecLZ4, codecZstd:
		out, err := decompress(codec, recs, maxDecompressed)
		if errors.Is(err, errTooLarge) {
			return producedBatch{}, fmt.Errorf("%w: records %v", errInvalid, err)
		}
		if err != nil {
			return producedBatch{}, fmt.Errorf("%w: cannot decompress (codec %d): %v", errCorrupt, codec, err)
		}
		recs = out
	default:
		return producedBatch{}, fmt.Errorf("%w: codec %d", errCompression, codec)
	}
	n := min(int(count), len(recs)/7+1) // never trust a count for allocation
	b.Records = make([]record.Record, 0, n)
	b.OffsetDeltas = make([]int32, 0, n)
	r := reader{b: recs}
	for i := int32(0); i < count; i++ {
		rec, delta, err := r.record(baseTs)
		if err != nil {
			return producedBatch{}, fmt.Errorf("%w: record %d: %v", errCorrupt, i, err)
		}
		b.Records = append(b.Records, rec)
		b.OffsetDeltas = append(b.OffsetDeltas, delta)
	}
	if len(r.b) != 0 {
		return producedBatch{}, fmt.Errorf("%w: %d bytes after the last record", errCorrupt, len(r.b))
	}
	if err := b.Validate(); err != nil {
		return producedBatch{}, fmt.Errorf("%w: %v", errInvalid, err)
	}
	return producedBatch{batch: b, codec: codec}, nil
}

// reader reads the varint-encoded records section.
type reader struct{ b []byte }

var errTruncated = errors.New("truncated")

func (r *reader) varint() (int64, error) {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		return 0, errTruncated
	}
	r.b = r.b[n:]
	return v, nil
}

// bytes reads a varint length and that many bytes; -1 is null.
func (r *reader) bytes() ([]byte, error) {
	n, err := r.varint()
	switch {
	case err != nil:
		return nil, err
	case n == -1:
		return nil, nil
	case n < -1 || n > int64(len(r.b)):
		return nil, fmt.Errorf("field length %d out of range", n)
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out, nil
}

func (r *reader) record(baseTs int64) (record.Record, int32, error) {
	length, err := r.varint()
	if err != nil {
		return record.Record{}, 0, err
	}
	if length < 0 || length > int64(len(r.b)) {
		return record.Record{}, 0, fmt.Errorf("record length %d out of range", length)
	}
	body := reader{b: r.b[:length]}
	r.b = r.b[length:]
	if len(body.b) < 1 {
		return record.Record{}, 0, errTruncated
	}
	body.b = body.b[1:] // attributes: unused
	tsDelta, err := body.varint()
	if err != nil {
		return record.Record{}, 0, err
	}
	delta, err := body.varint()
	if err != nil {
		return record.Record{}, 0, err
	}
	if delta < 0 || delta > 1<<31-1 {
		return record.Record{}, 0, fmt.Errorf("offset delta %d out of range", delta)
	}
	rec := record.Record{TimestampMs: baseTs + tsDelta}
	if rec.Key, err = body.bytes(); err != nil {
		return record.Record{}, 0, err
	}
	if rec.Value, err = body.bytes(); err != nil {
		return record.Record{}, 0, err
	}
	headers, err := body.varint()
	if err != nil {
		return record.Record{}, 0, err
	}
	if headers < 0 || headers > int64(len(body.b)) {
		return record.Record{}, 0, fmt.Errorf("header count %d out of range", headers)
	}
	if headers > 0 {
		rec.Headers = make([]record.Header, 0, headers)
	}
	for h := int64(0); h < headers; h++ {
		k, err := body.bytes()
		if err != nil {
			return record.Record{}, 0, err
		}
		if k == nil || !utf8.Valid(k) || len(k) > 0xFFFF {
			return record.Record{}, 0, errors.New("header key must be a UTF-8 string")
		}
		v, err := body.bytes()
		if err != nil {
			return record.Record{}, 0, err
		}
		rec.Headers = append(rec.Headers, record.Header{Key: string(k), Value: v})
	}
	if len(body.b) != 0 {
		return record.Record{}, 0, fmt.Errorf("%d bytes after the record's fields", len(body.b))
	}
	return rec, int32(delta), nil
}

// appendBatch appends an assigned engine batch as record batch v2,
// uncompressed, with its offsets, leader epoch, producer fields,
// transactional and control flags, and every record. A control batch (an
// engine marker has no records) gets Kafka's one control record: key
// (version 0, type 0 abort or 1 commit), value (version 0, coordinator
// epoch 0).
func appendBatch(dst []byte, b *record.Batch) []byte {
	start := len(dst)
	dst = binary.BigEndian.AppendUint64(dst, uint64(b.BaseOffset))
	dst = append(dst, 0, 0, 0, 0) // length, patched
	dst = binary.BigEndian.AppendUint32(dst, uint32(b.LeaderEpoch))
	dst = append(dst, batchMagic, 0, 0, 0, 0) // magic, crc patched
	var attrs uint16
	if b.Transactional {
		attrs |= attrTransactional
	}
	if b.IsControl() {
		attrs |= attrControl
	}
	dst = binary.BigEndian.AppendUint16(dst, attrs)
	dst = binary.BigEndian.AppendUint32(dst, uint32(b.LastOffsetDelta))
	baseTs, maxTs := int64(-1), int64(-1)
	for i, r := range b.Records {
		if i == 0 {
			baseTs = r.TimestampMs
		}
		if i == 0 || r.TimestampMs > maxTs {
			maxTs = r.TimestampMs
		}
	}
	if b.IsControl() {
		baseTs, maxTs = 0, 0
	}
	dst = binary.BigEndian.AppendUint64(dst, uint64(baseTs))
	dst = binary.BigEndian.AppendUint64(dst, uint64(maxTs))
	dst = binary.BigEndian.AppendUint64(dst, uint64(b.ProducerID))
	dst = binary.BigEndian.AppendUint16(dst, uint16(int16(b.ProducerEpoch)))
	dst = binary.BigEndian.AppendUint32(dst, uint32(b.BaseSequence))
	if b.IsControl() {
		dst = binary.BigEndian.AppendUint32(dst, 1)
		typ := byte(0)
		if b.Control == record.Commit {
			typ = 1
		}
		dst = appendRecord(dst, 0, 0, []byte{0, 0, 0, typ}, []byte{0, 0, 0, 0, 0, 0}, nil)
	} else {
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(b.Records)))
		for i, r := range b.Records {
			dst = appendRecord(dst, r.TimestampMs-baseTs, b.OffsetDeltas[i], r.Key, r.Value, r.Headers)
		}
	}
	binary.BigEndian.PutUint32(dst[start+8:], uint32(len(dst)-start-12))
	binary.BigEndian.PutUint32(dst[start+17:], crc32.Checksum(dst[start+21:], castagnoli))
	return dst
}

// appendRecord appends one record: its length varint first, so the body is
// sized before it is written.
func appendRecord(dst []byte, tsDelta int64, offsetDelta int32, key, value []byte, headers []record.Header) []byte {
	size := 1 + varlongSize(tsDelta) + varlongSize(int64(offsetDelta)) + bytesSize(key) + bytesSize(value) + varlongSize(int64(len(headers)))
	for _, h := range headers {
		size += varlongSize(int64(len(h.Key))) + len(h.Key) + bytesSize(h.Value)
	}
	dst = binary.AppendVarint(dst, int64(size))
	dst = append(dst, 0)
	dst = binary.AppendVarint(dst, tsDelta)
	dst = binary.AppendVarint(dst, int64(offsetDelta))
	dst = appendBytes(dst, key)
	dst = appendBytes(dst, value)
	dst = binary.AppendVarint(dst, int64(len(headers)))
	for _, h := range headers {
		dst = binary.AppendVarint(dst, int64(len(h.Key)))
		dst = append(dst, h.Key...)
		dst = appendBytes(dst, h.Value)
	}
	return dst
}

func appendBytes(dst, b []byte) []byte {
	if b == nil {
		return binary.AppendVarint(dst, -1)
	}
	dst = binary.AppendVarint(dst, int64(len(b)))
	return append(dst, b...)
}

func bytesSize(b []byte) int {
	if b == nil {
		return 1
	}
	return varlongSize(int64(len(b))) + len(b)
}

// varlongSize is the length of v as a zig-zag varint.
func varlongSize(v int64) int {
	u := uint64(v<<1) ^ uint64(v>>63)
	n := 1
	for u >= 0x80 {
		u >>= 7
		n++
	}
	return n
}
