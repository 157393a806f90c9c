package labs

import (
	"fmt"
	"io"
	"strings"
)

// Coach is the learner's side of exercises (the rustlings/ziglings loop):
// it judges attempts and prints ✓/✗ per check with the check's own
// expected-versus-actual text, hands out hints one at a time, shows goals,
// and keeps the progress file up to date.
type Coach struct {
	Out      io.Writer
	Progress *Progress
	// Command is how the learner runs the exercise subcommand, used in the
	// advice printed; "minikafka exercise" when empty ("exercise" inside
	// the REPL).
	Command string
	// Messages translate the checker's own texts (nil: English); give it
	// the exercise in the same language with Exercise.In.
	Messages *Messages
	// Course, when set, is the catalog whose next step a solved exercise
	// names ("Next: ..."), with titles in Lang.
	Course *Catalog
	Lang   Language
	// Watch: the attempt is checked again whenever its file is saved, so
	// the advice after a failure says so.
	Watch bool
}

func (c *Coach) command() string {
	if c.Command == "" {
		return "minikafka exercise"
	}
	return c.Command
}

// StdinName is the attempt name Check uses for an attempt read from
// standard input (positions read "stdin:LINE").
const StdinName = "stdin"

// LiveName is the attempt name for judging the live state of an `exercise
// try` session: there is no file to edit, the learner types on.
const LiveName = ""

// Check judges the attempt in attemptName (its text is attempt) and prints
// the verdict: the learner's failed commands, ✓/✗ per check with the
// check's output under a failed one, and on failure the hint of the first
// failing check. It records the outcome in the progress file. err is
// non-nil when the attempt could not be judged (for example an unknown
// command in it, reported as FILE:LINE) or the progress file could not be
// written.
func (c *Coach) Check(e *Exercise, attemptName string, attempt []byte, newExec NewExecutor) (bool, error) {
	entry := c.Progress.Entry(e)
	fmt.Fprintln(c.Out, c.Messages.Sprintf("Checking %s: %s", e.Name(), e.Title))
	r, err := RunChecks(e, ParseCommands(attemptName, attempt), newExec)
	if err != nil {
		if entry.Status != StatusSolved {
			entry.Status = StatusAttempted
		}
		c.Progress.Set(entry)
		return false, joinSave(err, c.Progress.Save())
	}
	return c.Verdict(e, r, attemptName)
}

// Verdict prints the verdict of a judged attempt (see Check) and records
// it; attemptName is the attempt's file, StdinName, or LiveName for the
// live state of an `exercise try` session.
func (c *Coach) Verdict(e *Exercise, r *CheckReport, attemptName string) (bool, error) {
	entry := c.Progress.Entry(e)
	if failed := r.FailedSteps(); len(failed) > 0 {
		fmt.Fprintln(c.Out, "\n"+c.Messages.T("Some of your commands failed (the checks judge the state they left):"))
		for _, s := range failed {
			fmt.Fprintf(c.Out, "  ! %s:%d: %s\n", s.Command.File, s.Command.Line, s.Command.Text)
			writeIndented(c.Out, "      ", normalizeOutput(s.Output))
		}
	}
	fmt.Fprintln(c.Out)
	firstFailed := -1
	for i, ch := range r.Checks {
		if ch.Passed {
			fmt.Fprintf(c.Out, "  ✓ %s\n", ch.Check.Text)
			continue
		}
		if firstFailed < 0 {
			firstFailed = i
		}
		fmt.Fprintf(c.Out, "  ✗ %s\n", ch.Check.Text)
		writeIndented(c.Out, "      ", normalizeOutput(ch.Output))
	}
	fmt.Fprintln(c.Out)
	if r.Passed() {
		entry.Status = StatusSolved
		c.Progress.Set(entry)
		fmt.Fprintln(c.Out, c.Messages.Sprintf("✓ Solved: all %d checks pass.", len(r.Checks)))
		if e.HasSolution {
			fmt.Fprintln(c.Out, "\n"+c.Messages.Sprintf("The reference solution (%s), to compare:", e.SolutionPath))
			writeIndented(c.Out, "  ", normalizeOutput(string(e.Solution)))
		}
		if c.Course != nil {
			if next := c.Course.NextLine(c.Progress, c.Lang, c.Messages); next != "" {
				fmt.Fprintln(c.Out, "\n"+next)
			}
		}
		return true, c.Progress.Save()
	}
	if entry.Status != StatusSolved {
		entry.Status = StatusAttempted
	}
	fmt.Fprintln(c.Out, c.Messages.Sprintf("✗ %d of %d checks failed.", r.Failed(), len(r.Checks)))
	if hint := e.HintFor(r.checkIndex(firstFailed)); hint != "" {
		fmt.Fprint(c.Out, c.Messages.Sprintf("Hint for `%s`:", r.Checks[firstFailed].Check.Text)+" ")
		writeHint(c.Out, hint)
		if len(e.Hints) > 0 {
			fmt.Fprintln(c.Out, c.Messages.Sprintf("Stuck? `%s hint %s` gives the exercise's hints, one at a time (%d).", c.command(), exerciseRef(e), len(e.Hints)))
		}
	} else if n, hint, ok := nextHint(e, &entry); ok {
		fmt.Fprint(c.Out, c.Messages.Sprintf("Hint %d/%d:", n, len(e.Hints))+" ")
		writeHint(c.Out, hint)
	}
	c.Progress.Set(entry)
	switch {
	case attemptName == LiveName:
		fmt.Fprintln(c.Out, c.Messages.T("Type more commands (undo takes one back) and check again."))
	case attemptName == StdinName:
		fmt.Fprintln(c.Out, c.Messages.T("Change your commands and check again."))
	case c.Watch:
		fmt.Fprintln(c.Out, c.Messages.Sprintf("Edit %s: it is checked again every time you save it (Ctrl-C stops).", attemptName))
	default:
		fmt.Fprintln(c.Out, c.Messages.Sprintf("Edit %s and run `%s check %s %s` again.", attemptName, c.command(), exerciseRef(e), attemptName))
	}
	return false, c.Progress.Save()
}

