package repl

import (
	"fmt"
	"strings"
	"testing"
)

// The history keeps the last HistoryMax commands: the oldest are dropped
// (so a long session's memory stays bounded), history lists the kept ones
// under their original numbers after a line saying how many went, and undo
// cannot go back past them, with a hint.
func TestHistoryCap(t *testing.T) {
	s := newTestSession(t, Options{HistoryMax: 16})
	runLines(t, s, "topic create t partitions=1 rf=1")
	for i := range 40 {
		runLines(t, s, fmt.Sprintf("produce t value=v%d", i))
	}
	if n := len(s.tl.cur.steps); n > 16+16/8 {
		t.Fatalf("%d steps kept", n)
	}
	out := runLines(t, s, "history")
	if !strings.HasPrefix(out, "      (") || !strings.Contains(out, "earlier commands not kept") {
		t.Fatalf("history does not say what it dropped:\n%s", out)
	}
	if !strings.Contains(out, "  41  produce t value=v39\n") {
		t.Fatalf("the last command is not number 41:\n%s", out)
	}
	if strings.Contains(out, "topic create") {
		t.Fatalf("the first command was kept:\n%s", out)
	}
	runLines(t, s, "check history ran \"produce\" <= 16", "check t-0 leo == 40")
	var buf strings.Builder
	err := s.Exec(&buf, "undo")
	if err == nil || !strings.Contains(buf.String(), "no longer keeps") || !strings.Contains(buf.String(), "--history-max") {
		t.Fatalf("undo past the cap: %v\n%s", err, buf.String())
	}
	// A fresh cluster starts a history undo can rewind again.
	runLines(t, s, "cluster open", "topic create u partitions=1 rf=1", "produce u value=x", "undo")
	runLines(t, s, "check u-0 leo == 0")
}

// Without a cap (HistoryMax < 0) every command stays.
func TestHistoryUncapped(t *testing.T) {
	s := newTestSession(t, Options{HistoryMax: -1})
	runLines(t, s, "topic create t partitions=1 rf=1")
	for i := range 40 {
		runLines(t, s, fmt.Sprintf("produce t value=v%d", i))
	}
	if n := len(s.tl.cur.steps); n != 41 {
		t.Fatalf("%d steps kept", n)
	}
}
