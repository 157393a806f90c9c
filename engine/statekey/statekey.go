// Package statekey encodes the state of engine values for hashing: a state
// explorer (engine/explore) feeds it to a hash to recognise a state it has
// reached before. The encoding is unambiguous (every variable-length value
// carries its length) and depends only on the values written, in order.
package statekey

import (
	"encoding/binary"
	"io"
)

// Writer writes values to W in the state-key encoding. The zero Writer
// needs W set; writes to a hash never fail, so errors are not reported.
type Writer struct {
	W   io.Writer
	buf [binary.MaxVarintLen64]byte
}

// New returns a Writer on w.
func New(w io.Writer) *Writer { return &Writer{W: w} }

// Int writes v as a varint.
func (w *Writer) Int(v int64) {
	n := binary.PutVarint(w.buf[:], v)
	w.W.Write(w.buf[:n])
}

// Bool writes b as 1 or 0.
func (w *Writer) Bool(b bool) {
	if b {
		w.Int(1)
	} else {
		w.Int(0)
	}
}

// Bytes writes b with its length; nil (-1) apart from empty (0).
func (w *Writer) Bytes(b []byte) {
	if b == nil {
		w.Int(-1)
		return
	}
	w.Int(int64(len(b)))
	w.W.Write(b)
}

// String writes s with its length.
func (w *Writer) String(s string) {
	w.Int(int64(len(s)))
	io.WriteString(w.W, s)
}

// Raw writes b as it is: the caller has written its length.
func (w *Writer) Raw(b []byte) { w.W.Write(b) }

// IDs writes a list of broker ids with its length.
func (w *Writer) IDs(ids []int32) {
	w.Int(int64(len(ids)))
	for _, id := range ids {
		w.Int(int64(id))
	}
}
