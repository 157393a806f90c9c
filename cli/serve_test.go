package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/minikafka-lab/minikafka/adapters/jsontcp"
	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// syncBuffer is a bytes.Buffer safe for the server's goroutines and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServe runs `minikafka serve` through Main on 127.0.0.1:0 and returns
// the printed address and a channel with the exit status. stop, when set,
// replaces the signal context.
func startServe(t *testing.T, stop context.Context, args ...string) (addr string, out, errOut *syncBuffer, status chan int) {
	t.Helper()
	if stop != nil {
		saved := serveSignalContext
		serveSignalContext = func() (context.Context, context.CancelFunc) { return stop, func() {} }
		t.Cleanup(func() { serveSignalContext = saved })
	}
	out, errOut = &syncBuffer{}, &syncBuffer{}
	env := &Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: errOut, Getenv: func(string) string { return "" }}
	status = make(chan int, 1)
	go func() { status <- Main(env, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		for _, line := range strings.Split(out.String(), "\n") {
			if a, ok := strings.CutPrefix(line, "listening on "); ok {
				return a, out, errOut, status
			}
		}
		select {
		case code := <-status:
			t.Fatalf("serve exited with %d before listening:\n%s%s", code, out, errOut)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not print its address:\n%s%s", out, errOut)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func do(t *testing.T, c *jsontcp.Client, req string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := c.Do(ctx, req)
	if err != nil {
		t.Fatalf("%s: %v", req, err)
	}
	return resp
}

func waitStatus(t *testing.T, status chan int) int {
	t.Helper()
	select {
	case code := <-status:
		return code
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop")
		return -1
	}
}

// serve through Main: requests over loopback (acks=all completes because the
// server replicates on a timer), then a context cancel (what SIGTERM does)
// closes the cluster cleanly: the data dir reopens with a clean-shutdown
// marker on every replica and no recovery truncation.
func TestServeCommandServesAndShutsDownCleanly(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, out, errOut, status := startServe(t, ctx, "--data", dir, "--brokers", "1,2,3", "--replicate-every", "2ms")
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("address %q", addr)
	}
	dialCtx, dialCancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer dialCancel()
	c, err := jsontcp.Dial(dialCtx, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, step := range []struct{ req, resp string }{
		{`{"operation":"create_topic","topic":"events","partitions":1,"replication_factor":3}`, `{"ok":true,"topic":"events"}`},
		{`{"operation":"produce","topic":"events","value_b64":"aGVsbG8=","acks":"all"}`, `{"ok":true,"partition":0,"offset":0}`},
		{`{"operation":"fetch","topic":"events","partition":0,"offset":0}`, `{"ok":true,"records":[{"offset":0,"key_b64":null,"value_b64":"aGVsbG8="}]}`},
	} {
		if got := do(t, c, step.req); got != step.resp {
			t.Fatalf("%s\n got %s\nwant %s", step.req, got, step.resp)
		}
	}
	cancel()
	if code := waitStatus(t, status); code != 0 {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out.String(), "cluster closed cleanly") || errOut.String() != "" {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", out, errOut)
	}

	cfg := engine.DefaultConfig(dir)
	cfg.BrokerIDs = []int32{1, 2, 3}
	cluster, report, err := engine.Open(cfg, clock.NewManual(0))
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	if len(report.Replicas) != 3 {
		t.Fatalf("%d replicas reopened, want 3", len(report.Replicas))
	}
	for _, r := range report.Replicas {
		if !r.Report.CleanShutdown || r.Report.Truncation != nil {
			t.Fatalf("%s on broker %d: clean %v, truncation %+v", r.TP, r.Broker, r.Report.CleanShutdown, r.Report.Truncation)
		}
	}
	recs, err := cluster.Fetch(topic.Partition{Topic: "events"}, 0, 10, engine.ReadUncommitted)
	if err != nil || len(recs) != 1 || string(recs[0].Value) != "hello" {
		t.Fatalf("after reopen: %+v, %v", recs, err)
	}
}

// A real SIGTERM stops the server the same way (the signal is caught: the
// test process survives it).
func TestServeCommandStopsOnSIGTERM(t *testing.T) {
	addr, out, errOut, status := startServe(t, nil)
	dialCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := jsontcp.Dial(dialCtx, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := do(t, c, `{"operation":"metadata","topic":"missing"}`); got != `{"ok":false,"code":"UNKNOWN_TOPIC","message":"missing"}` {
		t.Fatal(got)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := waitStatus(t, status); code != 0 {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
	// Without --data the directory was temporary and is gone.
	var temp string
	for _, line := range strings.Split(out.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "data dir "); ok {
			temp, _, _ = strings.Cut(rest, " ")
		}
	}
	if temp == "" || !strings.HasPrefix(filepath.Base(temp), "minikafka-serve-") {
		t.Fatalf("no temporary data dir printed:\n%s", out)
	}
	if _, err := os.Stat(temp); !os.IsNotExist(err) {
		t.Fatalf("temporary data dir %s still exists: %v", temp, err)
	}
}

// SIGINT, SIGHUP and SIGPIPE stop the server as SIGTERM does: the cluster
// closes cleanly (every replica reopens with a clean-shutdown marker).
func TestServeCommandStopsOnEveryShutdownSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGHUP, syscall.SIGPIPE} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			addr, out, errOut, status := startServe(t, nil, "--data", dir, "--brokers", "1,2")
			dialCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			c, err := jsontcp.Dial(dialCtx, addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			do(t, c, `{"operation":"create_topic","topic":"events","partitions":1,"replication_factor":2}`)
			do(t, c, `{"operation":"produce","topic":"events","value_b64":"aGVsbG8=","acks":"1"}`)
			if err := syscall.Kill(os.Getpid(), sig); err != nil {
				t.Fatal(err)
			}
			if code := waitStatus(t, status); code != 0 || !strings.Contains(out.String(), "cluster closed cleanly") {
				t.Fatalf("exit %d:\n%s%s", code, out, errOut)
			}
			cfg := engine.DefaultConfig(dir)
			cfg.BrokerIDs = []int32{1, 2}
			cluster, report, err := engine.Open(cfg, clock.NewManual(0))
			if err != nil {
				t.Fatal(err)
			}
			defer cluster.Close()
			for _, r := range report.Replicas {
				if !r.Report.CleanShutdown {
					t.Errorf("%s on broker %d reopened without a clean-shutdown marker", r.TP, r.Broker)
				}
			}
		})
	}
}

