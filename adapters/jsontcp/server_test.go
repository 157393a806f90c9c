package jsontcp

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

const (
	createEvents = `{"operation":"create_topic","topic":"events","partitions":1,"replication_factor":1}`
	produceHello = `{"operation":"produce","topic":"events","partition":0,"value_b64":"aGVsbG8=","acks":"1"}`
	fetchEvents  = `{"operation":"fetch","topic":"events","partition":0,"offset":0}`
)

// chapter10 is chapter 10's experiment, request by request with its answer:
// the fake, the engine over a socket and Dispatch must all print these bytes.
var chapter10 = []struct{ req, resp string }{
	{createEvents, `{"ok":true,"topic":"events"}`},
	{produceHello, `{"ok":true,"partition":0,"offset":0}`},
	{fetchEvents, `{"ok":true,"records":[{"offset":0,"key_b64":null,"value_b64":"aGVsbG8="}]}`},
}

// Chapter 10's experiment over a real loopback socket, byte for byte.
func TestServerChapter10OverLoopback(t *testing.T) {
	s := startServer(t, newFake(), Options{})
	if !strings.HasPrefix(s.Addr().String(), "127.0.0.1:") || strings.HasSuffix(s.Addr().String(), ":0") {
		t.Fatalf("address %s", s.Addr())
	}
	c := dialRaw(t, s)
	for _, step := range chapter10 {
		if got := c.call(step.req); got != step.resp {
			t.Fatalf("%s\n got %s\nwant %s", step.req, got, step.resp)
		}
	}
}

// padTo pads a request with spaces (JSON whitespace) so that the line,
// newline included, is n bytes.
func padTo(req string, n int) string {
	return req + strings.Repeat(" ", n-len(req)-1) + "\n"
}

// E7: limit 200; a 200-byte line is served, 201 gets FRAME_TOO_LARGE and EOF,
// 1000 bytes without a newline get FRAME_TOO_LARGE and EOF.
func TestServerFrameLimitE7(t *testing.T) {
	s := startServer(t, newFake(), Options{MaxFrameBytes: 200})
	const tooLarge = `{"ok":false,"code":"FRAME_TOO_LARGE","message":""}`
	meta := `{"operation":"metadata","topic":"missing"}`

	c := dialRaw(t, s)
	c.write(padTo(meta, 200))
	if got := c.readLine(); got != `{"ok":false,"code":"UNKNOWN_TOPIC","message":"missing"}` {
		t.Fatalf("200-byte line: %s", got)
	}
	c.write(padTo(meta, 201))
	if got := c.readLine(); got != tooLarge {
		t.Fatalf("201-byte line: %s", got)
	}
	c.expectEOF()

	c = dialRaw(t, s)
	c.write(strings.Repeat("x", 1000))
	if got := c.readLine(); got != tooLarge {
		t.Fatalf("1000 bytes without newline: %s", got)
	}
	c.expectEOF()

	// The server still serves new connections.
	if got := dialRaw(t, s).call(meta); !strings.Contains(got, "UNKNOWN_TOPIC") {
		t.Fatalf("after frame errors: %s", got)
	}
}

// A frame error after pipelined requests: the earlier ones are answered first.
func TestServerFrameErrorAfterPipelinedRequests(t *testing.T) {
	s := startServer(t, newFake(), Options{MaxFrameBytes: 200})
	c := dialRaw(t, s)
	c.write(createEvents + "\n" + produceHello + "\n" + strings.Repeat("z", 300) + "\n" + produceHello + "\n")
	want := []string{`{"ok":true,"topic":"events"}`, `{"ok":true,"partition":0,"offset":0}`, `{"ok":false,"code":"FRAME_TOO_LARGE","message":""}`}
	for _, w := range want {
		if got := c.readLine(); got != w {
			t.Fatalf("got %s, want %s", got, w)
		}
	}
	c.expectEOF()
	if got := dialRaw(t, s).call(fetchEvents); got != `{"ok":true,"records":[{"offset":0,"key_b64":null,"value_b64":"aGVsbG8="}]}` {
		t.Fatalf("the request after the frame error must not run: %s", got)
	}
}

