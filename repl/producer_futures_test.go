package repl

import (
	"fmt"
	"testing"
)

// A session does not keep the future of every record a producer sent:
// settled ones are released into counts, and check producer P acked,
// failed and pending still count every record.
func TestSettledFuturesAreReleased(t *testing.T) {
	s := newTestSession(t, Options{})
	runLines(t, s, "topic create t partitions=1 rf=1", "producer create p batch.size=1", "producer create slow linger.ms=1000")
	const n = 1000
	for i := range n {
		runLines(t, s, fmt.Sprintf("producer send p t value=v%d", i))
	}
	for i := range 3 {
		runLines(t, s, fmt.Sprintf("producer send slow t value=w%d", i))
	}
	np, err := s.producerEntry("p")
	if err != nil {
		t.Fatal(err)
	}
	if len(np.futures) >= n/4 {
		t.Fatalf("%d futures kept for %d settled records", len(np.futures), n)
	}
	runLines(t, s,
		fmt.Sprintf("check producer p acked == %d", n),
		"check producer p pending == 0",
		"check producer p failed == 0",
		"check producer slow pending == 3",
		"check producer slow acked == 0",
		"producer flush slow",
		"check producer slow acked == 3",
		"check producer slow pending == 0")
}

// Undo rebuilds the world from a checkpoint or a replay: the counts of
// released futures come back with it.
func TestReleasedFutureCountsSurviveUndo(t *testing.T) {
	s := newTestSession(t, Options{})
	runLines(t, s, "topic create t partitions=1 rf=1", "producer create p batch.size=1")
	const n = 200
	for i := range n {
		runLines(t, s, fmt.Sprintf("producer send p t value=v%d", i))
	}
	runLines(t, s, "produce t value=extra", "undo", fmt.Sprintf("check producer p acked == %d", n), "check producer p pending == 0")
	runLines(t, s, "producer send p t value=more", fmt.Sprintf("check producer p acked == %d", n+1))
}