// nextHint is the first hint not shown yet, which it marks as shown; once
// every hint has been shown it is the last one again. ok is false when the
// exercise has no hints.
func nextHint(e *Exercise, entry *ProgressEntry) (n int, hint string, ok bool) {
	if len(e.Hints) == 0 {
		return 0, "", false
	}
	if entry.HintsShown < len(e.Hints) {
		entry.HintsShown++
	}
	if entry.Status == "" {
		entry.Status = StatusNew
	}
	n = min(entry.HintsShown, len(e.Hints))
	return n, e.Hints[n-1], true
}

// Hint prints the next hint not shown yet and records it in the progress
// file; when all have been shown it lists them all.
func (c *Coach) Hint(e *Exercise) error {
	entry := c.Progress.Entry(e)
	switch {
	case len(e.Hints) == 0:
		fmt.Fprintln(c.Out, c.Messages.Sprintf("%s has no hints. Read the goal again: `%s show %s`.", e.Name(), c.command(), exerciseRef(e)))
		return nil
	case entry.HintsShown >= len(e.Hints):
		fmt.Fprintln(c.Out, c.Messages.Sprintf("No more hints for %s; here are all %d:", e.Name(), len(e.Hints)))
		for i, h := range e.Hints {
			fmt.Fprintf(c.Out, "  %d. ", i+1)
			writeHint(c.Out, h)
		}
		return nil
	}
	n, hint, _ := nextHint(e, &entry)
	c.Progress.Set(entry)
	fmt.Fprint(c.Out, c.Messages.Sprintf("Hint %d/%d for %s:", n, len(e.Hints), e.Name())+" ")
	writeHint(c.Out, hint)
	if n < len(e.Hints) {
		fmt.Fprintln(c.Out, c.Messages.Sprintf("(`%s hint %s` again for the next one)", c.command(), exerciseRef(e)))
	}
	return c.Progress.Save()
}

