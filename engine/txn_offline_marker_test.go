package engine_test

import (
	"slices"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/storage"
	"github.com/minikafka-lab/minikafka/engine/txn"
)

// offlineMarkerFixture: brokers 1, 2, 3; topic out with 2 partitions and
// rf 2 (out-0 on [1 2], out-1 on [2 3], out-1 then led by broker 3, so that
// crashing it leaves out-0 untouched); transaction tx wrote a to out-0 and
// b to out-1, replicated; then out-1's leader crashed (keep-unflushed).
func offlineMarkerFixture(t *testing.T) *fixture {
	f := open(t, []int32{1, 2, 3}, nil)
	f.topic("out", 2, 2)
	p0, p1 := tp("out", 0), tp("out", 1)
	if err := f.c.Promote(p1, 3); err != nil {
		t.Fatal(err)
	}
	f.replicate(nil)
	// Any read of out-1 indexes its leader log now, before the transaction
	// writes to it (the REPL shows the LSO after every command).
	if lso := f.lsoOf(p1); lso != 0 {
		t.Fatalf("LSO %d", lso)
	}
	f.begin("tx")
	f.txSend("tx", "out", 0, "a")
	f.txSend("tx", "out", 1, "b")
	f.replicate(nil)
	// HighWatermark does not look at transactions (PartitionState would
	// bring out-1's index up to date).
	for _, p := range []engine.TopicPartition{p0, p1} {
		if hw, err := f.c.HighWatermark(p); err != nil || hw != 1 {
			t.Fatalf("%s HW %d (%v)", p, hw, err)
		}
	}
	if err := f.c.CrashBroker(3, true); err != nil {
		t.Fatal(err)
	}
	f.c.TakeEvents()
	return f
}

// checkCommitWaitsForOfflineMarker commits tx while out-1 has no leader:
// the COMMIT marker reaches out-0 only, the attempt fails with
// LEADER_NOT_AVAILABLE on out-1, the transaction stays PREPARE_COMMIT, the
// events say so (and never that it completed), and the coordinator holds
// both LSOs at the transaction's first offsets.
func checkCommitWaitsForOfflineMarker(t *testing.T, f *fixture) {
	t.Helper()
	p0, p1 := tp("out", 0), tp("out", 1)
	h := f.commitTx("tx")
	if h.State() != engine.Failed {
		t.Fatalf("commit with out-1 offline: %v %+v, want failed", h.State(), h.Value())
	}
	wantCode(t, h.Err(), kerr.LeaderNotAvailable, "commit marker for out-1")
	var kinds []string
	for _, e := range f.c.TakeEvents() {
		kinds = append(kinds, e.Kind())
		if ev, ok := e.(engine.TransactionFailed); ok && (ev.Code != kerr.LeaderNotAvailable || ev.State != txn.PrepareCommit) {
			t.Fatalf("failure event %q", ev)
		}
	}
	if !slices.Contains(kinds, "transaction_failed") || slices.Contains(kinds, "transaction_completed") {
		t.Fatalf("events %v", kinds)
	}
	if st := f.txnState("tx"); st != txn.PrepareCommit {
		t.Fatalf("state %v, want prepare_commit", st)
	}
	if b := f.leaderBatches(p0); len(b) != 2 || b[1].Control != record.Commit {
		t.Fatalf("out-0 batches %+v: want the data and its COMMIT marker", b)
	}
	f.replicate(nil) // out-0's marker is replicated; out-1 is skipped
	if f.hw(p0) != 2 || f.lsoOf(p0) != 0 || f.lsoOf(p1) != 0 {
		t.Fatalf("out-0 HW %d LSO %d, out-1 LSO %d: the prepared transaction must hold both LSOs", f.hw(p0), f.lsoOf(p0), f.lsoOf(p1))
	}
	wantStrings(t, "out-0 read_committed while prepared", f.values(p0, engine.ReadCommitted), []string{})
	d, err := f.c.DescribeTransaction("tx")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.OpenRuns) != 1 || d.OpenRuns[0].TP != p1 || d.OpenRuns[0].Offset != 0 {
		t.Fatalf("open runs %+v: want out-1 at 0 (out-0's marker is replicated)", d.OpenRuns)
	}
	want := []engine.PartitionOffset{{TP: p0, Offset: 0}, {TP: p1, Offset: 0}}
	if !slices.Equal(d.HoldsLSO, want) {
		t.Fatalf("holds the LSO at %+v, want %+v: the prepared transaction holds both", d.HoldsLSO, want)
	}
	_, err = f.c.AbortTransaction("tx")
	wantCode(t, err, kerr.IllegalState, "transaction tx is prepare_commit")
	h = f.commitTx("tx") // still offline: the retry fails the same way
	wantCode(t, h.Err(), kerr.LeaderNotAvailable, "commit marker for out-1")
	if b := f.leaderBatches(p0); len(b) != 2 {
		t.Fatalf("the retry wrote out-0's replicated marker again: %+v", b)
	}
}

