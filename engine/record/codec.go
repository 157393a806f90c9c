package record

import (
	"encoding/binary"
	"hash/crc32"
	"unicode/utf8"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

var be = binary.BigEndian

// Encode returns the batch's MKB1 frame.
func Encode(b *Batch) ([]byte, error) {
	return AppendFrame(make([]byte, 0, b.EncodedSize()), b)
}

// AppendFrame appends the batch's MKB1 frame to dst. On error dst is returned
// unchanged.
func AppendFrame(dst []byte, b *Batch) ([]byte, error) {
	if err := b.checkEncodable(); err != nil {
		return dst, err
	}
	start := len(dst)
	dst = append(dst, Magic...)
	dst = be.AppendUint32(dst, 0) // payload length, patched below
	dst = be.AppendUint32(dst, 0) // CRC, patched below
	dst = append(dst, b.Version)
	dst = be.AppendUint64(dst, uint64(b.BaseOffset))
	dst = be.AppendUint32(dst, uint32(b.LeaderEpoch))
	dst = be.AppendUint64(dst, uint64(b.ProducerID))
	dst = be.AppendUint32(dst, uint32(b.ProducerEpoch))
	dst = be.AppendUint32(dst, uint32(b.BaseSequence))
	dst = append(dst, b.Flags())
	dst = be.AppendUint32(dst, uint32(b.LastOffsetDelta))
	txid := ""
	if b.Transactional {
		txid = b.TransactionalID
	}
	dst = be.AppendUint16(dst, uint16(len(txid)))
	dst = be.AppendUint32(dst, uint32(len(b.Records)))
	dst = append(dst, txid...)
	for i, r := range b.Records {
		dst = be.AppendUint32(dst, uint32(b.OffsetDeltas[i]))
		dst = be.AppendUint64(dst, uint64(r.TimestampMs))
		dst = appendLen(dst, r.Key)
		dst = appendLen(dst, r.Value)
		dst = be.AppendUint16(dst, uint16(len(r.Headers)))
		dst = append(dst, r.Key...)
		dst = append(dst, r.Value...)
		for _, h := range r.Headers {
			dst = be.AppendUint16(dst, uint16(len(h.Key)))
			dst = append(dst, h.Key...)
			dst = appendLen(dst, h.Value)
			dst = append(dst, h.Value...)
		}
	}
	payload := dst[start+FrameHeaderSize:]
	be.PutUint32(dst[start+4:], uint32(len(payload)))
	be.PutUint32(dst[start+8:], crc32.ChecksumIEEE(payload))
	return dst, nil
}

func appendLen(dst, field []byte) []byte {
	if field == nil {
		return be.AppendUint32(dst, 0xFFFFFFFF)
	}
	return be.AppendUint32(dst, uint32(len(field)))
}

func corrupt(format string, args ...any) error {
	return kerr.New(kerr.CorruptBatch, format, args...)
}

// FrameLength reads a frame header and returns the whole frame's length
// (12 + payload length). It checks the magic and the payload bound only.
func FrameLength(header []byte, maxPayload int) (int, error) {
	if len(header) < FrameHeaderSize {
		return 0, corrupt("batch length is shorter than frame header")
	}
	if string(header[:4]) != Magic {
		return 0, corrupt("invalid batch magic")
	}
	n := be.Uint32(header[4:8])
	if maxPayload > 0 && uint64(n) > uint64(maxPayload) {
		return 0, corrupt("batch length exceeds configured maximum")
	}
	return FrameHeaderSize + int(n), nil
}

// Meta is everything about a validated frame except its records. It is what
// recovery, indexing, producer-state rebuild and follower copies need, and it
// is computed without materialising records.
type Meta struct {
	Size            int // whole frame, bytes
	CRC             uint32
	BaseOffset      int64
	LeaderEpoch     int32
	ProducerID      int64
	ProducerEpoch   int32
	BaseSequence    int32
	Transactional   bool
	TransactionalID string
	Control         ControlType
	LastOffsetDelta int32
	RecordCount     int
	MaxTimestamp    int64 // -1 without records
}

// NextOffset is base + last delta + 1.
func (m Meta) NextOffset() int64 { return m.BaseOffset + int64(m.LastOffsetDelta) + 1 }

// LastOffset is base + last delta.
func (m Meta) LastOffset() int64 { return m.BaseOffset + int64(m.LastOffsetDelta) }

// LastSequence is base sequence + last delta, or -1 when unsequenced.
func (m Meta) LastSequence() int32 {
	if m.BaseSequence < 0 {
		return NoSequence
	}
	return m.BaseSequence + m.LastOffsetDelta
}

// IsControl reports whether the frame is a transaction marker.
func (m Meta) IsControl() bool { return m.Control != NoControl }

// Inspect validates one complete frame (exactly len(frame) bytes) with every
// check of §6.2.4, in the spec's order, and returns its Meta. Failures are
// CORRUPT_BATCH. maxPayload <= 0 means DefaultMaxBatchBytes.
func Inspect(frame []byte, maxPayload int) (Meta, error) {
	m, _, err := parse(frame, maxPayload, false)
	return m, err
}

// Decode validates one complete frame and materialises its batch. Keys,
// values and header values alias frame: copy them if frame will be reused.
func Decode(frame []byte) (*Batch, error) {
	return DecodeLimit(frame, DefaultMaxBatchBytes)
}

// DecodeLimit is Decode with an explicit payload bound.
func DecodeLimit(frame []byte, maxPayload int) (*Batch, error) {
	_, b, err := parse(frame, maxPayload, true)
	return b, err
}

// DecodeIgnoringCRC is Decode without the CRC check: every other check
// applies. It reads a frame whose CRC does not match (a flipped byte) the
// way kafka-dump-log reads such a batch, to print it with isvalid: false;
// CRCValid says whether the CRC matched. Nothing else may trust its result.
func DecodeIgnoringCRC(frame []byte, maxPayload int) (m Meta, b *Batch, crcValid bool, err error) {
	m, b, err = parseChecked(frame, maxPayload, true, false)
	if err == nil {
		crcValid = crc32.ChecksumIEEE(frame[FrameHeaderSize:]) == m.CRC
	}
	return m, b, crcValid, err
}

// parse is the one decoder. With build set it also returns the Batch.
func parse(frame []byte, maxPayload int, build bool) (Meta, *Batch, error) {
	return parseChecked(frame, maxPayload, build, true)
}

func parseChecked(frame []byte, maxPayload int, build, checkCRC bool) (Meta, *Batch, error) {
	var m Meta
	if maxPayload <= 0 {
		maxPayload = DefaultMaxBatchBytes
	}
	total, err := FrameLength(frame, maxPayload)
	if err != nil {
		return m, nil, err
	}
	if len(frame) != total {
		return m, nil, corrupt("batch length does not match frame")
	}
	payload := frame[FrameHeaderSize:]
	m.Size = total
	m.CRC = be.Uint32(frame[8:12])
	if checkCRC && crc32.ChecksumIEEE(payload) != m.CRC {
		return m, nil, corrupt("batch CRC mismatch")
	}
	if len(payload) < 1 {
		return m, nil, corrupt("batch length exceeds available bytes")
	}
	if payload[0] != FormatVersion {
		return m, nil, corrupt("unsupported format version %d", payload[0])
	}
	if len(payload) < PayloadHeaderSize {
		return m, nil, corrupt("batch length exceeds available bytes")
	}
	m.BaseOffset = int64(be.Uint64(payload[1:9]))
	epoch := be.Uint32(payload[9:13])
	if epoch > 0x7FFFFFFF {
		return m, nil, corrupt("leader epoch %d is out of range", epoch)
	}
	m.LeaderEpoch = int32(epoch)
	m.ProducerID = int64(be.Uint64(payload[13:21]))
	m.ProducerEpoch = int32(be.Uint32(payload[21:25]))
	m.BaseSequence = int32(be.Uint32(payload[25:29]))
	flags := payload[29]
	m.LastOffsetDelta = int32(be.Uint32(payload[30:34]))
	txLen := int(be.Uint16(payload[34:36]))
	count := be.Uint32(payload[36:40])
	p := PayloadHeaderSize
	if txLen > len(payload)-p {
		return m, nil, corrupt("batch length exceeds available bytes")
	}
	txBytes := payload[p : p+txLen]
	p += txLen
	m.Transactional = flags&FlagTransactional != 0
	if m.Transactional {
		if !utf8.Valid(txBytes) {
			return m, nil, corrupt("invalid transaction ID encoding")
		}
		m.TransactionalID = string(txBytes)
	} else if txLen > 0 {
		return m, nil, corrupt("transaction ID present without transactional flag")
	}

	var b *Batch
	if build {
		n := int(count)
		if limit := (len(payload) - p) / RecordOverhead; n > limit {
			n = limit // never trust a count for allocation
		}
		b = &Batch{Records: make([]Record, 0, n), OffsetDeltas: make([]int32, 0, n)}
	}
	m.MaxTimestamp = -1
	var prevDelta int32
	var negDelta, unordered bool
	for i := uint32(0); i < count; i++ {
		if len(payload)-p < RecordOverhead {
			return m, nil, corrupt("batch length exceeds available bytes")
		}
		delta := int32(be.Uint32(payload[p:]))
		ts := int64(be.Uint64(payload[p+4:]))
		keyLen := int32(be.Uint32(payload[p+12:]))
		valLen := int32(be.Uint32(payload[p+16:]))
		hdrCount := int(be.Uint16(payload[p+20:]))
		p += RecordOverhead
		key, np, err := field(payload, p, keyLen)
		if err != nil {
			return m, nil, err
		}
		value, np, err := field(payload, np, valLen)
		if err != nil {
			return m, nil, err
		}
		p = np
		var headers []Header
		if build && hdrCount > 0 {
			headers = make([]Header, 0, min(hdrCount, (len(payload)-p)/6+1))
		}
		for h := 0; h < hdrCount; h++ {
			if len(payload)-p < 2 {
				return m, nil, corrupt("batch length exceeds available bytes")
			}
			hkLen := int(be.Uint16(payload[p:]))
			p += 2
			if hkLen > len(payload)-p {
				return m, nil, corrupt("batch length exceeds available bytes")
			}
			hk := payload[p : p+hkLen]
			p += hkLen
			if !utf8.Valid(hk) {
				return m, nil, corrupt("invalid header key encoding")
			}
			if len(payload)-p < 4 {
				return m, nil, corrupt("batch length exceeds available bytes")
			}
			hvLen := int32(be.Uint32(payload[p:]))
			hv, np, err := field(payload, p+4, hvLen)
			if err != nil {
				return m, nil, err
			}
			p = np
			if build {
				headers = append(headers, Header{Key: string(hk), Value: hv})
			}
		}
		if i == 0 || ts > m.MaxTimestamp {
			m.MaxTimestamp = ts
		}
		// Invariants 6 and 7 are noted here, so Inspect needs no slice, and
		// reported at step 12 like the others.
		if delta < 0 && !negDelta {
			negDelta = true
		}
		if i > 0 && delta <= prevDelta {
			unordered = true
		}
		prevDelta = delta
		if build {
			b.OffsetDeltas = append(b.OffsetDeltas, delta)
			b.Records = append(b.Records, Record{Key: key, Value: value, TimestampMs: ts, Headers: headers})
		}
	}
	if p != len(payload) {
		return m, nil, corrupt("batch contains trailing bytes")
	}
	if flags&FlagCommit != 0 && flags&FlagAbort != 0 {
		return m, nil, corrupt("batch has conflicting control flags")
	}
	if flags&^(FlagTransactional|FlagCommit|FlagAbort) != 0 {
		return m, nil, corrupt("batch has unknown flags %#02x", flags)
	}
	switch {
	case flags&FlagCommit != 0:
		m.Control = Commit
	case flags&FlagAbort != 0:
		m.Control = Abort
	}
	m.RecordCount = int(count)

	// Remaining §6.1 invariants, rewrapped as CORRUPT_BATCH.
	switch {
	case m.Control == NoControl && count == 0:
		return m, nil, corrupt("data batch must contain at least one record")
	case m.Control != NoControl && count != 0:
		return m, nil, corrupt("control batch must not contain records")
	case m.Control != NoControl && !m.Transactional:
		return m, nil, corrupt("control batch requires a transactional ID")
	case m.BaseOffset < 0:
		return m, nil, corrupt("base offset cannot be negative")
	case negDelta:
		return m, nil, corrupt("offset deltas cannot be negative")
	case unordered:
		return m, nil, corrupt("offset deltas must be strictly increasing")
	case m.LastOffsetDelta < 0:
		return m, nil, corrupt("last offset delta cannot be negative")
	case count > 0 && prevDelta > m.LastOffsetDelta:
		return m, nil, corrupt("last offset delta %d is below the last record's delta %d", m.LastOffsetDelta, prevDelta)
	case m.BaseOffset > (1<<63-1)-int64(m.LastOffsetDelta)-1:
		return m, nil, corrupt("batch offsets overflow")
	}
	if !build {
		return m, nil, nil
	}
	b.Version = FormatVersion
	b.BaseOffset = m.BaseOffset
	b.LeaderEpoch = m.LeaderEpoch
	b.ProducerID = m.ProducerID
	b.ProducerEpoch = m.ProducerEpoch
	b.BaseSequence = m.BaseSequence
	b.Transactional = m.Transactional
	b.TransactionalID = m.TransactionalID
	b.Control = m.Control
	b.LastOffsetDelta = m.LastOffsetDelta
	return m, b, nil
}

// field reads an optional byte field of length n at p: -1 is null, below -1
// is "negative field length".
func field(payload []byte, p int, n int32) ([]byte, int, error) {
	switch {
	case n == -1:
		return nil, p, nil
	case n < -1:
		return nil, p, corrupt("negative field length")
	case int(n) > len(payload)-p:
		return nil, p, corrupt("batch length exceeds available bytes")
	}
	return payload[p : p+int(n) : p+int(n)], p + int(n), nil
}
