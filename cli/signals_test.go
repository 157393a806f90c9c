package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// reopenClean opens dir on brokers and requires a clean-shutdown marker on
// every replica; it returns the values of orders-0 up to its LEO.
func reopenClean(t *testing.T, dir string, brokers []int32) []string {
	t.Helper()
	cfg := engine.DefaultConfig(dir)
	cfg.BrokerIDs = brokers
	c, report, err := engine.Open(cfg, clock.NewManual(0))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, r := range report.Replicas {
		if !r.Report.CleanShutdown {
			t.Errorf("%s on broker %d reopened without a clean-shutdown marker", r.TP, r.Broker)
		}
	}
	recs, err := c.Fetch(topic.Partition{Topic: "orders"}, 0, 1<<20, engine.ReadUncommitted)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range recs {
		out = append(out, string(r.Value))
	}
	return out
}

// TestReplScriptStopsGracefullyOnSignal: a script session (commands piped
// in, the pipe kept open) that gets SIGINT, SIGTERM, SIGHUP or SIGPIPE
// closes its cluster gracefully and exits with 128+signal: the reopen
// finds a clean-shutdown marker on every replica and every acknowledged
// record.
func TestReplScriptStopsGracefullyOnSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			inR, inW := io.Pipe()
			defer inW.Close()
			out, errOut := &syncBuffer{}, &syncBuffer{}
			env := &Env{Stdin: inR, Stdout: out, Stderr: errOut, Getenv: func(string) string { return "" }}
			status := make(chan int, 1)
			go func() { status <- Main(env, []string{"repl", "--data", dir, "--brokers", "1,2"}) }()
			fmt.Fprintln(inW, "topic create orders partitions=1 rf=1")
			const n = 20
			for i := 0; i < n; i++ {
				fmt.Fprintf(inW, "produce orders value=v%d acks=1\n", i)
			}
			deadline := time.Now().Add(10 * time.Second)
			for !strings.Contains(out.String(), fmt.Sprintf("orders-0@%d (acks=1)", n-1)) {
				if time.Now().After(deadline) {
					t.Fatalf("the records were not acknowledged:\n%s%s", out, errOut)
				}
				time.Sleep(2 * time.Millisecond)
			}
			if err := syscall.Kill(os.Getpid(), sig); err != nil {
				t.Fatal(err)
			}
			select {
			case code := <-status:
				if code != 128+int(sig) {
					t.Errorf("exit %d, want %d\n%s", code, 128+int(sig), errOut)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the session did not stop")
			}
			if !strings.Contains(errOut.String(), "the cluster was closed gracefully") {
				t.Errorf("stderr: %s", errOut)
			}
			got := reopenClean(t, dir, []int32{1, 2})
			if len(got) != n || got[0] != "v0" || got[n-1] != fmt.Sprintf("v%d", n-1) {
				t.Errorf("after the reopen: %v", got)
			}
		})
	}
}

// TestReplScriptStopsWhenOutputGoesAway: when the reader of the output
// goes away (`minikafka repl < s.mk | head -3`), the next write fails and
// the session closes gracefully instead of dying with unsynced data.
func TestReplScriptStopsWhenOutputGoesAway(t *testing.T) {
	dir := t.TempDir()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outW.Close()
	inR, inW := io.Pipe()
	defer inW.Close()
	errOut := &syncBuffer{}
	env := &Env{Stdin: inR, Stdout: outW, Stderr: errOut, Getenv: func(string) string { return "" }}
	status := make(chan int, 1)
	go func() { status <- Main(env, []string{"repl", "--data", dir, "--brokers", "1"}) }()
	go func() {
		fmt.Fprintln(inW, "topic create orders partitions=1 rf=1")
		for i := 0; ; i++ {
			if _, err := fmt.Fprintf(inW, "produce orders value=v%d acks=1\n", i); err != nil {
				return
			}
		}
	}()
	r := bufio.NewReader(outR)
	for i := 0; i < 3; i++ { // head -3
		if _, err := r.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
	}
	outR.Close()
	select {
	case code := <-status:
		if code == 0 {
			t.Errorf("exit 0 after the output went away")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the session did not stop when its output went away")
	}
	inR.Close()
	if !strings.Contains(errOut.String(), "the cluster was closed gracefully") {
		t.Errorf("stderr: %s", errOut)
	}
	if got := reopenClean(t, dir, []int32{1}); len(got) < 1 {
		t.Errorf("after the reopen: %d records", len(got))
	}
}
