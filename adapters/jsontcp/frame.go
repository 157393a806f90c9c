package jsontcp

import (
	"bytes"
	"errors"
	"io"
)

// DefaultMaxFrameBytes is max_frame_bytes: the longest request line accepted,
// newline included (1 MiB).
const DefaultMaxFrameBytes = 1 << 20

// errFrameTooLarge reports a line longer than the frame limit, or max+1
// buffered bytes without a newline.
var errFrameTooLarge = errors.New("frame too large")

// lineReader splits a byte stream into request lines (§14.2). It never holds
// more than max+1 bytes: that is enough to tell an acceptable line (at most max
// bytes with its newline) from one that is too long.
type lineReader struct {
	r          io.Reader
	max        int
	buf        []byte // grows up to max+1
	start, end int    // unread bytes are buf[start:end]
	searched   int    // bytes of buf[start:end] known to hold no '\n'
	err        error  // sticky read error, reported once the buffer is drained
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: r, max: max, buf: make([]byte, min(4096, max+1))}
}

// next returns the next line without its '\n' ('\r' is kept: JSON ignores it).
// The slice is valid until the following call. It returns errFrameTooLarge for
// an over-long line, and the reader's error (io.EOF at a clean end) when no
// bytes are left. A final line without a newline is returned before the error.
func (lr *lineReader) next() ([]byte, error) {
	for {
		pending := lr.buf[lr.start:lr.end]
		if i := bytes.IndexByte(pending[lr.searched:], '\n'); i >= 0 {
			length := lr.searched + i + 1
			lr.start += length
			lr.searched = 0
			if length > lr.max {
				return nil, errFrameTooLarge
			}
			return pending[:length-1], nil
		}
		lr.searched = len(pending)
		if len(pending) > lr.max {
			return nil, errFrameTooLarge
		}
		if lr.err != nil {
			if len(pending) > 0 {
				lr.start = lr.end
				lr.searched = 0
				return pending, nil
			}
			return nil, lr.err
		}
		lr.fill()
	}
}

// fill reads more bytes, first making room: unread bytes move to the front,
// and the buffer doubles (up to max+1) when it is full.
func (lr *lineReader) fill() {
	if lr.start > 0 {
		n := copy(lr.buf, lr.buf[lr.start:lr.end])
		lr.start, lr.end = 0, n
	}
	if lr.end == len(lr.buf) {
		grown := make([]byte, min(2*len(lr.buf), lr.max+1))
		copy(grown, lr.buf[:lr.end])
		lr.buf = grown
	}
	n, err := lr.r.Read(lr.buf[lr.end:])
	lr.end += n
	if err != nil {
		lr.err = err
	}
}

// hasLine reports whether a complete line is already buffered, so that the
// server can delay flushing responses while requests are pipelined.
func (lr *lineReader) hasLine() bool {
	return bytes.IndexByte(lr.buf[lr.start+lr.searched:lr.end], '\n') >= 0
}
