package kafkawire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"net"
	"testing"
	"time"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/record"
	kafkaerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// rawConn is a bare TCP connection to one broker for hand-made requests.
type rawConn struct {
	t  *testing.T
	c  net.Conn
	r  *bufio.Reader
	id int32
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	return &rawConn{t: t, c: c, r: bufio.NewReader(c)}
}

func (rc *rawConn) send(b []byte) {
	rc.t.Helper()
	if _, err := rc.c.Write(b); err != nil {
		rc.t.Fatal(err)
	}
}

// request sends req at its version and returns the raw response body.
func (rc *rawConn) request(req kmsg.Request) ([]byte, error) {
	rc.id++
	f := kmsg.NewRequestFormatter(kmsg.FormatterClientID("raw"))
	rc.send(f.AppendRequest(nil, req, rc.id))
	return rc.response(req.IsFlexible() && req.Key() != int16(kmsg.ApiVersions))
}

// response reads one response frame and returns its body (after the
// correlation id and, for flexible responses, the tag byte).
func (rc *rawConn) response(flexible bool) ([]byte, error) {
	var size [4]byte
	if _, err := io.ReadFull(rc.r, size[:]); err != nil {
		return nil, err
	}
	body := make([]byte, binary.BigEndian.Uint32(size[:]))
	if _, err := io.ReadFull(rc.r, body); err != nil {
		return nil, err
	}
	body = body[4:]
	if flexible {
		body = body[1:]
	}
	return body, nil
}

// closed reports whether the server closed the connection.
func (rc *rawConn) closed() bool {
	_ = rc.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := rc.r.ReadByte()
	return errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || isReset(err)
}

// isReset reports a reset connection (a server that closed with unread
// bytes); a read timeout is not one.
func isReset(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && !op.Timeout()
}

