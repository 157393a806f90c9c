package explore_test

import (
	"github.com/minikafka-lab/minikafka/tools/bench"
	"os"
	"strconv"
	"syscall"
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
// reports the ratio of their rates; both must reach the same states. The
// ratio is reported, not asserted: the machine is shared, and at small
// depths the replays are short and the two cost about the same.
func TestSnapshotsVersusReplay(t *testing.T) {
	depth := 5
	if heavy() {
		depth = 8
	}
	c := minISR2(t)
	timed := func(replay bool) (*explore.Result, time.Duration, time.Duration) {
		opt := benchOptions(depth)
		opt.Replay = replay
		start, cpu := time.Now(), cpuTime()
		res := run(t, c, opt)
		return res, time.Since(start), cpuTime() - cpu
	}
	snap, ts, cs := timed(false)
	replay, tr, cr := timed(true)
	if snap.States != replay.States || snap.Found() || replay.Found() {
		t.Fatalf("snapshots: %d states, replay: %d", snap.States, replay.States)
	}
	rs, rr := float64(snap.States)/ts.Seconds(), float64(replay.States)/tr.Seconds()
	t.Logf("depth %d, %d states: snapshots %.0f states/s (%v, CPU %v), replay from the start %.0f states/s (%v, CPU %v): %.1fx (CPU %.1fx)",
		depth, snap.States, rs, ts.Round(time.Millisecond), cs.Round(time.Millisecond), rr, tr.Round(time.Millisecond), cr.Round(time.Millisecond),
		rs/rr, cr.Seconds()/cs.Seconds())
}

// cpuTime is the CPU time the process has used (bench.ProcessCPU): on a
// shared machine, a steadier measure than the wall clock.
func cpuTime() time.Duration {
	d, _ := bench.ProcessCPU()
	return d
}

// peakRSS is the process's peak resident set size in MiB (Linux reports
// ru_maxrss in KiB).
func peakRSS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return -1
	}
	return int64(ru.Maxrss) >> 10
}
