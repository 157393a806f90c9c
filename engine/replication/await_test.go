package replication

import (
	"errors"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
)

// AwaitBatch acknowledges a batch already in the leader's log without
// appending it again (decision 37): it is refused below min.insync.replicas,
// waits until the HW covers the batch, reports the batch's own offsets and
// epoch, and refuses an offset where no batch starts.
func TestAwaitBatchAppendsNothingAndWaitsForTheHW(t *testing.T) {
	rs := newBenchSet(t, t.TempDir())
	rs.env.Events = &EventLog{}
	if _, err := rs.Append(benchBatch(2, 10), Acks1, "data"); err != nil {
		t.Fatal(err)
	}
	if _, err := rs.Append(record.NewControlBatch("tx", record.Commit), Acks1, "marker"); err != nil {
		t.Fatal(err)
	}
	leo := rs.replicas[1].LEO()
	for _, base := range []int64{-1, 1, 3, 4} { // before the log, inside a batch, at and past the LEO
		if _, err := rs.AwaitBatch(base, "x"); !errors.Is(err, kerr.InvalidArgument) {
			t.Fatalf("AwaitBatch(%d): %v, want INVALID_ARGUMENT", base, err)
		}
	}
	rs.env.Settings.MinInsyncReplicas = 4
	if _, err := rs.AwaitBatch(2, "x"); !errors.Is(err, kerr.NotEnoughReplicas) {
		t.Fatalf("below min.insync.replicas: %v", err)
	}
	rs.env.Settings.MinInsyncReplicas = 1
	ack, err := rs.AwaitBatch(2, "marker again")
	if err != nil {
		t.Fatal(err)
	}
	if got := rs.replicas[1].LEO(); got != leo {
		t.Fatalf("leader LEO %d after AwaitBatch, want %d: nothing may be appended", got, leo)
	}
	if ack.State() != Pending || ack.Target != 3 {
		t.Fatalf("ack %v target %d before replication, want pending 3", ack.State(), ack.Target)
	}
	if _, err := rs.FetchFollowers(); err != nil {
		t.Fatal(err)
	}
	v := ack.Value()
	if ack.State() != Done || v.BaseOffset != 2 || v.NextOffset != 3 || v.Duplicate || v.LeaderEpoch != 0 {
		t.Fatalf("after replication: %v %+v", ack.State(), v)
	}
	done, err := rs.AwaitBatch(0, "covered") // the HW covers it already
	if err != nil || done.State() != Done || done.Value().NextOffset != 2 {
		t.Fatalf("a batch under the HW: %v %v %+v", err, done.State(), done.Value())
	}
}
