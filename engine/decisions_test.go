package engine_test

import (
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/producer"
)

// Decision 6 (a documented limitation): registering a new epoch fences the
// old instance, but the registration lives only in the partition's producer
// state, which a promotion (and a restart) rebuilds from the leader's log.
// An epoch registered but never used in a batch is forgotten then, and the
// fenced instance can write again, until the new instance writes.
func TestUnusedRegisteredEpochForgottenAtRebuildDecision6(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("t", 1, 2)
	p := tp("t", 0)
	idempotent := func(o *producer.Options) { o.Name, o.Idempotent, o.BatchSize = "w", true, 1 }
	old := f.producer(idempotent)
	first := f.send(old, "t", 0, rec("a"))
	f.replicate(nil)
	if first.State() != engine.Done {
		t.Fatalf("first send: %v %v", first.State(), first.Err())
	}
	successor := f.producer(idempotent)
	if old.Identity().Epoch != 0 || successor.Identity() != (producer.Identity{PID: old.Identity().PID, Epoch: 1}) {
		t.Fatalf("identities %+v then %+v", old.Identity(), successor.Identity())
	}
	fenced := f.send(old, "t", 0, rec("fenced"))
	wantCode(t, fenced.Err(), kerr.ProducerFenced, "")

	// The promotion rebuilds producer state from broker 2's log, which holds
	// only epoch 0's batch: epoch 1 is forgotten.
	if err := f.c.Promote(p, 2); err != nil {
		t.Fatal(err)
	}
	again := f.send(old, "t", 0, rec("written again"))
	f.replicate(nil)
	if again.State() != engine.Done {
		t.Fatalf("the fenced instance after the promotion: %v %v, want it to write again (decision 6)", again.State(), again.Err())
	}
	// Once the new instance writes, its epoch is in the log and fences the
	// old one for good.
	fut := f.send(successor, "t", 0, rec("successor"))
	f.replicate(nil)
	if fut.State() != engine.Done {
		t.Fatalf("successor: %v %v", fut.State(), fut.Err())
	}
	wantCode(t, f.send(old, "t", 0, rec("fenced again")).Err(), kerr.ProducerFenced, "")
	wantStrings(t, "log", f.values(p, engine.ReadUncommitted), []string{"a", "written again", "successor"})
}

// Decision 6 across a restart: the reopened partition rebuilds producer
// state from its log, so a batch of the old epoch that was fenced before the
// restart is accepted after it (no instance of the new epoch wrote).
func TestUnusedRegisteredEpochForgottenAtRestartDecision6(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 1, 1)
	p := tp("t", 0)
	idempotent := func(o *producer.Options) { o.Name, o.Idempotent, o.BatchSize = "w", true, 1 }
	old := f.producer(idempotent)
	f.send(old, "t", 0, rec("a"))
	f.producer(idempotent) // epoch 1, registered, never used
	pid := old.Identity().PID
	_, err := f.c.AppendBatch(p, seqBatch(pid, 0, 1, "b"), engine.AcksAll)
	wantCode(t, err, kerr.ProducerFenced, "")

	f.restart()
	ack, err := f.c.AppendBatch(p, seqBatch(pid, 0, 1, "b"), engine.AcksAll)
	if err != nil || ack.State() != engine.Done {
		t.Fatalf("epoch 0 after the restart: %v, want it accepted (decision 6)", err)
	}
	wantStrings(t, "log", f.values(p, engine.ReadUncommitted), []string{"a", "b"})
}

// Decision 23: the default name producer-{n} counts the producers of this
// cluster instance, so after a restart the first unnamed idempotent producer
// is producer-1 again; the identity store knows that name, so it gets PID 1
// back with the epoch bumped, and it fences the instance from before the
// restart.
func TestDefaultProducerNameAfterRestartDecision23(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 1, 1)
	p := tp("t", 0)
	idempotent := func(o *producer.Options) { o.Idempotent, o.BatchSize = true, 1 }
	before := f.producer(idempotent)
	if before.Name() != "producer-1" || before.Identity() != (producer.Identity{PID: 1, Epoch: 0}) {
		t.Fatalf("first producer %s %+v", before.Name(), before.Identity())
	}
	f.send(before, "t", 0, rec("before"))

	f.restart()
	after := f.producer(idempotent)
	if after.Name() != "producer-1" || after.Identity() != (producer.Identity{PID: 1, Epoch: 1}) {
		t.Fatalf("first producer after the restart: %s %+v, want producer-1 with PID 1, epoch 1", after.Name(), after.Identity())
	}
	if fut := f.send(after, "t", 0, rec("after")); fut.State() != engine.Done {
		t.Fatalf("send: %v %v", fut.State(), fut.Err())
	}
	_, err := f.c.AppendBatch(p, seqBatch(1, 0, 1, "stale"), engine.AcksAll)
	wantCode(t, err, kerr.ProducerFenced, "")
	wantStrings(t, "log", f.values(p, engine.ReadUncommitted), []string{"before", "after"})
}
