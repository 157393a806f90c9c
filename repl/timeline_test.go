package repl

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/labs"
)

// richScript touches every kind of state a session holds: topics and
// records, followers, a named idempotent producer with a linger, a group
// with a committed offset, a transaction, a crashed and restarted broker,
// the clock, compaction.
var richScript = []string{
	"topic create orders partitions=2 rf=3",
	"produce orders key=alice value=a acks=all",
	"replicate",
	"producer create p linger.ms=50 idempotent",
	"producer send p orders key=bob value=b",
	"show orders-0",
	"clock advance 60ms",
	"consumer create c1 group=g",
	"consumer subscribe c1 orders",
	"consumer poll c1",
	"consumer commit c1",
	"offsets orders-1",
	"txn begin t1",
	"txn send t1 orders key=x value=y",
	"replicate",
	"txn commit t1",
	"broker crash 3",
	"clock advance 20s",
	"produce orders key=alice value=c acks=all",
	"broker restart 3",
	"replicate rounds=2",
	"compact orders-0",
	"produce orders key=alice tombstone",
}

// digest is everything the session can show about its state, through the
// inspecting commands.
func digest(t interface{ Helper() }, s *Session) string {
	t.Helper()
	lines := []string{"clock", "topic describe", "broker list", "producer list", "consumer list", "group list", "txn list"}
	if ts, err := s.cluster.Topics(); err == nil {
		for _, tm := range ts {
			for _, p := range tm.Partitions {
				tp := p.TP().String()
				lines = append(lines, "offsets "+tp, "show "+tp, "show "+tp+" keys", "fetch "+tp, "log dump "+tp, "log segments "+tp)
			}
		}
	}
	if gs, err := s.cluster.ListGroups(); err == nil {
		for _, g := range gs {
			lines = append(lines, "group describe "+g.GroupID)
		}
	}
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString("> " + l + "\n")
		_ = s.inspect(&b, l)
	}
	return b.String()
}

// inspect runs an inspecting command without noting it in the timeline.
func (s *Session) inspect(w io.Writer, line string) error {
	s.tl.depth++
	defer func() { s.tl.depth-- }()
	return s.Exec(w, line)
}

// TestUndoRestoresTheStateExactly runs a rich script and, after every
// command that changed state, keeps what every inspecting command prints;
// then undoes one command at a time, and each time offsets, show, fetch,
// log dump, group describe, ... must print exactly what they printed
// before that command ran.
func TestUndoRestoresTheStateExactly(t *testing.T) {
	t.Parallel()
	s := newTestSession(t, Options{})
	s.tl.cur.every = 2 // a checkpoint on the disk every other change: undo restores one or replays one command after it
	before := []string{digest(t, s)}
	for _, line := range richScript {
		var out bytes.Buffer
		if err := s.Exec(&out, line); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out.String())
		}
		if effectOf(mustResolve(t, s, line)) == EffectChange {
			before = append(before, digest(t, s))
		}
	}
	for i := len(before) - 1; i > 0; i-- {
		var out bytes.Buffer
		if err := s.Exec(&out, "undo"); err != nil {
			t.Fatalf("undo: %v\n%s", err, out.String())
		}
		if got := digest(t, s); got != before[i-1] {
			t.Fatalf("after undoing back to change %d the state differs:\n%s", i-1, lineDiff(before[i-1], got))
		}
	}
	var out bytes.Buffer
	if err := s.Exec(&out, "undo"); err == nil || !strings.Contains(out.String(), "nothing to undo") {
		t.Errorf("undo with nothing left: %v %q", err, out.String())
	}
}

func mustResolve(t *testing.T, s *Session, line string) (*Command, *Args) {
	t.Helper()
	words, err := Split(line)
	if err != nil {
		t.Fatal(err)
	}
	cmd, rest, err := s.reg.resolve(words)
	if err != nil {
		t.Fatal(err)
	}
	a, err := newArgs(cmd, line, rest)
	if err != nil {
		t.Fatal(err)
	}
	return cmd, a
}

