package labs

import (
	"fmt"
	"strings"
)

// StepResult is what one block did.
type StepResult struct {
	Block  *Block
	Output string // exactly what the executor printed
	Err    error  // the error Exec returned; an expected error is just output
	Match  bool
}

// Result is the outcome of replaying a lab on a fresh executor.
type Result struct {
	Lab   *Lab
	Steps []StepResult // the blocks that ran, in order
	// Stopped is set when the run did not reach the end: the session could
	// not start, validation failed, or the executor panicked.
	Stopped error
	// CloseErr is the error of closing the session, if any.
	CloseErr error
}

// Complete reports whether every block ran.
func (r *Result) Complete() bool {
	return r.Stopped == nil && len(r.Steps) == len(r.Lab.Blocks)
}

// OK reports whether the lab ran to the end, every block matched and the
// session closed cleanly.
func (r *Result) OK() bool {
	return r.Complete() && r.CloseErr == nil && r.FirstMismatch() == nil
}

// Mismatches counts the blocks whose output differed.
func (r *Result) Mismatches() int {
	n := 0
	for _, s := range r.Steps {
		if !s.Match {
			n++
		}
	}
	return n
}

// FirstMismatch is the first block whose output differed, or nil.
func (r *Result) FirstMismatch() *StepResult {
	for i := range r.Steps {
		if !r.Steps[i].Match {
			return &r.Steps[i]
		}
	}
	return nil
}

// Err summarizes a failed run as an error ("FILE:LINE: command" and a
// unified diff of the first mismatching block, or why the run stopped), or
// nil when the lab passed.
func (r *Result) Err() error {
	if r.Stopped != nil {
		return r.Stopped
	}
	if s := r.FirstMismatch(); s != nil {
		return &SourceError{File: r.Lab.Path, Line: s.Block.Line, Err: &MismatchError{Command: s.Block.Command, Diff: s.Block.Diff(s.Output)}}
	}
	if r.CloseErr != nil {
		return fmt.Errorf("%s: %w", r.Lab.Path, r.CloseErr)
	}
	return nil
}

// MismatchError is output that differs from the expected output. Its text
// is the command on the first line followed by a unified diff labelled
// "--- expected" and "+++ actual".
type MismatchError struct {
	Command string
	Diff    string
}

// Error renders the command and the diff.
func (e *MismatchError) Error() string {
	return e.Command + "\n" + strings.TrimSuffix(e.Diff, "\n")
}

// Run replays a lab on a fresh executor from newExec: it validates every
// command first when the executor is a Validator, then runs each block and
// compares its output. It runs every block even after a mismatch (so that a
// rewrite sees the whole lab); it stops early only when the session cannot
// go on (see Result.Stopped).
func Run(l *Lab, newExec NewExecutor) *Result {
	r, x := runOpen(l, newExec)
	if x != nil {
		r.CloseErr = closeExec(x)
	}
	return r
}

// runOpen is Run without closing the session: it returns the result and
// the executor the caller must close (nil when none started).
func runOpen(l *Lab, newExec NewExecutor) (*Result, Executor) {
	x, err := open(newExec)
	return runOn(l, x, err)
}

// runOn is runOpen on an executor already started (or the error starting
// it gave).
func runOn(l *Lab, x Executor, err error) (*Result, Executor) {
	r := &Result{Lab: l}
	if err != nil {
		r.Stopped = fmt.Errorf("%s: %w", l.Path, err)
		return r, nil
	}
	if v, ok := x.(Validator); ok {
		if err := l.Validate(v); err != nil {
			r.Stopped = err
			return r, x
		}
	}
	for _, b := range l.Blocks {
		out, execErr, fatal := execLine(x, b.Command)
		if fatal != nil {
			r.Stopped = &SourceError{File: l.Path, Line: b.Line, Err: fatal}
			return r, x
		}
		r.Steps = append(r.Steps, StepResult{Block: b, Output: out, Err: execErr, Match: b.Matches(out)})
	}
	return r, x
}

// stableTranscript is the transcript with the lines that the lab itself
// marks as unpredictable (matched by a " (re)" line) replaced by the
// regular expression that matched them. Every other byte must repeat,
// including the lines a "..." elides.
func (r *Result) stableTranscript() string {
	var b strings.Builder
	for _, s := range r.Steps {
		b.WriteString("> " + s.Block.Command + "\n")
		raw := splitLines(s.Output)
		actual := normalizeOutput(s.Output)
		edits, cost := align(s.Block.want, actual)
		if cost != 0 {
			b.WriteString(strings.Join(raw, "\n") + "\n")
			continue
		}
		for _, e := range edits {
			switch {
			case e.kind == editAny:
				for _, line := range raw[e.a : e.a+e.n] {
					b.WriteString(line + "\n")
				}
			case s.Block.want[e.e].re != nil:
				b.WriteString(s.Block.want[e.e].text + "\n")
			default:
				b.WriteString(raw[e.a] + "\n")
			}
		}
		for _, extra := range raw[len(actual):] {
			b.WriteString(extra + "\n")
		}
	}
	return b.String()
}

// CheckLab runs a lab twice on fresh executors and returns an error unless
// both runs reached the end, matched every block and printed byte-identical
// transcripts (the determinism rule). The only exception are the lines the
// lab marks as unpredictable with a " (re)" escape.
func CheckLab(l *Lab, newExec NewExecutor) error {
	first := Run(l, newExec)
	if err := first.Err(); err != nil {
		return err
	}
	second := Run(l, newExec)
	if err := second.Err(); err != nil {
		return fmt.Errorf("second run: %w", err)
	}
	if a, b := first.stableTranscript(), second.stableTranscript(); a != b {
		return fmt.Errorf("%s: two runs printed different transcripts (the lab is not deterministic):\n%s",
			l.Path, strings.TrimSuffix(textDiff(a, b, "first run", "second run"), "\n"))
	}
	return nil
}
