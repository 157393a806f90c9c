package kafkawire

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// errTooLarge says a compressed batch would decompress past the bound.
var errTooLarge = errors.New("decompresses past the limit")

// xerialMagic starts snappy data framed the way the Java producer frames
// it: the magic, two 4-byte versions, then blocks of a big-endian length
// and a raw snappy block.
var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

// decompress decodes the records section of a compressed batch, never
// holding more than max decoded bytes: a small hostile batch cannot make
// the listener allocate what it claims to expand to. Streaming codecs
// (gzip, lz4) read through a limit; snappy's lengths are checked before
// any block is decoded; zstd's decoder is bounded by its memory limit.
func decompress(codec int, src []byte, max int) ([]byte, error) {
	switch codec {
	case codecGzip:
		r, err := gzip.NewReader(bytes.NewReader(src))
		if err != nil {
			return nil, err
		}
		return readLimited(r, max)
	case codecLZ4:
		return readLimited(lz4.NewReader(bytes.NewReader(src)), max)
	case codecSnappy:
		return decodeSnappy(src, max)
	case codecZstd:
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxMemory(uint64(max)))
		if err != nil {
			return nil, err
		}
		defer d.Close()
		out, err := d.DecodeAll(src, nil)
		if errors.Is(err, zstd.ErrDecoderSizeExceeded) {
			return nil, fmt.Errorf("%w (%d bytes)", errTooLarge, max)
		}
		if err == nil && len(out) > max {
			return nil, fmt.Errorf("%w (%d bytes)", errTooLarge, max)
		}
		return out, err
	}
	return nil, fmt.Errorf("codec %d", codec)
}

// readLimited reads r to the end, failing once it passes max bytes.
func readLimited(r io.Reader, max int) ([]byte, error) {
	var out bytes.Buffer
	n, err := out.ReadFrom(io.LimitReader(r, int64(max)+1))
	if err != nil {
		return nil, err
	}
	if n > int64(max) {
		return nil, fmt.Errorf("%w (%d bytes)", errTooLarge, max)
	}
	return out.Bytes(), nil
}

// decodeSnappy decodes raw or xerial-framed snappy, adding up every
// block's declared length before decoding anything.
func decodeSnappy(src []byte, max int) ([]byte, error) {
	if !bytes.HasPrefix(src, xerialMagic) {
		n, err := s2.DecodedLen(src)
		if err != nil {
			return nil, err
		}
		if n > max {
			return nil, fmt.Errorf("%w (%d bytes claimed, limit %d)", errTooLarge, n, max)
		}
		return s2.Decode(nil, src)
	}
	if len(src) < 16 {
		return nil, errors.New("xerial snappy header is cut short")
	}
	var blocks [][]byte
	total := 0
	for rest := src[16:]; len(rest) > 0; {
		if len(rest) < 4 {
			return nil, errors.New("xerial snappy block length is cut short")
		}
		size := binary.BigEndian.Uint32(rest)
		rest = rest[4:]
		if uint64(size) > uint64(len(rest)) {
			return nil, fmt.Errorf("xerial snappy block of %d bytes with %d left", size, len(rest))
		}
		block := rest[:size]
		rest = rest[size:]
		n, err := s2.DecodedLen(block)
		if err != nil {
			return nil, err
		}
		if total += n; total > max {
			return nil, fmt.Errorf("%w (limit %d)", errTooLarge, max)
		}
		blocks = append(blocks, block)
	}
	out := make([]byte, 0, total)
	for _, b := range blocks {
		dec, err := s2.Decode(out[len(out):cap(out)], b)
		if err != nil {
			return nil, err
		}
		out = out[:len(out)+len(dec)]
	}
	return out, nil
}
