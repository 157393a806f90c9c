package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func exerciseEnv(t *testing.T) (*Env, string) {
	t.Helper()
	state := t.TempDir()
	return &Env{Getenv: func(k string) string {
		if k == "XDG_STATE_HOME" {
			return state
		}
		return ""
	}}, filepath.Join(state, "minikafka", "progress")
}

func TestExerciseCLI(t *testing.T) {
	useFakeSessions(t)
	env, progress := exerciseEnv(t)

	r := run(t, env, "exercise", "list", "--dir", content)
	if r.status != 0 || !strings.Contains(r.stdout, "Progress: [--------------------] 0/1 solved") || !strings.Contains(r.stdout, "01-01  Make x two  -") {
		t.Errorf("list: %+v", r)
	}
	r = run(t, env, "exercise", "show", "01-01", "--dir", content)
	if r.status != 0 || !strings.Contains(r.stdout, "Goal:\n  after your commands, x must be 2 and y must be 1.") ||
		!strings.Contains(r.stdout, "minikafka exercise --dir "+content+" check 01-01 FILE") {
		t.Errorf("show: %+v", r)
	}
	r = run(t, env, "exercise", "hint", "set-x", "--dir", content)
	if r.status != 0 || !strings.HasPrefix(r.stdout, "Hint 1/2 for 01-01 set-x: incr adds one to a variable.") {
		t.Errorf("hint: %+v", r)
	}

	attempt := filepath.Join(t.TempDir(), "try.mk")
	if err := os.WriteFile(attempt, []byte("# my try\nincr x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, env, "exercise", "check", "01-01", attempt, "--dir", content)
	if r.status != 1 || !strings.Contains(r.stdout, "  ✓ check x == 2\n  ✗ check y == 1\n      error: CHECK_FAILED: expected y == 1, got \"\"\n") ||
		!strings.Contains(r.stdout, "Hint 2/2: set y to 1") {
		t.Errorf("check (failing):\n%s\n%s", r.stdout, r.stderr)
	}
	got, err := os.ReadFile(progress)
	if err != nil || !strings.HasSuffix(string(got), "\n01-01 set-x attempted hints=2\n") {
		t.Errorf("progress after failing check: %q %v", got, err)
	}

	env.Stdin = strings.NewReader("incr x\nset y 1\n")
	r = run(t, env, "exercise", "check", "01-01", "-", "--dir", content)
	if r.status != 0 || !strings.Contains(r.stdout, "✓ Solved: all 2 checks pass.") {
		t.Errorf("check (stdin):\n%s\n%s", r.stdout, r.stderr)
	}
	got, _ = os.ReadFile(progress)
	if !strings.HasSuffix(string(got), "\n01-01 set-x solved hints=2\n") {
		t.Errorf("progress after solving: %q", got)
	}

	// A typo in the attempt is reported at its line, before anything runs.
	env.Stdin = strings.NewReader("incr x\nfrobnicate\n")
	r = run(t, env, "exercise", "check", "01-01", "-", "--dir", content)
	if r.status != 1 || !strings.Contains(r.stderr, "stdin:2: unknown command \"frobnicate\"") {
		t.Errorf("typo: %+v", r)
	}

	for _, args := range [][]string{{"exercise"}, {"exercise", "show"}, {"exercise", "check", "01-01"}, {"exercise", "frob", "x"}} {
		if r := run(t, env, args...); r.status != 2 {
			t.Errorf("%q: %+v", args, r)
		}
	}
	if r := run(t, env, "exercise", "show", "nope", "--dir", content); r.status != 1 || !strings.Contains(r.stderr, `no exercise "nope"`) {
		t.Errorf("unknown exercise: %+v", r)
	}
	if r := run(t, env, "exercise", "check", "01-01", "/nonexistent/try.mk", "--dir", content); r.status != 1 {
		t.Errorf("missing file: %+v", r)
	}
}

func TestExerciseWithoutHome(t *testing.T) {
	useFakeSessions(t)
	r := run(t, &Env{}, "exercise", "list", "--dir", content)
	if r.status != 1 || !strings.Contains(r.stderr, "cannot locate the progress file") {
		t.Errorf("%+v", r)
	}
}

// waitFor waits until the buffer holds want.
func waitFor(t *testing.T, b *syncBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(b.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %q in:\n%s", want, b.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestExerciseCheckWatch: --watch checks the file, then again each time it
// is saved, and ends when the attempt passes; Ctrl-C (Interrupt) stops it.
func TestExerciseCheckWatch(t *testing.T) {
	useFakeSessions(t)
	saved := watchEvery
	watchEvery = 10 * time.Millisecond
	t.Cleanup(func() { watchEvery = saved })
	env, _ := exerciseEnv(t)
	attempt := filepath.Join(t.TempDir(), "try.mk")
	if err := os.WriteFile(attempt, []byte("incr x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	env.Stdout, env.Stderr, env.Stdin = &out, &out, strings.NewReader("")
	done := make(chan int)
	go func() {
		done <- Main(env, []string{"exercise", "check", "01-01", attempt, "--watch", "--dir", content})
	}()
	waitFor(t, &out, "Edit "+attempt+": it is checked again every time you save it (Ctrl-C stops).")
	if err := os.WriteFile(attempt, []byte("incr x\nset y 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, &out, "── "+attempt+" changed: checking again ──")
	select {
	case status := <-done:
		if status != 0 || !strings.Contains(out.String(), "✓ Solved: all 2 checks pass.") {
			t.Errorf("status %d:\n%s", status, out.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("--watch did not end when the attempt passed:\n%s", out.String())
	}

	// Interrupted before it passes.
	if err := os.WriteFile(attempt, []byte("\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	env.Interrupt = stop
	var out2 syncBuffer
	env.Stdout, env.Stderr = &out2, &out2
	go func() {
		done <- Main(env, []string{"exercise", "check", "01-01", attempt, "--watch", "--dir", content})
	}()
	waitFor(t, &out2, "checks failed")
	close(stop)
	if status := <-done; status != 1 || !strings.Contains(out2.String(), "Stopped watching.") {
		t.Errorf("interrupted: %d\n%s", status, out2.String())
	}
	if r := run(t, env, "exercise", "show", "01-01", "--watch", "--dir", content); r.status != 2 {
		t.Errorf("--watch with show: %+v", r)
	}
}

// TestExerciseTryPiped: exercise try opens a session with the setup
// applied; the commands piped in run there, and check judges the live
// state, records the exercise as solved and names what comes next.
func TestExerciseTryPiped(t *testing.T) {
	env, progress := exerciseEnv(t)
	env.Content = os.DirFS("..")
	env.Stdin = strings.NewReader("produce events value=a acks=1\ncheck\nreplicate\nproduce events value=b acks=1\ncheck\n")
	r := run(t, env, "exercise", "try", "01-03")
	for _, want := range []string{
		"The setup ran on a fresh cluster (2 commands):\n  cluster open brokers=1,2\n  topic create events partitions=1 rf=2\n",
		"> check\nChecking 01-03 leo-ahead-of-hw: Acknowledged but not visible\n",
		"✗ 4 of 7 checks failed.",
		"✓ Solved: all 7 checks pass.",
		"Next: `read 1` (1. Meet MiniKafka)", // typed in this REPL: chapter 1 first
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("missing %q in:\n%s\n%s", want, r.stdout, r.stderr)
		}
	}
	if r.status != 1 { // the first check failed
		t.Errorf("status %d", r.status)
	}
	got, _ := os.ReadFile(progress)
	if !strings.Contains(string(got), "01-03 leo-ahead-of-hw solved") {
		t.Errorf("progress: %q", got)
	}
}
