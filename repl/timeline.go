package repl

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/minikafka-lab/minikafka/engine"
)

// The timeline is the session's memory of what it ran: for each branch,
// the commands in effect, in order. `history` prints it, the history
// checks count in it, undo cuts it, fork copies it, and replay rebuilds a
// world from it.

// step is one command of a branch's timeline.
type step struct {
	line   string
	effect Effect
	ok     bool
	// reset: the state after this command depends on nothing before it
	// (a fresh cluster open, exercise try).
	reset bool
	// nested are the lines the command ran inside itself, that succeeded
	// (the setup of exercise try); the history checks count them.
	nested []string
	// events are the cluster events the command caused, for the checks
	// that count them (isr-shrinks, truncations, ...).
	events []eventKey
	// dropped is set on the first step of a branch whose older steps the
	// history cap dropped (trimHistory): that step is no command, only
	// the mark, and dropped is how many commands history no longer lists.
	dropped int
}

// eventKey is what the history checks need of an engine event.
type eventKey struct {
	kind   string // the engine's kind: isr_shrank, isr_expanded, ...
	tp     string // "events-0"
	broker int32  // the broker it is about, or -1
}

// forkPoint marks where a branch was forked, for history.
type forkPoint struct {
	at   int    // steps before the fork
	name string // the new branch
	from string // the branch it was forked from
}

// branch is one line of the session's history: its commands, and its
// world while it is not the current branch (nil until it is rebuilt).
type branch struct {
	name  string
	steps []step
	forks []forkPoint
	world *world
	// checkpoints are snapshots of the branch's world along its steps, in
	// order (checkpoint.go); every is the spacing of the next one, in
	// commands that changed the cluster.
	checkpoints []checkpoint
	every       int
	// changed counts the commands that changed the cluster since the last
	// checkpoint was taken or tried (recount rebuilds it from the steps), so
	// that a long session does not rescan its history after every command.
	changed int
}

// timeline is the session's branches and the bookkeeping of the command
// running now.
type timeline struct {
	cur      *branch
	branches []*branch
	// depth counts the commands running: 1 inside a typed command, more
	// for the commands it runs itself (exercise try's setup).
	depth int
	// nested and events collect what the running command did, for its step.
	nested []string
	events []eventKey
	// rec is the recording in progress, nil when none (record.go).
	rec *recording
	// rewind rebuilds a world from a timeline (replay.go, checkpoint.go).
	rewind rewinder
	// checkpoints: the session keeps checkpoints; not while it replays.
	// checkpointBytes bounds one checkpoint's files (maxCheckpointBytes).
	checkpoints     bool
	checkpointBytes int64
	// checkpointTotal bounds a branch's checkpoints together (maxCheckpointTotal).
	checkpointTotal int64
	// lastChanged: the last command changed the cluster (LastChanged).
	lastChanged bool
}

// newTimeline is the timeline of a new session: one branch, main.
func newTimeline() timeline {
	main := &branch{name: "main", every: checkpointEvery}
	return timeline{cur: main, branches: []*branch{main}, rewind: snapshotRewinder{}, checkpoints: true, checkpointBytes: maxCheckpointBytes, checkpointTotal: maxCheckpointTotal}
}

// newReplayTimeline is the timeline of a session that replays commands
// for a rewinder: it keeps no checkpoints.
func newReplayTimeline() timeline {
	tl := newTimeline()
	tl.checkpoints = false
	return tl
}

// note adds a command that ran to the current branch (and the recording):
// a command that changes or inspects the cluster, or reaches outside it.
// Session commands (help, history, undo, ...) are not part of the state's
// story; failed inspections changed nothing; failed changes are kept, out
// of sight, so that a replay repeats exactly what ran.
func (s *Session) note(text string, cmd *Command, a *Args, err error, out string) {
	ok := err == nil && !IsInternal(err)
	if s.tl.depth > 0 { // inside another command: part of its step
		if ok {
			s.tl.nested = append(s.tl.nested, text)
		}
		return
	}
	nested, events := s.tl.nested, s.tl.events
	s.tl.nested, s.tl.events = nil, nil
	eff := effectOf(cmd, a)
	s.tl.lastChanged = ok && (eff == EffectChange || eff == EffectOutside)
	switch {
	case eff == EffectSession:
		return
	case !ok && (eff == EffectRead || eff == EffectOutside):
		return
	}
	st := step{line: text, effect: eff, ok: ok, reset: ok && resets(cmd, a), nested: nested, events: events}
	if st.reset {
		s.tl.cur.checkpoints = nil // nothing before a reset is replayed again
		s.tl.cur.changed = 0
	}
	s.tl.cur.steps = append(s.tl.cur.steps, st)
	if ok && eff == EffectChange {
		s.noteCheckpoint()
	}
	if s.tl.rec != nil {
		s.tl.rec.add(s, eff, ok, text, out, len(s.tl.cur.steps))
	}
	s.trimHistory()
}

