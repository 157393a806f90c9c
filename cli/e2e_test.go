package cli

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/minikafka-lab/minikafka/labs"
)

// e2e is a tiny real lab, exercise and chapter (labs/testdata/e2e) that run
// on REPL sessions, not on fakes.
const e2e = "../labs/testdata/e2e"

// TestEndToEnd runs lab, exercise and the content helpers through the real
// REPL session.
func TestEndToEnd(t *testing.T) {
	r := run(t, &Env{}, "lab", "run", "--all", "--dir", e2e)
	if r.status != 0 || r.stdout != "✓ 01-01 produce (5 steps)\n" {
		t.Errorf("lab run: %+v", r)
	}

	env, _ := exerciseEnv(t)
	r = run(t, env, "exercise", "check", "01-01", e2e+"/labs/01-smoke/01-replicate.solution", "--dir", e2e)
	if r.status != 0 || !strings.Contains(r.stdout, "  ✓ check events-0 hw == 1\n  ✓ check events-0 leo@2 == 1\n") {
		t.Errorf("exercise check (solution): %+v", r)
	}
	env.Stdin = strings.NewReader("# nothing yet\n")
	r = run(t, env, "exercise", "check", "01-01", "-", "--dir", e2e)
	if r.status != 1 || !strings.Contains(r.stdout, "  ✗ check events-0 hw == 1\n      error: CHECK_FAILED: expected events-0 hw == 1, got 0\n") {
		t.Errorf("exercise check (empty): %+v", r)
	}

	fsys := os.DirFS(e2e)
	newExec := newExecutor(&Env{}, true)
	labs.RunAll(t, fsys, newExec)
	labs.VerifyExercises(t, fsys, newExec)
	labs.CheckChapters(t, fsys, newExec)
}

// TestSessionAdapter: through the real REPL, unknown commands and
// subcommands, and a check on an unknown quantity, are found before
// anything runs (Session.Validate); all are FILE:LINE problems that stop the
// run, not output to compare.
func TestSessionAdapter(t *testing.T) {
	env := &Env{Content: fstest.MapFS{
		"labs/01-a/01-typo.lab":  {Data: []byte("# title: Typo\n# chapter: 1\n\nfrobnicate\n----\nerror: whatever\n\nbroker crashh 2\n----\nok\n")},
		"labs/01-a/02-check.lab": {Data: []byte("# title: Check\n# chapter: 1\n\ncluster open brokers=1\n----\nok\n\ntopic create events\n----\nCreated topic events.\n\ncheck events-0 bogus == 1\n----\nok\n")},
	}}
	r := run(t, env, "lab", "run", "--all")
	for _, want := range []string{
		"✗ 01-01 typo (2 steps, stopped)\nlabs/01-a/01-typo.lab:4: unknown command \"frobnicate\" (`help` lists every command)\n" +
			"labs/01-a/01-typo.lab:8: broker: unknown subcommand \"crashh\": one of ",
		"✗ 01-02 check (3 steps, stopped)\nlabs/01-a/02-check.lab:12: unknown quantity \"bogus\"; one of hw, lso, ",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("missing %q in:\n%s", want, r.stdout)
		}
	}
	if r.status != 1 {
		t.Errorf("status %d", r.status)
	}
}
