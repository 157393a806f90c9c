package jsontcp

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

func TestClientDoRoundTrips(t *testing.T) {
	s := startServer(t, newFake(), Options{MaxFrameBytes: 300})
	c, err := dialContext(s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	for _, step := range []struct{ req, resp string }{
		{createEvents + "\n", `{"ok":true,"topic":"events"}`},
		{produceHello + "\r\n", `{"ok":true,"partition":0,"offset":0}`},
		{`{"operation":"metadata","topic":"missing"}`, `{"ok":false,"code":"UNKNOWN_TOPIC","message":"missing"}`},
	} {
		got, err := c.Do(ctx, step.req)
		if err != nil || got != step.resp {
			t.Fatalf("%s: %s, %v", step.req, got, err)
		}
	}
	if _, err := c.Do(ctx, "{}\n{}"); !errors.Is(err, kerr.InvalidArgument) {
		t.Fatalf("two lines: %v", err)
	}
	// A frame error answers, then the server hangs up: the next Do fails.
	got, err := c.Do(ctx, `{"operation":"metadata","topic":"`+string(make([]byte, 400))+`"}`)
	if err != nil || got != `{"ok":false,"code":"FRAME_TOO_LARGE","message":""}` {
		t.Fatalf("oversized: %s, %v", got, err)
	}
	if _, err := c.Do(ctx, `{"operation":"metadata","topic":"events"}`); !errors.Is(err, io.ErrUnexpectedEOF) && err == nil {
		t.Fatalf("after hang-up: %v", err)
	}
	if _, err := c.Do(ctx, `{"operation":"metadata","topic":"events"}`); !errors.Is(err, kerr.IllegalState) {
		t.Fatalf("a broken client refuses: %v", err)
	}
}

func TestClientDoHonoursContext(t *testing.T) {
	b := newFake()
	s := startServer(t, b, Options{ReplicateEvery: -1, RequestTimeout: time.Hour})
	c, err := dialContext(s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Do(context.Background(), `{"operation":"create_topic","topic":"r","partitions":1,"replication_factor":3}`); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = c.Do(ctx, `{"operation":"produce","topic":"r","value_b64":"AA==","acks":"all"}`)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want deadline exceeded", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	if _, err := Dial(ctx, s.Addr().String()); err == nil {
		t.Fatal("Dial with a cancelled context succeeded")
	}
}
