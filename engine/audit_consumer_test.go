package engine_test

// Regression tests from the spec audit (consumer): each names the rule it protects.

import (
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// records of the partitions before it are not skipped unseen.
func TestPollFailureSkipsNothing(t *testing.T) {
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
