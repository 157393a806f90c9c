package engine_test

// Regression tests from the spec audit (consumer): each names the rule it protects.

import (
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// records of the partitions before it are not skipped unseen.
func TestPollFailureSkipsNothing(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("t", 2, 1)
	f.append(tp("t", 0), batchOf("a"), engine.Acks1)
	f.append(tp("t", 1), batchOf("b"), engine.Acks1)
	con := f.consumer("g", nil)
	f.assign(con, tp("t", 0), tp("t", 1))
	if err := f.c.CrashBroker(2, true); err != nil {
		t.Fatal(err)
	}
	recs, err := con.Poll(10)
	wantCode(t, err, kerr.LeaderNotAvailable, "leader 2 of t-1 is down; restart it (broker restart 2)")
	if len(recs) != 0 || len(con.Positions()) != 0 {
		t.Fatalf("failed poll returned %v and moved positions to %v", valuesOf(recs), con.Positions())
	}
	if _, err := f.c.RestartBroker(2); err != nil {
		t.Fatal(err)
	}
	wantStrings(t, "poll after restart", valuesOf(f.poll(con, 10)), []string{"a", "b"})
}

// Retention is a log-level tool not bounded by the HW (decision 10): on a
// leader whose followers lag it can move the log start above the HW. A
// consumer with auto.offset.reset=latest then starts at the log start
// instead of failing with OFFSET_OUT_OF_RANGE forever, and reads what the HW
// exposes once the followers have reset (decision 11).
func TestLatestConsumerWhenRetentionPassedTheHW(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, func(c *engine.Config) { c.SegmentBytes = 100 })
	f.topic("t", 1, 2)
	p := tp("t", 0)
	for range 4 {
		f.append(p, batchOf("v"), engine.Acks1)
	}
	if _, err := f.c.ApplyRetention(p, 1, -1, 1); err != nil {
		t.Fatal(err)
	}
	if st := f.state(p); st.HW != 0 || st.LogStart != 3 {
		t.Fatalf("HW %d, log start %d: want 0 and 3", st.HW, st.LogStart)
	}
	con := f.consumer("g", func(o *engine.ConsumerOptions) { o.AutoOffsetReset = engine.ResetLatest })
	f.assign(con, p)
	if recs := f.poll(con, 10); len(recs) != 0 || f.position(con, p) != 3 {
		t.Fatalf("poll %v, position %d: want nothing at 3", recs, f.position(con, p))
	}
	f.append(p, batchOf("new"), engine.Acks1)
	f.replicate(nil)
	wantStrings(t, "after the followers reset", valuesOf(f.poll(con, 10)), []string{"v", "new"})
}
