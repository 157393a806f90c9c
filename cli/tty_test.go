//go:build unix

package cli

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// cliHelperEnv makes the test binary run the command line (Main, as
// main.go runs it) on the arguments after "--" instead of the tests.
const cliHelperEnv = "MINIKAFKA_CLI_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(cliHelperEnv) == "1" {
		args := os.Args
		for i, a := range args {
			if a == "--" {
				args = args[i+1:]
				break
			}
		}
		os.Exit(Main(DefaultEnv(nil), args))
	}
	code := m.Run()
	if builtBinary.dir != "" {
		os.RemoveAll(builtBinary.dir)
	}
	os.Exit(code)
}

// ptyProcess is the command line on a pseudo-terminal, its output kept.
type ptyProcess struct {
	t    *testing.T
	ptmx *os.File
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	mark int
	done chan struct{}
	err  error
}

func startOnPTY(t *testing.T, args ...string) *ptyProcess {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), cliHelperEnv+"=1", "XDG_STATE_HOME="+t.TempDir(), "TERM=xterm", "NO_COLOR=1")
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 160})
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	p := &ptyProcess{t: t, ptmx: ptmx, cmd: cmd, done: make(chan struct{})}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			p.mu.Lock()
			p.out.Write(buf[:n])
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() { p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
		}
		ptmx.Close()
	})
	return p
}

func (p *ptyProcess) expect(s string) {
	p.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		p.mu.Lock()
		all := p.out.String()
		p.mu.Unlock()
		if i := strings.Index(all[p.mark:], s); i >= 0 {
			p.mark += i + len(s)
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.t.Fatalf("timed out waiting for %q; output after the last match:\n%q", s, p.out.String()[p.mark:])
}

func (p *ptyProcess) send(keys string) {
	p.t.Helper()
	if _, err := p.ptmx.Write([]byte(keys)); err != nil {
		p.t.Fatal(err)
	}
}

// TestInteractiveCtrlCInterruptsTheCommand: Ctrl-C while a command runs in
// the interactive REPL (a remote request to a server that never answers)
// interrupts that command; the session goes on, and after Ctrl-D the data
// directory reopens cleanly with every acknowledged record.
func TestInteractiveCtrlCInterruptsTheCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process on a pseudo-terminal")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			accepted <- c // hold it open, never answer
		}
	}()
	dir := t.TempDir()
	p := startOnPTY(t, "repl", "--data", dir, "--brokers", "1")
	p.expect("mk> ")
	p.send("topic create orders partitions=1 rf=1\r")
	p.expect("Created topic orders.")
	for i := 0; i < 5; i++ {
		p.send("produce orders value=v acks=1\r")
		p.expect("(acks=1)")
	}
	p.send(`remote ` + ln.Addr().String() + ` {"operation":"metadata","topic":"orders"}` + "\r")
	select {
	case c := <-accepted:
		defer c.Close()
	case <-time.After(10 * time.Second):
		t.Fatal("remote did not connect")
	}
	time.Sleep(50 * time.Millisecond) // the request is waiting for its answer
	p.send("\x03")
	p.expect("interrupted while waiting for an answer")
	p.expect("mk> ")
	p.send("produce orders value=after acks=1\r")
	p.expect("orders-0@5 (acks=1)")
	p.send("\x04")
	select {
	case <-p.done:
		if p.err != nil {
			t.Fatalf("the REPL did not exit cleanly: %v", p.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Ctrl-D did not end the REPL")
	}
	got := reopenClean(t, dir, []int32{1})
	if len(got) != 6 || got[5] != "after" {
		t.Fatalf("after the reopen: %v", got)
	}
}

// TestInteractiveSIGTERMClosesGracefully: SIGTERM while the interactive
// REPL waits for a line closes the line editor and the cluster gracefully.
func TestInteractiveSIGTERMClosesGracefully(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process on a pseudo-terminal")
	}
	dir := t.TempDir()
	p := startOnPTY(t, "repl", "--data", dir, "--brokers", "1")
	p.expect("mk> ")
	p.send("topic create orders partitions=1 rf=1\r")
	p.expect("Created topic orders.")
	p.send("produce orders value=v acks=1\r")
	p.expect("(acks=1)")
	p.expect("mk> ")
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		t.Fatal("SIGTERM did not end the REPL")
	}
	p.expect("the cluster was closed gracefully")
	if got := reopenClean(t, dir, []int32{1}); len(got) != 1 {
		t.Fatalf("after the reopen: %v", got)
	}
}
