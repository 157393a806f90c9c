package storage

import (
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
)

// Read sizes: a cursor reads a segment in chunks that start small and grow,
// so a short read costs little and a long scan makes few system calls.
const (
	minReadChunk = 16 << 10
	maxReadChunk = 4 << 20
)

// cursor walks frames in log order from a segment position. By default
// every chunk it reads goes into a freshly allocated buffer that is never
// reused, so the frames it returns stay valid after the walk. A cursor with
// reuse set reads into the log's read buffer instead: each frame is then
// valid only until the next call to next. A cursor with into set takes its
// chunks from that caller-owned buffer: the frames stay valid until the
// buffer's next read.
type cursor struct {
	l        *Log
	seg      int   // index in l.segs
	pos      int64 // position of the next frame in l.segs[seg]
	win      []byte
	winStart int64
	chunk    int
	reuse    bool
	into     *ReadBuffer
}

// ReadBuffer is a caller-owned, reusable buffer for ReadBatchesInto. The
// zero value is ready to use. It is not safe for concurrent use.
type ReadBuffer struct {
	bytes   []byte
	batches []RawBatch
}

// take returns n bytes of the buffer that no frame of the current read
// uses. When the rest of the buffer is too small it starts a larger one:
// the frames already returned keep the old one alive until the next read.
func (rb *ReadBuffer) take(n int) []byte {
	if cap(rb.bytes)-len(rb.bytes) < n {
		rb.bytes = make([]byte, 0, max(n, 2*cap(rb.bytes)))
	}
	start := len(rb.bytes)
	rb.bytes = rb.bytes[:start+n]
	return rb.bytes[start : start+n : start+n]
}

// cursorAt starts at the index floor of offset in the segment that would
// hold it: the first frame returned is at or before the batch holding
// offset.
func (l *Log) cursorAt(offset int64, chunk int) cursor {
	i := l.segmentFor(offset)
	return cursor{l: l, seg: i, pos: l.segs[i].index.floor(offset), chunk: chunk}
}

// next returns the next batch, its frame checked by check (record.Inspect,
// or verifyFrame on the record path); a nil Frame means the end of the
// log. A frame the log's own bytes do not hold, or that fails check (damage
// done while open), is CORRUPT_BATCH naming its segment and position.
func (c *cursor) next(check func(frame []byte, maxPayload int) (record.Meta, error)) (RawBatch, error) {
	for c.seg < len(c.l.segs) {
		s := c.l.segs[c.seg]
		if c.pos >= s.size {
			c.seg, c.pos, c.win = c.seg+1, 0, nil
			continue
		}
		pos := c.pos
		hdr, err := c.bytes(s, record.FrameHeaderSize)
		if err != nil {
			return RawBatch{}, err
		}
		total, err := record.FrameLength(hdr, c.l.opts.MaxBatchBytes)
		if err == nil && pos+int64(total) > s.size {
			err = kerr.New(kerr.CorruptBatch, "batch length does not match frame")
		}
		if err != nil {
			return RawBatch{}, c.damaged(pos, err)
		}
		frame, err := c.bytes(s, total)
		if err != nil {
			return RawBatch{}, err
		}
		m, err := check(frame, c.l.opts.MaxBatchBytes)
		if err != nil {
			return RawBatch{}, c.damaged(pos, err)
		}
		c.pos += int64(total)
		return RawBatch{Frame: frame, Meta: m, Segment: s.base, Position: pos}, nil
	}
	return RawBatch{}, nil
}

// damaged wraps a validation failure of the frame at pos in the cursor's
// segment (the one holding the frame next returned last).
func (c *cursor) damaged(pos int64, err error) error {
	return kerr.New(kerr.CorruptBatch, "%s at byte %d: %s", c.l.segs[c.seg].logPath, pos, kerr.MessageOf(err))
}

// bytes returns n bytes of s at the cursor position, reading a new chunk
// when the window does not hold them. The caller guarantees pos+n <= size,
// except for a header at the very end (then fewer bytes are returned).
func (c *cursor) bytes(s *segment, n int) ([]byte, error) {
	off := c.pos - c.winStart
	if c.win != nil && off >= 0 && off+int64(n) <= int64(len(c.win)) {
		return c.win[off : off+int64(n)], nil
	}
	want := min(int64(max(n, c.chunk)), s.size-c.pos)
	var buf []byte
	switch {
	case c.reuse:
		if int64(cap(c.l.readBuf)) < want {
			c.l.readBuf = make([]byte, want)
		}
		buf = c.l.readBuf[:want]
	case c.into != nil:
		buf = c.into.take(int(want))
	default:
		buf = make([]byte, want)
	}
	if err := s.readFile(buf, c.pos); err != nil {
		return nil, err
	}
	c.win, c.winStart = buf, c.pos
	if !c.reuse {
		// A long scan makes fewer, larger reads. A reusing cursor (Fetch)
		// keeps its chunk, so it reads little beyond what it returns.
		c.chunk = min(c.chunk*2, maxReadChunk)
	}
	return buf[:min(int64(n), want)], nil
}

// checkRange applies the offset rule shared by reads: offset must be in
// [LogStartOffset, LEO].
func (l *Log) checkRange(offset int64) error {
	if start, leo := l.LogStartOffset(), l.LEO(); offset < start || offset > leo {
		return kerr.OutOfRange(offset, start, leo)
	}
	return nil
}

