package repl

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWalkthrough is a new learner's first session, piped into the REPL as
// `go run . < testdata/walkthrough.mk` would: open the tool, read chapter 1
// inside the REPL, step through lab 01-01, try and solve exercise 01-01;
// progress then shows all three and names the next step. The transcript is
// testdata/walkthrough.golden (go test ./repl -update rewrites it; review
// the diff), and the progress file is checked too.
func TestWalkthrough(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	progress := filepath.Join(state, "progress")
	s := newTestSession(t, Options{Content: os.DirFS(".."), ProgressPath: progress})
	in, err := os.Open("testdata/walkthrough.mk")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out bytes.Buffer
	status := RunScript(s, in, &out, ScriptOptions{KeepGoing: true})
	got := out.String()
	for _, want := range []string{
		"Next: `read 1` (1. Meet MiniKafka)",                 // before anything
		"1. Meet MiniKafka\n=================",               // the chapter, rendered
		"Next: `lab step 01-01` (First record: topic, keyed", // after the chapter
		"01-01 1/9> \n", // the lab's prompt, Enter
		"next: topic create orders partitions=2 rf=1", // the pending step
		"End of lab 01-01 first-record: 9 steps, every output matched the lab.",
		"Next: `lab step 01-02` (Offset 0 twice", // after the lab
		"Back in your session: your cluster is as you left it.",
		"error: CHECK_FAILED: expected orders partition-of key=alice == 0, got 1", // a wrong guess
		"✓ Solved: all 8 checks pass.",                                            // the exercise
		"Next: `lab step 01-02` (Offset 0 twice: why an offset is not an identity)\n> progress",
		"   1  1. Meet MiniKafka                       ✓     1/4    1/4",
		"Chapters read 1/", "labs completed 1/", "exercises solved 1/",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the walkthrough lacks %q", want)
		}
	}
	if status != 1 { // the wrong guess was a failed check
		t.Errorf("status %d", status)
	}
	p, err := os.ReadFile(progress)
	if err != nil || !strings.Contains(string(p), "01-01 two-offset-zeros solved hints=0\n") ||
		!strings.Contains(string(p), "read 01\n") || !strings.Contains(string(p), "lab 01-01 first-record done\n") {
		t.Errorf("progress file: %q %v", p, err)
	}
	golden := "testdata/walkthrough.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./repl -update creates it)", err)
	}
	if string(want) != got {
		t.Errorf("%s is stale (go test ./repl -update, then review the diff):\n%s", golden, lineDiff(string(want), got))
	}
}

// TestQuizInsideTheREPL: quiz N reads the answers from the session's next
// lines, records them and names the next step.
func TestQuizInsideTheREPL(t *testing.T) {
	progress := filepath.Join(t.TempDir(), "progress")
	s := newTestSession(t, Options{Content: os.DirFS(".."), ProgressPath: progress})
	var out bytes.Buffer
	RunScript(s, strings.NewReader("quiz 1\nz\n\nq\nquiz\n"), &out, ScriptOptions{KeepGoing: true})
	got := out.String()
	for _, want := range []string{"Question 1/5", "answer> z\n", "answer> q\n", "Score: 0 of 1 answered correctly (5 questions).", "0/5 correct, 1 wrong", "Next: `read 1`", "Quizzes (answer one with `quiz N`):"} {
		if !strings.Contains(got, want) {
			t.Errorf("the quiz lacks %q:\n%s", want, got)
		}
	}
}
