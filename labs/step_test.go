package labs

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// TestStepPiped drives step mode with piped input: advance, diverge with a
// command of one's own (the next step then differs and is marked), back
// (deterministic replay), reset, running to the end, and quit.
func TestStepPiped(t *testing.T) {
	cat := content(t)
	l, err := cat.Lab("01-01")
	if err != nil {
		t.Fatal(err)
	}
	input := strings.Join([]string{
		"back", // nothing to go back to
		"",     // step 1
		"",     // step 2
		"incr x",
		"", // step 3 differs: the learner's incr changed x
		"back",
		"", // step 3 again, on a replayed session: matches
		"set y 9",
		"reset", // drops the learner's set
		"get y",
		"reset",
		"",
		"", // step 5, the last: the epilogue and the verdict
		"",
		"back",
		"quit",
	}, "\n") + "\n"
	var out strings.Builder
	f := &fakeFactory{}
	if err := Step(l, f.new, strings.NewReader(input), &out, StepOptions{Echo: true}); err != nil {
		t.Fatal(err)
	}
	golden(t, "step.golden", out.String())
	if f.opened != f.closed {
		t.Errorf("opened %d sessions, closed %d", f.opened, f.closed)
	}
	// One session to start, then one per back and reset.
	if f.opened != 5 {
		t.Errorf("opened %d sessions, want 5", f.opened)
	}
}

func TestStepEndOfInputQuits(t *testing.T) {
	l := mustLab(t, "labs/01-basics/01-q.lab", "# title: Q\n# chapter: 1\n\nset x 1\n----\nok\n\nget x\n----\n1\n")
	var out strings.Builder
	if err := Step(l, (&fakeFactory{}).new, strings.NewReader("\n"), &out, StepOptions{}); err != nil {
		t.Fatal(err)
	}
	want := "Lab 01-01 q: Q (chapter 1, 2 steps)\n" +
		"Press Enter to run each step. Type a command of your own to experiment, or: back, reset, quit.\n" +
		"\n── Step 1/2 ──\nnext: set x 1\n01-01 1/2> ok\n\n── Step 2/2 ──\nnext: get x\n01-01 2/2> Stopped at step 2 of 2.\n"
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestStepValidatesFirst(t *testing.T) {
	l := mustLab(t, "v.lab", "# title: V\n# chapter: 1\n\nset x 1\n----\nok\n\nfrobnicate\n----\nok\n")
	f := &fakeFactory{}
	var out strings.Builder
	err := Step(l, f.new, strings.NewReader("\n\n"), &out, StepOptions{})
	if err == nil || err.Error() != `v.lab:8: unknown command "frobnicate"` {
		t.Errorf("err = %v", err)
	}
	if len(f.ran) != 0 || f.opened != f.closed {
		t.Errorf("ran %q, opened %d, closed %d", f.ran, f.opened, f.closed)
	}
}

// scriptedInput is a LineReader that replays lines, an error for Ctrl-C,
// and records the prompts it was given.
type scriptedInput struct {
	lines   []any // string or error
	prompts []string
}

func (s *scriptedInput) ReadLine(prompt string) (string, error) {
	s.prompts = append(s.prompts, prompt)
	if len(s.lines) == 0 {
		return "", io.EOF
	}
	next := s.lines[0]
	s.lines = s.lines[1:]
	if err, ok := next.(error); ok {
		return "", err
	}
	return next.(string), nil
}

// changeTracking makes the fake tell whether a command changed state:
// get and check inspect, set and incr change.
type changeTracking struct {
	*fake
	last bool
}

func (c *changeTracking) Exec(w io.Writer, line string) error {
	err := c.fake.Exec(w, line)
	f := strings.Fields(line)
	c.last = err == nil && len(f) > 0 && (f[0] == "set" || f[0] == "incr")
	return err
}

func (c *changeTracking) LastChanged() bool { return c.last }

// TestStepWithALineEditor: step mode reads through a line editor (which
// prints the prompt), Ctrl-C drops the line and asks again, --from starts
// later, the pending command reads "next:", the learner leaves the script
// only with a command that changed state, and Finished runs once, when
// the last step ran.
func TestStepWithALineEditor(t *testing.T) {
	cat := content(t)
	l, err := cat.Lab("01-01")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeFactory{}
	attached := 0
	newExec := func() (Executor, error) {
		x, err := f.new()
		return &changeTracking{fake: x.(*fake)}, err
	}
	in := &scriptedInput{lines: []any{
		ErrInterrupt, // Ctrl-C on an empty line
		"get x",      // an inspection: still on the script
		"nosuch",     // a typo: still on the script
		"", "",       // steps 3 and 4
		"incr x", // a change: off the script
		"",       // step 5, the last
		"",       // already finished
	}}
	finished := 0
	var out strings.Builder
	opt := StepOptions{Input: in, From: 3, Attach: func(Executor) { attached++ },
		Finished: func(w io.Writer) { finished++; fmt.Fprintln(w, "Next: something") }}
	if err := Step(l, newExec, nil, &out, opt); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !strings.Contains(got, "Starting at step 3: the steps before it were replayed on a fresh cluster.") ||
		!strings.Contains(got, "next: incr x") || strings.Contains(got, "mk> ") {
		t.Errorf("start or pending step:\n%s", got)
	}
	if i, j := strings.Index(got, "You left the script"), strings.Index(got, "x=4\n"); i < 0 || i < j {
		t.Errorf("left the script before a change, or never:\n%s", got)
	}
	if finished != 1 || !strings.Contains(got, "Next: something") || attached != 1 {
		t.Errorf("finished %d times, attached %d:\n%s", finished, attached, got)
	}
	if in.prompts[0] != "01-01 3/5> " || in.prompts[1] != "01-01 3/5> " {
		t.Errorf("prompts %q", in.prompts)
	}
}
