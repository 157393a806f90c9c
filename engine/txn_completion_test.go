package engine_test

import (
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
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
// writes the marker again; both attempts settle done when replication
// acknowledges them, but the transaction completes once, and the events
// say so once.
func TestRetriedCommitCompletesOnce(t *testing.T) {
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
// earlier instance's redundant marker (a retried commit's second marker) is
// acknowledged after the id began again and the new instance is
// PREPARE_COMMIT, the new instance does not complete before its own marker
// is acknowledged.
func TestLateMarkerOfAnEarlierInstanceCompletesNothing(t *testing.T) {
	f := open(t, []int32{1, 2}, func(c *engine.Config) { c.ReplicaFetchMaxBytes = 1 }) // one batch per fetch
	f.topic("out", 2, 2)
	p0, p1 := tp("out", 0), tp("out", 1)
	f.begin("tx")
	f.txSend("tx", "out", 0, "first")
	f.replicate(&p0)
	first, retry := f.commitTx("tx"), f.commitTx("tx") // markers at out-0@1 and out-0@2
	f.replicate(&p0)                                   // copies the first marker only
	if first.State() != engine.Done || retry.State() != engine.Pending || f.txnState("tx") != txn.CompleteCommit {
		t.Fatalf("first %v, retry %v, state %v", first.State(), retry.State(), f.txnState("tx"))
	}

	f.begin("tx")
	f.txSend("tx", "out", 1, "second")
	f.replicate(&p1)
	second := f.commitTx("tx") // its marker at out-1@1 waits for replication
	f.c.TakeEvents()
	f.replicate(&p0) // the first instance's second marker is acknowledged
	if retry.State() != engine.Done {
		t.Fatalf("retry of the first instance: %v %v", retry.State(), retry.Err())
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

// When the redundant marker of a retried commit fails (a promotion fences
// it) after the first attempt completed the transaction, nothing says the
// transaction "stays prepared": it is complete, and the retry's completion
// settles done.
func TestRedundantMarkerFailingAfterCompletionIsNoFailure(t *testing.T) {
	f := open(t, []int32{1, 2}, func(c *engine.Config) { c.ReplicaFetchMaxBytes = 1 })
	f.topic("out", 1, 2)
	p := tp("out", 0)
	f.begin("tx")
	f.txSend("tx", "out", 0, "a")
	f.replicate(nil)
	first, retry := f.commitTx("tx"), f.commitTx("tx")
	f.replicate(nil) // the first marker only
	if first.State() != engine.Done || retry.State() != engine.Pending {
		t.Fatalf("first %v, retry %v", first.State(), retry.State())
	}
	f.c.TakeEvents()
	if err := f.c.Promote(p, 2); err != nil { // fails the retry's pending marker
		t.Fatal(err)
	}
	evs := f.c.TakeEvents()
	if countKind(evs, "ack_failed") != 1 || countKind(evs, "transaction_failed") != 0 {
		t.Fatalf("events %v", eventKinds(evs))
	}
	if retry.State() != engine.Done || retry.Value().State != txn.CompleteCommit || f.txnState("tx") != txn.CompleteCommit {
		t.Fatalf("retry %v %v, state %v", retry.State(), retry.Err(), f.txnState("tx"))
	}
	wantStrings(t, "read_committed", f.values(p, engine.ReadCommitted), []string{"a"})
}
