package repl

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/internal/lazyre"
)

// rewinder rebuilds the world a branch's steps lead to, on a fresh
// cluster. replayRewinder runs the commands again: the engine is
// deterministic, so the same commands give the same state.
// snapshotRewinder (checkpoint.go) restores the branch's nearest
// checkpoint (an engine snapshot) and replays only the commands after it;
// it is the session's. Undo and fork only call rebuild.
type rewinder interface {
	rebuild(s *Session, what string, steps []step, cps []checkpoint) (*world, error)
}

// replayRewinder rebuilds a world by replaying the commands that changed
// state, from the last command that reset the cluster (a fresh cluster
// open, exercise try) or from the session's start, on a fresh session
// with the session's options. Inspections are skipped: they change
// nothing. A replayed command must succeed or fail as it did the first
// time; if it does not, the replay is refused (an engine that is not
// deterministic is a bug).
type replayRewinder struct{}

func (replayRewinder) rebuild(s *Session, what string, steps []step, _ []checkpoint) (*world, error) {
	from, err := s.replayStart(what, steps)
	if err != nil {
		return nil, err
	}
	fresh, err := s.replaySession()
	if err != nil {
		return nil, err
	}
	return fresh.replaySteps(steps[from:])
}

// replaySession is a fresh session for a replay: the session's options,
// without colour, in text, on a temporary directory.
//
// The replay does not fsync: the engine keeps its own record of what was
// synced (the storage page-cache model), so its state is the same without
// it, and a replayed world lives in a temporary directory that no process
// crash can leave behind worth keeping. A group commit or a transaction
// costs a few milliseconds of fsync on a disk; replays of a long session
// would spend most of their time there.
func (s *Session) replaySession() (*Session, error) {
	fresh, err := openSession(s.replayOptions())
	if err != nil {
		return nil, err
	}
	fresh.tl = newReplayTimeline()
	return fresh, nil
}

// replayOptions are the session's options for a replay.
func (s *Session) replayOptions() Options {
	opts := s.opts
	opts.Color, opts.Format, opts.DataDir, opts.Width = false, FormatText, "", nil
	opts.Startup = nil
	opts.FS = replayFS(opts.FS)
	return opts
}

// openSession is NewSession, for the commands that open sessions of their
// own (replay, record, lab, exercise): the command table they belong to
// cannot refer to NewSession while it is being initialized.
var openSession func(Options) (*Session, error)

func init() { openSession = NewSession }

// outsideError is undo, fork or record refusing to go back across a
// command that reached outside the session.
func outsideError(what, line string) error {
	return &hintedError{
		err:  kerr.New(kerr.IllegalState, "%s cannot go back past `%s`: it reached outside the session, and what happened there is not in the history to replay", what, line),
		hint: "`cluster open` starts a fresh cluster; undo, fork and record work from there on",
	}
}

// replayStart is where a replay of steps starts: the last step that reset
// the cluster, or 0 (the session's start). It refuses steps that reached
// outside the session after that point, and a session that started on a
// data directory of its own (--data) with no reset since.
func (s *Session) replayStart(what string, steps []step) (int, error) {
	from := 0
	for i, st := range steps {
		if st.reset {
			from = i
		}
	}
	for _, st := range steps[from:] {
		if st.ok && st.effect == EffectOutside {
			return 0, outsideError(what, st.line)
		}
		if st.dropped > 0 {
			return 0, &hintedError{
				err: kerr.New(kerr.IllegalState, "%s cannot go back past the %s the history no longer keeps (it keeps the last %d)",
					what, plural(st.dropped, "earlier command", "earlier commands"), s.historyMax()),
				hint: "`repl --history-max N` keeps more (0 for the default, -1 for all); `cluster open` starts a fresh history",
			}
		}
	}
	if (from == 0 && (len(steps) == 0 || !steps[0].reset)) && s.opts.DataDir != "" {
		return 0, outsideError(what, "repl --data "+s.opts.DataDir)
	}
	return from, nil
}

