package repl

import (
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"
)

// TestInterruptStopsReplicateRounds: Interrupt from another goroutine
// (Ctrl-C in the interactive REPL) ends `replicate rounds=N` after the
// round in progress; the command says how far it got, and the next command
// is not interrupted.
func TestInterruptStopsReplicateRounds(t *testing.T) {
	s := newTestSession(t, Options{})
	for _, l := range []string{"topic create t partitions=6 rf=3", "produce t value=x partition=0 acks=1"} {
		if out, err := run(t, s, l); err != nil {
			t.Fatalf("%s: %v\n%s", l, err, out)
		}
	}
	var done atomic.Bool
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for !done.Load() {
			s.Interrupt()
		}
	}()
	out, err := run(t, s, "replicate rounds=1000")
	done.Store(true)
	<-stopped // its last Interrupt must not land in the next command
	if err != nil {
		t.Fatalf("replicate: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`interrupted after round (\d+) of 1000\n`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("not interrupted:\n%.500s", out)
	}
	if n, _ := strconv.Atoi(m[1]); n < 1 || n >= 1000 {
		t.Fatalf("interrupted after round %d", n)
	}
	if out, err := run(t, s, "replicate rounds=3"); err != nil || regexp.MustCompile(`interrupted`).MatchString(out) {
		t.Fatalf("the next command was interrupted too: %v\n%s", err, out)
	}
	if s.Stopped() {
		t.Fatal("Interrupt stopped the session")
	}
	s.Stop()
	if out, _ := run(t, s, "replicate rounds=3"); !regexp.MustCompile(`interrupted after round 1 of 3`).MatchString(out) {
		t.Fatalf("after Stop a command runs to the end:\n%s", out)
	}
}
