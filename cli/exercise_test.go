package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
