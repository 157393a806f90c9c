package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// content is the runner's fixture material (labs/testdata/content).
const content = "../labs/testdata/content"

type result struct {
	status         int
	stdout, stderr string
}

func run(t *testing.T, env *Env, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	env.Stdout, env.Stderr = &out, &errOut
	if env.Stdin == nil {
		env.Stdin = strings.NewReader("")
	}
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	status := Main(env, args)
	return result{status, out.String(), errOut.String()}
}

func TestLabList(t *testing.T) {
	useFakeSessions(t)
	r := run(t, &Env{}, "lab", "list", "--dir", content)
	want := "ID     SLUG      CHAPTER  STEPS  TITLE\n" +
		"01-01  counting        1      5  Counting up\n" +
		"01-02  escapes         1      2  Escapes for the unpredictable\n" +
		"02-01  two             2      3  Two variables\n"
	if r.status != 0 || r.stdout != want || r.stderr != "" {
		t.Errorf("status %d\nstdout:\n%s\nstderr:\n%s", r.status, r.stdout, r.stderr)
	}
}

func TestLabRun(t *testing.T) {
	useFakeSessions(t)
	r := run(t, &Env{}, "lab", "run", "--all", "--dir", content)
	want := "✓ 01-01 counting (5 steps)\n✓ 01-02 escapes (2 steps)\n✓ 02-01 two (3 steps)\n\n3 labs: 3 passed, 0 failed\n"
	if r.status != 0 || r.stdout != want {
		t.Errorf("status %d\nstdout:\n%s\nstderr:\n%s", r.status, r.stdout, r.stderr)
	}
	r = run(t, &Env{}, "lab", "run", "escapes", "--dir", content)
	if r.status != 0 || r.stdout != "✓ 01-02 escapes (2 steps)\n" {
		t.Errorf("run one: %+v", r)
	}
	r = run(t, &Env{}, "lab", "run", "09-09", "--dir", content)
	if r.status != 1 || !strings.Contains(r.stderr, `no lab "09-09"`) {
		t.Errorf("unknown lab: %+v", r)
	}
	for _, args := range [][]string{{"lab"}, {"lab", "run"}, {"lab", "run", "01-01", "--all"}, {"lab", "list", "--rewrite"}, {"lab", "frob"}, {"lab", "run", "--bogus"}} {
		if r := run(t, &Env{}, args...); r.status != 2 || !strings.Contains(r.stderr, "usage:") {
			t.Errorf("%q: %+v", args, r)
		}
	}
	if r := run(t, &Env{}, "lab", "--help"); r.status != 0 || !strings.HasPrefix(r.stdout, "usage:") {
		t.Errorf("help: %+v", r)
	}
}

// TestLabRunMismatch: a differing lab prints FILE:LINE and a unified diff
// and exits 1.
func TestLabRunMismatch(t *testing.T) {
	useFakeSessions(t)
	env := &Env{Content: fstest.MapFS{
		"labs/01-a/01-off.lab": {Data: []byte("# title: Off\n# chapter: 1\n\nset x 1\n----\nok\n\nincr x\n----\nx=3\n")},
	}}
	r := run(t, env, "lab", "run", "01-01")
	want := "✗ 01-01 off (2 steps, 1 block differs)\nlabs/01-a/01-off.lab:8: incr x\n--- expected\n+++ actual\n@@ -1 +1 @@\n-x=3\n+x=2\n"
	if r.status != 1 || r.stdout != want {
		t.Errorf("status %d\nstdout:\n%s\nwant:\n%s", r.status, r.stdout, want)
	}
	// The built-in labs are read-only.
	if r := run(t, env, "lab", "run", "--all", "--rewrite"); r.status != 2 || !strings.Contains(r.stderr, "needs --dir") {
		t.Errorf("rewrite of embedded labs: %+v", r)
	}
}

