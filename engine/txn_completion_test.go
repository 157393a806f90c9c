package engine_test

import (
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/txn"
)

func countKind(evs []engine.Event, kind string) int {
	n := 0
	for _, e := range evs {
		if e.Kind() == kind {
			n++
		}
	}
	return n
}

// A commit retried while the first attempt's marker is still pending
// waits for that marker (it is never written twice, decision 37); both
// attempts settle done when replication acknowledges it, but the
// transaction completes once, and the events say so once.
func TestRetriedCommitCompletesOnce(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("out", 1, 2)
	f.begin("tx")
	f.txSend("tx", "out", 0, "a")
	f.replicate(nil)
	first, second := f.commitTx("tx"), f.commitTx("tx")
	if first.State() != engine.Pending || second.State() != engine.Pending {
		t.Fatalf("before replication: %v %v", first.State(), second.State())
	}
	f.c.TakeEvents()
	f.replicate(nil)
	if n := countKind(f.c.TakeEvents(), "transaction_completed"); n != 1 {
		t.Fatalf("%d transaction_completed events, want 1", n)
	}
	for _, h := range []*engine.TxnCompletion{first, second} {
		if h.State() != engine.Done || h.Value().State != txn.CompleteCommit {
			t.Fatalf("completion #%d: %v %v %+v", h.Promise.ID(), h.State(), h.Err(), h.Value())
		}
	}
}

// A completion belongs to one instance of its transaction id: when an
// earlier attempt's marker is acknowledged late (its captured ISR still had
// a follower that left the ISR, so a retry found the marker under the HW
// and completed the instance at once) after the id began again and the new
// instance is PREPARE_COMMIT, the new instance does not complete before its
// own marker is acknowledged.
func TestLateMarkerOfAnEarlierInstanceCompletesNothing(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("out", 2, 2)
	p0, p1 := tp("out", 0), tp("out", 1)
	f.begin("tx")
	f.txSend("tx", "out", 0, "first")
	f.replicate(&p0)
	first := f.commitTx("tx") // its marker at out-0@1 waits for the captured ISR [1 2]
	if err := f.c.RemoveFromISR(p0, 2); err != nil {
		t.Fatal(err) // the HW passes the marker; the first attempt still waits for broker 2
	}
	retry := f.commitTx("tx") // the marker is under the HW: nothing to append, the instance completes
	if first.State() != engine.Pending || retry.State() != engine.Done || f.txnState("tx") != txn.CompleteCommit {
		t.Fatalf("first %v, retry %v, state %v", first.State(), retry.State(), f.txnState("tx"))
	}
	wantControls(t, "out-0", f.leaderBatches(p0), record.NoControl, record.Commit)

	f.begin("tx")
	f.txSend("tx", "out", 1, "second")
	f.replicate(&p1)
	second := f.commitTx("tx") // its marker at out-1@1 waits for replication
	f.c.TakeEvents()
	f.replicate(&p0) // broker 2 fetches the first instance's marker: the first attempt is acknowledged
	if first.State() != engine.Done {
		t.Fatalf("first attempt of the first instance: %v %v", first.State(), first.Err())
	}
	if second.State() != engine.Pending || f.txnState("tx") != txn.PrepareCommit {
		t.Fatalf("second instance: completion %v, state %v; want pending, prepare_commit", second.State(), f.txnState("tx"))
	}
	evs := f.c.TakeEvents()
	if n := countKind(evs, "transaction_completed") + countKind(evs, "transaction_failed"); n != 0 {
		t.Fatalf("events %v", eventKinds(evs))
	}
	wantStrings(t, "out-1 before its marker", f.values(p1, engine.ReadCommitted), []string{})
	f.replicate(&p1)
	if second.State() != engine.Done || f.txnState("tx") != txn.CompleteCommit {
		t.Fatalf("second instance: %v %v", second.State(), f.txnState("tx"))
	}
	wantStrings(t, "out-1", f.values(p1, engine.ReadCommitted), []string{"second"})
}

// When an earlier attempt's marker acknowledgement fails (its leader
// crashed) after a retry completed the transaction, nothing says the
// transaction "stays prepared": it is complete, and the earlier attempt's
// completion settles done.
func TestRedundantMarkerFailingAfterCompletionIsNoFailure(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("out", 1, 2)
	p := tp("out", 0)
	f.begin("tx")
	f.txSend("tx", "out", 0, "a")
	f.replicate(nil)
	first := f.commitTx("tx")
	if err := f.c.RemoveFromISR(p, 2); err != nil {
		t.Fatal(err)
	}
	retry := f.commitTx("tx") // the marker is under the HW: the transaction completes now
	if first.State() != engine.Pending || retry.State() != engine.Done {
		t.Fatalf("first %v, retry %v", first.State(), retry.State())
	}
	f.c.TakeEvents()
	if err := f.c.CrashBroker(1, true); err != nil { // fails the first attempt's pending marker
		t.Fatal(err)
	}
	evs := f.c.TakeEvents()
	if countKind(evs, "ack_failed") != 1 || countKind(evs, "transaction_failed") != 0 {
		t.Fatalf("events %v", eventKinds(evs))
	}
	if first.State() != engine.Done || first.Value().State != txn.CompleteCommit || f.txnState("tx") != txn.CompleteCommit {
		t.Fatalf("first %v %v, state %v", first.State(), first.Err(), f.txnState("tx"))
	}
	if _, err := f.c.RestartBroker(1); err != nil {
		t.Fatal(err)
	}
	wantStrings(t, "read_committed", f.values(p, engine.ReadCommitted), []string{"a"})
}
