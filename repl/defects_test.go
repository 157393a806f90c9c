package repl

import (
	"bytes"
	"strings"
	"testing"
)

// run executes lines and returns what they printed; a failure is fatal
// unless the line is expected to fail (want false).
func runLines(t *testing.T, s *Session, lines ...string) string {
	t.Helper()
	var out bytes.Buffer
	for _, l := range lines {
		if err := s.Exec(&out, l); err != nil {
			t.Fatalf("%s: %v\n%s", l, err, out.String())
		}
	}
	return out.String()
}

// TestFetchMovesPastMarkers: a fetch that starts on a COMMIT marker says
// the next offset is after it, as a consumer's position moves, instead of
// the offset it started at (which fetched again would never move on).
func TestFetchMovesPastMarkers(t *testing.T) {
	s := newTestSession(t, Options{})
	runLines(t, s, "topic create out partitions=1 rf=1", "txn begin t", "txn send t out value=x", "txn send t out value=y", "txn commit t", "produce out value=z")
	// Offsets: 0 x, 1 y, 2 COMMIT, 3 z.
	got := runLines(t, s, "fetch out-0 offset=2")
	if !strings.Contains(got, "out-0@3 value=z") || !strings.Contains(got, "next offset 4") {
		t.Errorf("fetch from the marker:\n%s", got)
	}
	got = runLines(t, s, "fetch out-0 offset=0 max=2")
	if !strings.Contains(got, "(2 records; next offset 3;") {
		t.Errorf("two records and the marker behind them:\n%s", got)
	}
	runLines(t, s, "txn begin u", "txn send u out value=gone", "txn abort u")
	got = runLines(t, s, "fetch out-0 offset=4 isolation=read_committed")
	if !strings.Contains(got, "(0 records; next offset 6;") {
		t.Errorf("read_committed steps over an aborted batch and its marker:\n%s", got)
	}
}

// TestDidYouMean: a mistyped topic, partition or subcommand gets a
// suggestion.
func TestDidYouMean(t *testing.T) {
	s := newTestSession(t, Options{})
	runLines(t, s, "topic create orders partitions=2")
	for _, tc := range []struct{ line, want string }{
		{"produce ordres value=x", "hint: did you mean orders? (`topic list` shows the topics)"},
		{"show ordrs-1", "hint: did you mean orders-1? (`topic list` shows the topics)"},
		{"show orders-7", "hint: did you mean orders-1? orders has partitions orders-0 to orders-1"},
		{"topic describe ordres", "hint: did you mean orders?"},
		{"topic lst", `unknown subcommand "lst": one of create, list, describe (did you mean list?)`},
		{"broker crsh 1", "(did you mean crash?)"},
	} {
		var out bytes.Buffer
		if err := s.Exec(&out, tc.line); err == nil || !strings.Contains(out.String(), tc.want) {
			t.Errorf("%s: %v\n%s\nwant %q", tc.line, err, out.String(), tc.want)
		}
	}
	// A name far from every topic gets the usual hint.
	var out bytes.Buffer
	_ = s.Exec(&out, "produce zzzzzz value=x")
	if strings.Contains(out.String(), "did you mean") {
		t.Errorf("suggested something for a name far from every topic:\n%s", out.String())
	}
}
