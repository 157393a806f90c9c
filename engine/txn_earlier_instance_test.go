package engine_test

// Decision 44: an earlier instance's open run is never decided by a later
// instance's marker. Transactional batches carry an id and no instance, so
// a run whose marker a crash dropped would otherwise be closed, and
// committed, by whatever marker of the same id comes next.

import (
	"slices"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
)

// orphanEvents returns the orphan markers the events announce, as
// "ID OUTCOME earlier" strings.
func orphanEvents(evs []engine.Event) []string {
	var out []string
	for _, e := range evs {
		if r, ok := e.(engine.TransactionRecovered); ok && r.Orphan {
			s := r.ID + " " + r.OrphanOutcome.String()
			if r.EarlierInstance {
				s += " earlier"
			}
			out = append(out, s)
		}
	}
	return out
}

// TestAbortMarkerLostInACrashIsNotCommittedByTheNextInstance replays the
// sequence rapid minimised from TestCoordinationStateMachine (seed
// 678386333378610509), without its consumer steps: instance 1 of "a"
// writes x1 to t-0; a reopen aborts it, and its ABORT marker is
// acknowledged by the ISR [2] alone; broker 2 crashes before flushing the
// marker, instance 2 of "a" begins, broker 2 restarts without the marker,
// and instance 2 writes x2 and commits. Before the fix the restart left x1's
// run open (instance 2 was unstable, so the run was taken for its own), x2
// joined it and the COMMIT marker committed x1: read_committed returned a
// batch of an aborted instance. Now the restart gives x1 its own ABORT
// marker, and instance 2's marker closes x2 alone.
func TestAbortMarkerLostInACrashIsNotCommittedByTheNextInstance(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("t", 2, 2)
	p := tp("t", 0)
	if err := f.c.Promote(p, 2); err != nil {
		t.Fatal(err)
	}
	if err := f.c.Rejoin(p, 1); err != nil {
		t.Fatal(err)
	}
	f.restart()
	if err := f.c.CrashBroker(2, false); err != nil {
		t.Fatal(err)
	}
	f.restart()

	f.begin("a")
	f.txSend("a", "t", 0, "x1")
	f.restart() // recovery aborts instance 1: its ABORT marker, acknowledged by ISR [2]
	if st := f.txnState("a"); st.String() != "complete_abort" {
		t.Fatalf("instance 1 is %v after the reopen", st)
	}
	wantStrings(t, "t-0 before the crash", controls(f.leaderBatches(p)), []string{"data", "abort"})
	if err := f.c.CrashBroker(2, false); err != nil { // the marker was not flushed
		t.Fatal(err)
	}
	f.begin("a") // instance 2
	f.c.TakeEvents()
	if _, err := f.c.RestartBroker(2); err != nil {
		t.Fatal(err)
	}
	wantStrings(t, "orphan markers at the restart", orphanEvents(f.c.TakeEvents()), []string{"a abort earlier"})
	wantStrings(t, "t-0 after the restart", controls(f.leaderBatches(p)), []string{"data", "abort"})

	f.txSend("a", "t", 0, "x2")
	if h := f.commitTx("a"); h.State() != engine.Done {
		t.Fatalf("commit: %v %v", h.State(), h.Err())
	}
	wantStrings(t, "t-0 after the commit", controls(f.leaderBatches(p)), []string{"data", "abort", "data", "commit"})
	wantStrings(t, "read_committed", f.values(p, engine.ReadCommitted), []string{"x2"})
	if lso, hw := f.lsoOf(p), f.hw(p); lso != hw {
		t.Fatalf("LSO %d, HW %d", lso, hw)
	}
}

