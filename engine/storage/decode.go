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
// bytes of the records returned, from the first one's key to the last
// one's end, are copied once into a new buffer (an append-copy, so the
// memory is not zeroed first), and keys, values and header values point
// into it: the caller may reuse frame's memory.
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
	first := len(out)
	// The records taken use payload[copyFrom:copyTo]. When this call will
	// take every record from the first one it takes to the end of the batch
	// (a read that does not stop inside it), that tail is copied once, up
	// front, and fields are sliced from the copy (src, shifted by base).
	// Otherwise fields alias payload until copyOut moves just the span the
	// records taken use.
	whole := end >= m.NextOffset() && max-len(out) >= m.RecordCount
	src, base := payload, 0
	copyFrom, copyTo := -1, 0
	// field checks a length-prefixed field of length l at p and moves past
	// it. A slice of payload keeps payload's capacity, which copyOut uses
	// to find its position.
	field := func(l int32) ([]byte, bool) {
		if l < 0 {
			return nil, l == -1
		}
		if int(l) > n-p {
			return nil, false
		}
		var b []byte
		if whole && copyFrom >= 0 {
			// A field of the copy, capped so that appending to it never
			// overwrites the next one.
			b = src[p-base : p-base+int(l) : p-base+int(l)]
		} else {
			b = payload[p : p+int(l)] // copyOut finds it by its capacity
		}
		p += int(l)
		return b, true
	}
	for i := 0; i < m.RecordCount && !done; i++ {
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
			done = true
			break
		}
		take := o >= from
		if take && copyFrom < 0 {
			copyFrom = p
			if whole {
				src, base = append([]byte{}, payload[p:]...), p // never nil: empty is not null
			}
		}
		key, ok1 := field(keyLen)
		value, ok2 := field(valLen)
		if !ok1 || !ok2 {
			return out, false, errShortRecord
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
			hk := payload[p+2 : p+2+kl]
			p += 2 + kl
			vl := int32(be.Uint32(payload[p:]))
			p += 4
			hv, ok := field(vl)
			if !ok {
				return out, false, errShortRecord
			}
			if take {
				headers[h] = record.Header{Key: string(hk), Value: hv}
			}
		}
		if !take {
			continue
		}
		r := LogRecord{Offset: o}
		r.TimestampMs = ts
		r.Key, r.Value, r.Headers = key, value, headers
		out = append(out, r)
		copyTo = p
		done = len(out) == max
	}
	if copyFrom >= 0 && !whole {
		copyOut(out[first:], payload, copyFrom, copyTo)
	}
	return out, done, nil
}

// copyOut moves the keys, values and header values of recs, which alias
// payload[from:to], into one new buffer. A field b sliced from payload at
// position q keeps payload's capacity, cap(payload) - q, which gives q.
// The buffer is never nil (empty is not null) and null fields stay nil.
func copyOut(recs []LogRecord, payload []byte, from, to int) {
	buf := append([]byte{}, payload[from:to]...)
	move := func(b []byte) []byte {
		if b == nil {
			return nil
		}
		at := cap(payload) - cap(b) - from
		return buf[at : at+len(b) : at+len(b)]
	}
	for i := range recs {
		r := &recs[i]
		r.Key, r.Value = move(r.Key), move(r.Value)
		for j := range r.Headers {
			r.Headers[j].Value = move(r.Headers[j].Value)
		}
	}
}
