package explore_test

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/explore"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// open starts a cluster in memory with brokers and settings ("name=value"),
// and one topic t with one partition of replication factor rf.
func open(t testing.TB, brokers []int32, rf int, settings ...string) *engine.Cluster {
	t.Helper()
	cfg := engine.DefaultConfig("data")
	cfg.FS = vfs.NewMem()
	cfg.BrokerIDs = brokers
	var set []engine.Setting
	for _, s := range settings {
		name, value, _ := strings.Cut(s, "=")
		set = append(set, engine.Setting{Name: name, Value: value})
	}
	if err := cfg.SetAll(set); err != nil {
		t.Fatal(err)
	}
	c, _, err := engine.Open(cfg, clock.NewManual(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.CreateTopic("t", 1, rf); err != nil {
		t.Fatal(err)
	}
	c.TakeEvents()
	return c
}

var t0 = engine.TopicPartition{Topic: "t", Partition: 0}

func produce(t testing.TB, c *engine.Cluster, value string, acks engine.AckMode) {
	t.Helper()
	if _, err := c.Produce("t", 0, record.Record{Value: []byte(value), TimestampMs: -1}, acks); err != nil {
		t.Fatal(err)
	}
	c.TakeEvents()
}

func run(t testing.TB, c *engine.Cluster, opt explore.Options) *explore.Result {
	t.Helper()
	res, err := explore.Explore(c, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func commands(ops []explore.Op) []string {
	var out []string
	for _, o := range ops {
		out = append(out, o.Command())
	}
	return out
}

// minimal checks that no schedule one step shorter breaks the property:
// the search to that depth finds nothing and ran to its end.
func minimal(t *testing.T, c *engine.Cluster, opt explore.Options, res *explore.Result) {
	t.Helper()
	if len(res.Schedule) <= 1 {
		return
	}
	opt.Depth = len(res.Schedule) - 1
	shorter := run(t, c, opt)
	if shorter.Found() || shorter.Stopped != "" || shorter.Depth != opt.Depth {
		t.Fatalf("a shorter schedule breaks %s, or the check did not run to depth %d: %+v", opt.Property, opt.Depth, shorter)
	}
}

func TestAcks1LossFoundAtShortestDepth(t *testing.T) {
	c := open(t, []int32{1, 2, 3}, 3)
	produce(t, c, "x", engine.Acks1)
	opt := explore.Options{Depth: 6}
	res := run(t, c, opt)
	if !res.Found() {
		t.Fatalf("no loss found: %+v", res)
	}
	t.Logf("%d states: %q %v", res.States, commands(res.Schedule), res.Violation)
	// A controlled leader move alone loses it: the new leader keeps only
	// the committed prefix.
	want := []string{"promote t-0 2"}
	if got := commands(res.Schedule); !slices.Equal(got, want) {
		t.Fatalf("schedule %q, want %q", got, want)
	}
	minimal(t, c, opt, res)

	// Without elections, the leader's machine crash drops the unflushed
	// record, and its restart finds none.
	opt.Ops, _ = explore.ParseOps("produce,replicate,crash,restart,clock")
	res = run(t, c, opt)
	want = []string{"broker crash 1", "broker restart 1"}
	if got := commands(res.Schedule); !slices.Equal(got, want) {
		t.Fatalf("schedule %q, want %q (%+v)", got, want, res)
	}
	minimal(t, c, opt, res)
}

func TestBadOptions(t *testing.T) {
	c := open(t, []int32{1, 2, 3}, 3)
	for _, opt := range []explore.Options{{Depth: -1}, {Depth: 1000}, {Property: "nope"}, {Values: 99}, {Faults: 99}, {MaxStates: -5}} {
		if _, err := explore.Explore(c, opt); !errors.Is(err, kerr.InvalidArgument) {
			t.Errorf("%+v: %v, want an argument error", opt, err)
		}
	}
	if _, err := explore.ParseOps("produce,fly"); err == nil {
		t.Error("unknown op accepted")
	}
}

// noClock are the steps of the acks=all searches: without clock steps no
// follower leaves the ISR by lag, so min.insync.replicas=2 holds for the
// records acknowledged (with clock steps, the ISR may shrink to the leader
// alone first: see TestAcksAllISRShrinkThenOneCrash).
const noClock = "produce,replicate,crash,crash-keep,restart,promote"

// minISR2 is the acks=all cluster: brokers 1, 2 and 3, min.insync.replicas=2,
// Kafka's rules; broker 3 crashed and was fenced out of the ISR before the
// search starts, so that the ISR [1 2] is exactly min.insync.replicas:
// every acknowledged record is on two replicas, and the promise is about
// fewer than two failures.
func minISR2(t testing.TB) *engine.Cluster {
	c := open(t, []int32{1, 2, 3}, 3, "min.insync.replicas=2", "rules=kafka")
	if err := c.CrashBroker(3, true); err != nil {
		t.Fatal(err)
	}
	if err := c.Advance(9001); err != nil {
		t.Fatal(err)
	}
	if st, err := c.PartitionState(t0); err != nil || !slices.Equal(st.ISR, []int32{1, 2}) {
		t.Fatalf("ISR %v, %v; want [1 2]", st.ISR, err)
	}
	c.TakeEvents()
	return c
}

// heavy reports whether the searches of the full size run
// (MINIKAFKA_EXPLORE_HEAVY=1, set by .ci/run): depth 10 for acks=all. The
// default run searches the same space to a smaller depth.
func heavy() bool { return os.Getenv("MINIKAFKA_EXPLORE_HEAVY") == "1" }

func TestAcksAllMinISR2OneFault(t *testing.T) {
	depth := 6
	if heavy() {
		depth = 10
	}
	ops, _ := explore.ParseOps(noClock)
	opt := explore.Options{Depth: depth, Faults: 1, Ops: ops, Values: 2}
	start, cpu := time.Now(), cpuTime()
	res := run(t, minISR2(t), opt)
	took, cpu := time.Since(start), cpuTime()-cpu
	if res.Found() || res.Stopped != "" || res.Depth != depth {
		t.Fatalf("want no violation within depth %d: %+v %q", depth, res, commands(res.Schedule))
	}
	t.Logf("no violation of acked-not-lost within depth %d: %d distinct states, %v (%.0f states/s; CPU %v), peak RSS %d MiB",
		depth, res.States, took.Round(time.Millisecond), float64(res.States)/took.Seconds(), cpu.Round(time.Millisecond), peakRSS())
}

func TestAcksAllMinISR2TwoMachineCrashes(t *testing.T) {
	c := minISR2(t)
	ops, _ := explore.ParseOps(noClock)
	opt := explore.Options{Depth: 8, Faults: 2, Ops: ops, Values: 1}
	res := run(t, c, opt)
	if !res.Found() {
		t.Fatalf("no loss with two crashes: %+v", res)
	}
	got := commands(res.Schedule)
	t.Logf("%d states: %q %v", res.States, got, res.Violation)
	crashes := 0
	for _, op := range res.Schedule {
		switch op.Kind {
		case explore.Crash:
			crashes++
		case explore.CrashKeep:
			t.Fatalf("a process crash in the double machine-crash loss: %q", got)
		}
	}
	if crashes != 2 {
		t.Fatalf("want two machine crashes: %q", got)
	}
	minimal(t, c, opt, res)
}

func TestAcksAllISRShrinkThenOneCrash(t *testing.T) {
	c := minISR2(t)
	ops, _ := explore.ParseOps("produce,replicate,crash,restart,clock")
	opt := explore.Options{Depth: 6, Faults: 1, Ops: ops, Values: 2}
	res := run(t, c, opt)
	if !res.Found() {
		t.Fatalf("no loss: %+v", res)
	}
	t.Logf("%d states: %q %v", res.States, commands(res.Schedule), res.Violation)
	if !slices.ContainsFunc(res.Schedule, func(o explore.Op) bool { return o.Kind == explore.Clock }) {
		t.Fatalf("the loss needs the ISR to shrink by lag first: %q", commands(res.Schedule))
	}
	minimal(t, c, opt, res)
}

// kip101 is the pre-KIP-101 setting of hachikuji/kafka-specification:
// two brokers, Kafka's rules with the ZooKeeper-era manual controller,
// followers learning the HW one fetch late, process crashes only.
func kip101(t *testing.T, truncation string) (*engine.Cluster, explore.Options) {
	c := open(t, []int32{1, 2}, 2, "rules=kafka", "controller=manual", "truncation="+truncation)
	ops, _ := explore.ParseOps("produce,replicate,crash-keep,restart,promote")
	return c, explore.Options{Depth: 7, Faults: 2, Ops: ops, Values: 2, Property: explore.CommittedNotLost}
}

func TestKIP101CommittedLoss(t *testing.T) {
	c, opt := kip101(t, "high-watermark")
	res := run(t, c, opt)
	if !res.Found() {
		t.Fatalf("no committed loss under truncation=high-watermark: %+v", res)
	}
	t.Logf("%d states: %q %v", res.States, commands(res.Schedule), res.Violation)
	minimal(t, c, opt, res)

	c, opt = kip101(t, "leader-epoch")
	opt.Depth = len(res.Schedule) + 1
	fixed := run(t, c, opt)
	if fixed.Found() || fixed.Stopped != "" {
		t.Fatalf("truncation=leader-epoch loses a committed record: %q %v", commands(fixed.Schedule), fixed.Violation)
	}
	t.Logf("truncation=leader-epoch: none within depth %d: %d states", opt.Depth, fixed.States)
}

func TestUncleanElectionLoss(t *testing.T) {
	c := open(t, []int32{1, 2}, 2, "rules=kafka", "unclean.leader.election.enable=true")
	ops, _ := explore.ParseOps("produce,replicate,crash-keep,restart,clock")
	opt := explore.Options{Depth: 5, Faults: 2, Ops: ops, Values: 1}
	res := run(t, c, opt)
	if !res.Found() {
		t.Fatalf("no unclean loss: %+v", res)
	}
	t.Logf("%d states: %q %v", res.States, commands(res.Schedule), res.Violation)
	minimal(t, c, opt, res)

	c = open(t, []int32{1, 2}, 2, "rules=kafka")
	if clean := run(t, c, opt); clean.Found() {
		t.Fatalf("a loss without unclean election: %q %v", commands(clean.Schedule), clean.Violation)
	}
}

// TestAgreesWithBruteForce compares the search with an enumeration of
// every schedule replayed from the start: the same distinct states, and
// each schedule the search reports reaches the state it reports.
func TestAgreesWithBruteForce(t *testing.T) {
	c := minISR2(t)
	ops, _ := explore.ParseOps("produce,replicate,crash,crash-keep,restart,promote,clock")
	opt := explore.Options{Depth: 4, Faults: 1, Ops: ops, Values: 1, Acks: []engine.AckMode{engine.Acks1, engine.AcksAll},
		Property: explore.LogsAgree}
	var visited [][]explore.Op
	opt.Visit = func(schedule []explore.Op) { visited = append(visited, schedule) }
	res := run(t, c, opt)
	if res.Found() || res.Stopped != "" {
		t.Fatalf("the comparison needs a search that ends at its depth: %+v", res)
	}
	brute, err := explore.BruteForce(c, opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.States != len(brute) || len(visited) != res.States {
		bfs := map[explore.Key]bool{}
		for _, schedule := range visited {
			k, _ := explore.KeyOf(c, opt, schedule)
			bfs[k] = true
		}
		for k, schedule := range brute {
			if !bfs[k] {
				t.Errorf("only the brute force reaches %q", commands(schedule))
			}
		}
		t.Fatalf("search: %d distinct states (%d visited), brute force: %d", res.States, len(visited), len(brute))
	}
	keys := map[explore.Key]bool{}
	for _, schedule := range visited {
		k, err := explore.KeyOf(c, opt, schedule)
		if err != nil {
			t.Fatalf("%q does not replay: %v", commands(schedule), err)
		}
		if _, ok := brute[k]; !ok || keys[k] {
			t.Fatalf("%q reaches a state the brute force did not, or one reported twice", commands(schedule))
		}
		keys[k] = true
	}
	t.Logf("%d distinct states within depth %d, by both", res.States, opt.Depth)
}

// TestPromotionCutsISRUnderMiniKafkaRules: under MiniKafka's rules a
// promotion leaves the new leader alone in the ISR, so one machine crash
// after it loses a write acknowledged with acks=all and min ISR 2 (Kafka's
// elections keep the ISR: none under rules=kafka, TestAcksAllMinISR2OneFault).
func TestPromotionCutsISRUnderMiniKafkaRules(t *testing.T) {
	c := open(t, []int32{1, 2, 3}, 3, "min.insync.replicas=2")
	ops, _ := explore.ParseOps(noClock)
	opt := explore.Options{Depth: 6, Faults: 1, Ops: ops, Values: 1}
	res := run(t, c, opt)
	if !res.Found() || !slices.ContainsFunc(res.Schedule, func(o explore.Op) bool { return o.Kind == explore.Promote }) {
		t.Fatalf("want a loss through a promotion: %q %+v", commands(res.Schedule), res)
	}
	t.Logf("%d states: %q %v", res.States, commands(res.Schedule), res.Violation)
	minimal(t, c, opt, res)
}

// TestStopAndMaxStates: a search stopped from outside (Ctrl-C) or by its
// state budget ends with what it found so far and says why.
func TestStopAndMaxStates(t *testing.T) {
	c := minISR2(t)
	calls := 0
	res := run(t, c, explore.Options{Depth: 8, Stop: func() bool { calls++; return calls > 20 }})
	if res.Stopped != "interrupted" || res.Found() || res.States < 2 || res.Depth >= 8 {
		t.Errorf("stopped: %+v", res)
	}
	res = run(t, c, explore.Options{Depth: 8, MaxStates: 100})
	if res.Stopped != "max-states" || res.States != 100 {
		t.Errorf("max-states: %+v", res)
	}
	var seen []explore.Progress
	run(t, c, explore.Options{Depth: 3, Progress: func(p explore.Progress) { seen = append(seen, p) }})
	if len(seen) < 3 || seen[len(seen)-1].Depth != 3 {
		t.Errorf("progress: %+v", seen)
	}
}
