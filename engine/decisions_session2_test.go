package engine_test

import (
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/producer"
	"github.com/minikafka-lab/minikafka/engine/record"
)

// Decision 33: an idempotent producer's batch sent while the previous one
// still waits for its acks=all acknowledgement takes the next sequence, so
// the partition appends it as a new batch; a duplicate is only ever a retry
// of the same batch (same sequence), answered with the original offsets.
func TestBatchesInFlightTakeTheNextSequenceDecision33(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	p := f.producer(func(o *producer.Options) { o.Idempotent, o.BatchSize = true, 1 })
	a := f.send(p, "t", 0, rec("a"))
	b := f.send(p, "t", 0, rec("b")) // a is not acknowledged yet
	if a.Settled() || b.Settled() {
		t.Fatalf("acknowledged before replication: %v %v", a.State(), b.State())
	}
	batches := f.leaderBatches(p0)
	if len(batches) != 2 || batches[0].BaseSequence != 0 || batches[1].BaseSequence != 1 {
		t.Fatalf("leader batches %+v: want sequences 0 and 1, both appended", batches)
	}
	f.replicate(nil)
	if a.State() != engine.Done || b.State() != engine.Done || a.Value().Offset != 0 || b.Value().Offset != 1 {
		t.Fatalf("after replication: a %v %+v, b %v %+v", a.State(), a.Value(), b.State(), b.Value())
	}
	retried, err := p.Retry() // the last batch (b), exactly as sent
	if err != nil {
		t.Fatal(err)
	}
	if retried[0].State() != engine.Done || retried[0].Value().Offset != 1 || f.leo(p0, 1) != 2 {
		t.Fatalf("retry of b: %v %+v, leader LEO %d", retried[0].State(), retried[0].Value(), f.leo(p0, 1))
	}
	wantStrings(t, "log", f.values(p0, engine.ReadUncommitted), []string{"a", "b"})
}

// Decision 34: a commit appends its markers on every partition the
// transaction wrote in one step (Kafka's WriteTxnMarkers), before any of
// them is acknowledged; the transaction completes when the last one is.
func TestCommitAppendsEveryMarkerInOneStepDecision34(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("out", 3, 2)
	f.begin("tx")
	for p := int32(0); p < 3; p++ {
		f.txSend("tx", "out", p, "v")
	}
	f.replicate(nil)
	h := f.commitTx("tx")
	if h.State() != engine.Pending || len(h.Acks) != 3 {
		t.Fatalf("commit: %v with %d acks, want pending with 3", h.State(), len(h.Acks))
	}
	for p := int32(0); p < 3; p++ {
		wantControls(t, tp("out", p).String(), f.leaderBatches(tp("out", p)), record.NoControl, record.Commit)
		if h.Acks[p].TP != tp("out", p) || h.Acks[p].State() != engine.Pending {
			t.Fatalf("marker ack %d: %s %v", p, h.Acks[p].TP, h.Acks[p].State())
		}
	}
	p1 := tp("out", 1)
	f.replicate(&p1) // one marker acknowledged: not complete yet
	if h.State() != engine.Pending {
		t.Fatalf("after one of three markers: %v", h.State())
	}
	f.replicate(nil)
	if h.State() != engine.Done || len(h.Value().Markers) != 3 {
		t.Fatalf("after every marker: %v %+v", h.State(), h.Value())
	}
}

// Decision 35: a transactional send still waiting for its acks=all
// acknowledgement holds the LSO back like any open transaction data, even
// once the HW has passed it (its captured ISR still waits for a follower
// that left the ISR), and a plain record behind it stays hidden from
// read_committed.
func TestPendingTransactionalSendHoldsTheLSODecision35(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	f.begin("tx")
	ack := f.txSend("tx", "t", 0, "pending")
	if err := f.c.RemoveFromISR(p0, 2); err != nil {
		t.Fatal(err)
	}
	f.produce("t", 0, "plain")
	if ack.State() != engine.Pending || f.hw(p0) != 2 {
		t.Fatalf("send %v, HW %d: want pending with the HW past it", ack.State(), f.hw(p0))
	}
	if lso := f.lsoOf(p0); lso != 0 {
		t.Fatalf("LSO %d while the transactional send is pending, want 0", lso)
	}
	wantStrings(t, "read_committed", f.values(p0, engine.ReadCommitted), []string{})
	wantStrings(t, "read_uncommitted", f.values(p0, engine.ReadUncommitted), []string{"pending", "plain"})
}

// Decision 41: a closed consumer refuses every further call with
// ILLEGAL_STATE, changes nothing, and closing it again is fine.
func TestClosedConsumerRefusesEveryCallDecision41(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 1, 1)
	f.produce("t", 0, "x")
	con := f.consumer("g", nil)
	f.subscribe(con, "t")
	f.poll(con, 10)
	if err := con.Close(); err != nil {
		t.Fatal(err)
	}
	p := tp("t", 0)
	calls := map[string]func() error{
		"assign":    func() error { return con.Assign([]engine.TopicPartition{p}) },
		"subscribe": func() error { return con.Subscribe([]string{"t"}) },
		"refresh":   con.RefreshAssignment,
		"heartbeat": con.Heartbeat,
		"poll":      func() error { _, err := con.Poll(1); return err },
		"position":  func() error { _, err := con.Position(p); return err },
		"seek":      func() error { return con.Seek(p, 0) },
		"committed": func() error { _, _, err := con.Committed(p); return err },
		"commit":    con.Commit,
		"lag":       func() error { _, err := con.Lag(p); return err },
	}
	for name, call := range calls {
		err := call()
		if !errorsIsCode(err, kerr.IllegalState) {
			t.Errorf("%s on a closed consumer: %v, want ILLEGAL_STATE", name, err)
		}
	}
	if err := con.Close(); err != nil {
		t.Fatalf("closing again: %v", err)
	}
	if _, ok := f.committed("g", p); ok {
		t.Fatal("a refused commit wrote an offset")
	}
	if gs, err := f.c.ListGroups(); err != nil || len(gs) != 1 || gs[0].Members != 0 {
		t.Fatalf("groups after the refused calls: %+v %v (the closed member left and stays out)", gs, err)
	}
}

func errorsIsCode(err error, code kerr.Code) bool { return err != nil && kerr.CodeOf(err) == code }