// adoptWorld makes w the session's world and drops the one it replaces.
// A world in a temporary directory of the session's is about to be
// removed: it stops as a crash would (no flush, no fsync, no clean-shutdown
// markers), which is all its directory's removal needs; any other is
// closed gracefully.
func (s *Session) adoptWorld(w *world) {
	old := s.world
	s.world = *w
	if old.cluster != nil && old.temp != "" {
		_ = old.cluster.Crash() // its files are removed next; a failure to stop changes nothing kept
	}
	if err := shut(old.cluster, old.temp); err != nil {
		_ = err // the old cluster is gone either way; its temporary directory was ours
	}
}

var undoCommand = &Command{
	Name:    "undo",
	Args:    "[N]",
	Summary: "take back the last N commands that changed the cluster (default 1)",
	Detail: `Returns the session to the state before the last N commands that changed
the cluster (inspections such as show or offsets change nothing and are
not counted; failed commands changed nothing either). The state is
rebuilt from the session's nearest snapshot of the cluster before them
(one is kept every few commands), replaying the commands after it, so
offsets, show and every check read exactly what they read then, the
clock included. The commands taken back leave history.

Commands that reach outside the session cannot be undone, and undo cannot
go back past them: serve start (clients outside may change the cluster),
remote, and cluster open dir= (a directory the session did not make). A
fresh cluster open starts a new history that undo can rewind again.
While the session serves JSON/TCP, undo is refused.`,
	Group:      "Session",
	Positional: []Param{{Name: "N", Optional: true}},
	Run:        runUndo,
}

// undone is the result of undo.
type undone struct {
	Undone []string `json:"undone"`
	Clock  int64    `json:"clock_ms"`
}

func (u undone) writeText(w io.Writer, _ *style) error {
	fmt.Fprintf(w, "undid %s (the clock reads %d ms):\n", plural(len(u.Undone), "command", "commands"), u.Clock)
	for _, l := range u.Undone {
		fmt.Fprintf(w, "  %s\n", l)
	}
	return nil
}

func runUndo(s *Session, w io.Writer, a *Args) error {
	n := int64(1)
	if a.Len() > 0 {
		n = a.PosInt(0, "N", 1, math.MaxInt32)
	}
	if err := a.Err(); err != nil {
		return err
	}
	if err := s.canRewind("undo"); err != nil {
		return err
	}
	steps := s.tl.cur.steps
	cut, count := len(steps), int64(0)
	var lines []string
	for i := len(steps) - 1; i >= 0 && count < n; i-- {
		st := steps[i]
		if !st.ok || st.effect == EffectRead {
			continue
		}
		if st.effect == EffectOutside {
			return outsideError("undo", st.line)
		}
		count++
		cut = i
		lines = append(lines, st.line)
	}
	switch {
	case count == 0:
		return kerr.New(kerr.IllegalState, "nothing to undo: no command has changed the cluster yet")
	case count < n:
		return a.usage("there are only %s to undo", plural(int(count), "command", "commands"))
	}
	if rec := s.tl.rec; rec != nil && cut < rec.startSteps {
		return kerr.New(kerr.IllegalState, "undo cannot go back past `record start` while recording; `record stop` first")
	}
	kept := slices.Clone(steps[:cut])
	wd, err := s.tl.rewind.rebuild(s, "undo", kept, s.tl.cur.checkpoints)
	if err != nil {
		return err
	}
	s.adoptWorld(wd)
	s.tl.cur.steps = kept
	s.tl.cur.cutCheckpoints(cut)
	s.tl.cur.forks = slices.DeleteFunc(s.tl.cur.forks, func(f forkPoint) bool { return f.at > cut })
	if s.tl.rec != nil {
		s.tl.rec.trim(cut)
	}
	slices.Reverse(lines)
	return s.emit(w, undone{Undone: lines, Clock: s.nowMs()})
}

