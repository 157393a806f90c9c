package labs

import (
	"fmt"
	"strings"
)

// Outcome is what one lab did when replayed on other executors than the
// ones its expected output was written with (a session under another rule
// set, say): the same transcript, or the first block that printed
// something else.
type Outcome struct {
	Lab *Lab
	// Differs is nil when every block printed its expected output.
	Differs *StepResult
	// Blocks is how many blocks differ.
	Blocks int
	// Stopped says why the run did not reach the end, or is nil.
	Stopped error
}

// Same reports whether the lab ran to the end and every block matched.
func (o Outcome) Same() bool { return o.Stopped == nil && o.Differs == nil }

// String is the outcome on one line: "same", or "differs from step 4
// (`produce …`), 3 of 12 steps".
func (o Outcome) String() string {
	switch {
	case o.Stopped != nil:
		return fmt.Sprintf("did not run to the end: %v", o.Stopped)
	case o.Differs == nil:
		return "same"
	}
	return "differs " + o.Where()
}

// Where says where a differing lab first differs: "from step 4
// (`produce …`), 3 of 12 steps"; "" for a lab that is the same.
func (o Outcome) Where() string {
	if o.Differs == nil {
		return ""
	}
	step := 0
	for i, b := range o.Lab.Blocks {
		if b == o.Differs.Block {
			step = i + 1
		}
	}
	return fmt.Sprintf("from step %d (`%s`), %d of %d steps", step, o.Differs.Block.Command, o.Blocks, len(o.Lab.Blocks))
}

// Compare replays every lab once on newExec and reports, per lab in
// catalog order, whether its outcome differs from the expected output.
func Compare(list []*Lab, newExec NewExecutor) []Outcome {
	out := make([]Outcome, 0, len(list))
	for _, l := range list {
		r := Run(l, newExec)
		o := Outcome{Lab: l, Differs: r.FirstMismatch(), Blocks: r.Mismatches(), Stopped: r.Stopped}
		if o.Stopped == nil && !r.Complete() {
			o.Stopped = fmt.Errorf("stopped after %d of %d steps", len(r.Steps), len(l.Blocks))
		}
		out = append(out, o)
	}
	return out
}

// OutcomesMarkdown renders outcomes as a Markdown table, one row per lab:
// ID, slug, chapter and the outcome.
func OutcomesMarkdown(outcomes []Outcome) string {
	var b strings.Builder
	b.WriteString("| Lab | Chapter | Outcome |\n|---|---|---|\n")
	for _, o := range outcomes {
		fmt.Fprintf(&b, "| %s %s | %d | %s |\n", o.Lab.ID, o.Lab.Slug, o.Lab.Chapter, strings.ReplaceAll(o.String(), "|", `\|`))
	}
	return b.String()
}