// TestReplayedWorldIsTheSame rebuilds the world of a rich script by replay
// (inspections skipped) and compares every view: an inspecting command that
// changed state, or a command the replay misses, would show here.
func TestReplayedWorldIsTheSame(t *testing.T) {
	t.Parallel()
	s := newTestSession(t, Options{})
	for _, line := range richScript {
		if err := s.Exec(io.Discard, line); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	want := digest(t, s)
	w, err := replayRewinder{}.rebuild(s, "test", s.tl.cur.steps, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.adoptWorld(w)
	if got := digest(t, s); got != want {
		t.Fatalf("the replayed world differs:\n%s", lineDiff(want, got))
	}
}

// TestForkSwitchesBackAndForth keeps two branches and checks that each
// shows its own state every time the session comes back to it.
func TestForkSwitchesBackAndForth(t *testing.T) {
	t.Parallel()
	s := newTestSession(t, Options{})
	run := func(lines ...string) string {
		t.Helper()
		var out bytes.Buffer
		for _, l := range lines {
			if err := s.Exec(&out, l); err != nil {
				t.Fatalf("%s: %v\n%s", l, err, out.String())
			}
		}
		return out.String()
	}
	run("topic create events partitions=1 rf=2", "produce events value=a acks=1")
	mainView := run("show events-0", "offsets events-0")
	run("fork crash", "broker crash 2", "produce events value=b acks=1")
	crashView := run("show events-0", "offsets events-0")
	if crashView == mainView {
		t.Fatal("the branch did not change anything")
	}
	for range 3 {
		run("fork switch main")
		if got := run("show events-0", "offsets events-0"); got != mainView {
			t.Fatalf("main after switching back:\n%s", lineDiff(mainView, got))
		}
		run("fork switch crash")
		if got := run("show events-0", "offsets events-0"); got != crashView {
			t.Fatalf("crash after switching back:\n%s", lineDiff(crashView, got))
		}
	}
	h := run("history")
	if !strings.Contains(h, "# fork crash: branched from main here") || !strings.Contains(h, "broker crash 2") {
		t.Errorf("history does not show the branch point:\n%s", h)
	}
}

// TestUndoRefusesToCrossTheOutside: a --data session cannot rewind past
// its start, and nothing rewinds past serve start, until a fresh cluster
// open starts a history of its own.
func TestUndoRefusesToCrossTheOutside(t *testing.T) {
	s := newTestSession(t, Options{DataDir: t.TempDir()})
	var out bytes.Buffer
	_ = s.Exec(&out, "topic create a")
	out.Reset()
	if err := s.Exec(&out, "undo"); err == nil || !strings.Contains(out.String(), "repl --data") {
		t.Errorf("undo in a --data session: %v %q", err, out.String())
	}
	for _, l := range []string{"cluster open", "topic create b", "produce b value=x"} {
		if err := s.Exec(io.Discard, l); err != nil {
			t.Fatal(l, err)
		}
	}
	out.Reset()
	if err := s.Exec(&out, "undo"); err != nil {
		t.Fatalf("undo after a fresh cluster open: %v %s", err, out.String())
	}
	out.Reset()
	_ = s.Exec(&out, "check b-0 leo == 0")
	if !strings.Contains(out.String(), "ok") {
		t.Errorf("after undo: %s", out.String())
	}
}

// TestRecordWritesARunnableLab records a session that started with some
// state (so the lab begins with the commands that built it), with
// narration, a failed command and an undo, and replays the file with the
// lab runner.
func TestRecordWritesARunnableLab(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "05-replication-basics", "09-recorded.lab")
	s := newTestSession(t, Options{Brokers: []int32{1, 2}})
	for _, l := range []string{
		"topic create events partitions=1 rf=2",
		"produce events value=a acks=1",
		"record start " + path,
		"# The follower has not fetched yet.",
		"show events-0",
		"produce events value=wrong acks=1",
		"undo",
		"nosuch",
		"# One round: the follower copies a, the HW follows.",
		"replicate",
		"offsets events-0",
		"check events-0 hw == 1",
		"help",
		"# That is all.",
		"record stop",
	} {
		var out bytes.Buffer
		err := s.Exec(&out, l)
		if (err != nil) != (l == "nosuch") {
			t.Fatalf("%s: %v\n%s", l, err, out.String())
		}
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l, err := labs.ParseLab(path, src)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	var cmds []string
	for _, b := range l.Blocks {
		cmds = append(cmds, b.Command)
	}
	want := []string{"cluster open brokers=1,2", "topic create events partitions=1 rf=2", "produce events value=a acks=1",
		"show events-0", "replicate", "offsets events-0", "check events-0 hw == 1"}
	if fmt.Sprint(cmds) != fmt.Sprint(want) {
		t.Errorf("recorded %q, want %q\n%s", cmds, want, src)
	}
	if l.Chapter != 5 || l.Title != "Recorded" || len(l.Epilogue) != 1 || len(l.Blocks[3].Narration) != 1 {
		t.Errorf("chapter %d, title %q, epilogue %q, narration %q", l.Chapter, l.Title, l.Epilogue, l.Blocks[3].Narration)
	}
	r := labs.Run(l, func() (labs.Executor, error) { return openSession(Options{}) })
	if err := r.Err(); err != nil {
		t.Fatalf("the recorded lab does not pass:\n%v\n%s", err, src)
	}
}

// TestPastedPromptRuns: a line copied from a chapter's transcript with its
// prompt runs as the command alone, and history keeps the command.
func TestPastedPromptRuns(t *testing.T) {
	s := newTestSession(t, Options{})
	for _, l := range []string{"mk> topic create orders", "  mk[1500ms]> produce orders value=a", "mk>clock"} {
		var out bytes.Buffer
		if err := s.Exec(&out, l); err != nil {
			t.Fatalf("%q: %v\n%s", l, err, out.String())
		}
	}
	var out bytes.Buffer
	_ = s.Exec(&out, "history")
	if want := "   1  topic create orders\n   2  produce orders value=a\n   3  clock\n"; out.String() != want {
		t.Errorf("history %q, want %q", out.String(), want)
	}
	// Only the REPL's own prompt is dropped.
	out.Reset()
	if err := s.Exec(&out, "mk produce orders value=a"); err == nil {
		t.Errorf("a line that is not a prompt ran: %s", out.String())
	}
}

// TestHistoryLeavesOutWhatFailed: failed and unknown commands, and session
// commands, are not in history (it is meant to be pasted into a script).
func TestHistoryLeavesOutWhatFailed(t *testing.T) {
	s := newTestSession(t, Options{})
	for _, l := range []string{"topic create a", "produce nosuch value=x", "bogus", "topic create a", "help", "check a-0 hw == 5", "check a-0 hw == 0"} {
		_ = s.Exec(io.Discard, l)
	}
	var out bytes.Buffer
	_ = s.Exec(&out, "history")
	if want := "   1  topic create a\n   2  check a-0 hw == 0\n"; out.String() != want {
		t.Errorf("history %q, want %q", out.String(), want)
	}
}

// TestEveryCommandDeclaresAnEffect: undo, fork and record rely on the
// effects table, so every command of the table is in it, and nothing else.
func TestEveryCommandDeclaresAnEffect(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range theRegistry().All() {
		seen[c.FullName()] = true
		if commandEffects[c.FullName()] == EffectUnknown {
			t.Errorf("%s declares no effect in commandEffects (effects.go)", c.FullName())
		}
	}
	for name := range commandEffects {
		if !seen[name] {
			t.Errorf("commandEffects names %q, which is not a command", name)
		}
	}
}
