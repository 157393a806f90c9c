package labs

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// StepOptions control step mode.
type StepOptions struct {
	// Echo writes every input line after the prompt, so that a transcript
	// of piped input reads like a session (the terminal echoes otherwise).
	Echo bool
	// Messages translate step mode's own texts (nil: English); pass the
	// catalog's messages for the lab's language (Lab.In gives its text).
	Messages *Messages
	// Input reads the learner's lines with a line editor (history,
	// completion, Ctrl-R): it prints the prompt itself, returns an error
	// matching ErrInterrupt for Ctrl-C (the line is dropped) and io.EOF for
	// Ctrl-D (step mode ends). Nil reads lines from Step's reader.
	Input LineReader
	// From is the step to start at (1-based; 0 or 1: the first): the steps
	// before it are replayed silently first.
	From int
	// Attach is told every executor step mode opens (at the start, and at
	// each back or reset), so that a line editor can complete the live
	// names of the cluster the lab runs on.
	Attach func(Executor)
	// Finished is called once when the lab's last step has run (the lab
	// is completed), to record it and say what comes next.
	Finished func(w io.Writer)
}

// LineReader reads one line of input after printing prompt (a line
// editor).
type LineReader interface {
	ReadLine(prompt string) (string, error)
}

// ErrInterrupt is returned by a LineReader when the learner pressed
// Ctrl-C: the line being typed is dropped and step mode asks again.
var ErrInterrupt = errors.New("interrupted")

// ChangeReporter is implemented by executors that can tell whether the
// last command they ran changed the cluster's state (an inspection or a
// failed command did not). Step mode uses it to say the learner left the
// script only when they did.
type ChangeReporter interface {
	LastChanged() bool
}

// stepper is one step-mode session.
type stepper struct {
	lab       *Lab
	newExec   NewExecutor
	out       io.Writer
	x         Executor
	pos       int          // blocks run so far; the next step is Blocks[pos]
	diverged  bool         // the learner ran commands of their own since the last replay
	differed  map[int]bool // blocks whose live run did not match
	validated bool
	msg       *Messages
	attach    func(Executor)
	finished  func(io.Writer)
	completed bool // the last step ran once: Finished was called
}

// Step runs a lab interactively, reading the learner's lines from in: it
// shows each block's narration and command and runs it when the learner
// presses Enter, marking output that differs from the lab. Between steps the
// learner may type commands of their own (the run is then flagged as
// diverged), "back" (one step back, by replaying the steps before it on a
// fresh session), "reset" (replay up to the current step, dropping the
// learner's own commands) or "quit". End of input quits. After the last step
// the session stays open for experiments until quit.
func Step(l *Lab, newExec NewExecutor, in io.Reader, out io.Writer, opt StepOptions) (err error) {
	s := &stepper{lab: l, newExec: newExec, out: out, differed: map[int]bool{}, msg: opt.Messages, attach: opt.Attach, finished: opt.Finished}
	from := min(max(opt.From, 1), l.Steps())
	if err := s.replay(from - 1); err != nil {
		return err
	}
	defer func() {
		if s.x == nil {
			return
		}
		if cerr := closeExec(s.x); cerr != nil && err == nil {
			err = cerr
		}
	}()
	fmt.Fprintln(out, s.msg.Sprintf("Lab %s: %s (chapter %d, %s)", l.Name(), l.Title, l.Chapter, s.steps(l.Steps())))
	fmt.Fprintln(out, s.msg.T("Press Enter to run each step. Type a command of your own to experiment, or: back, reset, quit."))
	if from > 1 {
		fmt.Fprintln(out, s.msg.Sprintf("Starting at step %d: the steps before it were replayed on a fresh cluster.", from))
	}
	s.show()
	read := s.reader(in, opt)
	for {
		line, err := read()
		if errors.Is(err, ErrInterrupt) {
			continue // Ctrl-C drops the line being typed
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return err
			}
			break
		}
		line = strings.TrimSpace(line)
		switch line {
		case "", "next":
			if err := s.next(); err != nil {
				return err
			}
		case "back":
			if s.pos == 0 {
				fmt.Fprintln(out, s.msg.T("Already at the first step."))
				continue
			}
			if err := s.replay(s.pos - 1); err != nil {
				return err
			}
			fmt.Fprintln(out, s.msg.Sprintf("Back to step %d (replayed the steps before it on a fresh cluster).", s.pos+1))
			s.show()
		case "reset":
			if err := s.replay(s.pos); err != nil {
				return err
			}
			fmt.Fprintln(out, s.msg.Sprintf("Reset: replayed %s on a fresh cluster; your own commands are gone.", s.steps(s.pos)))
			s.show()
		case "quit", "exit":
			fmt.Fprintln(out, s.msg.Sprintf("Stopped at step %d of %d.", min(s.pos+1, l.Steps()), l.Steps()))
			return nil
		default:
			if err := s.own(line); err != nil {
				return err
			}
		}
	}
	fmt.Fprintln(out, s.msg.Sprintf("Stopped at step %d of %d.", min(s.pos+1, l.Steps()), l.Steps()))
	return nil
}

