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

// smallLineBytes is what a connection may buffer without a long-line
// token: enough for every ordinary request. Longer lines need one.
const smallLineBytes = 64 << 10

// longLineBudget bounds the memory that long request lines of all
// connections together may hold: the server hands out
// longLineBudget/(MaxFrameBytes+1) tokens (at least 1, at most 64), each of
// which lets one connection buffer up to MaxFrameBytes+1 bytes. A
// connection that needs a token while none is free stops reading (TCP
// pushes back on its client) until one is returned, as Kafka's broker mutes
// a channel while its request memory pool is exhausted.
const longLineBudget = 32 << 20

// longLines is the server's pool of long-line tokens.
type longLines struct {
	tokens chan struct{}
	quit   <-chan struct{} // closed when the server closes
}

func newLongLines(maxFrame int, quit <-chan struct{}) *longLines {
	n := min(max(longLineBudget/(maxFrame+1), 1), 64)
	return &longLines{tokens: make(chan struct{}, n), quit: quit}
}

// acquire waits for a token; false when the server closes first.
func (l *longLines) acquire() bool {
	select {
	case l.tokens <- struct{}{}:
		return true
	case <-l.quit:
		return false
	}
}

func (l *longLines) release() { <-l.tokens }

// errServerClosing ends a connection that waited for a long-line token
// while the server closed.
var errServerClosing = errors.New("server closing")

// lineReader splits a byte stream into request lines (§14.2). It never holds
// more than max+1 bytes: that is enough to tell an acceptable line (at most max
// bytes with its newline) from one that is too long. Past smallLineBytes it
// holds a long-line token (when long is set), and it gives the token and the
// large buffer back as soon as what is left fits in a small one again.
type lineReader struct {
	r          io.Reader
	max        int
	long       *longLines // nil: no budget (tests)
	holding    bool       // a long-line token is held
	buf        []byte     // grows up to max+1
	start, end int        // unread bytes are buf[start:end]
	searched   int        // bytes of buf[start:end] known to hold no '\n'
	err        error      // sticky read error, reported once the buffer is drained
}

func newLineReader(r io.Reader, max int, long *longLines) *lineReader {
	return &lineReader{r: r, max: max, long: long, buf: make([]byte, min(4096, max+1))}
}

// next returns the next line without its '\n' ('\r' is kept: JSON ignores it).
// The slice is valid until the following call. It returns errFrameTooLarge for
// an over-long line, and the reader's error (io.EOF at a clean end) when no
// bytes are left. A final line without a newline is returned before the error.
func (lr *lineReader) next() ([]byte, error) {
	lr.shrink()
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
// and the buffer doubles (up to max+1) when it is full; growing past
// smallLineBytes first takes a long-line token.
func (lr *lineReader) fill() {
	if lr.start > 0 {
		n := copy(lr.buf, lr.buf[lr.start:lr.end])
		lr.start, lr.end = 0, n
	}
	if lr.end == len(lr.buf) {
		size := min(2*len(lr.buf), lr.max+1)
		if size > smallLineBytes && lr.long != nil && !lr.holding {
			if !lr.long.acquire() {
				lr.err = errServerClosing
				return
			}
			lr.holding = true
		}
		grown := make([]byte, size)
		copy(grown, lr.buf[:lr.end])
		lr.buf = grown
	}
	n, err := lr.r.Read(lr.buf[lr.end:])
	lr.end += n
	if err != nil {
		lr.err = err
	}
}

// shrink returns a large buffer and its token once the unread bytes fit in
// a small buffer again.
func (lr *lineReader) shrink() {
	if len(lr.buf) <= smallLineBytes || lr.end-lr.start > smallLineBytes {
		return
	}
	small := make([]byte, smallLineBytes)
	lr.end = copy(small, lr.buf[lr.start:lr.end])
	lr.start, lr.buf = 0, small
	lr.searched = min(lr.searched, lr.end)
	lr.releaseToken()
}

func (lr *lineReader) releaseToken() {
	if lr.holding {
		lr.holding = false
		lr.long.release()
	}
}

// close drops the buffer and gives back a held token; the reader is not
// used afterwards.
func (lr *lineReader) close() {
	lr.releaseToken()
	lr.buf, lr.start, lr.end, lr.searched = nil, 0, 0, 0
}

// hasLine reports whether a complete line is already buffered, so that the
// server can delay flushing responses while requests are pipelined.
func (lr *lineReader) hasLine() bool {
	return bytes.IndexByte(lr.buf[lr.start+lr.searched:lr.end], '\n') >= 0
}
