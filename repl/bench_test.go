package repl

import (
	"fmt"
	"io"
	"testing"
)

// BenchmarkStartup measures the REPL's start path up to the first prompt:
// opening a session (and its cluster) and rendering the prompt, then closing
// it. The budget is 20 ms.
func BenchmarkStartup(b *testing.B) {
	for b.Loop() {
		s, err := NewSession(Options{})
		if err != nil {
			b.Fatal(err)
		}
		_ = s.Prompt()
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// thousandCommands is a session's worth of work: 1,000 commands that change
// the cluster. The plain mix is records with acks=1 and acks=all, follower
// rounds, the clock and a consumer polling; with commits, one command in
// six is a group offset commit, which the coordinator writes to disk and
// fsyncs (atomicfile) before it answers.
func thousandCommands(commits bool) []string {
	lines := []string{"topic create orders partitions=3 rf=3", "consumer create c group=g", "consumer subscribe c orders"}
	for i := 0; len(lines) < 1000; i++ {
		switch i % 5 {
		case 0:
			lines = append(lines, fmt.Sprintf("produce orders key=k%d value=v%d acks=all", i, i))
		case 1:
			lines = append(lines, fmt.Sprintf("produce orders key=k%d value=v%d acks=1", i, i))
		case 2:
			lines = append(lines, "replicate")
		case 3:
			lines = append(lines, "clock advance 1ms")
		case 4:
			lines = append(lines, "consumer poll c max=5")
			if commits {
				lines = append(lines, "consumer commit c")
			}
		}
	}
	return lines[:1000]
}

// BenchmarkUndoAfter1000Commands measures `undo` in a session that has run
// 1,000 commands that changed the cluster: the state before the last one
// is rebuilt (from the nearest checkpoint, an engine snapshot, and the
// commands after it) and becomes the session's. The budget is
// 50 ms. Each iteration runs the undone command again, off the clock.
func BenchmarkUndoAfter1000Commands(b *testing.B) {
	for _, bc := range []struct {
		name    string
		commits bool
	}{{"plain", false}, {"with-commits", true}} {
		b.Run(bc.name, func(b *testing.B) {
			s, err := NewSession(Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			lines := thousandCommands(bc.commits)
			for _, l := range lines {
				if err := s.Exec(io.Discard, l); err != nil {
					b.Fatalf("%s: %v", l, err)
				}
			}
			last := lines[len(lines)-1]
			for b.Loop() {
				if err := s.Exec(io.Discard, "undo"); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if err := s.Exec(io.Discard, last); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}
