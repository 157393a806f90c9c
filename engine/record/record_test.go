package record

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// sample is the spec's §17 C sample batch: two records, pid 4, epoch 2,
// sequence 9, transactional id "tx-α", assigned base 12 and leader epoch 3.
func sample(t testing.TB) *Batch {
	t.Helper()
	b := NewBatch([]Record{
		{Key: []byte("k\x00"), Value: []byte("v\xff"), TimestampMs: 7, Headers: []Header{{Key: "trace", Value: []byte{0, 1}}}},
		{Key: []byte("k2"), Value: nil, TimestampMs: 8},
	})
	b.ProducerID, b.ProducerEpoch, b.BaseSequence = 4, 2, 9
	b.Transactional, b.TransactionalID = true, "tx-α"
	a, err := b.Assign(12, 3)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func mustEncode(t testing.TB, b *Batch) []byte {
	t.Helper()
	buf, err := Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	return buf
}

// C1: round trip of the sample; next offset 14, last sequence 10.
func TestRoundTripSample(t *testing.T) {
	b := sample(t)
	got, err := Decode(mustEncode(t, b))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, b) {
		t.Fatalf("round trip differs:\n got %+v\nwant %+v", got, b)
	}
	if got.NextOffset() != 14 || got.LastSequence() != 10 {
		t.Fatalf("next=%d lastSeq=%d", got.NextOffset(), got.LastSequence())
	}
	if got.Records[1].Value != nil || got.Records[0].Headers[0].Value == nil {
		t.Fatal("null and non-null fields were confused")
	}
}

// C2: a flipped bit in the last byte fails the CRC.
func TestFlippedBitIsCRCMismatch(t *testing.T) {
	buf := mustEncode(t, sample(t))
	buf[len(buf)-1] ^= 1
	_, err := Decode(buf)
	if !errors.Is(err, kerr.CorruptBatch) || !strings.Contains(err.Error(), "CRC") {
		t.Fatalf("err = %v", err)
	}
}

// C3: a missing last byte is a length error.
func TestTruncatedFrameIsLengthError(t *testing.T) {
	buf := mustEncode(t, sample(t))
	_, err := Decode(buf[:len(buf)-1])
	if !errors.Is(err, kerr.CorruptBatch) || !strings.Contains(err.Error(), "length") {
		t.Fatalf("err = %v", err)
	}
}

// C4: encoding an unassigned batch.
func TestEncodeUnassigned(t *testing.T) {
	_, err := Encode(NewBatch([]Record{{Value: []byte("x")}}))
	if !errors.Is(err, kerr.InvalidRecord) || !strings.Contains(err.Error(), "assigned") {
		t.Fatalf("err = %v", err)
	}
}

// C5: a data batch without records.
func TestEmptyDataBatch(t *testing.T) {
	err := NewBatch(nil).Validate()
	if !errors.Is(err, kerr.InvalidRecord) || !strings.Contains(err.Error(), "at least one") {
		t.Fatalf("err = %v", err)
	}
}

// C6: a commit marker round trip.
func TestControlMarkerRoundTrip(t *testing.T) {
	m, err := NewControlBatch("tx-1", Commit).Assign(20, 4)
	if err != nil {
		t.Fatal(err)
	}
	buf := mustEncode(t, m)
	if len(buf) != 12+40+len("tx-1") {
		t.Fatalf("size %d", len(buf))
	}
	got, err := Decode(buf)
	if err != nil {
		t.Fatal(err)
	}
	if got.Control != Commit || len(got.Records) != 0 || got.NextOffset() != 21 || buf[12+29] != 0x03 {
		t.Fatalf("marker = %+v flags=%#x", got, buf[12+29])
	}
	a, _ := NewControlBatch("t", Abort).Assign(0, 0)
	if buf := mustEncode(t, a); len(buf) != 53 || buf[12+29] != 0x05 {
		t.Fatalf("abort marker size %d flags %#x", len(buf), buf[12+29])
	}
}

