package engine_test

// Regression tests from the spec audit (replication): each names the rule it protects.

import (
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/storage"
)

// replicate; retention on the leader lets it reset (decision 11).
func TestCompactionGapFailsOnlyThatFollowerDecision10(t *testing.T) {
	f := open(t, []int32{1, 2, 3}, func(c *engine.Config) { c.SegmentBytes = 100 })
	f.topic("t", 1, 3)
	f.topic("u", 1, 3)
	p, other := tp("t", 0), tp("u", 0)
	for i := 0; i < 4; i++ {
		f.append(p, record.NewBatch([]record.Record{keyed("k", "v")}), engine.Acks1)
	}
	if _, err := f.c.Replicate(&p, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.Compact(p, 1, 0); err != nil {
		t.Fatal(err)
	}
	f.append(p, batchOf("after"), engine.Acks1)
	f.append(other, batchOf("x"), engine.Acks1)

	_, err := f.c.Replicate(nil, engine.AllFollowers)
	wantCode(t, err, kerr.InvalidRecord, "compaction removed them from leader 1's log")
	if got := f.leo(p, 3); got != 5 {
		t.Fatalf("follower 3 of t-0 LEO %d, want 5: a failing follower held it back", got)
	}
	if got := f.leo(other, 2); got != 1 {
		t.Fatalf("u-0 follower 2 LEO %d, want 1: a failing partition held it back", got)
	}
	if got := f.leo(p, 2); got != 0 {
		t.Fatalf("follower 2 of t-0 LEO %d, want 0", got)
	}

	if _, err := f.c.ApplyRetention(p, 1, -1, 1); err != nil {
		t.Fatal(err)
	}
	f.replicate(&p)
	if got, want := f.leo(p, 2), f.leo(p, 1); got != want {
		t.Fatalf("follower 2 LEO %d after the leader's retention, want %d", got, want)
	}
}

// fails, a restart before what its replicas do on the way back.
func TestBrokerEventsComeBeforeTheirEffects(t *testing.T) {
	f := open(t, []int32{1, 2}, nil)
	f.topic("t", 1, 2)
	p := tp("t", 0)
	f.append(p, batchOf("a"), engine.AcksAll)
	f.c.TakeEvents()
	if err := f.c.CrashBroker(1, true); err != nil {
		t.Fatal(err)
	}
	evs := f.c.TakeEvents()
	wantStrings(t, "crash events", eventKinds(evs), []string{"broker_crashed", "ack_failed"})
	if ev := evs[0].(engine.BrokerCrashed); len(ev.Offline) != 1 || ev.Offline[0] != p {
		t.Fatalf("crash event %+v does not name the offline partition", ev)
	}
	if _, err := f.c.RestartBroker(1); err != nil {
		t.Fatal(err)
	}
	evs = f.c.TakeEvents()
	if len(evs) < 2 || evs[0].Kind() != "broker_restarted" || evs[0].(engine.BrokerRestarted).Replicas != 1 {
		t.Fatalf("restart events %v: want broker_restarted (1 replica) first", eventKinds(evs))
	}
}

// restarting again retries the replica instead of claiming the broker runs.
func TestRestartRetriesAReplicaThatFailedToReopen(t *testing.T) {
	f := open(t, []int32{1, 2}, func(c *engine.Config) { c.SegmentBytes = 100 })
	f.topic("t", 1, 2)
	p := tp("t", 0)
	for range 3 {
		f.append(p, batchOf("v"), engine.Acks1)
	}
	f.replicate(nil)
	if _, err := f.c.Corrupt(p, 2, 0, storage.Flip, 0); err != nil {
		t.Fatal(err)
	}
	if err := f.c.CrashBroker(2, true); err != nil {
		t.Fatal(err)
	}
	_, err := f.c.RestartBroker(2)
	wantCode(t, err, kerr.StorageError, "corrupt closed segment")
	_, err = f.c.Replicate(&p, 2)
	wantCode(t, err, kerr.BrokerNotAvailable, "broker restart 2")
	_, err = f.c.RestartBroker(2)
	wantCode(t, err, kerr.StorageError, "corrupt closed segment")
	_, err = f.c.RestartBroker(1)
	wantCode(t, err, kerr.IllegalState, "broker 1 is running")
}
