package repl

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/vfs"
	"pgregory.net/rapid"
)

// rewindPool is what the random sessions below type: every kind of state
// (records, followers, crashes, a named idempotent producer with a linger,
// a group, transactions, compaction, the whole cluster's lifecycle, a
// fresh cluster open), commands that fail as often as not, and the
// session's own undo and fork.
var rewindPool = []string{
	"produce t key=a value=1 acks=all",
	"produce t key=b value=2 acks=1",
	"produce t key=c value=3 acks=0",
	"replicate",
	"replicate rounds=2",
	"clock advance 100ms",
	"clock advance 20s",
	"broker crash 2",
	"broker restart 2",
	"broker crash 3",
	"broker restart 3",
	"producer create p linger.ms=50 idempotent",
	"producer send p t key=a value=p",
	"producer flush p",
	"consumer create c group=g",
	"consumer subscribe c t",
	"consumer poll c",
	"consumer commit c",
	"txn begin x",
	"txn send x t key=x value=y",
	"txn commit x",
	"txn abort x",
	"compact t-0",
	"config set min.insync.replicas=2",
	"cluster crash",
	"cluster close",
	"cluster restart",
	"cluster open",
	"topic create t partitions=2 rf=3",
	"undo",
	"undo 2",
	"fork",
	"fork switch main",
	"fork switch",
}

// rewindTrial runs random commands on a session that keeps a checkpoint
// every few commands, and after every undo, fork and fork switch (and at
// the end) compares everything the inspecting commands show with a world
// rebuilt from scratch by replaying the branch's commands: undo and fork by
// snapshot must give exactly the state that replay gives.
func rewindTrial(t *rapid.T, opts Options) {
	s, err := NewSession(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.tl.cur.every = rapid.IntRange(1, 4).Draw(t, "every")
	if err := s.Exec(io.Discard, "topic create t partitions=2 rf=3"); err != nil {
		t.Fatal(err)
	}
	forks := 0
	compare := func(after string) {
		want := replayedDigest(t, s)
		if got := digest(t, s); got != want {
			t.Fatalf("after %s the state differs from a replay from scratch:\n%s", after, lineDiff(want, got))
		}
	}
	for i, n := 0, rapid.IntRange(1, 40).Draw(t, "n"); i < n; i++ {
		line := rapid.SampledFrom(rewindPool).Draw(t, "line")
		switch line {
		case "fork":
			forks++
			line = fmt.Sprintf("fork b%d", forks)
		case "fork switch":
			if forks == 0 {
				continue
			}
			line = fmt.Sprintf("fork switch b%d", rapid.IntRange(1, forks).Draw(t, "branch"))
		}
		var out bytes.Buffer
		err := s.Exec(&out, line)
		if IsInternal(err) {
			t.Fatalf("%s: %v\n%s", line, err, out.String())
		}
		if err == nil && (line == "undo" || line == "undo 2" || line[:4] == "fork") {
			compare(line)
		}
	}
	compare("the last command")
}

// replayedDigest is the digest of the world that replaying the current
// branch's commands from scratch gives.
func replayedDigest(t interface {
	Helper()
	Fatal(...any)
}, s *Session) string {
	t.Helper()
	w, err := replayRewinder{}.rebuild(s, "test", s.tl.cur.steps, nil)
	if err != nil {
		t.Fatal(err)
	}
	ref := s.replayShell()
	ref.world = *w
	defer ref.Close()
	return digest(t, ref)
}

// TestUndoBySnapshotIsUndoByReplay: random sessions on an in-memory file
// system (the engine's snapshots of a vfs.Mem are clones).
func TestUndoBySnapshotIsUndoByReplay(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) { rewindTrial(t, Options{FS: vfs.NewMem()}) })
}

// TestUndoBySnapshotIsUndoByReplayOnDisk: the same on the disk, where a
// snapshot reads the data directory and a restore writes a fresh one. It
// takes seconds, so it runs when -rapid.checks is given (.ci/run does);
// the default run has TestUndoRestoresTheStateExactly on the disk.
func TestUndoBySnapshotIsUndoByReplayOnDisk(t *testing.T) {
	if !rapidChecksGiven() {
		t.Skip("a deep test: run with -rapid.checks=N (.ci/run does)")
	}
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) { rewindTrial(t, Options{}) })
}

// TestCheckpointsStayBounded runs long enough for the checkpoints to be
// thinned twice, and undoes across thinned stretches: the branch keeps at
// most maxCheckpoints snapshots (branch points aside), and the state is
// still the replay's.
func TestCheckpointsStayBounded(t *testing.T) {
	t.Parallel()
	s := newTestSession(t, Options{FS: vfs.NewMem()})
	s.tl.cur.every = 1
	run := func(line string) {
		t.Helper()
		var out bytes.Buffer
		if err := s.Exec(&out, line); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out.String())
		}
	}
	run("topic create t partitions=1 rf=2")
	for i := range 4 * maxCheckpoints {
		run(fmt.Sprintf("produce t key=k%d value=v acks=1", i))
		if n := len(s.tl.cur.checkpoints); n > maxCheckpoints {
			t.Fatalf("after %d commands the branch keeps %d checkpoints", i+2, n)
		}
	}
	if s.tl.cur.every < 4 {
		t.Errorf("the spacing is %d after %d commands, want it doubled at least twice", s.tl.cur.every, 4*maxCheckpoints)
	}
	for _, u := range []string{"undo", "undo 37", "undo 3"} {
		run(u)
		want := replayedDigest(t, s)
		if got := digest(t, s); got != want {
			t.Fatalf("after %s:\n%s", u, lineDiff(want, got))
		}
	}
}

