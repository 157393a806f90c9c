package repl

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"
)

// Prompt is the interactive prompt: "mk> ", or "mk[1500ms]> " once the
// manual clock has moved.
func (s *Session) Prompt() string {
	if now := s.nowMs(); now != 0 {
		return fmt.Sprintf("mk[%dms]> ", now)
	}
	return "mk> "
}

// RunInteractive reads commands from the line editor until Ctrl-D or exit.
// Ctrl-C cancels the line being typed. Failed commands do not end the
// session. It returns the process exit status (0).
func RunInteractive(s *Session, ed LineEditor, out io.Writer) int {
	fmt.Fprintf(out, "MiniKafka Lab: %s. Type help, or Ctrl-D to leave.\n", s.describeStart())
	if len(s.opened.Replicas) > 0 { // --data of an existing cluster: say what recovery did
		_ = newClusterOpened(s, "open", s.opened).writeText(out, s.st)
		s.writeEvents(out, s.takeEvents())
	}
	for !s.Exited() {
		stop := s.printWhileIdle(ed)
		line, err := ed.ReadLine(s.Prompt())
		stop()
		if errors.Is(err, ErrInterrupt) {
			continue
		}
		if err != nil { // io.EOF: Ctrl-D
			break
		}
		_ = s.Exec(out, line) // errors are printed; the session goes on
	}
	return 0
}

// idlePoll is how often the REPL looks for events of real clients while
// it waits for a line.
const idlePoll = 250 * time.Millisecond

// printWhileIdle prints, while the learner has not typed a command yet,
// what real clients did meanwhile (the Kafka listener's event lines and
// the engine events their requests caused), above the prompt. It runs only
// while this session listens and the editor can print during a read; the
// returned stop waits for it to end, so that no command runs concurrently.
func (s *Session) printWhileIdle(ed LineEditor) (stop func()) {
	lp, ok := ed.(livePrinter)
	if !ok || s.kafka == nil || s.format != FormatText {
		return func() {}
	}
	k := s.kafka
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(idlePoll)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			var events []event
			if k.srv.Direct(func() error { events = s.takeEvents(); return nil }) != nil {
				return
			}
			if len(events) > 0 {
				var b strings.Builder
				s.writeEvents(&b, events)
				lp.Print(b.String())
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// ScriptOptions configure RunScript.
type ScriptOptions struct {
	// KeepGoing runs the remaining commands after a failure (the exit status
	// is still 1).
	KeepGoing bool
}

// RunScript runs commands read from in (a pipe or a file): no prompt, no
// editing, no colour; each command is echoed as "> cmd" before its output.
// Blank lines and comments are skipped silently. With --format json there
// is no echo: every line of output is one JSON object that names its command. It stops at the first
// failed command unless KeepGoing, and returns the exit status: 1 if any
// command failed, else 0.
func RunScript(s *Session, in io.Reader, out io.Writer, opts ScriptOptions) int {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	status := 0
	for sc.Scan() {
		line := sc.Text()
		if words, err := Split(line); err == nil && len(words) == 0 {
			continue
		}
		if s.format == FormatText {
			fmt.Fprintf(out, "> %s\n", strings.TrimSpace(line))
		}
		if err := s.Exec(out, line); err != nil {
			status = 1
			if !opts.KeepGoing {
				return status
			}
		}
		if s.Exited() {
			return status
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(out, "error: INTERNAL: reading commands: %v\n", err)
		return 1
	}
	return status
}

// HistoryPath is where the interactive history is kept:
// $XDG_STATE_HOME/minikafka/history, else ~/.minikafka_history; "" when
// neither is known.
func HistoryPath(getenv func(string) string) string {
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "minikafka", "history")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".minikafka_history")
	}
	return ""
}
