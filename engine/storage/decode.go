package storage

import (
	"encoding/binary"
	"hash/crc32"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
)

// verifyFrame is the read path's check of a stored frame: length, magic,
// CRC and format version (checks 1-6 of §6.2.4), without walking the
// records. Stored bytes were fully validated when they were written
// (Append encodes, AppendRaw inspects) or recovered (Open scans), so a
// matching CRC means they are those bytes; a flipped bit or a cut frame is
// CORRUPT_BATCH. appendRecords still bounds-checks every field it reads.
func verifyFrame(frame []byte, maxPayload int) (record.Meta, error) {
	var m record.Meta
	total, err := record.FrameLength(frame, maxPayload)
	if err != nil {
		return m, err
	}
	if total != len(frame) {
		return m, kerr.New(kerr.CorruptBatch, "batch length does not match frame")
	}
	payload := frame[record.FrameHeaderSize:]
	m.Size, m.CRC = total, binary.BigEndian.Uint32(frame[8:12])
	if crc32.ChecksumIEEE(payload) != m.CRC {
		return m, kerr.New(kerr.CorruptBatch, "batch CRC mismatch")
	}
	if len(payload) < record.PayloadHeaderSize || payload[0] != record.FormatVersion {
		return m, kerr.New(kerr.CorruptBatch, "unsupported format version or short payload")
	}
	be := binary.BigEndian
	m.BaseOffset = int64(be.Uint64(payload[1:9]))
	m.LastOffsetDelta = int32(be.Uint32(payload[30:34]))
	m.RecordCount = int(be.Uint32(payload[36:40]))
	m.MaxTimestamp = -1 // not computed on the read path
	return m, nil
}

// errShortRecord reports a record that runs past its frame.
var errShortRecord = kerr.New(kerr.CorruptBatch, "batch length exceeds available bytes")

// appendRecords appends to out the records of frame whose offsets are in
// [from, end), stopping when out holds max records; done reports that the
// read is complete (max reached, or a record at or past end). frame must
// have passed verifyFrame (m is its Meta); every field read is still
// bounds-checked, so a damaged frame is CORRUPT_BATCH, never a panic. The
// bytes from the first record returned to the end of the batch are copied
// once into a new buffer (an append-copy, so the memory is not zeroed
// first), and keys, values and header values point into it: the caller may
// reuse frame's memory.
//
// The walk follows the MKB1 record layout (see package record): i32 delta,
// i64 timestamp, i32 key length, i32 value length (-1 = null), u16 header
// count, key, value, then headers as u16 key length, key, i32 value length,
// value.
func appendRecords(out []LogRecord, frame []byte, m record.Meta, from, end int64, max int) (_ []LogRecord, done bool, err error) {
	be := binary.BigEndian
	payload := frame[record.FrameHeaderSize:]
	n := len(payload)
	p := record.PayloadHeaderSize + int(be.Uint16(payload[34:36]))
	var arena []byte // a copy of payload[arenaStart:]
	arenaStart := 0
	// field checks a length-prefixed field of length l at p and moves past it.
	field := func(l int32) (start int, ok bool) {
		if l < 0 {
			return -1, l == -1
		}
		if int(l) > n-p {
			return 0, false
		}
		start = p
		p += int(l)
		return start, true
	}
	slice := func(start int, l int32) []byte {
		if start < 0 {
			return nil
		}
		a := start - arenaStart
		return arena[a : a+int(l) : a+int(l)]
	}
	for i := 0; i < m.RecordCount; i++ {
		if n-p < record.RecordOverhead {
			return out, false, errShortRecord
		}
		delta := int32(be.Uint32(payload[p:]))
		ts := int64(be.Uint64(payload[p+4:]))
		keyLen := int32(be.Uint32(payload[p+12:]))
		valLen := int32(be.Uint32(payload[p+16:]))
		hdrCount := int(be.Uint16(payload[p+20:]))
		p += record.RecordOverhead
		o := m.BaseOffset + int64(delta)
		if o >= end {
			return out, true, nil
		}
		keyAt, ok1 := field(keyLen)
		valAt, ok2 := field(valLen)
		if !ok1 || !ok2 {
			return out, false, errShortRecord
		}
		take := o >= from
		if take && arena == nil {
			// never nil: empty is not null
			arenaStart = p
			if keyAt >= 0 {
				arenaStart = keyAt
			} else if valAt >= 0 {
				arenaStart = valAt
			}
			arena = append([]byte{}, payload[arenaStart:]...)
		}
		var headers []record.Header
		if take && hdrCount > 0 {
			headers = make([]record.Header, hdrCount)
		}
		for h := 0; h < hdrCount; h++ {
			if n-p < 2 {
				return out, false, errShortRecord
			}
			kl := int(be.Uint16(payload[p:]))
			if kl > n-p-2 || n-p-2-kl < 4 {
				return out, false, errShortRecord
			}
			key := payload[p+2 : p+2+kl]
			p += 2 + kl
			vl := int32(be.Uint32(payload[p:]))
			p += 4
			vAt, ok := field(vl)
			if !ok {
				return out, false, errShortRecord
			}
			if take {
				headers[h] = record.Header{Key: string(key), Value: slice(vAt, vl)}
			}
		}
		if !take {
			continue
		}
		r := LogRecord{Offset: o}
		r.TimestampMs = ts
		r.Key = slice(keyAt, keyLen)
		r.Value = slice(valAt, valLen)
		r.Headers = headers
		out = append(out, r)
		if len(out) == max {
			return out, true, nil
		}
	}
	return out, false, nil
}
