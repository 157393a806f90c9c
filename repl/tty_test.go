//go:build unix

package repl

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// ttyHelperEnv makes the test binary run the interactive REPL on its
// terminal instead of the tests (see TestMain).
const ttyHelperEnv = "MINIKAFKA_REPL_TTY_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(ttyHelperEnv) == "1" {
		os.Exit(runTTYHelper())
	}
	os.Exit(m.Run())
}

// runTTYHelper is the interactive REPL exactly as `minikafka` starts it on a
// terminal: one session, the readline editor, the interactive loop.
func runTTYHelper() int {
	// The course commands read the repository's material (the test runs
	// in repl/), progress goes to $XDG_STATE_HOME, pictures fit the
	// terminal.
	opts := Options{Content: os.DirFS(".."), Width: TerminalWidth}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		opts.ProgressPath = filepath.Join(d, "minikafka", "progress")
	}
	s, err := NewSession(opts)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	defer s.Close()
	ed, err := NewReadlineEditor(EditorConfig{HistoryFile: HistoryPath(os.Getenv), Completer: s, Stdout: os.Stdout, Stderr: os.Stderr})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	defer ed.Close()
	return RunInteractive(s, ed, os.Stdout)
}

// terminal is a REPL process on a pseudo-terminal with its output collected.
type terminal struct {
	t    *testing.T
	ptmx *os.File
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{} // closed when the process has exited
	err  error         // its exit error, once done
	mark int           // output before mark has been matched already
}

func startTerminal(t *testing.T, stateDir string) *terminal {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), ttyHelperEnv+"=1", "XDG_STATE_HOME="+stateDir, "TERM=xterm", "NO_COLOR=1")
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	term := &terminal{t: t, ptmx: ptmx, cmd: cmd, done: make(chan struct{})}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			term.mu.Lock()
			term.out.Write(buf[:n])
			term.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() { term.err = cmd.Wait(); close(term.done) }()
	t.Cleanup(func() {
		// Leave cleanly if possible, so the session removes its temporary
		// directory; kill only a REPL that does not answer.
		_, _ = ptmx.Write([]byte("\x03\x04"))
		select {
		case <-term.done:
		case <-time.After(2 * time.Second):
			_ = cmd.Process.Kill()
		}
		ptmx.Close()
	})
	return term
}

// expect waits until s appears in the output after the last match.
func (term *terminal) expect(s string) {
	term.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		term.mu.Lock()
		all := term.out.String()
		term.mu.Unlock()
		if i := strings.Index(all[term.mark:], s); i >= 0 {
			term.mark += i + len(s)
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	term.mu.Lock()
	defer term.mu.Unlock()
	term.t.Fatalf("timed out waiting for %q; output after the last match:\n%q", s, term.out.String()[term.mark:])
}

func (term *terminal) send(keys string) {
	term.t.Helper()
	if _, err := term.ptmx.Write([]byte(keys)); err != nil {
		term.t.Fatal(err)
	}
}

// TestTerminal drives the interactive REPL through a real pseudo-terminal:
// typing a command, tab-completing a command name and a live topic name,
// the clock in the prompt, recalling history with the up arrow and Ctrl-R, Ctrl-C
// cancelling a line, and Ctrl-D exiting cleanly with the history saved.
func TestTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process on a pseudo-terminal")
	}
	t.Parallel()
	state := t.TempDir()
	start := time.Now()
	term := startTerminal(t, state)
	term.expect("Type help, or Ctrl-D to leave.")
	term.expect("mk> ")
	t.Logf("first prompt %v after the process started", time.Since(start))

	// Type a command.
	term.send("help exit\r")
	term.expect("exit: leave the REPL")
	term.expect("mk> ")
	term.send("clock\r")
	term.expect("clock: 0 ms")
	term.expect("mk> ")

	// Tab completes a command name: "hist<TAB>" becomes "history ".
	// history lists what inspected or changed the cluster (not help).
	term.send("hist\t")
	term.expect("history ")
	term.send("\r")
	term.expect("   1  clock\r\n")
	term.expect("mk> ")

	// The up arrow recalls the previous line (the editor's history),
	// Enter runs it.
	term.send("\x1b[A")
	term.expect("history")
	term.send("\r")
	term.expect("   1  clock\r\n")
	term.expect("mk> ")

	// Ctrl-R searches the history backwards; Enter runs the match.
	term.send("\x12help")
	term.expect("help exit")
	term.send("\r")
	term.expect("exit: leave the REPL")
	term.expect("mk> ")

	// Tab completes a live topic name.
	term.send("topic create orders partitions=2\r")
	term.expect("Created topic orders.")
	term.expect("mk> ")
	term.send("topic describe or\t")
	term.expect("orders ")
	term.send("\r")
	term.expect("Topic: orders\tPartitionCount: 2")
	term.expect("mk> ")

	// The prompt shows the manual clock once it has moved.
	term.send("clock advance 1500ms\r")
	term.expect("mk[1500ms]> ")

	// Ctrl-C cancels the line being typed.
	term.send("garbage-line\x03")
	term.expect("^C")
	term.expect("mk[1500ms]> ")

	// Ctrl-D on an empty line leaves cleanly.
	term.send("\x04")
	select {
	case <-term.done:
		if term.err != nil {
			t.Fatalf("the REPL did not exit cleanly: %v", term.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Ctrl-D did not end the REPL")
	}
	term.mu.Lock()
	out := term.out.String()
	term.mu.Unlock()
	if strings.Contains(out, "garbage-line\r\n") && strings.Contains(out, "unknown command \"garbage-line\"") {
		t.Error("Ctrl-C must cancel the line, not run it")
	}
	hist, err := os.ReadFile(filepath.Join(state, "minikafka", "history"))
	if err != nil || !strings.Contains(string(hist), "help exit\n") || !strings.Contains(string(hist), "\nhistory") {
		t.Errorf("persistent history: %q, %v", hist, err)
	}
}
