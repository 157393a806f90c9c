package engine_test

// Regression tests from the spec audit (txn): each names the rule it protects.

import (
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/txn"
)

// nothing.
func TestAppendBatchRefusesTransactionalBatchesDecision14(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 1, 1)
	p := tp("t", 0)
	f.begin("x")
	f.txSend("x", "t", 0, "secret")
	before := f.state(p)

	forged := record.NewControlBatch("x", record.Commit)
	_, err := f.c.AppendBatch(p, forged, engine.Acks1)
	wantCode(t, err, kerr.InvalidArgument, "transaction")
	data := batchOf("stray")
	data.Transactional, data.TransactionalID = true, "nobody"
	_, err = f.c.AppendBatch(p, data, engine.Acks1)
	wantCode(t, err, kerr.InvalidArgument, "transaction")
	if after := f.state(p); after.LEO != before.LEO || after.LSO != before.LSO {
		t.Fatalf("a refused append changed the partition: LEO %d -> %d, LSO %d -> %d", before.LEO, after.LEO, before.LSO, after.LSO)
	}

	if h := f.abortTx("x"); h.State() != engine.Done {
		t.Fatalf("abort: %v %v", h.State(), h.Err())
	}
	wantStrings(t, "read_committed after abort", f.values(p, engine.ReadCommitted), []string{})
}

// changes nothing and emits nothing.
func TestOrphanMarkerRetriedByReplicationNotByReads(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("t", 1, 2)
	p := tp("t", 0)
	f.begin("x")
	f.txSend("x", "t", 0, "data")
	f.replicate(nil)
	if err := f.c.RunFlushCycle(); err != nil {
		t.Fatal(err)
	}
	if err := f.c.RemoveFromISR(p, 2); err != nil {
		t.Fatal(err)
	}
	if h := f.commitTx("x"); h.State() != engine.Done {
		t.Fatalf("commit: %v %v", h.State(), h.Err())
	}
	// The commit marker was never flushed: the leader loses it.
	if err := f.c.CrashBroker(1, false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.SetConfig("min.insync.replicas", "2"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.RestartBroker(1); err != nil {
		t.Fatal(err)
	}
	f.c.TakeEvents()
	leo := f.state(p).LEO
	f.values(p, engine.ReadCommitted)
	f.lsoOf(p)
	if _, err := f.c.ListTransactions(); err != nil {
		t.Fatal(err)
	}
	if evs := f.c.TakeEvents(); len(evs) > 0 || f.state(p).LEO != leo {
		t.Fatalf("reads changed the partition: LEO %d -> %d, events %v", leo, f.state(p).LEO, evs)
	}

	f.replicate(nil) // follower 2 rejoins the ISR: the marker can be appended now
	var marker bool
	for _, e := range f.c.TakeEvents() {
		if r, ok := e.(engine.TransactionRecovered); ok && r.Orphan && r.ID == "x" && r.OrphanOutcome == record.Commit {
			marker = true
		}
	}
	if !marker || f.state(p).LEO != leo+1 {
		t.Fatalf("replication did not append the orphan commit marker (LEO %d, was %d)", f.state(p).LEO, leo)
	}
	f.replicate(nil)
	wantStrings(t, "read_committed", f.values(p, engine.ReadCommitted), []string{"data"})
}

// Decision 16 with per-broker failure: a commit whose marker cannot reach a
// crashed leader fails and leaves the transaction PREPARE_COMMIT (abort is
// refused); the event says why once; after the restart the same commit
// completes, writing only the missing marker, and both partitions show the
// records to read_committed.
func TestCommitRetryAfterMarkerLeaderCrashDecision16(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("t", 2, 1)
	f.begin("x")
	f.txSend("x", "t", 0, "a")
	f.txSend("x", "t", 1, "b")
	if err := f.c.CrashBroker(2, true); err != nil {
		t.Fatal(err)
	}
	f.c.TakeEvents()
	h := f.commitTx("x")
	wantCode(t, h.Err(), kerr.LeaderNotAvailable, "commit marker for t-1")
	var failed []string
	for _, e := range f.c.TakeEvents() {
		if e.Kind() == "transaction_failed" {
			failed = append(failed, e.String())
		}
	}
	wantStrings(t, "failure events", failed, []string{"transaction x: commit did not complete (LEADER_NOT_AVAILABLE: commit marker for t-1: " +
		"leader 2 of t-1 is down; restart it (broker restart 2)); it stays prepare_commit, and `txn commit x` retries it"})
	if st := f.txnState("x"); st != txn.PrepareCommit {
		t.Fatalf("state %v", st)
	}
	_, err := f.c.AbortTransaction("x")
	wantCode(t, err, kerr.IllegalState, "transaction x is prepare_commit")
	wantStrings(t, "t-0 before the retry", f.values(tp("t", 0), engine.ReadCommitted), []string{})

	if _, err := f.c.RestartBroker(2); err != nil {
		t.Fatal(err)
	}
	h = f.commitTx("x")
	if h.State() != engine.Done || len(h.Value().Markers) != 1 || h.Value().Markers[0] != tp("t", 1) {
		t.Fatalf("retry: %v %v %+v", h.State(), h.Err(), h.Value())
	}
	wantStrings(t, "t-0", f.values(tp("t", 0), engine.ReadCommitted), []string{"a"})
	wantStrings(t, "t-1", f.values(tp("t", 1), engine.ReadCommitted), []string{"b"})
}

// An orphan run found at open (its transaction completed, but the leader
// lost the marker with its unflushed bytes) whose marker cannot be appended
// yet (the ISR is below min.insync.replicas right after the reopen) is
// retried once replication grows the ISR: the LSO is not stuck behind it
// for good, and nothing else could unblock it (the transaction is complete).
func TestOrphanMarkerFailingAtOpenIsRetried(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("t", 1, 2)
	p := tp("t", 0)
	if err := f.c.RemoveFromISR(p, 2); err != nil {
		t.Fatal(err)
	}
	f.begin("x")
	f.txSend("x", "t", 0, "data")
	if err := f.c.RunFlushCycle(); err != nil {
		t.Fatal(err)
	}
	if h := f.commitTx("x"); h.State() != engine.Done {
		t.Fatalf("commit %v %v", h.State(), h.Err())
	}
	if err := f.c.CrashBroker(1, false); err != nil { // the marker was not flushed
		t.Fatal(err)
	}
	f.c.Crash()
	f.cfg.MinInsyncReplicas = 2
	rep := f.reopen()
	if len(rep.Coordination.MarkerErrors) != 1 {
		t.Fatalf("open report %+v: want the refused orphan marker", rep.Coordination)
	}
	if lso := f.lsoOf(p); lso != 0 {
		t.Fatalf("LSO %d before the marker, want 0", lso)
	}
	f.replicate(nil) // the follower copies the data and joins the ISR
	f.replicate(nil) // and the marker the retry appended
	wantStrings(t, "read_committed", f.values(p, engine.ReadCommitted), []string{"data"})
	if lso, hw := f.lsoOf(p), f.hw(p); lso != hw {
		t.Fatalf("LSO %d stays behind HW %d", lso, hw)
	}
}
