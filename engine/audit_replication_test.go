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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

// Decision 7 across a restart (E3): the old leader keeps a tail the new
// leader never had, and the new leader writes as many records at the same
// offsets; the cluster is reopened before anything truncated the old leader.
// The diverged mark is rebuilt from the logs (the epochs differ), so the
// old leader is not in the ISR with different bytes at the same offsets, the
// HW does not cover them, and it truncates and copies the new leader's.
func TestDivergedReplicaAcrossReopenDecision7(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("t", 1, 2)
	p := tp("t", 0)
	f.append(p, batchOf("committed"), engine.Acks1)
	f.replicate(nil)
	f.append(p, batchOf("old-leader-only"), engine.Acks1)
	if err := f.c.Promote(p, 2); err != nil {
		t.Fatal(err)
	}
	f.append(p, batchOf("new-leader"), engine.Acks1)
	f.restart()
	st := f.state(p)
	wantInts(t, "ISR after reopen", st.ISR, []int32{2})
	if st.HW != 1 || !st.Replicas[0].Diverged {
		t.Fatalf("after reopen: HW %d (want 1), replica 1 diverged %v", st.HW, st.Replicas[0].Diverged)
	}
	f.replicate(nil)
	wantStrings(t, "replica 1", f.replicaValues(p, 1), []string{"committed", "new-leader"})
	wantInts(t, "ISR", f.isr(p), []int32{1, 2})
}

// A leader whose broker lost records (unflushed bytes, a machine failure)
// and that leads again after a reopen starts a new epoch, saved in
// metadata.json: otherwise it would write the lost offsets again in the
// same epoch, and a follower holding the lost records would look identical
// there after the next reopen.
func TestLeaderThatLostRecordsStartsANewEpochAtOpen(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("t", 1, 2)
	p := tp("t", 0)
	f.append(p, batchOf("lost-on-leader"), engine.Acks1)
	f.replicate(nil)
	if err := f.c.CrashBroker(1, false); err != nil {
		t.Fatal(err)
	}
	f.c.Crash()
	f.reopen()
	st := f.state(p)
	if st.Leader != 1 || st.LeaderEpoch != 1 || !st.Replicas[1].Diverged {
		t.Fatalf("after reopen: leader %d epoch %d (want 1, 1), follower diverged %v", st.Leader, st.LeaderEpoch, st.Replicas[1].Diverged)
	}
	f.append(p, batchOf("rewritten"), engine.Acks1)
	f.c.Crash()
	f.reopen()
	if md, err := f.c.PartitionMetadata(p); err != nil || md.LeaderEpoch != 1 {
		t.Fatalf("metadata %+v %v", md, err)
	}
	st = f.state(p)
	wantInts(t, "ISR after the second reopen", st.ISR, []int32{1})
	f.replicate(nil)
	wantStrings(t, "follower", f.replicaValues(p, 2), []string{"rewritten"})
	wantInts(t, "ISR", f.isr(p), []int32{1, 2})
}

// After a reopen the HW is the minimum LEO over every replica (decision 8),
// below what the in-sync replicas hold when one replica lags. A leader
// change then (a promotion, a restarted leader re-elected) applies the HW
// rule to the ISR first, so the new leader is not cut back below records
// every in-sync replica holds.
func TestLeaderChangeAfterReopenKeepsWhatTheISRHolds(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"promote", "restart"} {
		t.Run(how, func(t *testing.T) {
			f := open(t, []int32{1, 2, 3}, func(c *engine.Config) { c.MinInsyncReplicas = 2 })
			f.topic("t", 1, 3)
			p := tp("t", 0)
			if err := f.c.CrashBroker(3, true); err != nil {
				t.Fatal(err)
			}
			if err := f.c.RemoveFromISR(p, 3); err != nil {
				t.Fatal(err)
			}
			ack := f.append(p, batchOf("acked"), engine.AcksAll)
			f.replicate(nil)
			if ack.State() != engine.Done {
				t.Fatalf("ack %v %v", ack.State(), ack.Err())
			}
			f.c.Crash()
			f.reopen()
			if st := f.state(p); st.HW != 0 {
				t.Fatalf("decision 8: HW after reopen %d, want 0 (broker 3 has nothing)", st.HW)
			}
			if how == "promote" {
				if err := f.c.Promote(p, 2); err != nil {
					t.Fatal(err)
				}
			} else {
				if err := f.c.CrashBroker(1, true); err != nil {
					t.Fatal(err)
				}
				if _, err := f.c.RestartBroker(1); err != nil {
					t.Fatal(err)
				}
			}
			f.replicate(nil)
			wantStrings(t, "values", f.values(p, engine.ReadUncommitted), []string{"acked"})
		})
	}
}