// checkCommitRetryCompletes retries the commit once out-1 has a leader
// again: only out-1's marker is written, the transaction completes, and
// both partitions show b and a to read_committed with LSO = HW.
func checkCommitRetryCompletes(t *testing.T, f *fixture) {
	t.Helper()
	p0, p1 := tp("out", 0), tp("out", 1)
	for _, e := range f.c.TakeEvents() {
		if e.Kind() == "transaction_recovered" {
			t.Fatalf("the new leader wrote a marker for a prepared transaction: %q", e)
		}
	}
	h := f.commitTx("tx")
	f.replicate(nil)
	if h.State() != engine.Done || h.Value().State != txn.CompleteCommit {
		t.Fatalf("retry: %v %v %+v", h.State(), h.Err(), h.Value())
	}
	wantStrings(t, "markers", []string{h.Value().Markers[0].String()}, []string{"out-1"})
	if len(h.Value().Markers) != 1 {
		t.Fatalf("markers %v", h.Value().Markers)
	}
	if b := f.leaderBatches(p1); len(b) != 2 || b[1].Control != record.Commit {
		t.Fatalf("out-1 batches %+v: want the data and its COMMIT marker", b)
	}
	for _, p := range []engine.TopicPartition{p0, p1} {
		if f.hw(p) != 2 || f.lsoOf(p) != 2 {
			t.Fatalf("%s HW %d LSO %d, want 2 2", p, f.hw(p), f.lsoOf(p))
		}
	}
	wantStrings(t, "out-0", f.values(p0, engine.ReadCommitted), []string{"a"})
	wantStrings(t, "out-1", f.values(p1, engine.ReadCommitted), []string{"b"})
	d, err := f.c.DescribeTransaction("tx")
	if err != nil || d.State != txn.CompleteCommit || len(d.OpenRuns) != 0 || len(d.HoldsLSO) != 0 {
		t.Fatalf("after the commit: %+v %v", d, err)
	}
}

// Decision 16 with a crashed marker partition (found in the REPL): a
// commit must not complete while a partition the transaction wrote has no
// marker. Its leader being down, the marker append fails with
// LEADER_NOT_AVAILABLE (the transaction index must not answer from the
// crashed leader's stale view); after a promotion the retry writes it.
func TestCommitWaitsForCrashedMarkerLeaderThenPromotion(t *testing.T) {
	t.Parallel()
	f := offlineMarkerFixture(t)
	checkCommitWaitsForOfflineMarker(t, f)
	if err := f.c.Promote(tp("out", 1), 2); err != nil {
		t.Fatal(err)
	}
	checkCommitRetryCompletes(t, f)
}

// The same with a restart of the crashed leader instead of a promotion.
func TestCommitWaitsForCrashedMarkerLeaderThenRestart(t *testing.T) {
	t.Parallel()
	f := offlineMarkerFixture(t)
	checkCommitWaitsForOfflineMarker(t, f)
	if _, err := f.c.RestartBroker(3); err != nil {
		t.Fatal(err)
	}
	if st := f.state(tp("out", 1)); st.Leader != 3 {
		t.Fatalf("leader %d after the restart", st.Leader)
	}
	checkCommitRetryCompletes(t, f)
}

// When the crashed leader's log could not be indexed as it went down (a
// damaged batch), the index's stale view is not taken for the leader's:
// the commit still waits for out-1's marker and `txn describe` shows the run
// the coordinator recorded there.
func TestCommitWaitsForCrashedMarkerLeaderWithUnreadableLog(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2, 3}, nil)
	f.topic("out", 2, 2)
	p1 := tp("out", 1)
	if err := f.c.Promote(p1, 3); err != nil {
		t.Fatal(err)
	}
	f.replicate(nil)
	f.lsoOf(p1)
	f.begin("tx")
	f.txSend("tx", "out", 0, "a")
	f.txSend("tx", "out", 1, "b")
	f.replicate(nil)
	if _, err := f.c.Corrupt(p1, 3, -1, storage.Flip, 1); err != nil {
		t.Fatal(err)
	}
	if err := f.c.CrashBroker(3, true); err != nil {
		t.Fatal(err)
	}
	f.c.TakeEvents()
	checkCommitWaitsForOfflineMarker(t, f)
}

// A crashing leader's transaction index is brought up to date as it goes
// down: the offline partition's LSO stays what it was (here the HW, no
// transaction being open), not the offset where the index was last read.
func TestOfflinePartitionKeepsItsLSO(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("t", 1, 2)
	p := tp("t", 0)
	if lso := f.lsoOf(p); lso != 0 {
		t.Fatalf("LSO %d", lso)
	}
	f.produce("t", 0, "a", "b", "c")
	f.replicate(nil)
	if err := f.c.CrashBroker(1, true); err != nil {
		t.Fatal(err)
	}
	if st := f.state(p); st.HW != 3 || st.LSO != 3 {
		t.Fatalf("offline partition: HW %d LSO %d, want 3 3", st.HW, st.LSO)
	}
}