// canRewind refuses undo and fork while the session serves JSON/TCP:
// requests from outside change the cluster between commands.
func (s *Session) canRewind(what string) error {
	if s.kafka != nil {
		return &hintedError{
			err:  kerr.New(kerr.IllegalState, "%s: the session listens for Kafka clients, and clients outside it change the cluster between commands", what),
			hint: "`kafka stop` first (undo and fork still cannot go back past kafka listen)",
		}
	}
	if s.server != nil {
		return &hintedError{
			err:  kerr.New(kerr.IllegalState, "%s: the session serves JSON/TCP, and clients outside it change the cluster between commands", what),
			hint: "`serve stop` first (undo and fork still cannot go back past serve start)",
		}
	}
	return nil
}

var forkCommand = &Command{
	Name:    "fork",
	Args:    "NAME",
	Summary: "keep this state as a what-if branch and go on in it; fork switch goes back and forth",
	Detail: `fork NAME starts a new branch NAME from the current state and moves the
session onto it: whatever you do now happens in NAME only. The branch you
left keeps its state and its history; fork switch BRANCH goes back to it
(and forth again), fork list lists the branches. The first branch is
called main. history marks where the current branch was forked.

A branch you are not on is rebuilt when you switch to it, from a snapshot
kept where it was forked and by replaying its commands after it, so fork,
like undo, cannot cross a command that reached
outside the session (serve start, remote, cluster open dir=).`,
	Group:      "Session",
	Positional: []Param{{Name: "NAME"}},
	Default:    "list",
	Run:        runFork,
	Sub: []*Command{
		{
			Name:       "switch",
			Args:       "BRANCH",
			Summary:    "go to another branch, in the state it was left in",
			Positional: []Param{{Name: "BRANCH", Values: liveBranches}},
			Run:        runForkSwitch,
		},
		{
			Name:    "list",
			Summary: "the branches: commands in each, where each was forked, the current one starred (fork alone does the same)",
			Run:     runForkList,
		},
	},
}

func liveBranches(s *Session) []string {
	var out []string
	for _, b := range s.tl.branches {
		if b != s.tl.cur {
			out = append(out, b.name)
		}
	}
	return out
}

