package repl

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// Prompt is the interactive prompt: "mk> ", or "mk[1500ms]> " once the
// manual clock has moved.
func (s *Session) Prompt() string {
	if now := s.nowMs(); now != 0 {
		return fmt.Sprintf("mk[%dms]> ", now)
	}
	return "mk> "
}

// RunInteractive reads commands from the line editor until Ctrl-D, exit or
// Stop (the caller closes the editor to end a read that is waiting).
// Ctrl-C cancels the line being typed; Interrupt, which the command line
// calls for a Ctrl-C while a command runs, ends that command only. Failed
// commands do not end the session. It returns the process exit status (0).
func RunInteractive(s *Session, ed LineEditor, out io.Writer) int {
	fmt.Fprintf(out, "MiniKafka Lab: %s. Type help, or Ctrl-D to leave.\n", s.describeStart())
	if s.opts.Content != nil {
		fmt.Fprintln(out, "New here? `read 1` starts the course; `progress` shows where you are and what comes next.")
	}
	if len(s.opened.Replicas) > 0 || s.opened.Coordination.Journal.Exists { // --data of an existing cluster: say what recovery did
		_ = newClusterOpened(s, "open", s.opened).writeText(out, s.st)
		s.writeEvents(out, s.takeEvents())
	}
	s.input = ed
	defer func() { s.input = nil }()
	for _, line := range s.opts.Startup {
		fmt.Fprintf(out, "%s%s\n", s.Prompt(), line)
		_ = s.Exec(out, line)
	}
	for !s.Exited() && !s.Stopped() {
		stop := s.printWhileIdle(ed)
		line, err := ed.ReadLine(s.Prompt())
		stop()
		if errors.Is(err, ErrInterrupt) {
			continue
		}
		if err != nil { // io.EOF: Ctrl-D, or the editor closed by Stop's caller
			break
		}
		if s.Stopped() {
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

// MaxLineBytes is the longest command line a script may hold (64 MiB, room
// for a hex-encoded value at the 16 MiB batch limit). A longer line is one
// failed command (INVALID_ARGUMENT); it is skipped without being held in
// memory, and --keep-going goes on with the next line.
const MaxLineBytes = 64 << 20

// RunScript runs commands read from in (a pipe or a file): no prompt, no
// editing, no colour; each command is echoed as "> cmd" before its output.
// Blank lines and comments are skipped silently. With --format json there
// is no echo: every line of output is one JSON object that names its command. It stops at the first
// failed command unless KeepGoing, and after the command that is running
// when Stop is called (a read error after Stop ends it quietly). It
// returns the exit status: 1 if any command failed, else 0.
func RunScript(s *Session, in io.Reader, out io.Writer, opts ScriptOptions) int {
	lr := &scriptReader{r: bufio.NewReaderSize(in, 64<<10), max: MaxLineBytes}
	// A command that reads lines itself (lab step, quiz) reads the
	// script's next ones.
	if s.format == FormatText {
		s.input = &scriptSource{lr: lr, out: out}
		defer func() { s.input = nil }()
	}
	status := 0
	for _, line := range s.opts.Startup {
		if s.format == FormatText {
			fmt.Fprintf(out, "> %s\n", line)
		}
		if err := s.Exec(out, line); err != nil {
			status = 1
			if !opts.KeepGoing {
				return status
			}
		}
	}
	for !s.Stopped() {
		line, err := lr.next()
		if err == io.EOF {
			return status
		}
		if err != nil {
			if s.Stopped() { // the input was closed to stop the session
				return status
			}
			s.report(out, "", nil, kerr.Wrap(kerr.IllegalState, err, "reading commands"), nil, "")
			return 1
		}
		if lr.tooLong > 0 {
			if s.format == FormatText {
				fmt.Fprintf(out, "> %s\n", elide(strings.TrimSpace(line), 60))
			}
			err := &UsageError{Msg: fmt.Sprintf("line %d has %d bytes, more than the %d a command line may hold: it was skipped", lr.lineNo, lr.tooLong, lr.max)}
			s.report(out, elide(strings.TrimSpace(line), 60), nil, &hintedError{err: err, hint: "put a large value in a shorter form: `value=b64:...` or `value=hex:...` of at most 16 MiB, the largest batch"}, nil, "")
			status = 1
			if !opts.KeepGoing {
				return status
			}
			continue
		}
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
	return status
}

// scriptReader reads a script's lines, holding at most max bytes of one.
type scriptReader struct {
	r      *bufio.Reader
	max    int
	lineNo int
	buf    []byte
	// tooLong is the length of the last line when it was longer than max
	// (then only its first bytes are returned, for the echo), else 0.
	tooLong int
}

// next returns the next line without its newline, or io.EOF after the
// last one. A final line without a newline is still a line.
func (lr *scriptReader) next() (string, error) {
	if cap(lr.buf) > 1<<20 { // a long line's buffer is not kept for short ones
		lr.buf = nil
	}
	lr.buf, lr.tooLong = lr.buf[:0], 0
	total, ended := 0, false
	for !ended {
		chunk, err := lr.r.ReadSlice('\n')
		switch {
		case err == nil:
			ended = true
			chunk = chunk[:len(chunk)-1]
		case err == io.EOF:
			if total == 0 && len(chunk) == 0 {
				return "", io.EOF
			}
			ended = true
		case err != bufio.ErrBufferFull:
			return "", err
		}
		total += len(chunk)
		if room := lr.max - len(lr.buf); room > 0 {
			lr.buf = append(lr.buf, chunk[:min(len(chunk), room)]...)
		}
	}
	lr.lineNo++
	if total > lr.max {
		lr.tooLong = total
		return string(lr.buf[:min(len(lr.buf), 256)]), nil
	}
	return string(lr.buf), nil
}

// elide shortens s to at most n runes, marking the cut with "…".
func elide(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
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
