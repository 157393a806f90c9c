package group

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// stateOf renders everything a restart must give back: groups.json's
// content for every group and each group's state.
func stateOf(c *Coordinator) string {
	s := string(encodeGroups(c.groups))
	for _, id := range slices.Sorted(maps.Keys(c.groups)) {
		s += fmt.Sprintf(" %s=%s", id, c.groups[id].state)
	}
	return s
}

// churn joins members to two groups over two topics, with leaves and an
// expiry between them: enough lines to compact the log more than once.
func churn(t *testing.T, p *persisted, c *Coordinator, members int) {
	t.Helper()
	for i := range members {
		g, topics := "wide", []string{"orders"}
		if i%3 == 0 {
			g, topics = "narrow", []string{"orders", "audit"}
		}
		if _, err := c.Join(g, fmt.Sprintf("member-%04d", i), topics); err != nil {
			t.Fatal(err)
		}
		if i%10 == 9 {
			if _, err := c.Leave("wide", fmt.Sprintf("member-%04d", i-1)); err != nil {
				t.Fatal(err)
			}
		}
		if i == members/2 {
			p.topics["audit"] = 8 // a topic grows: later rebalances see it
			if err := p.clk.Advance(p.timeout + 1); err != nil {
				t.Fatal(err)
			}
			if exp, err := c.ExpireMembers(); err != nil || len(exp) == 0 {
				t.Fatalf("expired %v: %v", exp, err)
			}
		}
	}
}

// A restart after many joins, leaves and an expiry gives the same groups,
// whether it replays the log (a crash) or reads groups.json (a graceful
// close), and the replay does not depend on the topics of the moment.
func TestRestartAfterJoinsGivesSameState(t *testing.T) {
	t.Parallel()
	p := newPersisted(t)
	p.topics["audit"] = 2
	c := p.open(t)
	churn(t, p, c, 1200)
	want := stateOf(c)
	if c.snapBytes == 0 {
		t.Fatal("the log was never compacted")
	}
	if c.logBytes == 0 {
		t.Fatal("nothing logged since the last compaction")
	}
	p.topics["audit"] = 16 // replay must use the counts it logged
	if got := stateOf(p.open(t)); got != want {
		t.Fatalf("after a crash\n%s\nwant\n%s", got, want)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if got := stateOf(p.open(t)); got != want {
		t.Fatalf("after a close\n%s\nwant\n%s", got, want)
	}
}

// A torn last line (a crash in the middle of an append) is dropped; the
// next change rewrites groups.json instead of appending after it.
func TestTornGroupsLogLine(t *testing.T) {
	t.Parallel()
	p := newPersisted(t)
	c := p.open(t)
	for _, m := range []string{"a", "b"} {
		if _, err := c.Join("g", m, []string{"orders"}); err != nil {
			t.Fatal(err)
		}
	}
	want := stateOf(c)
	log := filepath.Join(p.dir, GroupsLogName)
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"generation":3,"group":"g","memb`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r := p.open(t)
	if got := stateOf(r); got != want {
		t.Fatalf("after the torn line\n%s\nwant\n%s", got, want)
	}
	if _, err := r.Join("g", "c", []string{"orders"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(log); !os.IsNotExist(err) {
		t.Fatalf("the torn log was appended to: %v", err)
	}
	if got, want := stateOf(p.open(t)), stateOf(r); got != want {
		t.Fatalf("after the next join\n%s\nwant\n%s", got, want)
	}
}

// A compaction that wrote groups.json but crashed before removing the log
// leaves lines the snapshot already holds: replay skips them.
func TestStaleGroupsLogLinesAreSkipped(t *testing.T) {
	t.Parallel()
	p := newPersisted(t)
	c := p.open(t)
	for _, m := range []string{"a", "b", "c"} {
		if _, err := c.Join("g", m, []string{"orders"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Leave("g", "b"); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(p.dir, GroupsLogName)
	old, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	want := stateOf(c)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(log, old, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := stateOf(p.open(t)); got != want {
		t.Fatalf("with the stale log\n%s\nwant\n%s", got, want)
	}
}
