package repl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/minikafka-lab/minikafka/labs"
)

// TestExploreSavesALabThatPasses: from 3 brokers, rf=3 and one record
// produced with acks=1, explore finds the shortest loss, leaves the
// session's cluster as it was, and the lab it saves passes the lab runner,
// with a Chinese narration that matches it step for step.
func TestExploreSavesALabThatPasses(t *testing.T) {
	s := newTestSession(t, Options{})
	for _, line := range []string{"topic create events partitions=1 rf=3", "produce events value=x acks=1"} {
		if err := s.Exec(new(strings.Builder), line); err != nil {
			t.Fatal(err)
		}
	}
	picture := func() string {
		var b strings.Builder
		if err := s.Exec(&b, "offsets events-0"); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	before := picture()
	dir := t.TempDir()
	path := filepath.Join(dir, "06-found", "01-acks1-loss.lab")
	var out strings.Builder
	if err := s.Exec(&out, "explore depth=4 save="+path); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "acked-not-lost breaks after 1 step") || !strings.Contains(out.String(), " 1. promote events-0 2") {
		t.Fatalf("explore:\n%s", out.String())
	}
	if after := picture(); after != before {
		t.Fatalf("explore changed the session's cluster:\n%s\n----\n%s", before, after)
	}
	cat, err := labs.Load(os.DirFS(dir), dir)
	if err != nil || len(cat.Problems) > 0 || len(cat.Labs) != 1 {
		t.Fatalf("%v %v", err, cat.Problems)
	}
	var run strings.Builder
	if failed := labs.RunLabs(&run, cat.Labs, LabExecutor(Options{}), labs.RunOptions{}); failed != 0 {
		t.Fatalf("the saved lab fails:\n%s", run.String())
	}
	zh, err := os.ReadFile(path + ".zh")
	if err != nil {
		t.Fatal(err)
	}
	text, err := labs.ParseLabText(path+".zh", labs.Chinese, zh)
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.Labs[0].CheckText(text); err != nil {
		t.Fatalf("the Chinese narration does not match the lab: %v", err)
	}
}

// TestExploreProgressOnATerminalOnly: on a terminal (Width set) a progress
// line with states, depth and states/s is drawn and cleared before the
// result; in a script there is none.
func TestExploreProgressOnATerminalOnly(t *testing.T) {
	for _, terminal := range []bool{true, false} {
		opts := Options{}
		if terminal {
			opts.Width = func() int { return 80 }
		}
		s := newTestSession(t, opts)
		var out strings.Builder
		for _, line := range []string{"topic create events partitions=1 rf=3", "explore depth=2 ops=produce,replicate values=1"} {
			out.Reset()
			if err := s.Exec(&out, line); err != nil {
				t.Fatal(err)
			}
		}
		got := out.String()
		progress := strings.Contains(got, "\rexploring: ") && strings.Contains(got, " states/s\x1b[K\r\x1b[Kno violation")
		if progress != terminal || !strings.HasSuffix(got, "no violation of acked-not-lost within depth 2: 4 distinct states\n") {
			t.Errorf("terminal=%v: %q", terminal, got)
		}
	}
}

// TestExploreCtrlC: Ctrl-C (Session.Interrupt, from the signal goroutine)
// stops a long search with what it found so far.
func TestExploreCtrlC(t *testing.T) {
	s := newTestSession(t, Options{})
	if err := s.Exec(new(strings.Builder), "topic create events partitions=1 rf=3"); err != nil {
		t.Fatal(err)
	}
	finished, done := make(chan struct{}), make(chan struct{})
	go func() { // the command's channel is fresh when it starts: keep asking
		defer close(done)
		for {
			select {
			case <-finished:
				return
			case <-time.After(20 * time.Millisecond):
				s.Interrupt()
			}
		}
	}()
	var out strings.Builder
	err := s.Exec(&out, "explore depth=40 property=no-read-above-hw")
	close(finished)
	<-done
	if err != nil || !strings.Contains(out.String(), "interrupted: what was found so far") ||
		!strings.Contains(out.String(), "no violation of no-read-above-hw found: stopped (interrupted)") {
		t.Fatalf("%v\n%s", err, out.String())
	}
}
