package labs

import (
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
		"\n── Step 1/2 ──\nmk> set x 1\n01-01 1/2> ok\n\n── Step 2/2 ──\nmk> get x\n01-01 2/2> Stopped at step 2 of 2.\n"
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
