package record

import "github.com/minikafka-lab/minikafka/engine/kerr"

// Scanned is one valid frame found by Scan.
type Scanned struct {
	Position int64 // byte position of the frame in the scanned buffer
	Meta
}

// Scan walks buf frame by frame, as segment recovery does (§6.6), and returns
// the valid frames, the length of the valid prefix, and the reason the scan
// stopped early. It is pure: it reads nothing but buf.
//
// err is nil exactly when valid == len(buf). Otherwise it is a CORRUPT_BATCH
// error describing the first bad frame, which starts at byte valid: a partial
// header ("batch length is shorter than frame header"), a frame cut short
// ("batch length does not match frame"), any decoding failure of §6.2.4, or a
// batch whose base offset is below the previous batch's next offset ("segment
// batch offsets overlap or move backwards"). Gaps between batches are allowed.
func Scan(buf []byte, maxPayload int) (frames []Scanned, valid int, err error) {
	if maxPayload <= 0 {
		maxPayload = DefaultMaxBatchBytes
	}
	next := int64(-1)
	pos := 0
	for pos < len(buf) {
		rest := buf[pos:]
		total, ferr := FrameLength(rest, maxPayload)
		if ferr != nil {
			return frames, pos, ferr
		}
		if total > len(rest) {
			return frames, pos, corrupt("batch length does not match frame")
		}
		m, ierr := Inspect(rest[:total], maxPayload)
		if ierr != nil {
			return frames, pos, ierr
		}
		if next >= 0 && m.BaseOffset < next {
			return frames, pos, kerr.New(kerr.CorruptBatch, "segment batch offsets overlap or move backwards")
		}
		next = m.NextOffset()
		frames = append(frames, Scanned{Position: int64(pos), Meta: m})
		pos += total
	}
	return frames, pos, nil
}