// serve --listen refuses an address other machines can reach unless
// --allow-remote, as the REPL's serve start does.
func TestServeListenLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:9093", "example.com:9093"} {
		var out, errOut bytes.Buffer
		env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }}
		if code := Main(env, []string{"serve", "--data", t.TempDir(), "--listen", addr}); code != 2 {
			t.Errorf("%s: exit %d, want 2 (%s)", addr, code, errOut.String())
		}
		if !strings.Contains(errOut.String(), "not a loopback address") || !strings.Contains(errOut.String(), "--allow-remote") {
			t.Errorf("%s: stderr %q", addr, errOut.String())
		}
		if out.Len() != 0 {
			t.Errorf("%s: something ran: %s", addr, out.String())
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "127.0.0.2:9093", "[::1]:0", "localhost:0"} {
		if err := checkLoopback("--listen", addr, false); err != nil {
			t.Errorf("%s: %v", addr, err)
		}
	}
	if err := checkLoopback("--listen", "0.0.0.0:0", true); err != nil {
		t.Errorf("--allow-remote: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	saved := serveSignalContext
	serveSignalContext = func() (context.Context, context.CancelFunc) { return ctx, func() {} }
	defer func() { serveSignalContext = saved }()
	out, errOut := &syncBuffer{}, &syncBuffer{}
	env := &Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: errOut, Getenv: func(string) string { return "" }}
	status := make(chan int, 1)
	go func() { status <- Main(env, []string{"serve", "--listen", "0.0.0.0:0", "--allow-remote"}) }()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "listening on ") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if code := waitStatus(t, status); code != 0 || !strings.Contains(out.String(), "listening on ") || !strings.Contains(errOut.String(), "warning") {
		t.Fatalf("--allow-remote: exit %d\n%s%s", code, out, errOut)
	}
}

func TestServeCommandRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--max-frame-bytes", "0"},
		{"--max-frame-bytes", "9223372036854775807"},
		{"--request-timeout", "0s"},
		{"--replicate-every", "-1ms"},
		{"--brokers", "1,x"},
		{"--set", "nonsense"},
		{"--set", "segment.bytes=-5"},
		{"extra"},
	} {
		var out, errOut bytes.Buffer
		env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }}
		if code := Main(env, append([]string{"serve", "--data", t.TempDir()}, args...)); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errOut.String())
		}
		if !strings.Contains(errOut.String(), "serve") {
			t.Errorf("%v: stderr %q does not name the command", args, errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }}
	if code := Main(env, []string{"serve", "--data", t.TempDir(), "--listen", "127.0.0.1:notaport"}); code != 1 {
		t.Errorf("bad listen address: exit %d, want 1 (%s)", code, errOut.String())
	}
}