// DefaultHistoryMax is the number of commands a session's history keeps
// by default (Options.HistoryMax).
const DefaultHistoryMax = 10000

// historyMax is the session's cap on the steps of a branch; 0 is none.
func (s *Session) historyMax() int {
	switch m := s.opts.HistoryMax; {
	case m < 0:
		return 0
	case m == 0:
		return DefaultHistoryMax
	default:
		return m
	}
}

// trimHistory keeps the current branch at most historyMax steps long, so
// that a long session's memory stays bounded: once the branch is an eighth
// over the cap, its oldest steps are dropped and replaced by a mark saying
// how many commands went. What the dropped steps did stays in the cluster;
// undo and fork cannot go back past the mark (replayStart), history lists
// the kept commands under their original numbers, and the history checks
// count the kept ones. Nothing is dropped while recording.
func (s *Session) trimHistory() {
	b, max := s.tl.cur, s.historyMax()
	if max == 0 || s.tl.rec != nil || len(b.steps) <= max+max/8 {
		return
	}
	cut := len(b.steps) - max + 1 // the kept steps and the mark make max
	dropped := 0
	for _, st := range b.steps[:cut] {
		if st.dropped > 0 {
			dropped += st.dropped
		} else if st.ok {
			dropped++
		}
	}
	kept := make([]step, 0, max+max/8+1)
	kept = append(kept, step{dropped: dropped})
	kept = append(kept, b.steps[cut:]...)
	b.steps = kept
	b.forks = slices.DeleteFunc(b.forks, func(f forkPoint) bool { return f.at < cut })
	for i := range b.forks {
		b.forks[i].at -= cut - 1
	}
	b.checkpoints = slices.DeleteFunc(b.checkpoints, func(cp checkpoint) bool { return cp.at < cut })
	for i := range b.checkpoints {
		b.checkpoints[i].at -= cut - 1
	}
}

// narrate keeps a comment typed while recording as narration.
func (s *Session) narrate(text string) {
	if s.tl.rec != nil && s.tl.depth == 0 && strings.HasPrefix(text, "#") {
		s.tl.rec.narrate(text)
	}
}

// noteEvents keeps what the history checks need of the events a command
// caused.
func (s *Session) noteEvents(evs []engine.Event) {
	for _, e := range evs {
		k := eventKey{kind: e.Kind(), broker: -1}
		switch e := e.(type) {
		case engine.ISRShrank:
			k.tp, k.broker = e.TP.String(), e.Broker
		case engine.ISRExpanded:
			k.tp, k.broker = e.TP.String(), e.Broker
		case engine.ReplicaTruncated:
			k.tp, k.broker = e.TP.String(), e.Broker
		case engine.LeaderChanged:
			k.tp, k.broker = e.TP.String(), e.To
		case engine.DataLost:
			k.tp, k.broker = e.TP.String(), e.Broker
		default:
			continue
		}
		s.tl.events = append(s.tl.events, k)
	}
}

// ran lists the commands of the current branch that ran successfully and
// changed state or reached outside it, the lines run inside them included
// (what `check history ran` counts).
func (s *Session) ran() []string {
	var out []string
	for _, st := range s.tl.cur.steps {
		if !st.ok || st.effect == EffectRead {
			continue
		}
		out = append(out, st.line)
		out = append(out, st.nested...)
	}
	return out
}

// countEvents counts the events of kind on tp (for broker b, or every
// broker when b < 0) in the current branch.
func (s *Session) countEvents(kind, tp string, b int32) int64 {
	n := int64(0)
	for _, st := range s.tl.cur.steps {
		for _, e := range st.events {
			if e.kind == kind && e.tp == tp && (b < 0 || e.broker == b) {
				n++
			}
		}
	}
	return n
}

