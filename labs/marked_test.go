package labs

import (
	"strings"
	"testing"
)

// TestRunTimeInvalid: an executor without Validate can still mark an unknown
// command as Invalid; the runner then reports FILE:LINE and stops (so the
// error is never written into the lab by a rewrite).
func TestRunTimeInvalid(t *testing.T) {
	l := mustLab(t, "i.lab", "# title: T\n# chapter: 1\n\nset x 1\n----\nok\n\nfrobnicate\n----\nerror: unknown command \"frobnicate\"\n\necho after\n----\nafter\n")
	f := &fakeFactory{noValidate: true, markInvalid: true}
	r := Run(l, f.new)
	if r.Complete() {
		t.Fatal("run with an invalid command completed")
	}
	if err := r.Err(); err == nil || err.Error() != `i.lab:8: unknown command "frobnicate"` {
		t.Errorf("err = %v", err)
	}
	if _, _, err := Rewrite(r); err == nil {
		t.Error("rewrite accepted a run stopped by an invalid command")
	}

	e, err := ParseExercise("e.exercise", []byte("# title: T\n# chapter: 1\n# goal: g\n\nchecks:\ncheck x == 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = RunChecks(e, ParseCommands("try.mk", []byte("set x 1\nfrobnicate\n")), f.new)
	if err == nil || err.Error() != `try.mk:2: unknown command "frobnicate"` {
		t.Errorf("exercise err = %v", err)
	}

	var out strings.Builder
	if err := Step(l, f.new, strings.NewReader("frobnicate\nquit\n"), &out, StepOptions{}); err != nil {
		t.Errorf("step mode: a learner's typo ended the session: %v", err)
	}
	if !strings.Contains(out.String(), "error: unknown command \"frobnicate\"") {
		t.Errorf("step mode output:\n%s", out.String())
	}
}

func TestFatalStops(t *testing.T) {
	l := mustLab(t, "b.lab", "# title: T\n# chapter: 1\n\nbroken\n----\ninternal error: broken on purpose\n\necho after\n----\nafter\n")
	r := Run(l, (&fakeFactory{}).new)
	if r.Complete() || r.Err() == nil || r.Err().Error() != `b.lab:4: the session broke on "broken": internal error: broken on purpose` {
		t.Errorf("complete=%v err=%v", r.Complete(), r.Err())
	}
	fsysErr := runTranscript("c.md", []TranscriptBlock{{Line: 1, Steps: []TranscriptStep{{Line: 2, Command: "broken"}}}}, (&fakeFactory{}).new, nil)
	if fsysErr == nil || !strings.HasPrefix(fsysErr.Error(), "c.md:2: the session broke") {
		t.Errorf("chapter err = %v", fsysErr)
	}
}