// rapidChecksGiven reports whether the run asked for a number of rapid
// checks (-rapid.checks): the deep run, which runs the slow properties too.
func rapidChecksGiven() bool {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "rapid.checks" })
	return given
}

// TestLargeWorldsAreNotKept: a world whose files pass the session's bound
// (maxCheckpointBytes; a few KiB here) is not kept as a checkpoint, and undo
// still rebuilds it (by replay).
func TestLargeWorldsAreNotKept(t *testing.T) {
	t.Parallel()
	s := newTestSession(t, Options{FS: vfs.NewMem()})
	s.tl.cur.every, s.tl.checkpointBytes = 1, 4<<10
	big := strings.Repeat("x", 1<<10)
	for _, line := range []string{"topic create t partitions=1 rf=1", "produce t value=small acks=1",
		"produce t value=" + big + " acks=1", "produce t value=" + big + " acks=1",
		"produce t value=" + big + " acks=1", "produce t value=" + big + " acks=1", "produce t value=last acks=1"} {
		if err := s.Exec(io.Discard, line); err != nil {
			t.Fatalf("%.40s: %v", line, err)
		}
	}
	for _, cp := range s.tl.cur.checkpoints {
		if cp.snap.Bytes() > s.tl.checkpointBytes {
			t.Errorf("a checkpoint at %d keeps %d bytes", cp.at, cp.snap.Bytes())
		}
	}
	if n := len(s.tl.cur.checkpoints); n == 0 || n >= len(s.tl.cur.steps) {
		t.Errorf("%d checkpoints for %d steps: the small worlds should be kept, the large ones not", n, len(s.tl.cur.steps))
	}
	if err := s.Exec(io.Discard, "undo"); err != nil {
		t.Fatal(err)
	}
	if got, want := digest(t, s), replayedDigest(t, s); got != want {
		t.Fatalf("after undo:\n%s", lineDiff(want, got))
	}
}

// TestLongSessionsStayWithinTheCheckpointBudget: once the world is too large
// to keep, a branch tries a checkpoint after twice as many commands each
// time (a long session pays O(log n) snapshots, not one per
// checkpointEvery commands), and all the kept checkpoints together stay
// within the branch's byte budget, older ones thinned.
func TestLongSessionsStayWithinTheCheckpointBudget(t *testing.T) {
	t.Parallel()
	s := newTestSession(t, Options{FS: vfs.NewMem()})
	s.tl.cur.every, s.tl.checkpointBytes, s.tl.checkpointTotal = 1, 24<<10, 40<<10
	run := func(line string) {
		t.Helper()
		if err := s.Exec(io.Discard, line); err != nil {
			t.Fatalf("%.40s: %v", line, err)
		}
	}
	run("topic create t partitions=1 rf=1")
	value := strings.Repeat("v", 512)
	for range 40 {
		run("produce t value=" + value + " acks=1")
	}
	var total int64
	for _, cp := range s.tl.cur.checkpoints {
		total += cp.snap.Bytes()
	}
	if total > s.tl.checkpointTotal+s.tl.checkpointBytes {
		t.Errorf("%d checkpoints hold %d bytes, budget %d", len(s.tl.cur.checkpoints), total, s.tl.checkpointTotal)
	}
	if len(s.tl.cur.checkpoints) == 0 {
		t.Fatal("no checkpoint kept of the small worlds")
	}
	before := s.tl.cur.every
	for range 64 {
		run("produce t value=" + value + " acks=1")
	}
	snap, err := s.cluster.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if snap.Bytes() <= s.tl.checkpointBytes {
		t.Fatalf("the world holds %d bytes, not over the bound %d: the test proves nothing", snap.Bytes(), s.tl.checkpointBytes)
	}
	if s.tl.cur.every <= before {
		t.Errorf("spacing %d after 64 commands over the size bound (was %d): refused checkpoints must back off", s.tl.cur.every, before)
	}
	run("undo 3")
	if got, want := digest(t, s), replayedDigest(t, s); got != want {
		t.Fatalf("after undo:\n%s", lineDiff(want, got))
	}
}

// TestInMemorySessionMakesNoDirectoryOnDisk: a session on an in-memory file
// system keeps its temporary data directories (the cluster's, a reopened
// one's, undo's restored worlds') in that file system and removes them
// there; nothing is created on the disk.
func TestInMemorySessionMakesNoDirectoryOnDisk(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	fsys := vfs.NewMem()
	s, err := NewSession(Options{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	s.tl.cur.every = 1
	for _, line := range []string{
		"topic create t partitions=1 rf=2", "produce t value=a", "produce t value=b",
		"undo", "cluster open brokers=1", "topic create u partitions=1 rf=1", "undo 2",
	} {
		var out bytes.Buffer
		if err := s.Exec(&out, line); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out.String())
		}
	}
	dirs, _ := fsys.ReadDir("/tmp")
	if len(dirs) == 0 {
		t.Fatal("no temporary data directory in the in-memory file system")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("an in-memory session made %d entries on the disk: %v", len(left), left[0].Name())
	}
	if left, _ := fsys.ReadDir("/tmp"); len(left) != 0 {
		t.Errorf("the session left %d temporary directories in memory, first %s", len(left), left[0].Name())
	}
}