// historyResult lists the session's command lines, with the points where
// the current branch was forked.
type historyResult struct {
	History []string `json:"history"`
	Branch  string   `json:"branch"`
	// Dropped is how many earlier commands the history cap dropped
	// (history.max): History starts with command Dropped+1.
	Dropped int            `json:"dropped,omitempty"`
	Forks   []historyFork  `json:"forks,omitempty"`
	entries []historyEntry // for text
	max     int            // the cap, for text
}

type historyFork struct {
	After  int    `json:"after"` // commands before the fork point
	Branch string `json:"branch"`
	From   string `json:"from"`
}

type historyEntry struct {
	n    int    // 0 for a fork line
	text string // the command, or the fork's note
}

func (h historyResult) writeText(w io.Writer, _ *style) error {
	if len(h.History) == 0 {
		fmt.Fprintln(w, "(no commands yet)")
	}
	if h.Dropped > 0 {
		fmt.Fprintf(w, "      (%s not kept: the history keeps the last %d; repl --history-max N changes it)\n",
			plural(h.Dropped, "earlier command", "earlier commands"), h.max)
	}
	for _, e := range h.entries {
		if e.n == 0 {
			fmt.Fprintf(w, "      %s\n", e.text)
			continue
		}
		fmt.Fprintf(w, "%4d  %s\n", e.n, e.text)
	}
	return nil
}

// newHistory is the current branch's successful commands that change or
// inspect state, numbered, ready to paste into a script; a fork point is a
// '#' comment line between them.
func (s *Session) newHistory() historyResult {
	b := s.tl.cur
	h := historyResult{History: []string{}, Branch: b.name}
	forkAt := func(n int) {
		for _, f := range b.forks {
			if f.at == n {
				h.Forks = append(h.Forks, historyFork{After: h.countOK(), Branch: f.name, From: f.from})
				h.entries = append(h.entries, historyEntry{text: fmt.Sprintf("# fork %s: branched from %s here", f.name, f.from)})
			}
		}
	}
	for i, st := range b.steps {
		forkAt(i)
		if st.dropped > 0 {
			h.Dropped, h.max = st.dropped, s.historyMax()
		}
		if !st.ok {
			continue
		}
		h.History = append(h.History, st.line)
		h.entries = append(h.entries, historyEntry{n: h.Dropped + len(h.History), text: st.line})
	}
	forkAt(len(b.steps))
	return h
}

func (h historyResult) countOK() int { return len(h.History) }

func runHistory(s *Session, w io.Writer, a *Args) error {
	return s.emit(w, s.newHistory())
}

// countRan counts the commands of ran() that match pattern: the pattern's
// leading words are the command line's leading words; after them, key= needs
// the key, key=V the key with that value, !key=V and !key= forbid them, and
// a word must be one of the line's words.
func (s *Session) countRan(pattern []Word) int {
	n := 0
	for _, line := range s.ran() {
		if matchesPattern(pattern, line) {
			n++
		}
	}
	return n
}

func matchesPattern(pattern []Word, line string) bool {
	words, err := Split(line)
	if err != nil {
		return false
	}
	i := 0
	for ; i < len(pattern) && !pattern[i].IsPair && !strings.HasPrefix(pattern[i].Text, "!"); i++ {
		if i >= len(words) || words[i].IsPair || words[i].Text != pattern[i].Text {
			return false
		}
	}
	pair := func(key string) (Word, bool) {
		for _, w := range words {
			if w.IsPair && w.Key == key {
				return w, true
			}
		}
		return Word{}, false
	}
	for _, p := range pattern[i:] {
		switch {
		case strings.HasPrefix(p.Text, "!"):
			key, value, hasValue := strings.Cut(strings.TrimPrefix(p.Text, "!"), "=")
			w, ok := pair(key)
			if ok && (!hasValue || value == "" || w.Value == value) {
				return false
			}
		case p.IsPair:
			w, ok := pair(p.Key)
			if !ok || (p.Value != "" && w.Value != p.Value) {
				return false
			}
		default:
			found := false
			for _, w := range words[min(i, len(words)):] {
				found = found || (!w.IsPair && w.Text == p.Text)
			}
			if !found {
				return false
			}
		}
	}
	return true
}
