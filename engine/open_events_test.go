package engine_test

import (
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/storage"
)

// Cause before effects at open: the leader's torn tail, cut by storage
// recovery, is what makes the replica set start a new epoch and mark the
// follower that still holds those records diverged; Open reports the
// recovery truncation first, as RestartBroker does.
func TestOpenEmitsRecoveryTruncationBeforeItsEffects(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("t", 1, 2)
	p := tp("t", 0)
	f.append(p, batchOf("a"), engine.Acks1)
	f.append(p, batchOf("b"), engine.Acks1)
	f.replicate(nil)
	if _, err := f.c.Corrupt(p, 1, -1, storage.Flip, 1); err != nil { // the leader's last batch
		t.Fatal(err)
	}
	if err := f.c.Crash(); err != nil {
		t.Fatal(err)
	}
	rep := f.reopen()
	if tr := rep.Truncations(); len(tr) != 1 || tr[0].Broker != 1 {
		t.Fatalf("truncations %+v", tr)
	}
	wantStrings(t, "open events", eventKinds(f.c.TakeEvents()), []string{"recovery_truncated", "leader_changed", "replica_diverged"})
	if st := f.state(p); st.LeaderEpoch != 1 || !st.Replicas[1].Diverged {
		t.Fatalf("after the reopen: %+v", st)
	}
}
