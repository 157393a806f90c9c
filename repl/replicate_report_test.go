package repl

import (
	"fmt"
	"strings"
	"testing"
)

// A replicate round that reports more than maxBacklog events prints every
// one of them: the backlog's bound is for events of served requests, and
// no server runs here, so nothing is dropped and nothing blames one.
func TestReplicateRoundReportsEveryEvent(t *testing.T) {
	s := newTestSession(t, Options{})
	runLines(t, s, "topic create t partitions=1 rf=3")
	const n = maxBacklog + 100
	for i := range n {
		runLines(t, s, fmt.Sprintf("produce t value=v%d acks=all", i))
	}
	out := runLines(t, s, "replicate")
	head := strings.Join(strings.SplitN(out, "\n", 6)[:5], "\n")
	if strings.Contains(out, "served requests") || strings.Contains(out, "not shown") {
		t.Fatalf("the report blames served requests:\n%s", head)
	}
	for i := 1; i <= n; i++ {
		if want := fmt.Sprintf("ack #%d (produce) t-0 done: offset %d\n", i, i-1); !strings.Contains(out, want) {
			t.Fatalf("the report lacks %q:\n%s", want, head)
		}
	}
}
