package group

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

type persisted struct {
	dir, path string
	clk       *clock.Manual
	timeout   int64
	topics    map[string]int32
	store     *OffsetStore
}

func newPersisted(t *testing.T) *persisted {
	t.Helper()
	dir := t.TempDir()
	store, err := OpenOffsetStore(vfs.OS, filepath.Join(dir, OffsetsFileName))
	if err != nil {
		t.Fatal(err)
	}
	return &persisted{dir: dir, path: filepath.Join(dir, GroupsFileName), clk: clock.NewManual(0), timeout: 100,
		topics: map[string]int32{"orders": 4}, store: store}
}

func (p *persisted) open(t *testing.T) *Coordinator {
	t.Helper()
	c, err := OpenCoordinator(vfs.OS, p.path, p.clk, func() map[string]int32 { return p.topics }, func() int64 { return p.timeout }, p.store)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Decision 26: membership survives a restart (nobody sent LeaveGroup);
// members keep their assignment and generation and expire a session after
// the coordinator loaded them.
func TestMembershipSurvivesReopen(t *testing.T) {
	t.Parallel()
	p := newPersisted(t)
	c := p.open(t)
	if _, err := os.Stat(p.path); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("groups file created before the first join")
	}
	if _, err := c.Join("workers", "member-1", []string{"orders"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Join("workers", "member-2", []string{"orders"}); err != nil {
		t.Fatal(err)
	}
	// Each join appended one line to the groups log; groups.json is
	// written when the log is folded into it (Close).
	data, err := os.ReadFile(filepath.Join(p.dir, GroupsLogName))
	if err != nil {
		t.Fatal(err)
	}
	wantLog := `{"generation":1,"group":"workers","member":"member-1","op":"join","partitions":{"orders":4},"topics":["orders"]}` + "\n" +
		`{"generation":2,"group":"workers","member":"member-2","op":"join","partitions":{"orders":4},"topics":["orders"]}` + "\n"
	if string(data) != wantLog {
		t.Fatalf("groups.log\n%s\nwant\n%s", data, wantLog)
	}
	before, _ := c.Describe("workers")
	if fromLog, _ := p.open(t).Describe("workers"); !reflect.DeepEqual(fromLog, before) {
		t.Fatalf("replayed from the log %+v\nbefore %+v", fromLog, before)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	data, err = os.ReadFile(p.path)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"groups":{"workers":{"assignment":{"member-1":[["orders",0],["orders",2]],"member-2":[["orders",1],["orders",3]]},` +
		`"generation":2,"members":{"member-1":["orders"],"member-2":["orders"]}}},"version":1}`
	if string(data) != want {
		t.Fatalf("groups.json\n%s\nwant\n%s", data, want)
	}
	if _, err := os.Stat(filepath.Join(p.dir, GroupsLogName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the log outlived Close: %v", err)
	}
	if err := p.clk.Advance(50); err != nil {
		t.Fatal(err)
	}
	r := p.open(t) // the restart: a new coordinator on the same file
	after, err := r.Describe("workers")
	if err != nil {
		t.Fatal(err)
	}
	for i := range before.Members {
		before.Members[i].DeadlineMs = 150 // a fresh session from the reload at t=50
	}
	if !reflect.DeepEqual(after, before) {
		t.Fatalf("after reopen %+v\nbefore %+v", after, before)
	}
	if err := p.clk.Advance(100); err != nil {
		t.Fatal(err)
	}
	if exp, _ := r.ExpireMembers(); len(exp) != 0 {
		t.Fatalf("expired at the deadline: %v", exp)
	}
	if err := p.clk.Advance(1); err != nil {
		t.Fatal(err)
	}
	exp, err := r.ExpireMembers()
	if err != nil || len(exp) != 2 {
		t.Fatalf("expired %v, %v", exp, err)
	}
	if st, _ := r.State("workers"); st != Empty {
		t.Fatalf("state %v", st)
	}
	again := p.open(t)
	if d, _ := again.Describe("workers"); d.State != Empty || d.Generation != 3 || len(d.Members) != 0 {
		t.Fatalf("after expiry and reopen %+v", d)
	}
}

// The session timeout is read live (config set session.timeout.ms).
func TestSessionTimeoutIsReadLive(t *testing.T) {
	t.Parallel()
	p := newPersisted(t)
	c := p.open(t)
	if _, err := c.Join("g", "a", []string{"orders"}); err != nil {
		t.Fatal(err)
	}
	p.timeout = 10
	if err := c.Heartbeat("g", "a", 1); err != nil {
		t.Fatal(err)
	}
	if err := p.clk.Advance(11); err != nil {
		t.Fatal(err)
	}
	if exp, _ := c.ExpireMembers(); len(exp) != 1 {
		t.Fatalf("expired %v", exp)
	}
}

// A groups log and file that cannot be written change nothing.
func TestGroupsWriteFailureChangesNothing(t *testing.T) {
	t.Parallel()
	p := newPersisted(t)
	c := p.open(t)
	if _, err := c.Join("g", "a", []string{"orders"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil { // the log folded into groups.json, removed
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(p.dir, GroupsLogName), 0o755); err != nil { // the log cannot be appended to
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(p.dir, "groups.tmp"), 0o755); err != nil { // nor groups.json rewritten
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.dir, "groups.tmp", "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := c.Join("g", "b", []string{"orders"})
	if !errors.Is(err, kerr.StorageError) {
		t.Fatalf("join: %v", err)
	}
	if _, err := c.Leave("g", "a"); !errors.Is(err, kerr.StorageError) {
		t.Fatalf("leave: %v", err)
	}
	if err := p.clk.Advance(101); err != nil {
		t.Fatal(err)
	}
	if exp, err := c.ExpireMembers(); !errors.Is(err, kerr.StorageError) || len(exp) != 0 {
		t.Fatalf("expire: %v %v", exp, err)
	}
	d, _ := c.Describe("g")
	if d.Generation != 1 || len(d.Members) != 1 || d.Members[0].MemberID != "a" {
		t.Fatalf("state changed: %+v", d)
	}
}

func TestGroupsInvalidFiles(t *testing.T) {
	t.Parallel()
	for name, content := range map[string]string{
		"not json":           `{`,
		"no version":         `{"groups":{}}`,
		"version 2":          `{"groups":{},"version":2}`,
		"missing generation": `{"groups":{"g":{"assignment":{},"members":{}}},"version":1}`,
		"negative gen":       `{"groups":{"g":{"assignment":{},"generation":-1,"members":{}}},"version":1}`,
		"stranger assigned":  `{"groups":{"g":{"assignment":{"x":[]},"generation":1,"members":{}}},"version":1}`,
		"assigned twice":     `{"groups":{"g":{"assignment":{"a":[["t",0]],"b":[["t",0]]},"generation":1,"members":{"a":["t"],"b":["t"]}}},"version":1}`,
		"bad pair":           `{"groups":{"g":{"assignment":{"a":[["t"]]},"generation":1,"members":{"a":["t"]}}},"version":1}`,
		"null subscriptions": `{"groups":{"g":{"assignment":{},"generation":1,"members":{"a":null}}},"version":1}`,
	} {
		t.Run(name, func(t *testing.T) {
			p := newPersisted(t)
			if err := os.WriteFile(p.path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := OpenCoordinator(vfs.OS, p.path, p.clk, func() map[string]int32 { return nil }, func() int64 { return 1 }, p.store)
			if !errors.Is(err, kerr.StorageError) {
				t.Fatalf("got %v", err)
			}
		})
	}
}