// TestLabRunRewrite: --rewrite --dir rewrites the files on disk.
func TestLabRunRewrite(t *testing.T) {
	useFakeSessions(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "labs", "01-a", "01-off.lab")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	src := "# title: Off\n# chapter: 1\n\n# Narration stays.\nset x 1\n----\nok\n\nincr x\n----\nx=3\n\npara\n----\nold\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, &Env{}, "lab", "run", "--all", "--rewrite", "--dir", dir)
	if r.status != 0 || r.stdout != "↻ 01-01 off (3 steps): rewrote 2 blocks; review the diff before you commit it\n" {
		t.Errorf("%+v", r)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "# title: Off\n# chapter: 1\n\n# Narration stays.\nset x 1\n----\nok\n\nincr x\n----\nx=2\n\npara\n----\n----\nfirst paragraph\n\nsecond paragraph\n----\n----\n"
	if string(got) != want {
		t.Errorf("rewritten:\n%s\nwant:\n%s", got, want)
	}
	if r := run(t, &Env{}, "lab", "run", "--all", "--dir", dir); r.status != 0 {
		t.Errorf("after rewrite: %+v", r)
	}
}

// TestLabStepPiped: step mode with piped input echoes the input and works
// through the lab.
func TestLabStepPiped(t *testing.T) {
	useFakeSessions(t)
	env := &Env{Content: fstest.MapFS{
		"labs/01-a/01-two.lab": {Data: []byte("# title: Two\n# chapter: 1\n\n# First, set x.\nset x 1\n----\nok\n\nincr x\n----\nx=2\n")},
	}, Stdin: strings.NewReader("\nincr x\nreset\n\n\nquit\n")}
	r := run(t, env, "lab", "step", "two")
	want := "Lab 01-01 two: Two (chapter 1, 2 steps)\n" +
		"Press Enter to run each step. Type a command of your own to experiment, or: back, reset, quit.\n\n" +
		"── Step 1/2 ──\nFirst, set x.\n\nnext: set x 1\n01-01 1/2> \nok\n\n" +
		"── Step 2/2 ──\nnext: incr x\n01-01 2/2> incr x\nx=2\n" +
		"(You left the script: later steps may no longer match. `reset` replays up to this step without your commands.)\n" +
		"01-01 2/2> reset\nReset: replayed 1 step on a fresh cluster; your own commands are gone.\n\n" +
		"── Step 2/2 ──\nnext: incr x\n01-01 2/2> \nx=2\n\n" +
		"End of lab 01-01 two: 2 steps, every output matched the lab.\nKeep experimenting, or: back, reset, quit.\n" +
		"01-01 end> \nThe lab is finished. Keep experimenting, or: back, reset, quit.\n01-01 end> quit\nStopped at step 2 of 2.\n"
	if r.status != 0 || r.stdout != want {
		t.Errorf("status %d\nstdout:\n%s\nwant:\n%s\nstderr: %s", r.status, r.stdout, want, r.stderr)
	}
}

func TestLabProblemsAreReported(t *testing.T) {
	useFakeSessions(t)
	env := &Env{Content: fstest.MapFS{
		"labs/01-a/01-ok.lab":     {Data: []byte("# title: OK\n# chapter: 1\n\nset x 1\n----\nok\n")},
		"labs/01-a/02-broken.lab": {Data: []byte("# title: Broken\n# chapter: 1\n\nset x 1\nok\n")},
	}}
	r := run(t, env, "lab", "run", "--all")
	if r.status != 1 || r.stdout != "✓ 01-01 ok (1 step)\n" || r.stderr != "labs/01-a/02-broken.lab:4: command \"set x 1\" is not followed by a ---- line\n" {
		t.Errorf("%+v", r)
	}
	r = run(t, env, "lab", "list")
	if r.status != 1 || !strings.Contains(r.stderr, "02-broken.lab:4:") {
		t.Errorf("list: %+v", r)
	}
}

// TestLabChapters: `lab chapters` reports a drifted transcript, --rewrite
// needs --dir and regenerates only the drifted output, after which the
// chapter checks clean.
func TestLabChapters(t *testing.T) {
	useFakeSessions(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "chapters", "01-drift.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	src := "# 1. Drift\n\nProse.\n\n```mk\nmk> set x 1\nok\nmk> incr x\nx=5\n```\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(t, &Env{}, "lab", "chapters", "--dir", dir); r.status != 1 || !strings.Contains(r.stdout, "✗ 01-drift\n") || !strings.Contains(r.stdout, "-x=5\n+x=2") {
		t.Errorf("check: %+v", r)
	}
	if r := run(t, &Env{}, "lab", "chapters", "--rewrite"); r.status != 2 {
		t.Errorf("rewrite without --dir: %+v", r)
	}
	if r := run(t, &Env{}, "lab", "chapters", "1", "--rewrite", "--dir", dir); r.status != 0 || r.stdout != "✓ 01-drift (1 output rewritten)\n" {
		t.Errorf("rewrite: %+v", r)
	}
	got, _ := os.ReadFile(path)
	if want := strings.Replace(src, "x=5", "x=2", 1); string(got) != want {
		t.Errorf("rewritten:\n%s\nwant:\n%s", got, want)
	}
	if r := run(t, &Env{}, "lab", "chapters", "--dir", dir); r.status != 0 || r.stdout != "✓ 01-drift\n" {
		t.Errorf("after rewrite: %+v", r)
	}
}

// lab run --set rules=kafka replays a lab with Kafka's rules in every
// cluster it opens: alice's partition among three is 2 under MiniKafka's
// crc32 and 0 under Kafka's murmur2. --set goes only with run and step.
func TestLabRunSetRules(t *testing.T) {
	dir := t.TempDir()
	lab := "# title: alice\n# chapter: 1\n\ncluster open brokers=1\n----\nok\n\ntopic create orders partitions=3\n----\nCreated topic orders.\n\ncheck orders partition-of key=alice == 2\n----\nok\n"
	if err := os.MkdirAll(filepath.Join(dir, "labs", "01-meet"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "labs", "01-meet", "01-alice.lab"), []byte(lab), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(t, &Env{}, "lab", "run", "01-01", "--dir", dir); r.status != 0 {
		t.Fatalf("minikafka rules: %+v", r)
	}
	r := run(t, &Env{}, "lab", "run", "01-01", "--set", "rules=kafka", "--dir", dir)
	if r.status != 1 || !strings.Contains(r.stdout, "got 0") {
		t.Fatalf("kafka rules: %+v", r)
	}
	if r := run(t, &Env{}, "lab", "run", "01-01", "--set=rules=kafka", "--set", "partitioner=crc32", "--dir", dir); r.status != 0 {
		t.Fatalf("kafka rules with crc32: %+v", r)
	}
	for _, args := range [][]string{{"lab", "list", "--set", "rules=kafka"}, {"lab", "run", "--all", "--rewrite", "--set", "rules=kafka"}, {"lab", "run", "01-01", "--set", "rules"}} {
		if r := run(t, &Env{}, append(args, "--dir", dir)...); r.status != 2 {
			t.Errorf("%v: %+v", args, r)
		}
	}
}

// TestLabRunFile: lab run takes a lab file by its path (a recorded lab).
func TestLabRunFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "01-mine.lab")
	src := "# title: Mine\n# chapter: 1\n\ntopic create t\n----\nCreated topic t.\n\ncheck t-0 leo == 0\n----\nok\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, &Env{Content: os.DirFS("..")}, "lab", "run", path)
	if r.status != 0 || !strings.Contains(r.stdout, "✓ mine (2 steps)") {
		t.Errorf("%+v", r)
	}
	if r := run(t, &Env{Content: os.DirFS("..")}, "lab", "run", filepath.Join(dir, "none.lab")); r.status != 1 {
		t.Errorf("a missing file: %+v", r)
	}
}
