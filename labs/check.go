package labs

import (
	"fmt"
)

// AttemptStep is one of the learner's commands and what it printed.
type AttemptStep struct {
	Command Command
	Output  string
	Err     error // non-nil when the command failed (it printed why)
}

// CheckResult is one check's verdict. The text of expected and actual values
// is the check command's own output; the runner does not interpret checks.
type CheckResult struct {
	Check  Command
	Passed bool // Exec returned nil
	Output string
}

// CheckReport is the outcome of judging one attempt at an exercise.
type CheckReport struct {
	Exercise *Exercise
	Steps    []AttemptStep
	Checks   []CheckResult
}

// checkIndex is the index in the exercise's Checks of r.Checks[i] (the
// same: every check runs), or -1.
func (r *CheckReport) checkIndex(i int) int {
	if i < 0 || i >= len(r.Checks) {
		return -1
	}
	for j, c := range r.Exercise.Checks {
		if c == r.Checks[i].Check {
			return j
		}
	}
	return i
}

// Passed reports whether every check passed.
func (r *CheckReport) Passed() bool { return r.Failed() == 0 }

// Failed counts the failed checks.
func (r *CheckReport) Failed() int {
	n := 0
	for _, c := range r.Checks {
		if !c.Passed {
			n++
		}
	}
	return n
}

// FailedSteps are the learner's commands that failed.
func (r *CheckReport) FailedSteps() []AttemptStep {
	var failed []AttemptStep
	for _, s := range r.Steps {
		if s.Err != nil {
			failed = append(failed, s)
		}
	}
	return failed
}

// RunChecks judges an attempt: on a fresh executor it runs the exercise's
// setup, then the attempt's commands, then every check. When the executor is
// a Validator, the setup, the attempt and the checks are validated before
// anything runs. It returns an error (FILE:LINE) when the judgement itself is
// impossible: an invalid command, a setup command that fails (a bug in the
// exercise), or a session that cannot start or panics. A failing command of
// the attempt is not such an error: it is recorded in the report, and the
// checks decide.
func RunChecks(e *Exercise, attempt []Command, newExec NewExecutor) (report *CheckReport, err error) {
	x, err := open(newExec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e.Path, err)
	}
	defer func() {
		if cerr := closeExec(x); cerr != nil && err == nil {
			report, err = nil, fmt.Errorf("%s: %w", e.Path, cerr)
		}
	}()
	if v, ok := x.(Validator); ok {
		if err := validateCommands(v, e.Setup, attempt, e.Checks); err != nil {
			return nil, err
		}
	}
	for _, c := range e.Setup {
		out, execErr, fatal := execLine(x, c.Text)
		if fatal != nil {
			return nil, &SourceError{File: c.File, Line: c.Line, Err: fatal}
		}
		if execErr != nil {
			return nil, errorAt(c.File, c.Line, "setup command %q failed: %s", c.Text, firstLine(out, execErr))
		}
	}
	r := &CheckReport{Exercise: e}
	for _, c := range attempt {
		out, execErr, fatal := execLine(x, c.Text)
		if fatal != nil {
			return nil, &SourceError{File: c.File, Line: c.Line, Err: fatal}
		}
		r.Steps = append(r.Steps, AttemptStep{Command: c, Output: out, Err: execErr})
	}
	for _, c := range e.Checks {
		out, execErr, fatal := execLine(x, c.Text)
		if fatal != nil {
			return nil, &SourceError{File: c.File, Line: c.Line, Err: fatal}
		}
		r.Checks = append(r.Checks, CheckResult{Check: c, Passed: execErr == nil, Output: out})
	}
	return r, nil
}

// firstLine is the first line of what a failed command printed, or its error.
func firstLine(out string, err error) string {
	if lines := normalizeOutput(out); len(lines) > 0 {
		return lines[0]
	}
	return err.Error()
}

// VerifyExercise proves an exercise works: its reference solution exists,
// runs without a failing command and passes every check, and an empty
// attempt fails at least one check (so the checks can fail).
func VerifyExercise(e *Exercise, newExec NewExecutor) error {
	if !e.HasSolution {
		return fmt.Errorf("%s: no reference solution (expected the file %s)", e.Path, e.SolutionPath)
	}
	solution := ParseCommands(e.SolutionPath, e.Solution)
	r, err := RunChecks(e, solution, newExec)
	if err != nil {
		return err
	}
	if failed := r.FailedSteps(); len(failed) > 0 {
		s := failed[0]
		return errorAt(s.Command.File, s.Command.Line, "the reference solution's command %q failed: %s", s.Command.Text, firstLine(s.Output, s.Err))
	}
	for _, c := range r.Checks {
		if !c.Passed {
			return errorAt(c.Check.File, c.Check.Line, "the reference solution %s fails %q: %s", e.SolutionPath, c.Check.Text, firstLine(c.Output, fmt.Errorf("check failed")))
		}
	}
	empty, err := RunChecks(e, nil, newExec)
	if err != nil {
		return err
	}
	if empty.Passed() {
		return fmt.Errorf("%s: an empty attempt passes every check: the checks cannot fail, so they judge nothing", e.Path)
	}
	return nil
}
