package repl

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/explore"
	"github.com/minikafka-lab/minikafka/engine/kerr"
)

var exploreCommand = &Command{
	Name:    "explore",
	Args:    "[depth=N] [faults=N] [property=NAME] [ops=LIST] [acks=LIST] [values=N] [save=FILE.lab] [max-states=N]",
	Summary: "search every fault schedule up to a depth for the shortest one that breaks a property",
	Detail: `From the current cluster, explore tries every interleaving of steps up to
depth=N (default 8), breadth first, and prints the shortest schedule that
breaks property=NAME (default acked-not-lost), step by step with what each
step printed and the picture before and after the last one; or says that
none breaks it within the depth, with the number of distinct states it
reached. The session's cluster does not change: the search runs on copies
(snapshots), and recognises a state it has seen by a hash of everything
that decides what it does next.

ops=LIST chooses the steps (default all): produce (a new value v1, v2, ...
with each mode of acks=LIST, default all; values=N of them, default 2),
replicate (one fetch of one follower), crash (a machine crash: unflushed
bytes are lost), crash-keep (a process crash: the page cache keeps them),
restart, promote (an election of a running ISR member) and clock (just past
replica.lag.time.max.ms, and under controller=kraft past
broker.session.timeout.ms). faults=N bounds the crashes of a schedule
(default 1): durability is a promise about fewer failures than
min.insync.replicas. max-states=N stops a search that grows too large;
Ctrl-C stops it with what it found so far. Records the leaders hold when
explore starts count as acknowledged, but those an acks=all waiter still
holds.

save=FILE.lab writes the schedule found as a lab (and FILE.lab.zh, its
Chinese narration) that lab run replays: the commands that built the
current state, then each step with narration saying why it is allowed and
what it changed. The properties:`,
	Chapter: 6,
	Group:   "Replication and failure",
	Keys: []Param{
		{Name: "depth", Values: choices("4", "6", "8", "10")},
		{Name: "faults", Values: choices("0", "1", "2")},
		{Name: "property", Values: choices(explore.Properties()...)},
		{Name: "ops", Values: choices(explore.OpNames()...)},
		{Name: "acks", Values: choices("0", "1", "all", "1,all")},
		{Name: "values", Values: choices("1", "2", "3")},
		{Name: "save"},
		{Name: "max-states"},
	},
	Run: runExplore,
}

// exploreTopic is `help explore`: the command's help, then each property
// it checks, explained in the session's language (the concepts of the
// same names, repl/concepts).
type exploreTopic struct {
	helpTopic
	Properties []concept `json:"properties"`
}

func (s *Session) exploreHelp(t helpTopic) exploreTopic {
	out := exploreTopic{helpTopic: t}
	for _, p := range explore.Properties() {
		if c, ok := s.lookupConcept(p); ok {
			out.Properties = append(out.Properties, c)
		}
	}
	return out
}

