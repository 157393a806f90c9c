package repl

import (
	"errors"
	"io"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/vfs"
	"github.com/minikafka-lab/minikafka/labs"
)

// LabExecutor is the lab runner's executor for the real command language:
// a fresh session each time with opts (text output, no colour, its own
// temporary cluster, a page of 80 columns). A command that panics is fatal
// to the run, and an unknown command or a malformed check is reported as
// invalid (FILE:LINE) rather than compared as output. It also tells step
// mode whether a command changed state, and completes live names.
func LabExecutor(opts Options) labs.NewExecutor {
	return labExecutor(opts, false)
}

// LabExecutorInMemory is LabExecutor with every session's clusters on a
// fresh in-memory file system (vfs.Mem) instead of the disk: the same
// transcripts without a file written or synced, for runs of many labs.
func LabExecutorInMemory(opts Options) labs.NewExecutor {
	return labExecutor(opts, true)
}

func labExecutor(opts Options, inMemory bool) labs.NewExecutor {
	opts.Format, opts.Color, opts.Width, opts.DataDir = FormatText, false, nil, ""
	return func() (labs.Executor, error) {
		o := opts
		if inMemory {
			o.FS = vfs.NewMem()
		}
		s, err := openSession(o)
		if err != nil {
			return nil, err
		}
		return &labExec{s: s}, nil
	}
}

// labExec adapts a session to the runner.
type labExec struct{ s *Session }

func (x *labExec) Exec(w io.Writer, line string) error {
	err := x.s.Exec(w, line)
	switch {
	case err == nil:
		return nil
	case IsInternal(err):
		return labs.Fatal(err)
	case outsideLanguage(line, err):
		return labs.Invalid(err)
	}
	return err
}

func (x *labExec) Close() error { return x.s.Close() }

// Validate lets the runner check every command before the first one runs.
func (x *labExec) Validate(line string) error { return x.s.Validate(line) }

// LastChanged reports whether the last command changed the cluster.
func (x *labExec) LastChanged() bool { return x.s.LastChanged() }

// Complete completes the live names of the lab's cluster.
func (x *labExec) Complete(line string) (string, []string) { return x.s.Complete(line) }

// Session is the session behind the executor.
func (x *labExec) Session() *Session { return x.s }

// outsideLanguage reports whether err says that line is not in the command
// language: an unknown command (a usage error of no command) or a usage
// error of `check` (an unknown quantity or a malformed expression), as
// opposed to a command that ran and failed.
func outsideLanguage(line string, err error) bool {
	var ue *UsageError
	if !errors.As(err, &ue) {
		return false
	}
	f := strings.Fields(stripPrompt(line))
	return ue.Command == "" || (len(f) > 0 && f[0] == "check")
}

// LastChanged reports whether the last command Exec ran changed the
// cluster (or reached outside the session): false after an inspection, a
// session command, a failed or an unknown command.
func (s *Session) LastChanged() bool { return s.tl.lastChanged }

// stepWords are what step mode understands besides commands.
var stepWords = []string{"back ", "reset ", "quit ", "next "}

// StepCompleter completes what a learner types in lab step: step mode's
// own words, and commands and live names of the cluster the lab runs on
// (Attach follows it through back and reset).
type StepCompleter struct {
	cur Completer
}

// Attach is labs.StepOptions.Attach: it completes for the executor step
// mode just opened.
func (c *StepCompleter) Attach(x labs.Executor) {
	if cc, ok := x.(Completer); ok {
		c.cur = cc
	}
}

// Complete implements Completer.
func (c *StepCompleter) Complete(line string) (string, []string) {
	var prefix string
	var cands []string
	if c.cur != nil {
		prefix, cands = c.cur.Complete(line)
	}
	if !strings.ContainsAny(line, " \t") {
		prefix = line
		for _, w := range stepWords {
			if strings.HasPrefix(w, line) {
				cands = append(cands, w)
			}
		}
	}
	return prefix, cands
}
