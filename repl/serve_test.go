package repl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minikafka-lab/minikafka/adapters/jsontcp"
	"github.com/minikafka-lab/minikafka/engine/kerr"
)

var servingOn = regexp.MustCompile(`^serving JSON/TCP on (127\.0\.0\.1:\d+) \(max\.frame\.bytes=\d+\)\n$`)

// startServing runs serve start on s and returns the bound address.
func startServing(t *testing.T, s *Session, line string) string {
	t.Helper()
	out, err := run(t, s, line)
	if err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
	m := servingOn.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("%s printed %q", line, out)
	}
	return m[1]
}

func mustExec(t *testing.T, s *Session, lines ...string) string {
	t.Helper()
	var all strings.Builder
	for _, l := range lines {
		out, err := run(t, s, l)
		if err != nil {
			t.Fatalf("%s: %v\n%s", l, err, out)
		}
		all.WriteString(out)
	}
	return all.String()
}

// TestServeConcurrentClients: while the session serves, TCP clients
// produce and fetch over real loopback connections at the same time as the
// REPL runs commands (and completes words) on the same cluster. Run with
// -race: every call reaches the single-threaded cluster from the server's
// goroutine. At the end every record is in the log exactly once.
func TestServeConcurrentClients(t *testing.T) {
	s := newTestSession(t, Options{})
	mustExec(t, s, "cluster open brokers=1,2", "topic create events partitions=2 rf=2")
	addr := startServing(t, s, "serve start")

	const clients, perClient, replLines = 4, 25, 25
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c, err := jsontcp.Dial(ctx, addr)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			for j := 0; j < perClient; j++ {
				req := fmt.Sprintf(`{"operation":"produce","topic":"events","partition":%d,"value_b64":"eA=="}`, i%2)
				line, err := c.Do(ctx, req)
				if err == nil {
					err = jsontcp.CheckResponse(line)
				}
				if err == nil {
					line, err = c.Do(ctx, `{"operation":"fetch","topic":"events","partition":0,"offset":0}`)
				}
				if err == nil {
					err = jsontcp.CheckResponse(line)
				}
				if err != nil {
					errs <- fmt.Errorf("client %d request %d: %w", i, j, err)
					return
				}
			}
		}(i)
	}
	for j := 0; j < replLines; j++ {
		mustExec(t, s, "produce events value=r partition=1", "replicate", "offsets events-0")
		s.Complete("fetch ev")
		if j%5 == 0 {
			mustExec(t, s, `remote {"operation":"metadata","topic":"events"}`)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	mustExec(t, s, "replicate", "serve stop")
	total := clients*perClient + replLines
	var got int
	for _, tp := range []string{"events-0", "events-1"} {
		out := mustExec(t, s, "fetch "+tp+" max=1000")
		got += strings.Count(out, "value=")
	}
	if got != total {
		t.Errorf("the log holds %d records, want %d", got, total)
	}
}

// TestServeAcksAllAnswersAtOnce: on the manual clock an acks=all produce
// over TCP is answered at once with REQUEST_TIMED_OUT; the record is in the
// leader log, and replicate resolves its pending ack.
func TestServeAcksAllAnswersAtOnce(t *testing.T) {
	s := newTestSession(t, Options{})
	mustExec(t, s, "cluster open brokers=1,2", "topic create events rf=2")
	startServing(t, s, "serve start")
	start := time.Now()
	out, err := run(t, s, `remote {"operation":"produce","topic":"events","value_b64":"aGk=","acks":"all"}`)
	if !errors.Is(err, kerr.RequestTimedOut) || !strings.Contains(out, `"code":"REQUEST_TIMED_OUT"`) {
		t.Fatalf("acks=all over TCP: %v\n%s", err, out)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("acks=all took %v to answer; it must not wait", d)
	}
	if !strings.Contains(out, "offset 0 of events-0 is in the leader log") {
		t.Errorf("the answer does not say where the record is:\n%s", out)
	}
	mustExec(t, s, "check events-0 leo == 1", "check events-0 hw == 0", "check events-0 pending-acks == 1")
	out = mustExec(t, s, "replicate")
	if !strings.Contains(out, "ack #1 (produce) events-0 done: offset 0") {
		t.Errorf("replicate does not resolve the request's ack:\n%s", out)
	}
}

// TestServeFollowsTheSessionAndStopsOnClose: the server serves whatever
// cluster the session has (cluster open replaces it), and Close stops it.
func TestServeFollowsTheSessionAndStopsOnClose(t *testing.T) {
	s, err := NewSession(Options{})
	if err != nil {
		t.Fatal(err)
	}
	addr := startServing(t, s, "serve start max.frame.bytes=64")
	mustExec(t, s, "topic create a")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ask := func(req string) (string, error) {
		c, err := jsontcp.Dial(ctx, addr)
		if err != nil {
			return "", err
		}
		defer c.Close()
		return c.Do(ctx, req)
	}
	if line, err := ask(`{"operation":"metadata","topic":"a"}`); err != nil || jsontcp.CheckResponse(line) != nil {
		t.Fatalf("metadata of a: %q %v", line, err)
	}
	mustExec(t, s, "cluster open brokers=1")
	if line, _ := ask(`{"operation":"metadata","topic":"a"}`); !strings.Contains(line, "UNKNOWN_TOPIC") {
		t.Errorf("after cluster open the server still sees the old cluster: %q", line)
	}
	if line, _ := ask(`{"operation":"metadata","topic":"` + strings.Repeat("x", 64) + `"}`); !strings.Contains(line, "FRAME_TOO_LARGE") {
		t.Errorf("max.frame.bytes=64 is not applied: %q", line)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := ask(`{"operation":"metadata","topic":"a"}`); err == nil {
		t.Error("the server still answers after Session.Close")
	}
}

// TestRemoteSendsBytesVerbatim: remote sends the rest of the line exactly,
// so the frame limit counts the typed bytes plus the newline.
func TestRemoteSendsBytesVerbatim(t *testing.T) {
	s := newTestSession(t, Options{})
	mustExec(t, s, "cluster open brokers=1", "topic create events")
	req := `{"operation":"metadata","topic":"events"}` // 41 bytes, 42 with the newline
	startServing(t, s, "serve start max.frame.bytes=42")
	if out, err := run(t, s, "remote "+req); err != nil {
		t.Errorf("a 42-byte frame is refused at max.frame.bytes=42: %v\n%s", err, out)
	}
	spaced := strings.Replace(req, ",", ", ", 1) // one byte more: too large
	if _, err := run(t, s, "remote "+spaced); !errors.Is(err, kerr.FrameTooLarge) {
		t.Errorf("a 43-byte frame: %v, want FRAME_TOO_LARGE", err)
	}
	// Quotes, '#' and '=' are part of the text, never words or comments.
	if out, err := run(t, s, `remote {"operation":"metadata","topic":"#x='y"}`); !errors.Is(err, kerr.InvalidRequest) && !errors.Is(err, kerr.UnknownTopic) {
		t.Errorf("raw text was not sent as typed: %v\n%s", err, out)
	}
	var buf bytes.Buffer
	if err := s.Exec(&buf, "  remote\t"+req); err != nil {
		t.Errorf("blanks before the request: %v\n%s", err, buf.String())
	}
}
