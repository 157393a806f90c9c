package labs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseExercise(t *testing.T) {
	e := content(t).Exercises[0]
	if e.ID != "01-01" || e.Slug != "set-x" || e.Title != "Make x two" || e.Chapter != 1 {
		t.Errorf("identity: %+v", e)
	}
	if e.Goal != "after your commands, x must be 2 and y must be 1.\nThe setup already set x to 1." {
		t.Errorf("goal = %q", e.Goal)
	}
	if len(e.Hints) != 2 || e.Hints[1] != "set y to 1 with `set y 1`;\nthen incr x." {
		t.Errorf("hints = %q", e.Hints)
	}
	if len(e.Setup) != 1 || e.Setup[0].Text != "set x 1" || e.Setup[0].Line != 11 {
		t.Errorf("setup = %+v", e.Setup)
	}
	if len(e.Checks) != 2 || e.Checks[1].Text != "check y == 1" || e.Checks[1].Line != 15 {
		t.Errorf("checks = %+v", e.Checks)
	}
	if !e.HasSolution || e.SolutionPath != "testdata/content/labs/01-basics/01-set-x.solution" {
		t.Errorf("solution %v %s", e.HasSolution, e.SolutionPath)
	}
}

func TestMalformedExercises(t *testing.T) {
	const head = "# title: T\n# chapter: 1\n# goal: g\n"
	tests := []struct{ name, src, want string }{
		{"missing goal", "# title: T\n# chapter: 1\n\nchecks:\ncheck x == 1\n", "f.exercise:1: missing header line '# goal: ...'"},
		{"missing checks", head + "\nsetup:\nset x 1\n", "f.exercise:6: missing checks: section"},
		{"empty checks", head + "\nchecks:\n# nothing\n", "f.exercise:5: no checks"},
		{"not a check", head + "\nchecks:\nset x 1\n", "f.exercise:6: \"set x 1\" is not a check"},
		{"command outside a section", head + "\nset x 1\n", "f.exercise:5: command \"set x 1\" before setup: or checks:"},
		{"unknown section", head + "\nsolution:\nset x 1\n", "f.exercise:5: unknown section \"solution\""},
		{"setup after checks", head + "\nchecks:\ncheck x == 1\nsetup:\n", "f.exercise:7: section \"setup\" is out of place"},
		{"unknown header", head + "# level: easy\n", "f.exercise:4: unknown header \"level\""},
		{"empty hint", head + "# hint:\n", "f.exercise:4: empty hint"},
		{"bad chapter", "# title: T\n# chapter: 0\n", "f.exercise:2: chapter must be a number from 1 to 99"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseExercise("f.exercise", []byte(tt.src))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("err = %v\nwant prefix %q", err, tt.want)
			}
		})
	}
}

