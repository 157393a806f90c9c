package kafkawire

import (
	"encoding/binary"

	"bytes"
	"errors"
	"github.com/klauspost/compress/s2"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// compressWith compresses p with franz-go's own producer codecs, as a client
// would.
func compressWith(t *testing.T, codec kgo.CompressionCodec, p []byte) []byte {
	t.Helper()
	c, err := kgo.DefaultCompressor(codec)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := c.Compress(new(bytes.Buffer), p)
	return bytes.Clone(out)
}

func TestDecompressRoundTripsEveryCodec(t *testing.T) {
	plain := bytes.Repeat([]byte("minikafka records "), 5000)
	for _, tc := range []struct {
		name  string
		codec int
		kgo   kgo.CompressionCodec
	}{
		{"gzip", codecGzip, kgo.GzipCompression()},
		{"snappy", codecSnappy, kgo.SnappyCompression()},
		{"lz4", codecLZ4, kgo.Lz4Compression()},
		{"zstd", codecZstd, kgo.ZstdCompression()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decompress(tc.codec, compressWith(t, tc.kgo, plain), len(plain))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, plain) {
				t.Fatalf("decoded %d bytes, want the %d compressed", len(got), len(plain))
			}
		})
	}
}

// TestDecompressRefusesBombs: a few kilobytes that expand to 8 MiB are
// refused at the limit for every codec, without decoding past it.
func TestDecompressRefusesBombs(t *testing.T) {
	bomb := make([]byte, 8<<20)
	const limit = 1 << 20
	for _, tc := range []struct {
		name  string
		codec int
		kgo   kgo.CompressionCodec
	}{
		{"gzip", codecGzip, kgo.GzipCompression()},
		{"snappy", codecSnappy, kgo.SnappyCompression()},
		{"lz4", codecLZ4, kgo.Lz4Compression()},
		{"zstd", codecZstd, kgo.ZstdCompression()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := compressWith(t, tc.kgo, bomb)
			if len(src) > 1<<19 {
				t.Fatalf("%d compressed bytes is no bomb", len(src))
			}
			if _, err := decompress(tc.codec, src, limit); !errors.Is(err, errTooLarge) {
				t.Fatalf("err = %v, want errTooLarge", err)
			}
		})
	}
}

func TestDecompressRejectsDamagedXerial(t *testing.T) {
	for _, src := range [][]byte{
		append(append([]byte{}, xerialMagic...), 0, 0, 0, 1),                            // header cut short
		append(append([]byte{}, xerialMagic...), 0, 0, 0, 1, 0, 0, 0, 1, 0, 0),          // length cut short
		append(append([]byte{}, xerialMagic...), 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 9, 1), // block longer than the rest
	} {
		if _, err := decompress(codecSnappy, src, 1<<20); err == nil {
			t.Fatalf("decompress(% x) succeeded", src)
		}
	}
}

// TestDecompressXerialFraming decodes snappy framed as the Java producer
// frames it (magic, versions, then length-prefixed raw blocks).
func TestDecompressXerialFraming(t *testing.T) {
	plain := bytes.Repeat([]byte("xerial "), 20000)
	src := append(append([]byte{}, xerialMagic...), 0, 0, 0, 1, 0, 0, 0, 1)
	for rest := plain; len(rest) > 0; {
		n := min(len(rest), 32<<10)
		block := s2.EncodeSnappy(nil, rest[:n])
		src = binary.BigEndian.AppendUint32(src, uint32(len(block)))
		src = append(src, block...)
		rest = rest[n:]
	}
	got, err := decompress(codecSnappy, src, len(plain))
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("decoded %d bytes, err %v; want the %d framed", len(got), err, len(plain))
	}
	if _, err := decompress(codecSnappy, src, len(plain)-1); !errors.Is(err, errTooLarge) {
		t.Fatalf("one byte under the size: err = %v, want errTooLarge", err)
	}
}