var branchName = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$`)

// forked is the result of fork and fork switch.
type forked struct {
	Branch   string `json:"branch"`
	From     string `json:"from"`
	Commands int    `json:"commands"`
	Switched bool   `json:"switched"`
}

func (f forked) writeText(w io.Writer, _ *style) error {
	if f.Switched {
		fmt.Fprintf(w, "on branch %s (%s); %s is kept as it was\n", f.Branch, plural(f.Commands, "command", "commands"), f.From)
		return nil
	}
	fmt.Fprintf(w, "forked %s from %s after %s: you are on %s now (`fork switch %s` goes back)\n",
		f.Branch, f.From, plural(f.Commands, "command", "commands"), f.Branch, f.From)
	return nil
}

func runFork(s *Session, w io.Writer, a *Args) error {
	name := a.Pos(0)
	if err := a.Err(); err != nil {
		return err
	}
	if !branchName().MatchString(name) || name == "list" || name == "switch" {
		return a.usage("%q is not a branch name: letters, digits, '.', '_' and '-', not list or switch", name)
	}
	if s.branch(name) != nil {
		return a.usage("branch %s exists; `fork switch %s` goes there", name, name)
	}
	if err := s.canRewind("fork"); err != nil {
		return err
	}
	cur := s.tl.cur
	// The branch left behind is rebuilt by replay when it is visited
	// again: that must be possible before the live world moves on.
	if _, err := s.replayStart("fork", cur.steps); err != nil {
		return err
	}
	// The branch left behind keeps a checkpoint here, so that coming back
	// to it restores its state without replaying.
	s.pinCheckpoint()
	nb := &branch{
		name:        name,
		steps:       slices.Clone(cur.steps),
		forks:       append(slices.Clone(cur.forks), forkPoint{at: len(cur.steps), name: name, from: cur.name}),
		checkpoints: slices.Clone(cur.checkpoints),
		every:       cur.every,
		changed:     cur.changed,
	}
	cur.world = nil
	s.tl.branches = append(s.tl.branches, nb)
	s.tl.cur = nb
	return s.emit(w, forked{Branch: name, From: cur.name, Commands: okSteps(nb.steps)})
}

func (s *Session) branch(name string) *branch {
	for _, b := range s.tl.branches {
		if b.name == name {
			return b
		}
	}
	return nil
}

func okSteps(steps []step) int {
	n := 0
	for _, st := range steps {
		if st.ok {
			n++
		}
	}
	return n
}

func runForkSwitch(s *Session, w io.Writer, a *Args) error {
	name := a.Pos(0)
	if err := a.Err(); err != nil {
		return err
	}
	target := s.branch(name)
	switch {
	case target == nil:
		msg := fmt.Sprintf("no branch %q (fork list shows them)", name)
		if c := closest(name, branchNames(s)); c != "" {
			msg = fmt.Sprintf("no branch %q (did you mean %s? fork list shows them)", name, c)
		}
		return a.usage("%s", msg)
	case target == s.tl.cur:
		return a.usage("already on branch %s", name)
	case s.tl.rec != nil:
		return kerr.New(kerr.IllegalState, "fork switch while recording would mix two branches in one lab; `record stop` first")
	}
	if err := s.canRewind("fork switch"); err != nil {
		return err
	}
	wd := target.world
	if wd == nil {
		built, err := s.tl.rewind.rebuild(s, "fork switch", target.steps, target.checkpoints)
		if err != nil {
			return err
		}
		wd = built
	}
	parked := s.world
	s.world = *wd
	target.world = nil
	left := s.tl.cur
	left.world = &parked
	s.tl.cur = target
	return s.emit(w, forked{Branch: name, From: left.name, Commands: okSteps(target.steps), Switched: true})
}

func branchNames(s *Session) []string {
	var out []string
	for _, b := range s.tl.branches {
		out = append(out, b.name)
	}
	return out
}

// branchList is the result of fork list.
type branchList struct {
	Branches []branchInfo `json:"branches"`
}

type branchInfo struct {
	Name     string `json:"name"`
	Current  bool   `json:"current"`
	Commands int    `json:"commands"`
	From     string `json:"from,omitempty"`
	After    int    `json:"after,omitempty"`
}

func (l branchList) writeText(w io.Writer, _ *style) error {
	width := 0
	for _, b := range l.Branches {
		width = max(width, len(b.Name))
	}
	for _, b := range l.Branches {
		mark := " "
		if b.Current {
			mark = "*"
		}
		line := fmt.Sprintf("%s %-*s  %s", mark, width, b.Name, plural(b.Commands, "command", "commands"))
		if b.From != "" {
			line += fmt.Sprintf(", forked from %s after %d", b.From, b.After)
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
	return nil
}

func runForkList(s *Session, w io.Writer, a *Args) error {
	var l branchList
	for _, b := range s.tl.branches {
		info := branchInfo{Name: b.name, Current: b == s.tl.cur, Commands: okSteps(b.steps)}
		if n := len(b.forks); n > 0 && b.forks[n-1].name == b.name {
			f := b.forks[n-1]
			info.From, info.After = f.from, okSteps(b.steps[:min(f.at, len(b.steps))])
		}
		l.Branches = append(l.Branches, info)
	}
	return s.emit(w, l)
}

// closeBranches shuts the worlds parked in branches the session is not on.
func (s *Session) closeBranches() error {
	var first error
	for _, b := range s.tl.branches {
		if b.world != nil {
			if err := shut(b.world.cluster, b.world.temp); err != nil && first == nil {
				first = err
			}
			b.world = nil
		}
	}
	return first
}