// TestBadInputOverASocket sends what a broken or hostile client could:
// wrong sizes, truncated frames, unknown keys and versions, bodies that do
// not parse, oversized frames and damaged batches. Each gets a coded
// error or a closed connection; the listener keeps serving afterwards.
func TestBadInputOverASocket(t *testing.T) {
	tc := startCluster(t, 1, func(_ *testCluster, _ *engine.Config, o *Options) { o.MaxRequestBytes = 1 << 16 })
	tc.createTopic("events", 1, 1)
	addr := tc.srv.Bootstrap()

	t.Run("negative size", func(t *testing.T) {
		rc := dialRaw(t, addr)
		rc.send([]byte{0xff, 0xff, 0xff, 0xfe, 1, 2, 3})
		if !rc.closed() {
			t.Fatal("connection stayed open")
		}
	})
	t.Run("oversized frame", func(t *testing.T) {
		rc := dialRaw(t, addr)
		rc.send(binary.BigEndian.AppendUint32(nil, 1<<20))
		if !rc.closed() {
			t.Fatal("connection stayed open")
		}
	})
	t.Run("truncated frame", func(t *testing.T) {
		rc := dialRaw(t, addr)
		rc.send(append(binary.BigEndian.AppendUint32(nil, 100), 0, 18, 0, 0))
		_ = rc.c.(*net.TCPConn).CloseWrite()
		if !rc.closed() {
			t.Fatal("connection stayed open")
		}
	})
	t.Run("header shorter than its fixed part", func(t *testing.T) {
		rc := dialRaw(t, addr)
		rc.send(append(binary.BigEndian.AppendUint32(nil, 8), 0, 3, 0, 1, 0, 0, 0, 7))
		if !rc.closed() {
			t.Fatal("connection stayed open")
		}
	})
	t.Run("unknown API key", func(t *testing.T) {
		rc := dialRaw(t, addr)
		frame := []byte{0x7f, 0x00, 0, 0, 0, 0, 0, 1, 0xff, 0xff}
		rc.send(append(binary.BigEndian.AppendUint32(nil, uint32(len(frame))), frame...))
		if !rc.closed() {
			t.Fatal("connection stayed open")
		}
	})
	t.Run("ApiVersions at an unknown version", func(t *testing.T) {
		rc := dialRaw(t, addr)
		// An unknown version is not flexible to kmsg's formatter past its
		// table, so write the v3-style header by hand: key, version, id,
		// client id, empty tags.
		frame := []byte{0, 18, 0, 99, 0, 0, 0, 9, 0, 3, 'r', 'a', 'w', 0}
		rc.send(append(binary.BigEndian.AppendUint32(nil, uint32(len(frame))), frame...))
		body, err := rc.response(false)
		if err != nil {
			t.Fatal(err)
		}
		resp := kmsg.NewPtrApiVersionsResponse()
		resp.Version = 0
		if err := resp.ReadFrom(body); err != nil {
			t.Fatal(err)
		}
		if resp.ErrorCode != kafkaerr.UnsupportedVersion.Code || len(resp.ApiKeys) != len(served) {
			t.Fatalf("answer %d with %d keys", resp.ErrorCode, len(resp.ApiKeys))
		}
	})
	t.Run("known API at an unsupported version", func(t *testing.T) {
		rc := dialRaw(t, addr)
		req := kmsg.NewPtrProduceRequest()
		req.Version = 2 // message sets (magic 0/1): not served
		rc.id++
		rc.send(kmsg.NewRequestFormatter().AppendRequest(nil, req, rc.id))
		if !rc.closed() {
			t.Fatal("connection stayed open")
		}
	})
	t.Run("body that does not parse", func(t *testing.T) {
		rc := dialRaw(t, addr)
		frame := []byte{0, 3, 0, 1, 0, 0, 0, 1, 0, 0, 0x7f, 0xff, 0xff, 0xff}
		rc.send(append(binary.BigEndian.AppendUint32(nil, uint32(len(frame))), frame...))
		if !rc.closed() {
			t.Fatal("connection stayed open")
		}
	})

	produce := func(t *testing.T, records []byte) int16 {
		t.Helper()
		rc := dialRaw(t, addr)
		req := kmsg.NewPtrProduceRequest()
		req.Version, req.Acks, req.TimeoutMillis = 7, 1, 5000
		rt := kmsg.NewProduceRequestTopic()
		rt.Topic = "events"
		rp := kmsg.NewProduceRequestTopicPartition()
		rp.Records = records
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		body, err := rc.request(req)
		if err != nil {
			t.Fatal(err)
		}
		resp := kmsg.NewPtrProduceResponse()
		resp.Version = 7
		if err := resp.ReadFrom(body); err != nil {
			t.Fatal(err)
		}
		return resp.Topics[0].Partitions[0].ErrorCode
	}
	good := sampleBatch(t)
	t.Run("garbage batch", func(t *testing.T) {
		if code := produce(t, []byte("not a record batch at all, just text that is long enough to be read as a header")); code != kafkaerr.InvalidRecord.Code && code != kafkaerr.CorruptMessage.Code {
			t.Fatalf("code %d", code)
		}
	})
	t.Run("bad CRC", func(t *testing.T) {
		bad := append([]byte(nil), good...)
		bad[len(bad)-1] ^= 0xff
		if code := produce(t, bad); code != kafkaerr.CorruptMessage.Code {
			t.Fatalf("code %d, want CORRUPT_MESSAGE", code)
		}
	})
	t.Run("two batches in one partition", func(t *testing.T) {
		if code := produce(t, append(append([]byte(nil), good...), good...)); code != kafkaerr.InvalidRecord.Code {
			t.Fatalf("code %d, want INVALID_RECORD", code)
		}
	})
	t.Run("unknown compression codec", func(t *testing.T) {
		bad := append([]byte(nil), good...)
		bad[22] |= 0x07
		binary.BigEndian.PutUint32(bad[17:], crc32.Checksum(bad[21:], castagnoli))
		if code := produce(t, bad); code != kafkaerr.UnsupportedCompressionType.Code {
			t.Fatalf("code %d, want UNSUPPORTED_COMPRESSION_TYPE", code)
		}
	})
	t.Run("nothing was appended and the listener still serves", func(t *testing.T) {
		if code := produce(t, good); code != 0 {
			t.Fatalf("a good batch after the bad ones: code %d", code)
		}
		var leo int64
		tc.do(func(c *engine.Cluster) error {
			st, err := c.PartitionState(engine.TopicPartition{Topic: "events"})
			leo = st.LEO
			return err
		})
		if leo != 2 {
			t.Fatalf("LEO %d, want the 2 records of the one good batch", leo)
		}
	})
}

// sampleBatch is a valid two-record batch as a producer sends it.
func sampleBatch(t testing.TB) []byte {
	b := record.NewBatch([]record.Record{
		{Key: []byte("k"), Value: []byte("v1"), TimestampMs: 1000, Headers: []record.Header{{Key: "h", Value: []byte("x")}}},
		{Key: nil, Value: []byte{}, TimestampMs: 1001},
	})
	b.BaseOffset, b.LeaderEpoch = 0, -1
	return appendBatch(nil, b)
}