// §14.2: several requests per write, one request over several writes, CRLF,
// an empty line, and a final line without newline before EOF.
func TestServerFraming(t *testing.T) {
	s := startServer(t, newFake(), Options{})
	c := dialRaw(t, s)
	c.write(createEvents + "\r\n" + produceHello + "\n\n" + produceHello[:20])
	if got := c.readLine(); got != `{"ok":true,"topic":"events"}` {
		t.Fatal(got)
	}
	if got := c.readLine(); got != `{"ok":true,"partition":0,"offset":0}` {
		t.Fatal(got)
	}
	if got := c.readLine(); got != `{"ok":false,"code":"INVALID_REQUEST","message":"empty request"}` {
		t.Fatal(got)
	}
	for _, part := range []string{produceHello[20:40], produceHello[40:], "\n"} {
		time.Sleep(5 * time.Millisecond)
		c.write(part)
	}
	if got := c.readLine(); got != `{"ok":true,"partition":0,"offset":1}` {
		t.Fatal(got)
	}
	c.write(fetchEvents) // no newline, then EOF
	if err := c.c.(interface{ CloseWrite() error }).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	if got := c.readLine(); !strings.HasPrefix(got, `{"ok":true,"records":[{"offset":0,`) || strings.Count(got, `"offset"`) != 2 {
		t.Fatal(got)
	}
	c.expectEOF()
}

