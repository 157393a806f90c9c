// Package explore searches the fault schedules of a MiniKafka cluster for
// the shortest one that breaks a property: every interleaving of produces,
// follower fetches, crashes, restarts, elections and clock steps up to a
// depth, breadth first, from the cluster's current state. It either finds
// the shortest schedule that breaks the property or says how many distinct
// states it reached without breaking it.
//
// The search runs on the engine itself, not on a model of it: each state
// is an engine.Snapshot, and a step is tried on a restore of its state's
// snapshot (engine.Restore) — never by replaying the schedule from the
// start. States are recognised by a key (key.go): two states with the same
// key behave the same under every schedule, so the second is not explored
// again.
//
// Like the engine, the search is deterministic: no goroutine, no clock, no
// randomness; the same cluster and options give the same result.
package explore

import (
	"slices"
	"strconv"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/invariant"
	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// The properties the explorer can check, each made of the invariant
// package's properties named in counted.
const (
	AckedNotLost       = "acked-not-lost"
	CommittedNotLost   = "committed-not-lost"
	LogsAgree          = "logs-agree"
	NoReadAboveHW      = "no-read-above-hw"
	ReadCommittedClean = "read-committed-clean"
)

// counted maps each explorer property to the invariant properties whose
// violations break it. A committed record lost at a clean election is
// reported by the Monitor as clean-election-keeps-committed: for a reader
// it is a committed record lost all the same.
var counted = map[string][]string{
	AckedNotLost:       {invariant.AckedNotLost},
	CommittedNotLost:   {invariant.CommittedNotLost, invariant.CleanElectionKeepsCommitted},
	LogsAgree:          {invariant.LogsAgree},
	NoReadAboveHW:      {invariant.NoReadAboveHW},
	ReadCommittedClean: {invariant.ReadCommittedClean},
}

// Properties lists the properties property=NAME accepts.
func Properties() []string {
	return []string{AckedNotLost, CommittedNotLost, LogsAgree, NoReadAboveHW, ReadCommittedClean}
}

// Limits of the options: beyond them a search could not end in a
// session's time.
const (
	MaxDepth     = 40
	MaxFaults    = 10
	MaxValues    = 10
	MaxMaxStates = 10_000_000
)

// Options are a search's bounds and what it looks for. The zero value of
// each field takes its default (Normalize).
type Options struct {
	Depth     int    // the longest schedule tried (default 8)
	Faults    int    // crashes per schedule (default 1; negative: none)
	Property  string // default acked-not-lost
	Ops       []Kind // the kinds of steps tried (default all)
	Acks      []engine.AckMode
	Values    int // produces per schedule, each with a new value (default 2)
	MaxStates int // distinct states before the search gives up (default 1,000,000)
	// Stop, when set, is asked between states; true ends the search with
	// what it found so far (Ctrl-C).
	Stop func() bool
	// Progress, when set, is called after each depth and every 1024
	// states.
	Progress func(Progress)
	// Visit, when set, is called with each distinct state's schedule, in
	// the order the search reaches them (tests replay them).
	Visit func(schedule []Op)
	// Replay makes the search rebuild every state it expands by replaying
	// its schedule from the start instead of restoring its snapshot: the
	// baseline the snapshots are measured against. The result is the same.
	Replay bool
}

// Normalize fills in the defaults and checks the bounds: an argument
// error names the first bad option.
func (o *Options) Normalize() error {
	if err := orDefault(&o.Depth, 8, MaxDepth, "depth"); err != nil {
		return err
	}
	switch {
	case o.Faults == 0:
		o.Faults = 1
	case o.Faults < 0:
		o.Faults = 0
	case o.Faults > MaxFaults:
		return kerr.Argument("faults must be 0..%d (got %d)", MaxFaults, o.Faults)
	}
	if o.Property == "" {
		o.Property = AckedNotLost
	}
	if _, ok := counted[o.Property]; !ok {
		return kerr.Argument("unknown property %q: one of %v", o.Property, Properties())
	}
	if len(o.Ops) == 0 {
		for k := range kindNames {
			o.Ops = append(o.Ops, Kind(k))
		}
	}
	if len(o.Acks) == 0 {
		o.Acks = []engine.AckMode{engine.AcksAll}
	}
	if err := orDefault(&o.Values, 2, MaxValues, "values"); err != nil {
		return err
	}
	return orDefault(&o.MaxStates, 1_000_000, MaxMaxStates, "max-states")
}

// orDefault sets *v to def when it is zero, and checks that it is in
// 1..most otherwise (an argument error naming the option).
func orDefault(v *int, def, most int, name string) error {
	switch {
	case *v == 0:
		*v = def
	case *v < 0 || *v > most:
		return kerr.Argument("%s must be 1..%d (got %d)", name, most, *v)
	}
	return nil
}

// Progress is how far a search has come.
type Progress struct {
	States int // distinct states so far
	Depth  int // the depth being expanded
}

// Result is what a search found.
type Result struct {
	Property string
	// Schedule is the shortest schedule that breaks the property; nil
	// when none was found.
	Schedule []Op
	// Violation is what the last step of Schedule broke.
	Violation *invariant.Violation
	// States is the number of distinct states reached (the start
	// included); Depth the depth every schedule was tried to.
	States int
	Depth  int
	// Stopped says why the search ended before its depth: "max-states",
	// "interrupted", or "" (it ran to its depth or found a schedule).
	Stopped string
}

// Found reports whether the search found a schedule that breaks the
// property.
func (r *Result) Found() bool { return r.Schedule != nil }

// node is a state the search reached: how (its parent and step), the
// Monitor that follows its history and what its schedule used of the
// budgets. Its state is not stored: expanding it restores its parent's
// snapshot and runs its step again (the engine is deterministic), and
// only then takes its snapshot, kept while its own children are expanded
// (children left) — so the snapshots held at once are those of one depth,
// not of the next, larger one.
type node struct {
	snap     *engine.Snapshot
	mon      *invariant.Monitor
	parent   int // index in the search's nodes; -1 for the start
	op       Op
	faults   int
	values   int
	enabled  []Op
	children int // children not expanded yet, while snap is kept for them
}

// search is one run of Explore.
type search struct {
	opt   Options
	start *engine.Snapshot
	nodes []node
	seen  map[Key]struct{}
	// topics lists every partition with its replicas, in order.
	parts []partInfo
	clock []clockStep
}

type partInfo struct {
	tp       engine.TopicPartition
	replicas []int32
}

type clockStep struct {
	ms   int64
	knob string
}

// Explore searches from the state of c, which it does not change: it
// works on copies (engine.Cluster.Snapshot). A cluster the explorer
// cannot copy, one with no topic, and one with producers, consumers,
// groups or transactions (whose state the search does not follow) are
// refused with a state error; bad options with an argument error.
func Explore(c *engine.Cluster, opt Options) (*Result, error) {
	if err := opt.Normalize(); err != nil {
		return nil, err
	}
	s, err := newSearch(c, opt)
	if err != nil {
		return nil, err
	}
	return s.run()
}

func newSearch(c *engine.Cluster, opt Options) (*search, error) {
	if c.State() != engine.Running {
		return nil, kerr.State("the cluster is not running")
	}
	topics, err := c.Topics()
	if err != nil {
		return nil, err
	}
	if len(topics) == 0 {
		return nil, kerr.State("the cluster has no topic: create one first (topic create NAME rf=3)")
	}
	if len(c.Producers()) > 0 || len(c.Consumers()) > 0 {
		return nil, kerr.State("explore follows records, replicas and brokers only: the cluster has producers or consumers (start from a cluster without them)")
	}
	if gs, err := c.ListGroups(); err != nil || len(gs) > 0 {
		return nil, kerr.State("explore follows records, replicas and brokers only: the cluster has consumer groups")
	}
	if ts, err := c.ListTransactions(); err != nil || len(ts) > 0 {
		return nil, kerr.State("explore follows records, replicas and brokers only: the cluster has transactions")
	}
	snap, err := c.Snapshot()
	if err != nil {
		return nil, err
	}
	s := &search{opt: opt, start: snap, seen: map[Key]struct{}{}}
	states, err := c.PartitionStates()
	if err != nil {
		return nil, err
	}
	for _, st := range states {
		p := partInfo{tp: st.TP}
		for _, r := range st.Replicas {
			p.replicas = append(p.replicas, r.Broker)
		}
		s.parts = append(s.parts, p)
	}
	s.clock = clockSteps(c.Config())
	return s, nil
}

// clockSteps are the clock advances worth trying under cfg: just past
// each timeout that changes something (a follower leaves the ISR; the
// KRaft controller fences a silent broker, or looks for an unclean
// election; an acks=all waiter held under min.insync.replicas times out).
func clockSteps(cfg engine.Config) []clockStep {
	out := []clockStep{{cfg.ReplicaLagTimeMaxMs + 1, "replica.lag.time.max.ms"}}
	add := func(ms int64, knob string) {
		if !slices.ContainsFunc(out, func(c clockStep) bool { return c.ms == ms }) {
			out = append(out, clockStep{ms, knob})
		}
	}
	if cfg.Rules.Controller == engine.ControllerKRaft {
		add(cfg.BrokerSessionTimeoutMs+1, "broker.session.timeout.ms")
		if cfg.Rules.UncleanLeaderElection {
			add(cfg.UncleanLeaderElectionIntervalMs, "unclean.leader.election.interval.ms")
		}
	}
	if cfg.Rules.HWUnderMinISR == "hold" {
		add(cfg.RequestTimeoutMs+1, "request.timeout.ms")
	}
	slices.SortFunc(out, func(a, b clockStep) int { return int(a.ms - b.ms) })
	return out
}

// run is the breadth-first search.
func (s *search) run() (*Result, error) {
	res := &Result{Property: s.opt.Property}
	root, err := engine.Restore(s.start)
	if err != nil {
		return nil, err
	}
	root.TakeEvents()
	mon := &invariant.Monitor{}
	if err := s.acknowledgeStart(root, mon); err != nil {
		return nil, err
	}
	if err := s.sawHW(root, mon); err != nil {
		return nil, err
	}
	obs := invariant.Observe(root)
	if v := s.broken(mon, obs); v != nil {
		res.Schedule, res.Violation, res.States = []Op{}, v, 1
		return res, nil
	}
	if s.start, err = root.Snapshot(); err != nil {
		return nil, err
	}
	k := s.key(root, obs, mon, 0, 0)
	s.seen[k] = struct{}{}
	s.nodes = append(s.nodes, node{mon: mon, parent: -1, enabled: s.enabled(obs, 0, 0)})
	if s.opt.Visit != nil {
		s.opt.Visit(nil)
	}
	frontier := []int{0}
	for depth := 1; depth <= s.opt.Depth && len(frontier) > 0; depth++ {
		s.progress(depth)
		var next []int
		for _, i := range frontier {
			if s.opt.Stop != nil && s.opt.Stop() {
				res.Stopped = "interrupted"
				break
			}
			found, err := s.expand(i, depth, &next, res)
			if err != nil {
				return nil, err
			}
			if found || res.Stopped != "" {
				res.States = len(s.seen)
				return res, nil
			}
		}
		if res.Stopped != "" {
			break
		}
		res.Depth = depth
		frontier = next
	}
	res.States = len(s.seen)
	return res, nil
}

func (s *search) progress(depth int) {
	if s.opt.Progress != nil {
		s.opt.Progress(Progress{States: len(s.seen), Depth: depth})
	}
}

// expand tries every enabled step from node i, at depth-1; new states go
// to next. It returns true when a step broke the property (res then holds
// it).
func (s *search) expand(i, depth int, next *[]int, res *Result) (bool, error) {
	n := &s.nodes[i]
	snap, err := s.state(i)
	if err != nil {
		return false, err
	}
	enabled, mon, faults, values := n.enabled, n.mon, n.faults, n.values
	n.enabled, n.mon = nil, nil // expanded: only its step and parent are kept
	var schedule []Op
	if s.opt.Replay {
		schedule = s.schedule(i)
	}
	children := 0
	for _, op := range enabled {
		var c *engine.Cluster
		if s.opt.Replay {
			c, err = s.replayed(schedule)
		} else {
			c, err = engine.Restore(snap)
		}
		if err != nil {
			return false, err
		}
		ack, err := op.apply(c)
		if err != nil {
			continue // not enabled after all (refused): no new state
		}
		m := mon.Clone()
		if err := s.learn(c, m, op, ack); err != nil {
			continue
		}
		f, v := faults, values
		if op.fault() {
			f++
		}
		if op.Kind == Produce {
			v++
		}
		obs := invariant.Observe(c)
		if viol := s.broken(m, obs); viol != nil {
			s.seen[s.key(c, obs, m, f, v)] = struct{}{}
			res.Schedule, res.Violation = append(s.schedule(i), op), viol
			return true, nil
		}
		k := s.key(c, obs, m, f, v)
		if _, dup := s.seen[k]; dup {
			continue
		}
		s.seen[k] = struct{}{}
		child := node{parent: i, op: op, faults: f, values: v}
		if depth < s.opt.Depth {
			// A state at the last depth is never expanded.
			child.mon, child.enabled = m, s.enabled(obs, f, v)
			children++
		}
		s.nodes = append(s.nodes, child)
		if child.enabled != nil {
			*next = append(*next, len(s.nodes)-1)
		}
		if s.opt.Visit != nil {
			s.opt.Visit(s.schedule(len(s.nodes) - 1))
		}
		if len(s.seen)%1024 == 0 {
			s.progress(depth)
		}
		if len(s.seen) >= s.opt.MaxStates {
			res.Stopped = "max-states"
			return false, nil
		}
	}
	n = &s.nodes[i] // s.nodes may have grown
	if children > 0 && !s.opt.Replay {
		n.snap, n.children = snap, children
	}
	return false, nil
}

// state returns node i's snapshot: the start's, or its parent's restored
// with its step run again (the parent's snapshot is dropped once its last
// child has been expanded). In replay mode only the start's is kept.
func (s *search) state(i int) (*engine.Snapshot, error) {
	n := &s.nodes[i]
	if n.parent < 0 || s.opt.Replay {
		return s.start, nil
	}
	p := &s.nodes[n.parent]
	c, err := engine.Restore(p.snap)
	if err != nil {
		return nil, err
	}
	if p.children--; p.children == 0 {
		p.snap = nil
	}
	if _, err := n.op.apply(c); err != nil {
		return nil, kerr.New(kerr.Internal, "running %s again: %v", n.op, err)
	}
	c.TakeEvents()
	return c.Snapshot()
}

// replayed rebuilds a state from the start by replaying its schedule
// (Options.Replay).
func (s *search) replayed(schedule []Op) (*engine.Cluster, error) {
	c, err := engine.Restore(s.start)
	if err != nil {
		return nil, err
	}
	for _, op := range schedule {
		if _, err := op.apply(c); err != nil {
			return nil, kerr.New(kerr.Internal, "replaying %s: %v", op, err)
		}
	}
	c.TakeEvents()
	return c, nil
}

// schedule is the steps that reach node i from the start.
func (s *search) schedule(i int) []Op {
	var out []Op
	for ; i > 0; i = s.nodes[i].parent {
		out = append(out, s.nodes[i].op)
	}
	slices.Reverse(out)
	return out
}

// step runs op on c and tells the Monitor what a producer and a consumer
// would have learned: the writes acknowledged by it, the HW a consumer
// could see after it. An error means the step was refused.
func (s *search) step(c *engine.Cluster, m *invariant.Monitor, op Op) error {
	ack, err := op.apply(c)
	if err != nil {
		return err
	}
	return s.learn(c, m, op, ack)
}

// learn tells the Monitor what op, which just ran on c with the
// acknowledgement ack (a produce's), let a producer and a consumer learn.
func (s *search) learn(c *engine.Cluster, m *invariant.Monitor, op Op, ack *engine.Ack) error {
	var own int64 = -1
	if ack != nil {
		own = ack.ID()
		if ack.State() == engine.Done && op.Acks != engine.Acks0 {
			if err := acknowledge(c, m, ack.TP, ack.Value().BaseOffset); err != nil {
				return err
			}
		}
	}
	for _, ev := range c.TakeEvents() {
		if e, ok := ev.(engine.AckResolved); ok && e.ID != own && e.Source == "produce" && e.Result.OffsetsKnown {
			for off := e.Result.BaseOffset; off < e.Result.NextOffset; off++ {
				if err := acknowledge(c, m, e.TP, off); err != nil {
					return err
				}
			}
		}
	}
	return s.sawHW(c, m)
}

// acknowledge tells the Monitor that the record at offset of tp, which
// the leader holds, was acknowledged to its producer.
func acknowledge(c *engine.Cluster, m *invariant.Monitor, tp engine.TopicPartition, offset int64) error {
	st, err := c.PartitionState(tp)
	if err != nil {
		return err
	}
	batches, err := c.LogBatches(tp, st.Leader, offset, offset+1, 1)
	if err != nil {
		return err
	}
	for _, b := range batches {
		recs, err := b.Records()
		if err != nil {
			return err
		}
		for _, r := range recs {
			if r.Offset == offset {
				m.Acknowledged(tp, offset, r.Record)
			}
		}
	}
	return nil
}

// acknowledgeStart counts as acknowledged every record the leaders hold
// when the search starts, but those an acks=all waiter still holds: they
// are acknowledged when it completes. (A record written with acks=0
// cannot be told apart: it counts too.)
func (s *search) acknowledgeStart(c *engine.Cluster, m *invariant.Monitor) error {
	pending := map[engine.TopicPartition]int64{}
	for _, a := range c.PendingAcks() {
		if v := a.Value(); v.OffsetsKnown {
			if p, ok := pending[a.TP]; !ok || v.BaseOffset < p {
				pending[a.TP] = v.BaseOffset
			}
		} else if p, ok := pending[a.TP]; !ok || a.Target-1 < p {
			pending[a.TP] = a.Target - 1
		}
	}
	for _, p := range s.parts {
		st, err := c.PartitionState(p.tp)
		if err != nil {
			return err
		}
		if !st.Online {
			continue
		}
		end := st.LEO
		if off, ok := pending[p.tp]; ok {
			end = min(end, off)
		}
		for off := st.LogStart; off < end; off++ {
			if err := acknowledge(c, m, p.tp, off); err != nil {
				return err
			}
		}
	}
	return nil
}

// sawHW lets a consumer look at every partition's HW.
func (s *search) sawHW(c *engine.Cluster, m *invariant.Monitor) error {
	for _, p := range s.parts {
		if err := m.SawHW(c, p.tp); err != nil {
			return err
		}
	}
	return nil
}

// broken returns the first violation of the search's property in obs, or
// nil.
func (s *search) broken(m *invariant.Monitor, obs invariant.Observation) *invariant.Violation {
	for _, v := range m.Check(obs) {
		if slices.Contains(counted[s.opt.Property], v.Property) {
			return &v
		}
	}
	return nil
}

// enabled lists the steps worth trying from a state: those its
// observation allows, within the budgets.
func (s *search) enabled(obs invariant.Observation, faults, values int) []Op {
	up := map[int32]bool{}
	var brokers []int32
	for _, b := range obs.Brokers {
		up[b.ID] = b.Up
		brokers = append(brokers, b.ID)
	}
	var out []Op
	for _, k := range s.opt.Ops {
		switch k {
		case Produce:
			if values >= s.opt.Values {
				continue
			}
			for _, p := range obs.Partitions {
				if !p.Online {
					continue
				}
				for _, acks := range s.opt.Acks {
					out = append(out, Op{Kind: Produce, TP: p.TP, Acks: acks, Value: valueName(values)})
				}
			}
		case Replicate:
			for _, p := range obs.Partitions {
				if !p.Online {
					continue
				}
				for _, r := range p.Replicas {
					if r.Broker != p.Leader && r.Up {
						out = append(out, Op{Kind: Replicate, TP: p.TP, Broker: r.Broker})
					}
				}
			}
		case Crash, CrashKeep:
			if faults >= s.opt.Faults {
				continue
			}
			for _, b := range brokers {
				if up[b] {
					out = append(out, Op{Kind: k, Broker: b})
				}
			}
		case Restart:
			for _, b := range obs.Brokers {
				if !b.Up && b.LogDirFailure == "" {
					out = append(out, Op{Kind: Restart, Broker: b.ID})
				}
			}
		case Promote:
			for _, p := range obs.Partitions {
				for _, r := range p.Replicas {
					if r.Broker != p.Leader && r.Up && r.InISR {
						out = append(out, Op{Kind: Promote, TP: p.TP, Broker: r.Broker})
					}
				}
			}
		case Clock:
			for _, c := range s.clock {
				out = append(out, Op{Kind: Clock, Ms: c.ms, Knob: c.knob})
			}
		}
	}
	return out
}

// valueName is the value of the search's i-th produce: v1, v2, ... Values
// are given in produce order, so two schedules that differ only in which
// new value a produce wrote are one (values are symmetric).
func valueName(i int) string { return "v" + strconv.Itoa(i+1) }