// Show prints an exercise's title, goal and setup, and how to check an
// attempt.
func (c *Coach) Show(e *Exercise) {
	entry := c.Progress.Entry(e)
	fmt.Fprintln(c.Out, c.Messages.Sprintf("%s: %s (chapter %d)", e.Name(), e.Title, e.Chapter))
	if entry.Status != "" {
		fmt.Fprintln(c.Out, c.Messages.Sprintf("Status: %s", c.statusText(e, entry)))
	}
	fmt.Fprintln(c.Out, "\n"+c.Messages.T("Goal:"))
	writeIndented(c.Out, "  ", strings.Split(e.Goal, "\n"))
	if len(e.Setup) > 0 {
		fmt.Fprintln(c.Out, "\n"+c.Messages.T("Setup (runs before your commands):"))
		for _, s := range e.Setup {
			fmt.Fprintf(c.Out, "  %s\n", s.Text)
		}
	}
	fmt.Fprintln(c.Out, "\n"+c.Messages.T("Write your commands in a file, one per line ('#' comments allowed), then run:"))
	fmt.Fprintf(c.Out, "  %s check %s FILE\n", c.command(), exerciseRef(e))
	if len(e.Hints) > 0 {
		fmt.Fprintln(c.Out, c.Messages.Sprintf("Stuck? `%s hint %s` (%d hints).", c.command(), exerciseRef(e), len(e.Hints)))
	}
}

// List prints the progress table: a bar for all exercises, then each
// chapter's exercises with their status.
func (c *Coach) List(cat *Catalog) {
	if len(cat.Exercises) == 0 {
		fmt.Fprintln(c.Out, c.Messages.T("No exercises."))
		return
	}
	solved := 0
	idWidth, titleWidth := 0, 0
	for _, e := range cat.Exercises {
		if c.Progress.Entry(e).Status == StatusSolved {
			solved++
		}
		idWidth = max(idWidth, displayWidth(exerciseRef(e)))
		titleWidth = max(titleWidth, displayWidth(e.Title))
	}
	fmt.Fprintln(c.Out, c.Messages.Sprintf("Progress: %s %d/%d solved", progressBar(solved, len(cat.Exercises), 20), solved, len(cat.Exercises)))
	for i, e := range cat.Exercises {
		if i == 0 || cat.Exercises[i-1].Chapter != e.Chapter {
			done, total := 0, 0
			for _, x := range cat.Exercises {
				if x.Chapter == e.Chapter {
					total++
					if c.Progress.Entry(x).Status == StatusSolved {
						done++
					}
				}
			}
			if e.ChapterSlug != "" {
				fmt.Fprintln(c.Out, "\n"+c.Messages.Sprintf("Chapter %d (%s): %d/%d solved", e.Chapter, e.ChapterSlug, done, total))
			} else {
				fmt.Fprintln(c.Out, "\n"+c.Messages.Sprintf("Chapter %d: %d/%d solved", e.Chapter, done, total))
			}
		}
		fmt.Fprintf(c.Out, "  %s  %s  %s\n", pad(exerciseRef(e), idWidth), pad(e.Title, titleWidth), c.statusText(e, c.Progress.Entry(e)))
	}
	fmt.Fprintln(c.Out, "\n"+c.Messages.Sprintf("Start one with `%s show ID`.", c.command()))
}

func (c *Coach) statusText(e *Exercise, entry ProgressEntry) string {
	s := "-"
	if entry.Status != "" {
		s = c.Messages.T(string(entry.Status))
	}
	if entry.HintsShown > 0 {
		s += " " + c.Messages.Sprintf("(hints %d/%d)", entry.HintsShown, len(e.Hints))
	}
	return s
}

// exerciseRef is how the learner names the exercise on the command line.
func exerciseRef(e *Exercise) string {
	if e.ID == "" {
		return e.Slug
	}
	return e.ID
}

func progressBar(done, total, width int) string {
	filled := 0
	if total > 0 {
		filled = done * width / total
	}
	return "[" + strings.Repeat("#", filled) + strings.Repeat("-", width-filled) + "]"
}

func pad(s string, width int) string {
	return s + strings.Repeat(" ", max(0, width-displayWidth(s)))
}

// writeHint writes a hint whose later lines are indented under the first.
func writeHint(w io.Writer, hint string) {
	lines := strings.Split(hint, "\n")
	fmt.Fprintln(w, lines[0])
	writeIndented(w, "  ", lines[1:])
}

func writeIndented(w io.Writer, indent string, lines []string) {
	for _, l := range lines {
		if l == "" {
			fmt.Fprintln(w)
			continue
		}
		fmt.Fprintln(w, indent+l)
	}
}

func joinSave(err, saveErr error) error {
	if saveErr != nil {
		return fmt.Errorf("%w (and the progress file could not be written: %v)", err, saveErr)
	}
	return err
}
