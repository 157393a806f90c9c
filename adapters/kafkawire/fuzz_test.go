package kafkawire

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// FuzzParseHeader: the request header parser never panics, returns a body
// inside the frame, and agrees with kmsg on the header kmsg itself wrote.
func FuzzParseHeader(f *testing.F) {
	formatter := kmsg.NewRequestFormatter(kmsg.FormatterClientID("fuzz"))
	for _, req := range []kmsg.Request{kmsg.NewPtrApiVersionsRequest(), kmsg.NewPtrMetadataRequest(), kmsg.NewPtrFetchRequest()} {
		for _, v := range []int16{0, 3, 9, 12} {
			req.SetVersion(v)
			frame := formatter.AppendRequest(nil, req, 7)
			f.Add(frame[4:])
		}
	}
	f.Add([]byte{0, 18, 0, 99, 0, 0, 0, 1, 0xff, 0xff})
	f.Add([]byte{0, 3, 0, 9, 0, 0, 0, 1, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x80})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, frame []byte) {
		h, body, err := parseHeader(frame)
		if err != nil {
			return
		}
		if len(body) > len(frame) || !bytes.HasSuffix(frame, body) {
			t.Fatalf("body is not a suffix of the frame")
		}
		if h.key != int16(binary.BigEndian.Uint16(frame)) {
			t.Fatalf("key %d", h.key)
		}
	})
}

// FuzzDecodeProduceBatch: the record batch decoder never panics, and a
// batch it accepts encodes back (appendBatch) to a batch that decodes to
// the same records, producer fields and flags.
func FuzzDecodeProduceBatch(f *testing.F) {
	f.Add(sampleBatch(f))
	b := record.NewBatch([]record.Record{{Key: []byte("a"), Value: nil, TimestampMs: 5}})
	b.BaseOffset, b.LeaderEpoch, b.ProducerID, b.ProducerEpoch, b.BaseSequence, b.Transactional = 0, -1, 7, 1, 3, true
	f.Add(appendBatch(nil, b))
	f.Add(sampleBatch(f)[:40])
	f.Add(make([]byte, batchHeaderSize))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkBatchRoundTrip(t, data)
		// Past the length and CRC checks: the records decoder itself.
		checkBatchRoundTrip(t, withValidFrame(data))
	})
}

// withValidFrame patches a batch's length, magic and CRC-32C so that the
// decoder reaches its record checks.
func withValidFrame(data []byte) []byte {
	if len(data) < batchHeaderSize {
		return data
	}
	out := append([]byte(nil), data...)
	binary.BigEndian.PutUint32(out[8:], uint32(len(out)-12))
	out[16] = batchMagic
	out[22] &^= 0x07 | attrControl
	binary.BigEndian.PutUint32(out[17:], crc32.Checksum(out[21:], castagnoli))
	return out
}

func checkBatchRoundTrip(t *testing.T, data []byte) {
	{
		pb, err := decodeProduceBatch(data, 1<<20)
		if err != nil {
			return
		}
		in := pb.batch
		assigned := *in
		assigned.BaseOffset, assigned.LeaderEpoch = 0, -1
		again, err := decodeProduceBatch(appendBatch(nil, &assigned), 1<<20)
		if err != nil {
			t.Fatalf("a batch that decoded does not decode after re-encoding: %v", err)
		}
		out := again.batch
		if out.ProducerID != in.ProducerID || out.ProducerEpoch != in.ProducerEpoch || out.BaseSequence != in.BaseSequence ||
			out.Transactional != in.Transactional || out.LastOffsetDelta != in.LastOffsetDelta || len(out.Records) != len(in.Records) {
			t.Fatalf("header fields changed:\n in %+v\nout %+v", in, out)
		}
		for i := range in.Records {
			a, b := in.Records[i], out.Records[i]
			if (a.Key == nil) != (b.Key == nil) || (a.Value == nil) != (b.Value == nil) || !bytes.Equal(a.Key, b.Key) ||
				!bytes.Equal(a.Value, b.Value) || a.TimestampMs != b.TimestampMs || in.OffsetDeltas[i] != out.OffsetDeltas[i] ||
				len(a.Headers) != len(b.Headers) {
				t.Fatalf("record %d changed: %+v -> %+v", i, a, b)
			}
			for j := range a.Headers {
				if a.Headers[j].Key != b.Headers[j].Key || !bytes.Equal(a.Headers[j].Value, b.Headers[j].Value) ||
					(a.Headers[j].Value == nil) != (b.Headers[j].Value == nil) {
					t.Fatalf("record %d header %d changed", i, j)
				}
			}
		}
	}
}
