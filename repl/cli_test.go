package repl_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/cli"
)

// runCLI runs `minikafka ARGS...` in memory with stdin piped (not a
// terminal), as `minikafka repl < script.mk` does.
func runCLI(t *testing.T, stdin string, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	e := &cli.Env{
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut,
		Getenv: func(k string) string { return env[k] },
	}
	status := cli.Main(e, args)
	return status, out.String(), errOut.String()
}

func TestCLIScript(t *testing.T) {
	script := "# a comment\n\ntopic create events\nproduce events value=a\nnosuch\nfetch events-0\n"
	status, out, _ := runCLI(t, script, nil, "repl")
	want := "> topic create events\nCreated topic events.\n> produce events value=a\nevents-0@0 (acks=1)\n  events-0 HW 0 -> 1\n> nosuch\n" +
		"error: INVALID_ARGUMENT: unknown command \"nosuch\"\nhint: `help` lists every command\n"
	if status != 1 || out != want {
		t.Errorf("status %d, output:\n%s\nwant:\n%s", status, out, want)
	}
	status, out, _ = runCLI(t, script, nil, "repl", "--keep-going")
	if status != 1 || !strings.HasSuffix(out, "> fetch events-0\nevents-0@0 value=a\n(1 record; next offset 1; HW 1)\n") {
		t.Errorf("--keep-going: status %d, output:\n%s", status, out)
	}
	// Plain `minikafka` with piped stdin is the REPL too.
	status, out, _ = runCLI(t, "clock\n", nil)
	if status != 0 || out != "> clock\nclock: 0 ms\n" {
		t.Errorf("no arguments: status %d, %q", status, out)
	}
}

func TestCLIFlags(t *testing.T) {
	status, out, _ := runCLI(t, "config\n", nil, "repl", "--brokers", "4,5", "--set", "min.insync.replicas=2", "--set", "segment.bytes=4096")
	if status != 0 || !strings.Contains(out, "brokers=4,5\n") || !regexp.MustCompile(`\nmin\.insync\.replicas +2 `).MatchString(out) ||
		!regexp.MustCompile(`\nsegment\.bytes +4096 `).MatchString(out) || !strings.HasPrefix(out, "> config\nrules=minikafka\n") {
		t.Errorf("status %d:\n%s", status, out)
	}
	// repl --set rules=kafka chooses Kafka's rules for the session, also for
	// the clusters it opens later; a single rule set beside it wins.
	status, out, _ = runCLI(t, "config\ncluster open brokers=1,2\nconfig\n", nil, "repl", "--set", "truncation=high-watermark", "--set", "rules=kafka")
	if status != 0 || strings.Count(out, "rules=kafka with truncation=high-watermark\n") != 2 {
		t.Errorf("--set rules=kafka: status %d:\n%s", status, out)
	}
	status, out, _ = runCLI(t, "topic create t\nnosuch\n", nil, "repl", "--format", "json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if status != 1 || len(lines) != 2 {
		t.Fatalf("json: status %d, %q", status, out)
	}
	for _, l := range lines {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Errorf("not one JSON object per line: %q: %v", l, err)
		}
	}
	// Colour: never in a script unless asked; --color=always forces it,
	// except that NO_COLOR always wins.
	_, out, _ = runCLI(t, "nosuch\n", nil, "repl")
	if strings.Contains(out, "\x1b[") {
		t.Errorf("ANSI in a script: %q", out)
	}
	_, out, _ = runCLI(t, "nosuch\n", nil, "repl", "--color", "always")
	if !strings.Contains(out, "\x1b[") {
		t.Errorf("--color=always: no ANSI in %q", out)
	}
	_, out, _ = runCLI(t, "nosuch\n", map[string]string{"NO_COLOR": "1"}, "repl", "--color", "always")
	if strings.Contains(out, "\x1b[") {
		t.Errorf("NO_COLOR with --color=always: ANSI in %q", out)
	}
	for _, bad := range [][]string{
		{"repl", "--format", "yaml"}, {"repl", "--color", "sometimes"}, {"repl", "--brokers", "1,1"},
		{"repl", "--set", "nokey"}, {"repl", "--set", "min.insync.replicas=0"}, {"repl", "extra"},
	} {
		if status, _, errOut := runCLI(t, "", nil, bad...); status == 0 || errOut == "" {
			t.Errorf("%v: status %d, stderr %q", bad, status, errOut)
		}
	}
}

// TestCLIDataDir: --data keeps the cluster; the next session recovers it.
func TestCLIDataDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if status, out, _ := runCLI(t, "topic create kept\nproduce kept value=v\n", nil, "repl", "--data", dir); status != 0 {
		t.Fatalf("first session: %d\n%s", status, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "metadata.json")); err != nil {
		t.Fatalf("--data must keep the directory: %v", err)
	}
	status, out, _ := runCLI(t, "fetch kept-0\ncluster restart\n", nil, "repl", "--data", dir)
	if status != 0 || !strings.Contains(out, "kept-0@0 value=v") ||
		!strings.Contains(out, "kept-0 broker 1: clean-shutdown marker trusted") {
		t.Errorf("second session: %d\n%s", status, out)
	}
}

// Decision 43: a `txn commit` whose marker is refused at once is a failed
// command. A piped script stops there (exit status 1) unless --keep-going;
// in JSON the line says ok:false with the code; the transaction stays
// prepared, so the same commit succeeds once min.insync.replicas allows it.
func TestCLIRefusedCommitStopsTheScriptDecision43(t *testing.T) {
	script := "cluster open brokers=1\ntopic create s partitions=1 rf=1\ntxn begin t\ntxn send t s value=v\n" +
		"config set min.insync.replicas=2\ntxn commit t\nconfig set min.insync.replicas=1\ntxn commit t\n"
	status, out, _ := runCLI(t, script, nil, "repl")
	if status != 1 || !strings.HasSuffix(out, "> txn commit t\n"+
		"  transaction t: commit did not complete (NOT_ENOUGH_REPLICAS: commit marker for s-0: ISR [1] has 1, below min.insync.replicas=2); it stays prepare_commit, and `txn commit t` retries it\n"+
		"error: NOT_ENOUGH_REPLICAS: commit marker for s-0: ISR [1] has 1, below min.insync.replicas=2\n"+
		"hint: the ISR is smaller than min.insync.replicas, so acks=all refused before appending; `replicate` lets followers catch up and rejoin the ISR\n") {
		t.Errorf("the script must stop at the refused commit: status %d, output:\n%s", status, out)
	}
	status, out, _ = runCLI(t, script, nil, "repl", "--keep-going")
	if status != 1 || !strings.HasSuffix(out, "> txn commit t\ntransaction t: COMMIT marker at s-0@1\n  s-0 HW 1 -> 2\n"+
		"  ack #4 (txn t commit marker) s-0 done: offset 1\n  transaction t is complete_commit (marker acknowledged on s-0)\n") {
		t.Errorf("--keep-going: the retry must commit, the status must say a command failed: status %d, output:\n%s", status, out)
	}
	status, out, _ = runCLI(t, script, nil, "repl", "--format", "json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var last struct {
		Command string `json:"command"`
		OK      bool   `json:"ok"`
		Error   *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	if status != 1 || len(lines) != 6 || last.Command != "txn commit t" || last.OK || last.Error == nil || last.Error.Code != "NOT_ENOUGH_REPLICAS" {
		t.Errorf("json: status %d, %d lines, last %+v:\n%s", status, len(lines), last, out)
	}
}
