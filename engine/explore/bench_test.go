package explore_test

import (
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/minikafka-lab/minikafka/engine/explore"
)

// benchOptions is the acks=all, min.insync.replicas=2 search of
// TestAcksAllMinISR2OneFault (2 produces, one crash) at depth.
func benchOptions(depth int) explore.Options {
	ops, _ := explore.ParseOps(noClock)
	return explore.Options{Depth: depth, Faults: 1, Ops: ops, Values: 2}
}

// BenchmarkSearch measures states per second on the acks=all,
// min.insync.replicas=2 search, with snapshots (the explorer) and with
// every state rebuilt by replaying its schedule from the start.
func BenchmarkSearch(b *testing.B) {
	depth := 6
	if v, err := strconv.Atoi(os.Getenv("MINIKAFKA_EXPLORE_BENCH_DEPTH")); err == nil {
		depth = v
	}
	for _, replay := range []bool{false, true} {
		name := "snapshots"
		if replay {
			name = "replay-from-start"
		}
		b.Run(name, func(b *testing.B) {
			c := minISR2(b)
			opt := benchOptions(depth)
			opt.Replay = replay
			states := 0
			for b.Loop() {
				states += run(b, c, opt).States
			}
			b.ReportMetric(float64(states)/b.Elapsed().Seconds(), "states/s")
		})
	}
}

// TestSnapshotsVersusReplay runs the same search both ways in one run and
// reports the ratio of their rates; both must reach the same states (at a
// small depth replays are short and the two cost about the same). Under
// MINIKAFKA_EXPLORE_HEAVY=1 it also runs depth 10 with snapshots and
// reports its time and the process's peak RSS.
func TestSnapshotsVersusReplay(t *testing.T) {
	depth := 5
	if heavy() {
		depth = 8
	}
	c := minISR2(t)
	timed := func(replay bool, depth int) (*explore.Result, time.Duration) {
		opt := benchOptions(depth)
		opt.Replay = replay
		start := time.Now()
		res := run(t, c, opt)
		return res, time.Since(start)
	}
	snap, ts := timed(false, depth)
	replay, tr := timed(true, depth)
	if snap.States != replay.States || snap.Found() || replay.Found() {
		t.Fatalf("snapshots: %d states, replay: %d", snap.States, replay.States)
	}
	rs, rr := float64(snap.States)/ts.Seconds(), float64(replay.States)/tr.Seconds()
	t.Logf("depth %d, %d states: snapshots %.0f states/s (%v), replay from the start %.0f states/s (%v): %.1fx",
		depth, snap.States, rs, ts.Round(time.Millisecond), rr, tr.Round(time.Millisecond), rs/rr)
	if heavy() && rs <= rr {
		t.Errorf("snapshots (%.0f states/s) are not faster than replay from the start (%.0f states/s)", rs, rr)
	}
	if !heavy() {
		return
	}
	res, d := timed(false, 10)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("depth 10: %d states in %v (%.0f states/s); heap peak ~%d MiB (runtime Sys)", res.States, d.Round(time.Millisecond),
		float64(res.States)/d.Seconds(), ms.Sys>>20)
	if d > 60*time.Second {
		t.Errorf("depth 10 took %v, over 60 s", d)
	}
}