// Bad input over a real socket: each gets its typed error, the connection
// stays usable (except after the frame error), other connections are
// unaffected, and no record is lost or duplicated.
func TestServerBadInputKeepsServing(t *testing.T) {
	b := newFake()
	s := startServer(t, b, Options{MaxFrameBytes: 4096})
	other := dialRaw(t, s)
	other.call(createEvents)
	c := dialRaw(t, s)
	bad := []struct{ req, code string }{
		{`hello there`, "INVALID_REQUEST"},
		{`[1,2,3]`, "INVALID_REQUEST"},
		{`{"operation":"wat"}`, "INVALID_REQUEST"},
		{`{"operation":"produce","topic":"events","partition":"0","value_b64":"aGk="}`, "INVALID_REQUEST"},
		{`{"operation":"produce","topic":"events","value_b64":"not base64!"}`, "INVALID_REQUEST"},
		{`{"operation":"produce","topic":"events","acks":"2","value_b64":"aGk="}`, "INVALID_REQUEST"},
		{`{"operation":"produce","topic":"nope","value_b64":"aGk="}`, "UNKNOWN_TOPIC"},
		{`{"operation":"produce","topic":"events","partition":7,"value_b64":"aGk="}`, "UNKNOWN_PARTITION"},
	}
	produced := 0
	for i, x := range bad {
		got := c.call(x.req)
		if !strings.HasPrefix(got, `{"ok":false,"code":"`+x.code+`"`) {
			t.Fatalf("%s: %s, want %s", x.req, got, x.code)
		}
		if got := c.call(produceHello); !strings.HasPrefix(got, `{"ok":true`) {
			t.Fatalf("after bad input %d: %s", i, got)
		}
		produced++
		if got := other.call(produceHello); !strings.HasPrefix(got, `{"ok":true`) {
			t.Fatalf("other connection: %s", got)
		}
		produced++
	}
	c.write(strings.Repeat("{", 5000) + "\n")
	if got := c.readLine(); got != `{"ok":false,"code":"FRAME_TOO_LARGE","message":""}` {
		t.Fatal(got)
	}
	c.expectEOF()
	last := dialRaw(t, s)
	last.write(produceHello) // unterminated, then EOF
	_ = last.c.(interface{ CloseWrite() error }).CloseWrite()
	if got := last.readLine(); !strings.HasPrefix(got, `{"ok":true`) {
		t.Fatal(got)
	}
	produced++
	if got := other.call(produceHello); !strings.HasPrefix(got, `{"ok":true`) {
		t.Fatal(got)
	}
	produced++
	err := s.Direct(func(Backend) error {
		recs := b.records("events", 0)
		if len(recs) != produced {
			return kerr.State("%d records, want %d", len(recs), produced)
		}
		for i, r := range recs {
			if r.Offset != int64(i) || string(r.Value) != "hello" {
				return kerr.State("record %d = %+v", i, r)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// State errors and panics are answered, never a dropped connection (decision 24).
func TestServerAnswersStateErrorsAndPanics(t *testing.T) {
	b := newFake()
	var log logSink
	s := startServer(t, b, Options{Logf: log.logf})
	c := dialRaw(t, s)
	c.call(createEvents)
	_ = s.Direct(func(Backend) error { b.closed = true; return nil })
	if got := c.call(fetchEvents); got != `{"ok":false,"code":"ILLEGAL_STATE","message":"cluster is closed"}` {
		t.Fatal(got)
	}
	_ = s.Direct(func(Backend) error { b.closed = false; b.panicOn = "fetch"; return nil })
	if got := c.call(fetchEvents); got != `{"ok":false,"code":"INTERNAL","message":"panic during fetch: injected panic"}` {
		t.Fatal(got)
	}
	if got := c.call(`{"operation":"metadata","topic":"events"}`); !strings.HasPrefix(got, `{"ok":true`) {
		t.Fatalf("the connection must keep working: %s", got)
	}
	if !strings.Contains(log.String(), "internal error during fetch") {
		t.Fatalf("INTERNAL answers are logged; log: %q", log.String())
	}
	if err := s.Direct(func(Backend) error { panic("in direct") }); !errors.Is(err, kerr.Internal) {
		t.Fatalf("a panic in Direct: %v", err)
	}
}

// acks=all: the pump completes it; without a pump it times out with a typed
// error and the connection keeps working.
func TestServerAcksAll(t *testing.T) {
	t.Run("pumped", func(t *testing.T) {
		b := newFake()
		s := startServer(t, b, Options{ReplicateEvery: 2 * time.Millisecond})
		c := dialRaw(t, s)
		c.call(`{"operation":"create_topic","topic":"r","partitions":1,"replication_factor":3}`)
		if got := c.call(`{"operation":"produce","topic":"r","value_b64":"AA==","acks":"all"}`); got != `{"ok":true,"partition":0,"offset":0}` {
			t.Fatal(got)
		}
	})
	t.Run("timed out", func(t *testing.T) {
		b := newFake()
		s := startServer(t, b, Options{ReplicateEvery: -1, RequestTimeout: 50 * time.Millisecond})
		c := dialRaw(t, s)
		c.call(`{"operation":"create_topic","topic":"r","partitions":1,"replication_factor":3}`)
		start := time.Now()
		got := c.call(`{"operation":"produce","topic":"r","value_b64":"AA==","acks":"all"}`)
		if !strings.HasPrefix(got, `{"ok":false,"code":"REQUEST_TIMED_OUT","message":"acks=all was not acknowledged within 50ms`) {
			t.Fatal(got)
		}
		if d := time.Since(start); d < 50*time.Millisecond || d > 5*time.Second {
			t.Fatalf("answered after %v", d)
		}
		if got := c.call(`{"operation":"produce","topic":"r","value_b64":"AQ==","acks":"1"}`); got != `{"ok":true,"partition":0,"offset":1}` {
			t.Fatal(got)
		}
	})
}

// Close stops accepting, ends every connection (idle, mid-line, or waiting
// for acks=all) and joins every goroutine it started.
func TestServerCloseJoinsEverything(t *testing.T) {
	base := runtime.NumGoroutine()
	b := newFake()
	s, err := Listen(loopback, b, Options{ReplicateEvery: -1, RequestTimeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	idle := dialRaw(t, s)
	idle.call(`{"operation":"create_topic","topic":"r","partitions":1,"replication_factor":3}`)
	partial := dialRaw(t, s)
	partial.write(`{"operation":"metadata"`)
	waiting := dialRaw(t, s)
	waiting.write(`{"operation":"produce","topic":"r","value_b64":"AA==","acks":"all"}` + "\n")
	// Wait until the produce is registered (the record is in the log).
	for {
		n := 0
		_ = s.Direct(func(Backend) error { n = len(b.records("r", 0)); return nil })
		if n == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	for _, c := range []*rawConn{idle, partial, waiting} {
		c.expectEOF()
		_ = c.c.Close()
	}
	if err := s.Direct(func(Backend) error { return nil }); !errors.Is(err, ErrServerClosed) {
		t.Fatalf("Direct after Close: %v", err)
	}
	if _, err := dialContext(s.Addr().String()); err == nil {
		t.Fatal("the listener still accepts")
	}
	waitGoroutines(t, base)
}

func dialContext(addr string) (*Client, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return Dial(ctx, addr)
}

// The backend is only ever used by one goroutine: many connections hammering
// it would trip the fake's overlap guard (a panic answered INTERNAL) and the
// race detector.
func TestServerSerialisesBackend(t *testing.T) {
	b := newFake()
	s := startServer(t, b, Options{ReplicateEvery: time.Millisecond})
	dialRaw(t, s).call(`{"operation":"create_topic","topic":"events","partitions":3,"replication_factor":2}`)
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for range 16 {
		wg.Go(func() {
			c, err := dialContext(s.Addr().String())
			if err != nil {
				errs <- err.Error()
				return
			}
			defer c.Close()
			for j := range 100 {
				req := produceHello
				if j%3 == 0 {
					req = `{"operation":"produce","topic":"events","value_b64":"aGk=","acks":"all"}`
				}
				if j%5 == 0 {
					req = `{"operation":"metadata","topic":"events"}`
				}
				resp, err := c.Do(context.Background(), req)
				if err != nil || !strings.HasPrefix(resp, `{"ok":true`) {
					errs <- resp
					return
				}
			}
		})
	}
	for range 50 {
		if err := s.Direct(func(Backend) error { _, err := b.Metadata("events"); return err }); err != nil {
			t.Error(err)
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}
