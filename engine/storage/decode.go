package storage

import (
	"encoding/binary"

	"github.com/minikafka-lab/minikafka/engine/record"
)

// appendRecords appends to out the records of frame whose offsets are in
// [from, end), stopping when out holds max records; done reports that the
// read is complete (max reached, or a record at or past end). frame must
// have passed record.Inspect (m is its Meta), so the walk below cannot run
// out of bounds. The bytes from the first record returned to the end of the
// batch are copied once into a new buffer (an append-copy, so the memory is
// not zeroed first), and keys, values and header values point into it: the
// caller may reuse frame's memory.
//
// The walk follows the MKB1 record layout (see package record): i32 delta,
// i64 timestamp, i32 key length, i32 value length (-1 = null), u16 header
// count, key, value, then headers as u16 key length, key, i32 value length,
// value.
func appendRecords(out []LogRecord, frame []byte, m record.Meta, from, end int64, max int) (_ []LogRecord, done bool) {
	be := binary.BigEndian
	payload := frame[record.FrameHeaderSize:]
	p := record.PayloadHeaderSize + int(be.Uint16(payload[34:36]))
	var arena []byte // a copy of payload[arenaStart:]
	arenaStart := 0
	take := func(n int32) []byte {
		if n < 0 {
			return nil
		}
		start := p - arenaStart
		p += int(n)
		return arena[start : start+int(n) : start+int(n)]
	}
	skip := func(n int32) {
		if n > 0 {
			p += int(n)
		}
	}
	for i := 0; i < m.RecordCount; i++ {
		delta := int32(be.Uint32(payload[p:]))
		ts := int64(be.Uint64(payload[p+4:]))
		keyLen := int32(be.Uint32(payload[p+12:]))
		valLen := int32(be.Uint32(payload[p+16:]))
		hdrCount := int(be.Uint16(payload[p+20:]))
		p += record.RecordOverhead
		o := m.BaseOffset + int64(delta)
		if o >= end {
			return out, true
		}
		if o < from {
			skip(keyLen)
			skip(valLen)
			for h := 0; h < hdrCount; h++ {
				p += 2 + int(be.Uint16(payload[p:]))
				vl := int32(be.Uint32(payload[p:]))
				p += 4
				skip(vl)
			}
			continue
		}
		if arena == nil {
			arena, arenaStart = append([]byte{}, payload[p:]...), p // never nil: empty is not null
		}
		r := LogRecord{Offset: o}
		r.TimestampMs = ts
		r.Key = take(keyLen)
		r.Value = take(valLen)
		if hdrCount > 0 {
			r.Headers = make([]record.Header, hdrCount)
			for h := range r.Headers {
				kl := int(be.Uint16(payload[p:]))
				r.Headers[h].Key = string(payload[p+2 : p+2+kl])
				p += 2 + kl
				vl := int32(be.Uint32(payload[p:]))
				p += 4
				r.Headers[h].Value = take(vl)
			}
		}
		out = append(out, r)
		if len(out) == max {
			return out, true
		}
	}
	return out, false
}
