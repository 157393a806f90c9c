package repl

import (
	"bufio"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// foreignListener is a local service that is not the session's: it
// records every line it receives.
func foreignListener(t *testing.T) (addr string, got chan string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got = make(chan string, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				got <- "connected"
				if line, err := bufio.NewReader(c).ReadString('\n'); err == nil {
					got <- line
				}
			}()
		}
	}()
	return ln.Addr().String(), got
}

// TestSandboxConfinesDirectories: a sandboxed session opens data
// directories only inside its temporary root (relative paths that stay
// inside it); absolute paths and paths that climb out are refused before
// anything is created, and the root is gone after Close.
func TestSandboxConfinesDirectories(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "escaped")
	s, err := NewSession(Options{Sandboxed: true})
	if err != nil {
		t.Fatal(err)
	}
	root := s.sandbox.root
	for _, dir := range []string{outside, "../escaped", "a/../../escaped", ".."} {
		out, err := run(t, s, "cluster open dir="+dir)
		if !errors.Is(err, kerr.InvalidArgument) || !strings.Contains(out, "--trust") {
			t.Errorf("dir=%s: %v\n%s", dir, err, out)
		}
	}
	if _, err := os.Stat(outside); !os.IsNotExist(err) {
		t.Fatalf("a refused dir= was created: %v", err)
	}
	for _, l := range []string{"cluster open dir=mydata brokers=1", "topic create t rf=1", "produce t value=x acks=1", "cluster restart"} {
		if out, err := run(t, s, l); err != nil {
			t.Fatalf("%s: %v\n%s", l, err, out)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "mydata", "metadata.json")); err != nil {
		t.Fatalf("dir=mydata is not inside the sandbox: %v", err)
	}
	if out, _ := run(t, s, "fetch t-0"); !strings.Contains(out, "x") {
		t.Fatalf("after the restart: %s", out)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Fatalf("the sandbox root outlived the session: %v", err)
	}
}

// TestSandboxConfinesNetwork: a sandboxed session sends nothing to a local
// service that is not its own server and serves only on a port the system
// chooses; its own server works as usual. Without the sandbox the same
// line reaches the service.
func TestSandboxConfinesNetwork(t *testing.T) {
	addr, got := foreignListener(t)
	s := newTestSession(t, Options{Sandboxed: true})
	out, err := run(t, s, "remote "+addr+" SET pwned 1")
	if !errors.Is(err, kerr.InvalidArgument) || !strings.Contains(out, "its own server") {
		t.Fatalf("remote to a foreign service: %v\n%s", err, out)
	}
	if out, err := run(t, s, "serve start listen=127.0.0.1:9093"); !errors.Is(err, kerr.InvalidArgument) {
		t.Fatalf("serve start on a fixed port: %v\n%s", err, out)
	}
	if out, err := run(t, s, "kafka listen 127.0.0.1:9092"); !errors.Is(err, kerr.InvalidArgument) {
		t.Fatalf("kafka listen on a fixed port: %v\n%s", err, out)
	}
	if out, err := run(t, s, "kclient produce events value=x bootstrap="+addr); !errors.Is(err, kerr.InvalidArgument) || !strings.Contains(out, "own Kafka listener") {
		t.Fatalf("kclient to a foreign address: %v\n%s", err, out)
	}
	if out, err := run(t, s, "serve start"); err != nil {
		t.Fatalf("serve start: %v\n%s", err, out)
	}
	if out, err := run(t, s, `remote {"operation":"metadata","topic":"none"}`); !strings.Contains(out, "UNKNOWN_TOPIC") {
		t.Fatalf("remote to its own server: %v\n%s", err, out)
	}
	own := s.server.addr
	if out, _ := run(t, s, "remote "+own+` {"operation":"metadata","topic":"none"}`); !strings.Contains(out, "UNKNOWN_TOPIC") {
		t.Fatalf("remote naming its own server: %s", out)
	}
	select {
	case line := <-got:
		t.Fatalf("the foreign service got %q", line)
	case <-time.After(100 * time.Millisecond):
	}

	free := newTestSession(t, Options{})
	_, _ = run(t, free, "remote "+addr+" SET pwned 1")
	deadline := time.After(5 * time.Second)
	for {
		select {
		case line := <-got:
			if line == "SET pwned 1\n" {
				return
			}
		case <-deadline:
			t.Fatal("without the sandbox the line did not reach the service (the test proves nothing)")
		}
	}
}