// visibleEnd is min(end, LEO), with end < 0 meaning LEO.
func (l *Log) visibleEnd(end int64) int64 {
	if leo := l.LEO(); end < 0 || end > leo {
		return leo
	}
	return end
}

// ReadBatches returns whole batches from the one containing offset (§6.5.3):
// the first batch always, then each next one while the total stays <=
// maxBytes (maxBytes <= 0 counts as 1), stopping at a batch whose base >=
// end (end < 0 means LEO). offset outside [LogStart, LEO] is
// OFFSET_OUT_OF_RANGE. Each frame is validated (CRC) as it is read. The cost
// is a binary search over segments, an index floor lookup and the bytes
// returned (plus at most index.interval.bytes before them), never
// proportional to the log size. The frames are never overwritten: they stay
// valid for as long as the caller keeps them.
func (l *Log) ReadBatches(offset int64, maxBytes int, end int64) ([]RawBatch, error) {
	return l.readBatches(nil, offset, maxBytes, end)
}

// ReadBatchesInto is ReadBatches for a caller that is done with the frames
// before it reads again, such as the follower fetch, which copies them with
// AppendRaw at once: it reads into rb instead of fresh memory, so repeated
// reads allocate nothing once rb has grown to their size. The returned
// slice and its frames alias rb and are valid only until the next
// ReadBatchesInto with rb (on any log). A nil rb reads like ReadBatches.
func (l *Log) ReadBatchesInto(rb *ReadBuffer, offset int64, maxBytes int, end int64) ([]RawBatch, error) {
	if rb == nil {
		return l.ReadBatches(offset, maxBytes, end)
	}
	rb.bytes, rb.batches = rb.bytes[:0], rb.batches[:0]
	out, err := l.readBatches(rb, offset, maxBytes, end)
	if out != nil {
		rb.batches = out[:0]
	}
	return out, err
}

// readBatches is ReadBatches reading into rb when it is not nil.
func (l *Log) readBatches(rb *ReadBuffer, offset int64, maxBytes int, end int64) ([]RawBatch, error) {
	if err := l.usable(); err != nil {
		return nil, err
	}
	if err := l.checkRange(offset); err != nil {
		return nil, err
	}
	if maxBytes <= 0 {
		maxBytes = 1
	}
	vend := l.visibleEnd(end)
	if offset >= l.LEO() {
		return nil, nil
	}
	chunk := min(max(maxBytes, minReadChunk)+int(l.opts.IndexIntervalBytes), maxReadChunk)
	c := l.cursorAt(offset, chunk)
	var out []RawBatch
	if rb != nil {
		c.into, out = rb, rb.batches
	}
	total := 0
	for {
		b, err := c.next(record.Inspect)
		if err != nil {
			return nil, err
		}
		if b.Frame == nil {
			return out, nil
		}
		if b.Meta.NextOffset() <= offset {
			continue
		}
		if b.Meta.BaseOffset >= vend {
			return out, nil
		}
		if len(out) > 0 && total+b.Meta.Size > maxBytes {
			return out, nil
		}
		out = append(out, b)
		total += b.Meta.Size
		if total >= maxBytes {
			return out, nil
		}
	}
}

// Fetch returns the records with offset <= o < min(end, LEO), at most
// maxRecords of them (§6.5.3; end < 0 means LEO). maxRecords < 0 is an
// argument error and 0 returns nothing; offset outside [LogStart, LEO] is
// OFFSET_OUT_OF_RANGE. Each batch read is checked (length, CRC, version:
// the bytes are the ones validated when written or recovered); the records'
// bytes are copied out of the log's reusable read buffer, one allocation
// per batch.
func (l *Log) Fetch(offset int64, maxRecords int, end int64) ([]LogRecord, error) {
	if err := l.usable(); err != nil {
		return nil, err
	}
	if maxRecords < 0 {
		return nil, kerr.Argument("max records cannot be negative, got %d", maxRecords)
	}
	if err := l.checkRange(offset); err != nil {
		return nil, err
	}
	vend := l.visibleEnd(end)
	if maxRecords == 0 || offset >= vend {
		return nil, nil
	}
	// Each record has its own offset, so vend-offset bounds the count.
	c := l.cursorAt(offset, 64<<10)
	c.reuse = true
	out := make([]LogRecord, 0, min(int64(maxRecords), vend-offset, 1<<18))
	for {
		rb, err := c.next(verifyFrame)
		if err != nil {
			return nil, err
		}
		if rb.Frame == nil {
			return out, nil
		}
		if rb.Meta.NextOffset() <= offset {
			continue
		}
		if rb.Meta.BaseOffset >= vend {
			return out, nil
		}
		var done bool
		if out, done, err = appendRecords(out, rb.Frame, rb.Meta, offset, vend, maxRecords); err != nil {
			return nil, c.damaged(rb.Position, err)
		} else if done {
			return out, nil
		}
	}
}

// Batches calls fn for every batch whose next offset is > from, in log
// order, until fn returns an error (which Batches returns). It is the scan
// used by producer-state rebuild, compaction and describe views. Frames stay
// valid after fn returns.
func (l *Log) Batches(from int64, fn func(RawBatch) error) error {
	if err := l.usable(); err != nil {
		return err
	}
	c := l.cursorAt(max(from, l.LogStartOffset()), 1<<20)
	for {
		rb, err := c.next(record.Inspect)
		if err != nil || rb.Frame == nil {
			return err
		}
		if rb.Meta.NextOffset() <= from {
			continue
		}
		if err := fn(rb); err != nil {
			return err
		}
	}
}