// TestSendWaitsForAnEarlierInstancesLostMarker: while the orphan marker of
// an earlier instance cannot be appended (the ISR is below
// min.insync.replicas after the restart), the new instance's send to that
// partition is refused with CONCURRENT_TRANSACTIONS, retriable, and appends
// nothing; its other partitions are not held up. Replication grows the ISR,
// the orphan's ABORT marker is appended, and the same send then succeeds
// and starts a run of its own. The earlier instance had committed, and the
// coordinator remembers the run it left in t-0, so its marker is COMMIT:
// x1 is visible again, as it was before the crash.
func TestSendWaitsForAnEarlierInstancesLostMarker(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("t", 2, 2)
	p, q := tp("t", 0), tp("t", 1)
	f.begin("a")
	f.txSend("a", "t", 0, "x1")
	f.replicate(nil)
	if err := f.c.RunFlushCycle(); err != nil {
		t.Fatal(err)
	}
	if err := f.c.RemoveFromISR(p, 2); err != nil {
		t.Fatal(err)
	}
	if h := f.commitTx("a"); h.State() != engine.Done { // acknowledged by the ISR [1]
		t.Fatalf("commit: %v %v", h.State(), h.Err())
	}
	f.begin("a") // instance 2
	if err := f.c.CrashBroker(1, false); err != nil {
		t.Fatal(err) // the COMMIT marker was not flushed
	}
	if _, err := f.c.SetConfig("min.insync.replicas", "2"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.RestartBroker(1); err != nil {
		t.Fatal(err)
	}
	wantStrings(t, "orphan markers at the restart", orphanEvents(f.c.TakeEvents()), nil)
	before := f.state(p)

	_, err := f.c.TransactionSend("a", "t", 0, rec("x2"))
	wantCode(t, err, kerr.ConcurrentTransactions, "earlier instance of transaction a from offset 0")
	if e, ok := kerr.As(err); !ok || !e.Retriable() {
		t.Fatalf("%v is not retriable", err)
	}
	if after := f.state(p); after.LEO != before.LEO {
		t.Fatalf("a refused send appended: LEO %d -> %d", before.LEO, after.LEO)
	}
	if d, _ := f.c.DescribeTransaction("a"); len(d.Partitions) != 0 || len(d.OpenRuns) != 0 {
		t.Fatalf("instance 2 after the refused send: %+v", d)
	}
	f.txSend("a", "t", 1, "y2") // another partition is not held up

	f.replicate(nil) // follower 2 rejoins the ISR: the orphan marker is appended
	wantStrings(t, "orphan markers after replication", orphanEvents(f.c.TakeEvents()), []string{"a commit earlier"})
	f.txSend("a", "t", 0, "x2")
	f.replicate(nil)
	h := f.commitTx("a")
	f.replicate(nil)
	if h.State() != engine.Done {
		t.Fatalf("commit: %v %v", h.State(), h.Err())
	}
	wantStrings(t, "t-0", controls(f.leaderBatches(p)), []string{"data", "commit", "data", "commit"})
	wantStrings(t, "read_committed t-0", f.values(p, engine.ReadCommitted), []string{"x1", "x2"})
	wantStrings(t, "read_committed t-1", f.values(q, engine.ReadCommitted), []string{"y2"})
	d, err := f.c.DescribeTransaction("a")
	if err != nil {
		t.Fatal(err)
	}
	if got := d.FirstOffsets; len(got) != 2 || got[0].Offset != 2 || got[1].Offset != 0 {
		t.Fatalf("first offsets %+v, want t-0 at 2 and t-1 at 0", got)
	}
}

// TestRecoveryAbortsAnEarlierInstancesRunBesideAPreparedCommit: the
// cluster crashes while instance 2 of "a" is PREPARE_COMMIT and t-0 still
// holds instance 1's batches without their marker. Recovery commits
// instance 2 where it wrote (t-1) and gives instance 1's run in t-0 an
// ABORT marker of its own; it does not adopt that run into instance 2.
func TestRecoveryAbortsAnEarlierInstancesRunBesideAPreparedCommit(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("t", 2, 1) // t-0 on broker 1, t-1 on broker 2
	p, q := tp("t", 0), tp("t", 1)
	if st := f.state(p); st.Leader != 1 || f.state(q).Leader != 2 {
		t.Fatalf("leaders %d %d", st.Leader, f.state(q).Leader)
	}
	f.begin("a")
	f.txSend("a", "t", 0, "x1")
	if err := f.c.RunFlushCycle(); err != nil {
		t.Fatal(err)
	}
	if h := f.abortTx("a"); h.State() != engine.Done {
		t.Fatalf("abort: %v %v", h.State(), h.Err())
	}
	f.begin("a") // instance 2
	if err := f.c.CrashBroker(1, false); err != nil {
		t.Fatal(err) // t-0's ABORT marker was not flushed
	}
	f.txSend("a", "t", 1, "y2")
	// t-0 is offline: the commit cannot ask it for anything, and instance 2
	// never wrote there, so the commit completes on t-1 alone.
	if h := f.commitTx("a"); h.State() != engine.Done {
		t.Fatalf("commit: %v %v", h.State(), h.Err())
	}
	// A third instance prepares a commit whose marker is refused
	// (min.insync.replicas 2 on a partition of one replica), then the whole
	// cluster crashes; it opens again with min.insync.replicas 1.
	f.begin("a")
	f.txSend("a", "t", 1, "y3")
	if _, err := f.c.SetConfig("min.insync.replicas", "2"); err != nil {
		t.Fatal(err)
	}
	if h := f.commitTx("a"); h.State() != engine.Failed {
		t.Fatalf("commit: %v %v, want a refused marker", h.State(), h.Err())
	}
	if st := f.txnState("a"); st.String() != "prepare_commit" {
		t.Fatalf("instance 3 is %v", st)
	}
	if err := f.c.Crash(); err != nil {
		t.Fatal(err)
	}
	f.reopen()
	wantStrings(t, "read_committed t-0", f.values(p, engine.ReadCommitted), []string{})
	wantStrings(t, "read_committed t-1", f.values(q, engine.ReadCommitted), []string{"y2", "y3"})
	wantStrings(t, "t-0", controls(f.leaderBatches(p)), []string{"data", "abort"})
	if lso, hw := f.lsoOf(p), f.hw(p); lso != hw {
		t.Fatalf("t-0 LSO %d, HW %d", lso, hw)
	}
	if !slices.Equal(controls(f.leaderBatches(q)), []string{"data", "commit", "data", "commit"}) {
		t.Fatalf("t-1 %v", controls(f.leaderBatches(q)))
	}
}

// TestClientTransactionalBatchWaitsForAnEarlierInstancesLostMarker: the
// same rule for a batch a Kafka client built (AppendTransactionalBatch,
// the wire adapter's transactional Produce): transactional id "c" commits
// with a marker only the leader acknowledged, begins again, loses the
// marker in a crash, and its next batch to that partition is refused with
// CONCURRENT_TRANSACTIONS until the orphan's own (COMMIT) marker is
// appended; the retry with the same sequence is then accepted.
func TestClientTransactionalBatchWaitsForAnEarlierInstancesLostMarker(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("t", 1, 2)
	p := tp("t", 0)
	id, err := f.c.InitProducerID("c")
	if err != nil {
		t.Fatal(err)
	}
	batch := func(seq int32, value string) *record.Batch {
		b := batchOf(value)
		b.ProducerID, b.ProducerEpoch, b.BaseSequence = id.PID, id.Epoch, seq
		return b
	}
	if err := f.c.EnsureTransaction("c", id.PID, id.Epoch); err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.AppendTransactionalBatch("c", p, batch(0, "c1"), engine.AcksAll); err != nil {
		t.Fatal(err)
	}
	f.replicate(nil)
	if err := f.c.RunFlushCycle(); err != nil {
		t.Fatal(err)
	}
	if err := f.c.RemoveFromISR(p, 2); err != nil {
		t.Fatal(err)
	}
	if h := f.commitTx("c"); h.State() != engine.Done {
		t.Fatalf("commit: %v %v", h.State(), h.Err())
	}
	if err := f.c.EnsureTransaction("c", id.PID, id.Epoch); err != nil { // the next transaction
		t.Fatal(err)
	}
	if err := f.c.CrashBroker(1, false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.SetConfig("min.insync.replicas", "2"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.RestartBroker(1); err != nil {
		t.Fatal(err)
	}
	before := f.state(p).LEO
	_, err = f.c.AppendTransactionalBatch("c", p, batch(1, "c2"), engine.AcksAll)
	wantCode(t, err, kerr.ConcurrentTransactions, "earlier instance of transaction c")
	if after := f.state(p).LEO; after != before {
		t.Fatalf("a refused batch appended: LEO %d -> %d", before, after)
	}
	f.replicate(nil)
	wantStrings(t, "orphan markers after replication", orphanEvents(f.c.TakeEvents()), []string{"c commit earlier"})
	if _, err := f.c.AppendTransactionalBatch("c", p, batch(1, "c2"), engine.AcksAll); err != nil {
		t.Fatal(err)
	}
	f.replicate(nil)
	h := f.commitTx("c")
	f.replicate(nil)
	if h.State() != engine.Done {
		t.Fatalf("commit: %v %v", h.State(), h.Err())
	}
	wantStrings(t, "read_committed", f.values(p, engine.ReadCommitted), []string{"c1", "c2"})
}