// reader returns the function that reads the learner's next line: from the
// line editor, or from in (printing the prompt, and echoing the line when
// asked).
func (s *stepper) reader(in io.Reader, opt StepOptions) func() (string, error) {
	if opt.Input != nil {
		return func() (string, error) { return opt.Input.ReadLine(s.prompt()) }
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	return func() (string, error) {
		fmt.Fprint(s.out, s.prompt())
		if !sc.Scan() {
			if opt.Echo {
				fmt.Fprintln(s.out)
			}
			if err := sc.Err(); err != nil {
				return "", err
			}
			return "", io.EOF
		}
		line := sc.Text()
		if opt.Echo {
			fmt.Fprintln(s.out, strings.TrimSpace(line))
		}
		return line, nil
	}
}

func (s *stepper) prompt() string {
	if s.pos >= s.lab.Steps() {
		return fmt.Sprintf("%s end> ", s.lab.ID)
	}
	return fmt.Sprintf("%s %d/%d> ", s.lab.ID, s.pos+1, s.lab.Steps())
}

// show prints the narration and command of the next step.
func (s *stepper) show() {
	if s.pos >= s.lab.Steps() {
		return
	}
	b := s.lab.Blocks[s.pos]
	fmt.Fprintln(s.out, "\n"+s.msg.Sprintf("── Step %d/%d ──", s.pos+1, s.lab.Steps()))
	for _, n := range b.Narration {
		fmt.Fprintln(s.out, n)
	}
	if len(b.Narration) > 0 {
		fmt.Fprintln(s.out)
	}
	// The pending command is shown as what comes next, not with the
	// prompt of a command that already ran.
	fmt.Fprintln(s.out, s.msg.Sprintf("next: %s", b.Command))
}

// next runs the next step and shows the one after it.
func (s *stepper) next() error {
	if s.pos >= s.lab.Steps() {
		fmt.Fprintln(s.out, s.msg.T("The lab is finished. Keep experimenting, or: back, reset, quit."))
		return nil
	}
	b := s.lab.Blocks[s.pos]
	out, _, fatal := execLine(s.x, b.Command)
	if fatal != nil {
		return &SourceError{File: s.lab.Path, Line: b.Line, Err: fatal}
	}
	io.WriteString(s.out, out)
	if out != "" && !strings.HasSuffix(out, "\n") {
		fmt.Fprintln(s.out)
	}
	if !b.Matches(out) {
		s.differed[s.pos] = true
		if s.diverged {
			fmt.Fprintln(s.out, s.msg.Sprintf("✗ this output differs from the lab (%s); your own commands changed the state, `reset` replays without them:", b.Pos()))
		} else {
			fmt.Fprintln(s.out, s.msg.Sprintf("✗ this output differs from the lab (%s):", b.Pos()))
		}
		fmt.Fprint(s.out, b.Diff(out))
	} else {
		delete(s.differed, s.pos)
	}
	s.pos++
	if s.pos < s.lab.Steps() {
		s.show()
		return nil
	}
	s.finish()
	return nil
}

func (s *stepper) finish() {
	fmt.Fprintln(s.out)
	for _, n := range s.lab.Epilogue {
		fmt.Fprintln(s.out, n)
	}
	if len(s.lab.Epilogue) > 0 {
		fmt.Fprintln(s.out)
	}
	verdict := s.msg.T("every output matched the lab")
	if n := len(s.differed); n > 0 {
		verdict = s.msg.Sprintf("%s differed from the lab", s.steps(n))
	}
	if s.diverged {
		verdict += " " + s.msg.T("(a diverged run: you typed commands of your own)")
	}
	fmt.Fprintln(s.out, s.msg.Sprintf("End of lab %s: %s, %s.", s.lab.Name(), s.steps(s.lab.Steps()), verdict))
	if s.finished != nil && !s.completed {
		s.finished(s.out)
	}
	s.completed = true
	fmt.Fprintln(s.out, s.msg.T("Keep experimenting, or: back, reset, quit."))
}

// own runs a command of the learner's. A typo is just output here.
func (s *stepper) own(line string) error {
	out, execErr, stop := execLine(s.x, line)
	if stop != nil && !isInvalid(execErr) {
		return stop
	}
	io.WriteString(s.out, out)
	if out != "" && !strings.HasSuffix(out, "\n") {
		fmt.Fprintln(s.out)
	}
	// Only a command that changed the cluster leaves the script: an
	// inspection, a typo or a failed command changes nothing.
	if cr, ok := s.x.(ChangeReporter); ok && !cr.LastChanged() {
		return nil
	}
	if !s.diverged {
		s.diverged = true
		fmt.Fprintln(s.out, s.msg.T("(You left the script: later steps may no longer match. `reset` replays up to this step without your commands.)"))
	}
	return nil
}

// replay starts a fresh session and silently runs the first n blocks.
func (s *stepper) replay(n int) error {
	if s.x != nil {
		old := s.x
		s.x = nil
		if err := closeExec(old); err != nil {
			return err
		}
	}
	x, err := open(s.newExec)
	if err != nil {
		return err
	}
	if v, ok := x.(Validator); ok && !s.validated {
		if err := s.lab.Validate(v); err != nil {
			closeExec(x)
			return err
		}
		s.validated = true
	}
	s.x = x
	if s.attach != nil {
		s.attach(x)
	}
	for _, b := range s.lab.Blocks[:n] {
		if _, _, fatal := execLine(x, b.Command); fatal != nil {
			return &SourceError{File: s.lab.Path, Line: b.Line, Err: fatal}
		}
	}
	s.pos, s.diverged = n, false
	for k := range s.differed {
		if k >= n {
			delete(s.differed, k)
		}
	}
	return nil
}

// steps is "1 step" or "N steps", in the session's language.
func (s *stepper) steps(n int) string {
	if n == 1 {
		return s.msg.T("1 step")
	}
	return s.msg.Sprintf("%d steps", n)
}