// C7: format version 99 cannot be encoded; a normal frame starts with MKB1.
func TestFormatVersion(t *testing.T) {
	b := sample(t)
	b.Version = 99
	if _, err := Encode(b); !errors.Is(err, kerr.InvalidRecord) || !strings.Contains(err.Error(), "format version") {
		t.Fatalf("err = %v", err)
	}
	if buf := mustEncode(t, sample(t)); !bytes.HasPrefix(buf, []byte("MKB1")) {
		t.Fatal("no magic")
	}
}

// C8: compacted deltas (2, 4) with last delta 4 at base 10.
func TestCompactedDeltasRoundTrip(t *testing.T) {
	b := &Batch{
		BaseOffset: 10, LeaderEpoch: 0, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
		LastOffsetDelta: 4, OffsetDeltas: []int32{2, 4}, Version: 1,
		Records: []Record{{Key: []byte("a"), Value: []byte("new"), TimestampMs: 2}, {Value: []byte("event"), TimestampMs: 4}},
	}
	got, err := Decode(mustEncode(t, b))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.OffsetDeltas, []int32{2, 4}) || got.LastOffsetDelta != 4 || got.NextOffset() != 15 {
		t.Fatalf("got %+v", got)
	}
}

// §6.2.5: the worked example, pinned as golden bytes under fixtures/.
func TestWorkedExampleGolden(t *testing.T) {
	b := NewBatch([]Record{{Key: []byte("k"), Value: []byte("v"), TimestampMs: 7, Headers: []Header{{Key: "h", Value: []byte("x")}}}})
	b.ProducerID, b.ProducerEpoch, b.BaseSequence = 4, 2, 9
	b.Transactional, b.TransactionalID = true, "tx"
	a, err := b.Assign(12, 3)
	if err != nil {
		t.Fatal(err)
	}
	buf := mustEncode(t, a)
	raw, err := os.ReadFile("../../fixtures/golden/mkb1-worked-example.hex")
	if err != nil {
		t.Fatal(err)
	}
	want, err := hex.DecodeString(strings.Join(strings.Fields(stripComments(string(raw))), ""))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf, want) {
		t.Fatalf("encoding differs from the golden bytes:\n got %x\nwant %x", buf, want)
	}
	if len(buf) != 86 || a.EncodedSize() != 86 {
		t.Fatalf("size %d", len(buf))
	}
	m, err := Inspect(buf, 0)
	if err != nil || m.CRC != 0x85FA66B8 || m.Size != 86 {
		t.Fatalf("crc %#x size %d err %v", m.CRC, m.Size, err)
	}
}

func stripComments(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// §6.2.2 sizes: a keyless record with an n-byte value is 74+n bytes.
func TestEncodedSizes(t *testing.T) {
	for _, n := range []int{1, 7, 20} {
		b, _ := NewBatch([]Record{{Value: bytes.Repeat([]byte("x"), n)}}).Assign(0, 0)
		if got := len(mustEncode(t, b)); got != 74+n || b.EncodedSize() != got {
			t.Fatalf("value %d: size %d", n, got)
		}
	}
}

func TestEncoderPreconditions(t *testing.T) {
	cases := map[string]func(b *Batch){
		"unassigned epoch":  func(b *Batch) { b.LeaderEpoch = -1 },
		"long header key":   func(b *Batch) { b.Records[0].Headers = []Header{{Key: strings.Repeat("k", 65536)}} },
		"bad header utf8":   func(b *Batch) { b.Records[0].Headers = []Header{{Key: "\xff"}} },
		"long txid":         func(b *Batch) { b.Transactional, b.TransactionalID = true, strings.Repeat("t", 65536) },
		"txid without flag": func(b *Batch) { b.TransactionalID = "t" },
		"decreasing deltas": func(b *Batch) {
			b.Records = append(b.Records, Record{})
			b.OffsetDeltas = []int32{1, 0}
			b.LastOffsetDelta = 1
		},
		"delta above last":   func(b *Batch) { b.OffsetDeltas = []int32{3} },
		"marker with record": func(b *Batch) { b.Control, b.Transactional = Commit, true },
		"marker without id":  func(b *Batch) { b.Control, b.Records, b.OffsetDeltas = Abort, nil, nil },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			b, _ := NewBatch([]Record{{Value: []byte("v")}}).Assign(0, 0)
			mutate(b)
			if _, err := Encode(b); !errors.Is(err, kerr.InvalidRecord) {
				t.Fatalf("err = %v", err)
			}
		})
	}
	b, _ := NewBatch([]Record{{Value: []byte("v")}}).Assign(0, 0)
	if _, err := b.Assign(1, 0); !errors.Is(err, kerr.InvalidRecord) || !strings.Contains(err.Error(), "already assigned") {
		t.Fatalf("reassign: %v", err)
	}
}

