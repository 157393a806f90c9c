package kafkawire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// DefaultMaxRequestBytes is the largest request accepted, Kafka's default
// socket.request.max.bytes (100 MiB).
const DefaultMaxRequestBytes = 100 << 20

// Frame and header errors. A connection that sends one is closed, as a
// Kafka broker closes it: there is no correlation id to answer to.
var (
	errFrameSize   = errors.New("frame size out of range")
	errShortHeader = errors.New("request header truncated")
	errBadTags     = errors.New("request header tagged fields malformed")
	errBadClientID = errors.New("request header client id malformed")
	errUnknownAPI  = errors.New("unknown API key")
)

// header is a parsed request header (v0, v1 or v2).
type header struct {
	key           int16
	version       int16
	correlationID int32
	clientID      string // "" for a null client id
	flexible      bool   // request header v2: tagged fields followed the client id
}

// readFrame reads one size-prefixed frame into buf (grown as needed) and
// returns it. A size below the smallest header (8 bytes) or above max is
// errFrameSize; a frame cut short by EOF is io.ErrUnexpectedEOF.
func readFrame(r io.Reader, max int, buf []byte) ([]byte, error) {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return nil, err
	}
	n := int32(binary.BigEndian.Uint32(size[:]))
	if n < 8 || int64(n) > int64(max) {
		return nil, fmt.Errorf("%w: %d bytes (the limit is %d)", errFrameSize, n, max)
	}
	if cap(buf) < int(n) {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(r, buf); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return buf, nil
}

// parseHeader reads the request header at the start of frame and returns it
// with the body that follows. The key and version decide the header version
// (kmsg knows from which version each API is flexible); an unknown key is
// errUnknownAPI, with the header's fixed part filled in so that the caller
// can still answer ApiVersions.
func parseHeader(frame []byte) (header, []byte, error) {
	var h header
	if len(frame) < 10 {
		return h, nil, errShortHeader
	}
	h.key = int16(binary.BigEndian.Uint16(frame[0:]))
	h.version = int16(binary.BigEndian.Uint16(frame[2:]))
	h.correlationID = int32(binary.BigEndian.Uint32(frame[4:]))
	// client_id is a nullable string with an int16 length, even in
	// flexible headers (KIP-482 left it out of the compact encoding).
	idLen := int16(binary.BigEndian.Uint16(frame[8:]))
	rest := frame[10:]
	switch {
	case idLen == -1:
	case idLen < 0 || int(idLen) > len(rest):
		return h, nil, errBadClientID
	default:
		h.clientID = string(rest[:idLen])
		rest = rest[idLen:]
	}
	req := kmsg.RequestForKey(h.key)
	if req == nil {
		return h, nil, errUnknownAPI
	}
	req.SetVersion(h.version)
	if h.flexible = req.IsFlexible(); h.flexible {
		var err error
		if rest, err = skipTags(rest); err != nil {
			return h, nil, err
		}
	}
	return h, rest, nil
}

// skipTags skips a tagged-field section: an unsigned varint count, then
// per field an unsigned varint tag, an unsigned varint size and that many
// bytes.
func skipTags(b []byte) ([]byte, error) {
	n, b, ok := uvarint(b)
	if !ok {
		return nil, errBadTags
	}
	for ; n > 0; n-- {
		var size uint64
		if _, b, ok = uvarint(b); !ok {
			return nil, errBadTags
		}
		if size, b, ok = uvarint(b); !ok || size > uint64(len(b)) {
			return nil, errBadTags
		}
		b = b[size:]
	}
	return b, nil
}

// uvarint reads an unsigned varint of at most 5 bytes (a uint32, as Kafka
// encodes them).
func uvarint(b []byte) (uint64, []byte, bool) {
	v, n := binary.Uvarint(b)
	if n <= 0 || n > 5 || v > 1<<32-1 {
		return 0, nil, false
	}
	return v, b[n:], true
}

// appendResponse appends a whole response frame: size, correlation id, the
// tag byte of response header v1 when the response is flexible (never for
// ApiVersions, whose response header is always v0 so that a client that
// does not know the broker's versions can read it), then the body.
func appendResponse(dst []byte, correlationID int32, resp kmsg.Response) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = binary.BigEndian.AppendUint32(dst, uint32(correlationID))
	if resp.IsFlexible() && resp.Key() != int16(kmsg.ApiVersions) {
		dst = append(dst, 0)
	}
	dst = resp.AppendTo(dst)
	binary.BigEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return dst
}
