package record

import (
	"bytes"
	"hash/crc32"
	"testing"
)

// frameOf wraps a payload in a valid frame header (magic, length, CRC), so
// tests and fuzzers reach the checks behind the CRC.
func frameOf(payload []byte) []byte {
	f := append([]byte(Magic), make([]byte, 8)...)
	be.PutUint32(f[4:], uint32(len(payload)))
	be.PutUint32(f[8:], crc32.ChecksumIEEE(payload))
	return append(f, payload...)
}

func seedFrames(f *testing.F) {
	f.Add(mustEncode(f, sample(f)))
	m, _ := NewControlBatch("tx-1", Abort).Assign(3, 1)
	f.Add(mustEncode(f, m))
	f.Add([]byte("MKB1\x00\x00\x00\x20partial"))
	f.Add([]byte{})
}

// FuzzDecode: the decoder never panics, Inspect agrees with Decode, and any
// frame that decodes re-encodes to exactly the same bytes.
func FuzzDecode(f *testing.F) {
	seedFrames(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, frame := range [][]byte{data, frameOf(data)} {
			b, err := Decode(frame)
			m, ierr := Inspect(frame, 0)
			if (err == nil) != (ierr == nil) {
				t.Fatalf("Decode err %v but Inspect err %v", err, ierr)
			}
			// Without the CRC check a frame decodes whenever it does with
			// it, to the same batch, and reports whether the CRC matched.
			um, ub, crcOK, uerr := DecodeIgnoringCRC(frame, 0)
			if err == nil && (uerr != nil || !crcOK || um != m || ub.NextOffset() != b.NextOffset()) {
				t.Fatalf("DecodeIgnoringCRC disagrees with Decode: %+v %v %v", um, crcOK, uerr)
			}
			if uerr == nil && !crcOK && err == nil {
				t.Fatalf("CRC reported bad for a frame Decode accepts")
			}
			if err != nil {
				continue
			}
			again, eerr := Encode(b)
			if eerr != nil {
				t.Fatalf("decoded batch does not encode: %v", eerr)
			}
			if !bytes.Equal(again, frame) {
				t.Fatalf("re-encoding differs:\n in  %x\n out %x", frame, again)
			}
			if m.NextOffset() != b.NextOffset() || m.Size != len(frame) || m.RecordCount != len(b.Records) || m.MaxTimestamp != b.MaxTimestamp() {
				t.Fatalf("meta %+v disagrees with batch", m)
			}
		}
	})
}

// FuzzScan: the valid prefix is never longer than the input, re-scanning it
// finds the same frames with no error, and frames tile the prefix exactly.
func FuzzScan(f *testing.F) {
	seedFrames(f)
	two := append(mustEncode(f, sample(f)), mustEncode(f, sample(f))...)
	f.Add(two)
	f.Fuzz(func(t *testing.T, data []byte) {
		frames, valid, err := Scan(data, 0)
		if valid > len(data) || (err == nil) != (valid == len(data)) {
			t.Fatalf("valid %d of %d, err %v", valid, len(data), err)
		}
		again, valid2, err2 := Scan(data[:valid], 0)
		if err2 != nil || valid2 != valid || len(again) != len(frames) {
			t.Fatalf("rescan of the prefix: %d frames, valid %d, err %v", len(again), valid2, err2)
		}
		pos := int64(0)
		for _, fr := range frames {
			if fr.Position != pos {
				t.Fatalf("frame at %d, expected %d", fr.Position, pos)
			}
			pos += int64(fr.Size)
		}
		if pos != int64(valid) {
			t.Fatalf("frames cover %d bytes, valid %d", pos, valid)
		}
	})
}