// Decoder checks in §6.2.4 order, each on a hand-made frame.
func TestDecoderValidation(t *testing.T) {
	good := mustEncode(t, sample(t))
	reframe := func(payload []byte) []byte { return frameOf(payload) }
	payload := append([]byte(nil), good[12:]...)
	cases := []struct {
		name  string
		frame []byte
		want  string
	}{
		{"short", good[:11], "shorter than frame header"},
		{"magic", append([]byte("MKB2"), good[4:]...), "invalid batch magic"},
		{"too long", append(append([]byte("MKB1"), 0x01, 0x00, 0x00, 0x01), good[8:]...), "exceeds configured maximum"},
		{"extra byte", append(append([]byte(nil), good...), 0), "does not match frame"},
		{"version", reframe(set(payload, 0, 2)), "unsupported format version 2"},
		{"truncated payload header", reframe(payload[:20]), "exceeds available bytes"},
		{"txid without flag", reframe(set(payload, 29, 0)), "without transactional flag"},
		{"txid utf8", reframe(set(payload, 40, 0xff)), "invalid transaction ID encoding"},
		{"trailing", reframe(append(append([]byte(nil), payload...), 1)), "trailing bytes"},
		{"both markers", reframe(set(payload, 29, 0x07)), "conflicting control flags"},
		{"negative length", reframe(setU32(payload, 40+len("tx-α")+12, 0xFFFFFFFE)), "negative field length"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(c.frame)
			if !errors.Is(err, kerr.CorruptBatch) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}

func set(p []byte, i int, v byte) []byte {
	c := append([]byte(nil), p...)
	c[i] = v
	return c
}

func setU32(p []byte, i int, v uint32) []byte {
	c := append([]byte(nil), p...)
	be.PutUint32(c[i:], v)
	return c
}

func TestScanStopsAtFirstBadFrame(t *testing.T) {
	var log []byte
	for i := int64(0); i < 3; i++ {
		b, _ := NewBatch([]Record{{Value: []byte("v")}}).Assign(i, 0)
		log = append(log, mustEncode(t, b)...)
	}
	frames, valid, err := Scan(log, 0)
	if err != nil || valid != len(log) || len(frames) != 3 || frames[2].Position != 150 {
		t.Fatalf("clean scan: %d frames, valid %d, err %v", len(frames), valid, err)
	}
	torn := append(append([]byte(nil), log...), []byte("MKB1\x00\x00\x00\x20partial")...)
	frames, valid, err = Scan(torn, 0)
	if len(frames) != 3 || valid != len(log) || !errors.Is(err, kerr.CorruptBatch) {
		t.Fatalf("torn scan: %d frames, valid %d, err %v", len(frames), valid, err)
	}
	back, _ := NewBatch([]Record{{Value: []byte("v")}}).Assign(1, 0)
	overlap := append(append([]byte(nil), log...), mustEncode(t, back)...)
	_, valid, err = Scan(overlap, 0)
	if valid != len(log) || err == nil || !strings.Contains(err.Error(), "overlap or move backwards") {
		t.Fatalf("overlap: valid %d err %v", valid, err)
	}
}