// TestExerciseValidation: unknown commands and unknown check quantities in
// the exercise or in the learner's attempt are FILE:LINE errors, found
// before anything runs.
func TestExerciseValidation(t *testing.T) {
	e, err := ParseExercise("v.exercise", []byte("# title: T\n# chapter: 1\n# goal: g\n\nsetup:\nset x 1\n\nchecks:\ncheck bogus == 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeFactory{}
	attempt := ParseCommands("attempt.mk", []byte("# my try\n\nfrobnicate x\n"))
	_, err = RunChecks(e, attempt, f.new)
	want := "attempt.mk:3: unknown command \"frobnicate\"\nv.exercise:9: check: unknown quantity \"bogus\""
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	var se *SourceError
	if !errors.As(err, &se) {
		t.Errorf("%T is not a SourceError", err)
	}
	if len(f.ran) != 0 {
		t.Errorf("ran %q before validating", f.ran)
	}
}

func newCoach(t *testing.T) (*Coach, *strings.Builder, string) {
	t.Helper()
	dir := t.TempDir()
	path, err := ProgressPath(func(k string) string { return map[string]string{"XDG_STATE_HOME": dir}[k] })
	if err != nil {
		t.Fatal(err)
	}
	p, err := LoadProgress(path)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	return &Coach{Out: &out, Progress: p}, &out, path
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCoachCheck: ✓/✗ per check with the check's expected-versus-actual
// output, the next hint on failure, the reference solution on success, and
// the progress file after each step.
func TestCoachCheck(t *testing.T) {
	e := content(t).Exercises[0]
	c, out, path := newCoach(t)
	f := &fakeFactory{}

	// A first attempt: one failing command, one check fails.
	passed, err := c.Check(e, "try.mk", []byte("# first try\nincr x\nget nope\n"), f.new)
	if err != nil || passed {
		t.Fatalf("passed=%v err=%v", passed, err)
	}
	if got, want := readFile(t, path), progressHeader+"01-01 set-x attempted hints=1\n"; got != want {
		t.Errorf("progress:\n%s\nwant:\n%s", got, want)
	}
	// A second failing attempt shows the second hint.
	if _, err := c.Check(e, "try.mk", nil, f.new); err != nil {
		t.Fatal(err)
	}
	// A third shows the last hint again, without counting past the end.
	if _, err := c.Check(e, "try.mk", []byte("set y 1\n"), f.new); err != nil {
		t.Fatal(err)
	}
	if got, want := readFile(t, path), progressHeader+"01-01 set-x attempted hints=2\n"; got != want {
		t.Errorf("progress:\n%s\nwant:\n%s", got, want)
	}
	// The solution passes.
	passed, err = c.Check(e, "try.mk", e.Solution, f.new)
	if err != nil || !passed {
		t.Fatalf("passed=%v err=%v", passed, err)
	}
	if got, want := readFile(t, path), progressHeader+"01-01 set-x solved hints=2\n"; got != want {
		t.Errorf("progress:\n%s\nwant:\n%s", got, want)
	}
	// A later failure does not take the solved status away.
	if _, err := c.Check(e, "try.mk", nil, f.new); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); !strings.Contains(got, "01-01 set-x solved hints=2") {
		t.Errorf("progress after a later failure:\n%s", got)
	}
	golden(t, "check.golden", out.String())
	if f.opened != f.closed || f.opened != 5 {
		t.Errorf("opened %d, closed %d; want one session per check", f.opened, f.closed)
	}
}

// TestCoachHints: hints come one at a time, are recorded, and once all are
// shown the learner gets the whole list.
func TestCoachHints(t *testing.T) {
	cat := content(t)
	e := cat.Exercises[0]
	c, out, path := newCoach(t)
	for range 3 {
		if err := c.Hint(e); err != nil {
			t.Fatal(err)
		}
	}
	want := "Hint 1/2 for 01-01 set-x: incr adds one to a variable.\n" +
		"(`minikafka exercise hint 01-01` again for the next one)\n" +
		"Hint 2/2 for 01-01 set-x: set y to 1 with `set y 1`;\n  then incr x.\n" +
		"No more hints for 01-01 set-x; here are all 2:\n" +
		"  1. incr adds one to a variable.\n" +
		"  2. set y to 1 with `set y 1`;\n  then incr x.\n"
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
	if got := readFile(t, path); got != progressHeader+"01-01 set-x new hints=2\n" {
		t.Errorf("progress:\n%s", got)
	}

	// Reloading the file keeps the count.
	p, err := LoadProgress(path)
	if err != nil {
		t.Fatal(err)
	}
	if en := p.Entry(e); en.HintsShown != 2 || en.Status != StatusNew {
		t.Errorf("reloaded entry = %+v", en)
	}
}

func TestCoachShowAndList(t *testing.T) {
	cat := content(t)
	second, err := ParseExercise("labs/02-more/01-other.exercise", []byte("# title: Another one\n# chapter: 2\n# goal: set n.\n\nchecks:\ncheck n == 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	cat.Exercises = append(cat.Exercises, second)
	c, out, _ := newCoach(t)
	c.Show(cat.Exercises[0])
	out.WriteString("====\n")
	c.List(cat)
	out.WriteString("====\n")
	c.Progress.Set(ProgressEntry{ID: "01-01", Slug: "set-x", Status: StatusSolved, HintsShown: 1})
	c.Progress.Set(ProgressEntry{ID: "02-01", Slug: "other", Status: StatusAttempted})
	c.Show(cat.Exercises[0])
	out.WriteString("====\n")
	c.List(cat)
	golden(t, "show-list.golden", out.String())
}

const progressHeader = "# minikafka exercise progress: ID SLUG STATUS hints=N (edit or delete freely)\n"

func TestProgressFile(t *testing.T) {
	if p, err := ProgressPath(func(k string) string { return map[string]string{"HOME": "/home/ada"}[k] }); err != nil || p != "/home/ada/.local/state/minikafka/progress" {
		t.Errorf("path = %q %v", p, err)
	}
	if _, err := ProgressPath(func(string) string { return "" }); err == nil {
		t.Error("no HOME and no XDG_STATE_HOME: no error")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "progress")
	bad := []struct{ text, want string }{
		{"01-01 set-x solved\n", "progress:1: expected \"ID SLUG STATUS hints=N\""},
		{"# ok\n01-01 set-x done hints=1\n", "progress:2: unknown status \"done\""},
		{"01-01 set-x new hints=-1\n", "progress:1: bad hint count \"hints=-1\""},
	}
	for _, b := range bad {
		if err := os.WriteFile(path, []byte(b.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadProgress(path)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%q: err = %v, want %q", b.text, err, b.want)
		}
	}
	if err := os.WriteFile(path, []byte("02-01 b solved hints=0\n\n01-01 a attempted hints=3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := LoadProgress(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(p.Bytes()); got != progressHeader+"01-01 a attempted hints=3\n02-01 b solved hints=0\n" {
		t.Errorf("bytes:\n%s", got)
	}
}

// TestVerifyExercise proves the verifier fails when it should: a missing
// solution, a solution that fails a check, a solution with a failing
// command, and checks that an empty attempt already passes.
func TestVerifyExercise(t *testing.T) {
	cat, err := Load(os.DirFS("testdata/badexercises"), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range cat.Problems {
		t.Error(p)
	}
	want := map[string]string{
		"01-01": "labs/01-bad/01-no-solution.exercise: no reference solution (expected the file labs/01-bad/01-no-solution.solution)",
		"01-02": "labs/01-bad/02-wrong-solution.exercise:9: the reference solution labs/01-bad/02-wrong-solution.solution fails \"check x == 2\": error: check x: expected 2, actual \"3\"",
		"01-03": "labs/01-bad/03-trivial.exercise: an empty attempt passes every check: the checks cannot fail, so they judge nothing",
		"01-04": "labs/01-bad/04-failing-command.solution:2: the reference solution's command \"get nope\" failed: error: no nope",
		"01-05": "labs/01-bad/05-setup-fails.exercise:6: setup command \"fail\" failed: error: on purpose",
	}
	if len(cat.Exercises) != len(want) {
		t.Fatalf("%d exercises, want %d", len(cat.Exercises), len(want))
	}
	for _, e := range cat.Exercises {
		err := VerifyExercise(e, (&fakeFactory{}).new)
		if err == nil || err.Error() != want[e.ID] {
			t.Errorf("%s: err = %v\nwant %s", e.ID, err, want[e.ID])
		}
	}
	// The good one passes.
	if err := VerifyExercise(content(t).Exercises[0], (&fakeFactory{}).new); err != nil {
		t.Error(err)
	}
}

// An indented continuation line whose first word ends in ':' continues the
// goal or hint; it is not read as a header key.
func TestExerciseContinuationWithColon(t *testing.T) {
	src := "# title: T\n# chapter: 1\n# goal: keep the follower in sync.\n#   anything: it must fetch in time.\n# hint: first: look at the clock.\n#   note: then replicate.\n\nchecks:\ncheck x == 1\n"
	e, err := ParseExercise("labs/01-a/01-t.exercise", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if e.Goal != "keep the follower in sync.\nanything: it must fetch in time." || len(e.Hints) != 1 || e.Hints[0] != "first: look at the clock.\nnote: then replicate." {
		t.Fatalf("goal %q hints %q", e.Goal, e.Hints)
	}
}

// TestCoachHintsByCheck: with hints written among the checks, a failed
// attempt gets the hint of the first check that failed, whatever was
// shown before, and a solved one names what comes next.
func TestCoachHintsByCheck(t *testing.T) {
	src := "# title: T\n# chapter: 1\n# goal: x 2, y 1\n# hint: general one\n# hint: general two\n\nsetup:\nset x 1\n\nchecks:\n" +
		"# hint: x must be two:\n#   incr it.\ncheck x == 2\n# A comment of the author's.\n# hint: y must be one.\ncheck y == 1\ncheck n == 0\n"
	e, err := ParseExercise("labs/01-basics/02-hinted.exercise", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(e.CheckHints) != 2 || e.HintFor(0) != "x must be two:\nincr it." || e.HintFor(1) != "y must be one." || e.HintFor(2) != "y must be one." || e.HintFor(3) != "" {
		t.Fatalf("check hints %q", e.CheckHints)
	}
	c, out, _ := newCoach(t)
	f := &fakeFactory{}
	// Only y fails: its hint, not the first one.
	if _, err := c.Check(e, "a.mk", []byte("incr x\n"), f.new); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "Hint for `check y == 1`: y must be one.") || strings.Contains(got, "x must be two") || strings.Contains(got, "general") {
		t.Errorf("y fails:\n%s", got)
	}
	out.Reset()
	// Both fail: the first failing check's hint.
	if _, err := c.Check(e, "a.mk", nil, f.new); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "Hint for `check x == 2`: x must be two:\n  incr it.\n") || !strings.Contains(got, "`minikafka exercise hint 01-02` gives the exercise's hints, one at a time (2)") {
		t.Errorf("both fail:\n%s", got)
	}
	// A translation carries the check hints, in order.
	tr, err := ParseExerciseText("x.exercise.zh", Chinese, []byte("# title: 题\n# goal: 目标\n# hint: 一\n# hint: 二\n# check-hint: x 要是二。\n# check-hint: y 要是一。\n"))
	if err != nil || e.CheckText(tr) != nil {
		t.Fatalf("%v %v", err, e.CheckText(tr))
	}
	e.Texts = map[Language]*ExerciseText{Chinese: tr}
	if zh, err := e.In(Chinese); err != nil || zh.HintFor(2) != "y 要是一。" {
		t.Errorf("translated hint: %v %q", err, zh.HintFor(2))
	}
	short, _ := ParseExerciseText("x.exercise.zh", Chinese, []byte("# title: 题\n# goal: 目标\n# hint: 一\n# hint: 二\n# check-hint: x\n"))
	if err := e.CheckText(short); err == nil || !strings.Contains(err.Error(), "1 check-hints, but") {
		t.Errorf("a missing check-hint: %v", err)
	}
}

// TestCourseAndProgress: the course runs chapter by chapter (read, labs,
// exercises, quiz); the progress file keeps chapters read and labs
// completed; the next step follows the last thing done.
func TestCourseAndProgress(t *testing.T) {
	cat := content(t)
	var kinds []string
	for _, it := range cat.Course(English) {
		kinds = append(kinds, it.Command())
	}
	want := []string{"read 1", "lab step 01-01", "lab step 01-02", "exercise try 01-01", "quiz 1", "read 2", "lab step 02-01"}
	if strings.Join(kinds, ",") != strings.Join(want, ",") {
		t.Fatalf("course %q, want %q", kinds, want)
	}
	_, _, path := newCoach(t)
	p, _ := LoadProgress(path)
	if line := cat.NextLine(p, English, nil); line != "Next: `minikafka read 1` (Basics of counting)" {
		t.Errorf("first: %q", line)
	}
	l, _ := cat.Lab("01-02")
	p.MarkRead(1)
	p.MarkLab(l.ID, l.Slug)
	// 01-01 was skipped: next is what chapter 1 still holds, first.
	if it, ok := cat.Next(p, English); !ok || it.Command() != "lab step 01-01" {
		t.Errorf("next after 01-02: %+v", it)
	}
	p.MarkLab("01-01", "counting")
	if it, ok := cat.Next(p, English); !ok || it.Command() != "exercise try 01-01" {
		t.Errorf("next after both labs: %+v", it)
	}
	if err := p.Save(); err != nil {
		t.Fatal(err)
	}
	back, err := LoadProgress(path)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Read(1) || back.Read(2) || !back.LabDone(l) {
		t.Errorf("read back:\n%s", back.Bytes())
	}
	if got := string(back.Bytes()); !strings.Contains(got, "read 01\nlab 01-01 counting done\nlab 01-02 escapes done\n") {
		t.Errorf("file:\n%s", got)
	}
	var out strings.Builder
	cat.InREPL = true
	cat.WriteProgress(&out, back, English, nil)
	if got := out.String(); !strings.Contains(got, "Chapters read 1/2, labs completed 2/3, exercises solved 0/1, quizzes taken 0/1.") ||
		!strings.Contains(got, "Next: `exercise try 01-01` (Make x two)") {
		t.Errorf("progress:\n%s", got)
	}
	for _, bad := range []string{"read x\n", "read 01 02\n", "lab 01-01 x\n", "lab 01-01 x done extra\n"} {
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadProgress(path); err == nil {
			t.Errorf("%q read without an error", bad)
		}
	}
}