func (t exploreTopic) writeText(w io.Writer, st *style) error {
	var b strings.Builder
	if err := t.helpTopic.writeText(&b, st); err != nil {
		return err
	}
	// The properties go after the detail, before the chapter line.
	text := b.String()
	i := strings.LastIndex(strings.TrimRight(text, "\n"), "\n\n")
	if i < 0 {
		i = len(text)
	}
	io.WriteString(w, text[:i+1])
	for _, c := range t.Properties {
		fmt.Fprintln(w)
		for _, l := range c.Definition {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	_, err := io.WriteString(w, text[i+1:])
	return err
}

// explored is the result of explore.
type explored struct {
	Property  string        `json:"property"`
	Found     bool          `json:"found"`
	States    int           `json:"distinct_states"`
	Depth     int           `json:"depth"`
	Stopped   string        `json:"stopped,omitempty"`
	Violation string        `json:"violation,omitempty"`
	Steps     []exploreStep `json:"steps"`
	Before    []string      `json:"before,omitempty"`
	After     []string      `json:"after,omitempty"`
	Saved     string        `json:"saved,omitempty"`
}

// exploreStep is one step of the schedule found, with what it printed.
type exploreStep struct {
	Command string   `json:"command"`
	Output  []string `json:"output"`
}

func (r explored) writeText(w io.Writer, _ *style) error {
	if !r.Found {
		switch r.Stopped {
		case "":
			fmt.Fprintf(w, "no violation of %s within depth %d: %s\n", r.Property, r.Depth, plural(r.States, "distinct state", "distinct states"))
		default:
			fmt.Fprintf(w, "no violation of %s found: stopped (%s) after depth %d, %s\n", r.Property, r.Stopped, r.Depth, plural(r.States, "distinct state", "distinct states"))
		}
		return nil
	}
	fmt.Fprintf(w, "%s breaks after %s (%s; no shorter schedule breaks it):\n", r.Property, plural(len(r.Steps), "step", "steps"), plural(r.States, "distinct state", "distinct states"))
	for i, st := range r.Steps {
		fmt.Fprintf(w, "%2d. %s\n", i+1, st.Command)
		for _, l := range st.Output {
			fmt.Fprintf(w, "      %s\n", strings.TrimLeft(l, " "))
		}
	}
	if len(r.Before) > 0 {
		fmt.Fprintln(w, "before the last step:")
		for _, l := range r.Before {
			fmt.Fprintln(w, "  "+l)
		}
		fmt.Fprintln(w, "after it:")
		for _, l := range r.After {
			fmt.Fprintln(w, "  "+l)
		}
	}
	fmt.Fprintln(w, "broken: "+r.Violation)
	if r.Saved != "" {
		fmt.Fprintf(w, "wrote %s (and %s.zh): check it with `lab run %s`\n", r.Saved, r.Saved, r.Saved)
	}
	return nil
}

// exploreOptions reads explore's arguments.
func exploreOptions(s *Session, a *Args) (explore.Options, string, error) {
	opt := explore.Options{
		Depth:     int(a.Int("depth", 8, 1, explore.MaxDepth)),
		Faults:    int(a.Int("faults", 1, 0, explore.MaxFaults)),
		Property:  a.Choice("property", explore.AckedNotLost, explore.Properties()...),
		Values:    int(a.Int("values", 2, 1, explore.MaxValues)),
		MaxStates: int(a.Int("max-states", 1_000_000, 1, explore.MaxMaxStates)),
	}
	if opt.Faults == 0 {
		opt.Faults = -1 // none (0 is the default's placeholder)
	}
	if a.Has("ops") {
		ops, err := explore.ParseOps(a.String("ops", ""))
		if err != nil {
			a.fail("ops: %s", kerr.MessageOf(err))
		}
		opt.Ops = ops
	}
	if a.Has("acks") {
		for _, v := range strings.Split(a.String("acks", ""), ",") {
			m, err := engine.ParseAcks(strings.TrimSpace(v))
			if err != nil {
				a.fail("acks: %v (a list of 0, 1, all)", kerr.MessageOf(err))
				break
			}
			if !slices.Contains(opt.Acks, m) {
				opt.Acks = append(opt.Acks, m)
			}
		}
	}
	save := a.String("save", "")
	if a.Has("save") && (!strings.HasSuffix(save, ".lab") || strings.TrimSuffix(filepath.Base(save), ".lab") == "") {
		a.fail("save: the file must end in .lab: save=labs/06-isr-and-fencing/15-mine.lab")
	}
	if err := a.Err(); err != nil {
		return opt, "", err
	}
	if topics, err := s.cluster.Topics(); err == nil && len(topics) == 0 {
		return opt, "", a.usage("the cluster has no topic to explore: create one first (topic create events partitions=1 rf=3)")
	}
	return opt, save, nil
}

func runExplore(s *Session, w io.Writer, a *Args) error {
	opt, save, err := exploreOptions(s, a)
	if err != nil {
		return err
	}
	opt.Stop = s.interrupted
	shown := false
	if s.opts.Width != nil && s.tl.rec == nil && s.format == FormatText {
		start := time.Now()
		opt.Progress = func(p explore.Progress) {
			rate := float64(p.States) / max(time.Since(start).Seconds(), 1e-3)
			fmt.Fprintf(w, "\rexploring: %d states, depth %d, %.0f states/s\x1b[K", p.States, p.Depth, rate)
			shown = true
		}
	}
	s.exploreFound = false
	res, err := explore.Explore(s.cluster, opt)
	if shown {
		fmt.Fprint(w, "\r\x1b[K") // the result takes the progress line's place
	}
	if err != nil {
		return err
	}
	s.exploreFound = res.Found()
	out := explored{Property: res.Property, Found: res.Found(), States: res.States, Depth: res.Depth, Stopped: res.Stopped, Steps: []exploreStep{}}
	if res.Stopped == "interrupted" && s.format == FormatText {
		fmt.Fprintln(w, "interrupted: what was found so far")
	}
	if !res.Found() {
		return s.emit(w, out)
	}
	out.Violation = res.Violation.String()
	tr, err := s.traceSchedule(res)
	if err != nil {
		return err
	}
	out.Steps, out.Before, out.After = tr.steps, tr.before.output, tr.after.output
	if save != "" {
		if err := s.saveExplored(save, a, res, tr, max(opt.Faults, 0)); err != nil {
			return err
		}
		out.Saved = save
	}
	return s.emit(w, out)
}

// ExploreFound reports whether the last explore found a schedule that
// breaks its property (minikafka explore's exit status).
func (s *Session) ExploreFound() bool { return s.exploreFound }

// trace is a schedule run again in a lab's fresh session: the blocks that
// rebuild the start, each step's output, the pictures around the last
// step, and each step's partition and broker states before and after it.
type trace struct {
	prefix        []recBlock
	steps         []exploreStep
	blocks        []recBlock
	before, after recBlock
	states        [][2]stepState
}

// stepState is what the narration compares around a step.
type stepState struct {
	parts   []engine.PartitionState
	brokers []engine.BrokerState
}

// traceSchedule runs the schedule found in a fresh session, after the
// commands that rebuilt the current state, as a lab will.
func (s *Session) traceSchedule(res *explore.Result) (*trace, error) {
	lab, prefix, err := s.prefixSession("explore")
	if err != nil {
		return nil, err
	}
	defer lab.Close()
	tr := &trace{prefix: prefix}
	tp := res.Violation.TP
	if tp.Topic == "" {
		tp = res.Schedule[len(res.Schedule)-1].TP
	}
	look := func() stepState {
		var st stepState
		st.parts, _ = lab.cluster.PartitionStates()
		st.brokers, _ = lab.cluster.Brokers()
		return st
	}
	for i, op := range res.Schedule {
		last := i == len(res.Schedule)-1
		if last && tp.Topic != "" {
			if tr.before, err = lab.block("show " + tp.String()); err != nil {
				return nil, err
			}
		}
		before := look()
		b, err := lab.block(op.Command())
		if err != nil {
			return nil, err
		}
		tr.states = append(tr.states, [2]stepState{before, look()})
		tr.blocks = append(tr.blocks, b)
		tr.steps = append(tr.steps, exploreStep{Command: op.Command(), Output: b.output})
		if last && tp.Topic != "" {
			if tr.after, err = lab.block("show " + tp.String()); err != nil {
				return nil, err
			}
		}
	}
	return tr, nil
}

// saveExplored writes the lab of a schedule found, and its Chinese
// narration beside it; faults is the search's bound on crashes.
func (s *Session) saveExplored(path string, a *Args, res *explore.Result, tr *trace, faults int) error {
	args := strings.TrimPrefix(exploreArgs(a), "explore ")
	files := map[string][]byte{}
	for _, lang := range []string{"en", "zh"} {
		n, err := loadNarration(lang)
		if err != nil {
			return err
		}
		src, err := n.lab(path, args, res, tr, faults, lang == "zh")
		if err != nil {
			return err
		}
		name := path
		if lang == "zh" {
			name += ".zh"
		}
		files[name] = src
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return kerr.Wrap(kerr.StorageError, err, "explore save")
		}
	}
	for _, name := range []string{path, path + ".zh"} {
		if err := os.WriteFile(name, files[name], 0o644); err != nil {
			return kerr.Wrap(kerr.StorageError, err, "explore save")
		}
	}
	return nil
}

// exploreArgs is the explore command as typed, without save=.
func exploreArgs(a *Args) string {
	var parts []string
	for _, p := range a.Pairs() {
		if p.Key != "save" {
			parts = append(parts, p.Key+"="+Quote(p.Value))
		}
	}
	return strings.Join(append([]string{"explore"}, parts...), " ")
}
