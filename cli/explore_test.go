package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExplore(t *testing.T) {
	script := filepath.Join(t.TempDir(), "acks1.mk")
	if err := os.WriteFile(script, []byte("# one record, acks=1\ntopic create events partitions=1 rf=3\nproduce events value=x acks=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, &Env{}, "explore", script, "depth=3")
	if r.status != 3 || !strings.Contains(r.stdout, "acked-not-lost breaks after 1 step") {
		t.Errorf("status %d\n%s%s", r.status, r.stdout, r.stderr)
	}
	r = run(t, &Env{}, "explore", script, "depth=2", "ops=replicate")
	if r.status != 0 || !strings.Contains(r.stdout, "no violation of acked-not-lost within depth 2") {
		t.Errorf("status %d\n%s%s", r.status, r.stdout, r.stderr)
	}
	for _, args := range [][]string{{"explore"}, {"explore", script, "depth=0"}, {"explore", script, "ops=fly"}, {"explore", script, "--depth"}} {
		if r := run(t, &Env{}, args...); r.status != 2 || r.stderr == "" {
			t.Errorf("%q: status %d, stderr %q", args, r.status, r.stderr)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.mk")
	os.WriteFile(bad, []byte("topic create events rf=9\n"), 0o644)
	if r := run(t, &Env{}, "explore", bad); r.status != 1 || !strings.Contains(r.stderr, "bad.mk:1") {
		t.Errorf("a failing script: status %d, stderr %q", r.status, r.stderr)
	}
}
