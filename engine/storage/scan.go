package storage

import (
	"io"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
)

// scanChunk is the size of one read while scanning a segment: large reads,
// few system calls.
const scanChunk = 1 << 20

// scanResult is what a scan of a segment's bytes found.
type scanResult struct {
	next     int64 // next offset after the last valid batch (base when none)
	maxTs    int64
	maxEpoch int32
	entries  []IndexEntry // the index rebuilt from the valid frames
	valid    int64        // length of the valid prefix
	batches  int          // valid batches
	reason   error        // why the scan stopped before limit (CORRUPT_BATCH), nil when valid == limit
}

// scanSegment validates the first limit bytes of a segment frame by frame,
// as recovery does (§6.6): every frame with every check of §6.2.4, base
// offsets not below the segment base and never overlapping or moving
// backwards. It rebuilds the index with the index rule as it goes. It reads
// in large chunks through buf (returned, possibly grown, for reuse) and
// allocates nothing per batch. A read failure is returned as err; damage is
// reported in the result's reason.
func scanSegment(r io.ReaderAt, base, limit, interval int64, maxBatch int, buf []byte) (scanResult, []byte, error) {
	res := scanResult{next: base, maxTs: -1, maxEpoch: -1}
	idx := offsetIndex{base: base}
	var winStart int64
	win := buf[:0]
	// fill makes the window cover [pos, pos+need) when the segment has
	// those bytes, and returns how many bytes from pos the window holds.
	fill := func(pos int64, need int) (int, error) {
		if pos+int64(need) <= winStart+int64(len(win)) {
			return int(winStart + int64(len(win)) - pos), nil
		}
		want := int64(max(need, scanChunk))
		want = min(want, limit-pos)
		if int64(cap(buf)) < want {
			buf = make([]byte, want)
		}
		n, err := r.ReadAt(buf[:want], pos)
		if err != nil && err != io.EOF {
			return 0, storageErr(err, "read segment")
		}
		winStart, win = pos, buf[:n]
		return n, nil
	}
	pos := int64(0)
	for pos < limit {
		avail, err := fill(pos, record.FrameHeaderSize)
		if err != nil {
			return res, buf, err
		}
		rest := win[pos-winStart:]
		total, ferr := record.FrameLength(rest[:min(avail, record.FrameHeaderSize)], maxBatch)
		if ferr != nil {
			res.reason = ferr
			break
		}
		if int64(total) > limit-pos {
			res.reason = kerr.New(kerr.CorruptBatch, "batch length does not match frame")
			break
		}
		if avail, err = fill(pos, total); err != nil {
			return res, buf, err
		}
		if avail < total {
			res.reason = kerr.New(kerr.CorruptBatch, "batch length does not match frame")
			break
		}
		frame := win[pos-winStart : pos-winStart+int64(total)]
		m, ierr := record.Inspect(frame, maxBatch)
		if ierr != nil {
			res.reason = ierr
			break
		}
		if m.BaseOffset < base {
			res.reason = kerr.New(kerr.CorruptBatch, "batch base offset %d is below the segment base %d", m.BaseOffset, base)
			break
		}
		if res.batches > 0 && m.BaseOffset < res.next {
			res.reason = kerr.New(kerr.CorruptBatch, "segment batch offsets overlap or move backwards")
			break
		}
		if idx.shouldIndex(pos, interval) {
			if err := idx.append(m.BaseOffset, pos); err != nil {
				// Only a relative offset beyond u32 can fail here.
				res.reason = kerr.New(kerr.CorruptBatch, "batch base offset %d is too far above the segment base %d", m.BaseOffset, base)
				break
			}
		}
		res.next = m.NextOffset()
		res.maxTs = max(res.maxTs, m.MaxTimestamp)
		res.maxEpoch = max(res.maxEpoch, m.LeaderEpoch)
		res.batches++
		pos += int64(total)
	}
	res.valid = pos
	res.entries = idx.entries
	return res, buf, nil
}
