package jsontcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// MaxResponseBytes bounds one response line read by a Client (64 MiB): a
// fetch of many large records is long, but a line without end is an error.
const MaxResponseBytes = 64 << 20

// Client is a connection to a JSON/TCP server that sends one request at a
// time and reads its answer: the REPL's `remote` command and the tests use it.
// Its methods are safe for concurrent use; requests are serialised.
type Client struct {
	mu     sync.Mutex
	conn   net.Conn
	r      *bufio.Reader
	broken error // set when a request failed half-way: the stream is out of step
}

// Dial connects to a server at addr (host:port). The context bounds the
// connection attempt.
func Dial(ctx context.Context, addr string) (*Client, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	return &Client{conn: conn, r: bufio.NewReaderSize(conn, 64<<10)}, nil
}

// Do sends one request line (a JSON object; a trailing newline is optional,
// an inner one is an argument error) and returns the response line without
// its newline. The context bounds the round trip. A response with "ok":false
// is still a response (see CheckResponse); Do fails only when the exchange
// itself fails, after which the client is unusable.
func (c *Client) Do(ctx context.Context, request string) (string, error) {
	request = strings.TrimSuffix(strings.TrimSuffix(request, "\n"), "\r")
	if strings.ContainsAny(request, "\n") {
		return "", kerr.Argument("a request is one line; it contains a newline")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		return "", kerr.State("connection is unusable after an earlier failure: %v", c.broken)
	}
	line, err := c.roundTrip(ctx, request)
	if err != nil {
		c.broken = err
		return "", err
	}
	return line, nil
}

func (c *Client) roundTrip(ctx context.Context, request string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	deadline, _ := ctx.Deadline() // zero: none
	if err := c.conn.SetDeadline(deadline); err != nil {
		return "", err
	}
	// Cancelling the context interrupts blocked reads and writes.
	stop := context.AfterFunc(ctx, func() { _ = c.conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	if _, err := io.WriteString(c.conn, request+"\n"); err != nil {
		return "", c.explain(ctx, err)
	}
	var line []byte
	for {
		chunk, err := c.r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > MaxResponseBytes {
			return "", kerr.New(kerr.FrameTooLarge, "response longer than %d bytes", MaxResponseBytes)
		}
		if err == nil {
			return string(bytes.TrimSuffix(line, []byte("\n"))), nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			return "", io.ErrUnexpectedEOF // the server closed before answering in full
		}
		return "", c.explain(ctx, err)
	}
}

// explain prefers the context's error to the deadline error it caused (the
// connection's deadline may fire a moment before the context's own timer).
func (c *Client) explain(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if d, ok := ctx.Deadline(); ok && errors.Is(err, os.ErrDeadlineExceeded) && !time.Now().Before(d) {
		return context.DeadlineExceeded
	}
	return err
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// CheckResponse returns nil for a response line with "ok":true and, for an
// error response, a *kerr.Error carrying its code and message. A line that is
// not a response is an argument error.
func CheckResponse(line string) error {
	var r struct {
		OK      *bool   `json:"ok"`
		Code    *string `json:"code"`
		Message string  `json:"message"`
	}
	if err := json.Unmarshal([]byte(line), &r); err != nil || r.OK == nil {
		return kerr.Argument("not a response line: %s", quote(line))
	}
	if *r.OK {
		return nil
	}
	if r.Code == nil {
		return kerr.Argument("error response without a code: %s", quote(line))
	}
	return kerr.New(kerr.Code(*r.Code), "%s", r.Message)
}
