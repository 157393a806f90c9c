package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// damagedDir prepares a data directory whose transaction journal ends in
// a torn line and whose orders-0 segment on broker 1 ends in garbage, and
// returns it.
func damagedDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	script := strings.Join([]string{
		"topic create orders rf=1",
		"produce orders value=a partition=0 acks=1",
		"txn begin t1",
		"txn send t1 orders value=b partition=0",
		"txn commit t1",
		"corrupt orders-0 broker=1 mode=garbage",
		"cluster crash",
		"corrupt journal mode=garbage",
	}, "\n") + "\n"
	var out, errOut bytes.Buffer
	env := &Env{Stdin: strings.NewReader(script), Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }}
	if code := Main(env, []string{"repl", "--data", dir, "--brokers", "1"}); code != 0 {
		t.Fatalf("setup: exit %d\n%s%s", code, &out, &errOut)
	}
	return dir
}

// TestReplDataPrintsRecovery: `repl --data` in a script prints the damage
// that recovery repaired (a torn journal line, a torn segment tail) on
// stderr, as `cluster open dir=` reports it; a clean reopen prints none.
func TestReplDataPrintsRecovery(t *testing.T) {
	dir := damagedDir(t)
	var out, errOut bytes.Buffer
	env := &Env{Stdin: strings.NewReader("topic list\n"), Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }}
	if code := Main(env, []string{"repl", "--data", dir, "--brokers", "1"}); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, &out, &errOut)
	}
	for _, want := range []string{
		"minikafka repl: recovery: transactions.journal: dropped ",
		"minikafka repl: recovery: orders-0 on broker 1: dropped ",
	} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, &errOut)
		}
	}
	out.Reset()
	errOut.Reset()
	env.Stdin = strings.NewReader("topic list\n")
	if code := Main(env, []string{"repl", "--data", dir, "--brokers", "1"}); code != 0 || errOut.Len() != 0 {
		t.Fatalf("clean reopen: exit %d, stderr:\n%s", code, &errOut)
	}
}

// TestServeDataPrintsRecovery: `serve --data` prints the same damage on
// its stdout before it listens.
func TestServeDataPrintsRecovery(t *testing.T) {
	dir := damagedDir(t)
	ctx, cancel := context.WithCancel(context.Background())
	_, out, errOut, status := startServe(t, ctx, "--data", dir, "--brokers", "1")
	cancel()
	if code := waitStatus(t, status); code != 0 {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"recovery: transactions.journal: dropped ",
		"recovery: orders-0 on broker 1: dropped ",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
}
