package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// run calls Main with an in-memory environment.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string {
			if k == "TMPDIR" {
				return t.TempDir()
			}
			return ""
		},
	}
	status = Main(env, args)
	return out.String(), errb.String(), status
}

const fixtureLog = "../fixtures/segments/torn-tail/00000000000000000000.log"

func TestDumpLogCommand(t *testing.T) {
	out, errOut, st := runCLI(t, "dump-log", fixtureLog, "--records")
	if st != 0 || errOut != "" {
		t.Fatalf("status %d stderr %q", st, errOut)
	}
	for _, want := range []string{
		"Dumping " + fixtureLog + "\nLog starting offset: 0\n",
		"| offset: 2 CreateTime: 1002 keySize: 5 valueSize: 11 sequence: -1 headerKeys: [source,trace] key: alice payload: likes kafka\n",
		"| offset: 8 endTxnMarker: COMMIT\n",
		"Found 15 invalid bytes at the end of " + fixtureLog + ": batch length does not match frame\n",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
	// Flags before the file, JSON.
	out, _, st = runCLI(t, "dump-log", "--format", "json", fixtureLog)
	if st != 0 || !strings.HasSuffix(out, `{"invalid_bytes":15,"position":588,"reason":"batch length does not match frame"}`+"\n") {
		t.Fatalf("json status %d:\n%s", st, out)
	}
	// Kafka 4.0's line shape (DumpLogSegments.printBatchLevel; the control
	// record's endTxnMarker line).
	out, _, st = runCLI(t, "dump-log", "--format", "kafka", "--records", fixtureLog)
	if st != 0 || !strings.Contains(out, "magic: 1 compresscodec: none crc: ") ||
		!strings.Contains(out, "endTxnMarker: COMMIT coordinatorEpoch: 0\n") {
		t.Fatalf("kafka format status %d:\n%s", st, out)
	}
	out, _, st = runCLI(t, "dump-log", "../fixtures/segments/clean/00000000000000000000.index")
	if st != 0 || !strings.Contains(out, "offset: 2 position: 110\n") {
		t.Fatalf("index dump status %d:\n%s", st, out)
	}
}

func TestDumpLogCommandBadInput(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	cases := []struct {
		args   []string
		status int
		stderr string
	}{
		{[]string{filepath.Join(dir, "missing.log")}, 1, "no such file or directory"},
		{[]string{dir}, 1, "is a directory"},
		{[]string{filepath.Join(dir, "notes.txt")}, 1, "is not a segment file"},
		{[]string{}, 2, "want exactly one FILE"},
		{[]string{fixtureLog, fixtureLog}, 2, "want exactly one FILE"},
		{[]string{fixtureLog, "--format", "yaml"}, 2, `unknown format "yaml"`},
		{[]string{"--nope", fixtureLog}, 2, "flag provided but not defined"},
	}
	for _, c := range cases {
		out, errOut, st := runCLI(t, append([]string{"dump-log"}, c.args...)...)
		if st != c.status || !strings.Contains(errOut, c.stderr) || out != "" {
			t.Errorf("dump-log %v: status %d stdout %q stderr %q; want %d and %q", c.args, st, out, errOut, c.status, c.stderr)
		}
	}
}

func TestBenchCommand(t *testing.T) {
	out, errOut, st := runCLI(t, "bench", "produce", "fetch", "--records", "2000", "--format", "metrics", "--segment-bytes", "65536")
	if st != 0 {
		t.Fatalf("status %d stderr %s", st, errOut)
	}
	line := regexp.MustCompile(`^metric=go\.(produce\.b(1|512)\.(records_per_s|log_MBps)|fetch\.(single|chunked\.c1000\.n2000)\.records_per_s) value=[0-9.]+ unit=(records/s|MB/s)$`)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	for _, l := range lines {
		if !line.MatchString(l) {
			t.Fatalf("bad line %q", l)
		}
	}
	out, _, st = runCLI(t, "bench", "recover", "--records", "1000", "--batch", "10", "--rounds", "1")
	if st != 0 || !strings.Contains(out, "go.recovery.corrupt_tail.open_s") || !strings.Contains(strings.ToUpper(out), "WORKLOAD") {
		t.Fatalf("table status %d:\n%s", st, out)
	}
	for _, args := range [][]string{{"bench", "warp"}, {"bench", "--format", "csv"}, {"bench", "--records", "0"}, {"bench", "--rounds", "0"}} {
		if _, errOut, st := runCLI(t, args...); st != 2 || errOut == "" {
			t.Fatalf("%v: status %d stderr %q", args, st, errOut)
		}
	}
}
