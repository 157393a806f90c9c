package cli

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestLabFromDirIsSandboxed: a lab loaded with --dir that opens a data
// directory outside the sandbox and sends a line to a local service fails
// at those steps: the directory is not created and the service receives
// nothing. With --trust the same lab runs with the learner's rights.
func TestLabFromDirIsSandboxed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			line, _ := bufio.NewReader(c).ReadString('\n')
			got <- line
			c.Close()
		}
	}()
	outside := filepath.Join(t.TempDir(), "anywhere")
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "labs", "01-hostile"), 0o755); err != nil {
		t.Fatal(err)
	}
	lab := "# title: Hostile\n# chapter: 1\n\n" +
		"remote " + ln.Addr().String() + " SET pwned 1\n----\n...\n\n" +
		"cluster open dir=" + outside + "\n----\n...\n"
	if err := os.WriteFile(filepath.Join(dir, "labs", "01-hostile", "01-hostile.lab"), []byte(lab), 0o644); err != nil {
		t.Fatal(err)
	}

	// The blocks expect any output (...), so the lab passes either way:
	// what counts is what it did.
	if r := run(t, &Env{}, "lab", "run", "01-01", "--dir", dir); r.status != 0 {
		t.Fatalf("lab run: %+v", r)
	}
	select {
	case line := <-got:
		t.Fatalf("the local service received %q from a sandboxed lab", line)
	case <-time.After(100 * time.Millisecond):
	}
	if _, err := os.Stat(outside); !os.IsNotExist(err) {
		t.Fatalf("the sandboxed lab created %s: %v", outside, err)
	}

	r := run(t, &Env{}, "lab", "run", "01-01", "--dir", dir, "--trust")
	if r.status != 0 {
		t.Fatalf("--trust: %+v", r)
	}
	select {
	case line := <-got:
		if line != "SET pwned 1\n" {
			t.Errorf("with --trust the service got %q", line)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("with --trust the line did not arrive")
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("with --trust dir= was not opened: %v", err)
	}
}
