package engine_test

import (
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/storage"
	"github.com/minikafka-lab/minikafka/engine/txn"
)

// controls names a log's batches: "data", or the marker's control type.
func controls(metas []record.Meta) []string {
	out := make([]string, len(metas))
	for i, m := range metas {
		out[i] = "data"
		if m.IsControl() {
			out[i] = m.Control.String()
		}
	}
	return out
}

// replicaBatches lists one replica log's batches.
func (f *fixture) replicaBatches(p engine.TopicPartition, broker int32) []record.Meta {
	f.t.Helper()
	l, err := f.c.ReplicaLog(p, broker)
	if err != nil {
		f.t.Fatal(err)
	}
	var out []record.Meta
	if err := l.Batches(l.LogStartOffset(), func(b storage.RawBatch) error {
		out = append(out, b.Meta)
		return nil
	}); err != nil {
		f.t.Fatal(err)
	}
	return out
}

func wantControls(t *testing.T, what string, got []record.Meta, want ...record.ControlType) {
	t.Helper()
	w := make([]record.Meta, len(want))
	for i, c := range want {
		w[i] = record.Meta{Control: c}
	}
	wantStrings(t, what, controls(got), controls(w))
}

// Decision 37 (issue 18's script): a prepared transaction whose COMMIT
// marker is in the leader's log, above the HW recomputed at open (the
// follower never fetched it), gets no second marker at recovery: the
// transaction stays prepare_commit until replication carries the marker it
// has, then completes once.
//
//	cluster open brokers=1,2
//	topic create s partitions=1 rf=2
//	txn begin t
//	txn send t s value=v
//	replicate
//	txn commit t
//	cluster crash
//	cluster restart
//	log dump s-0 broker=1   -> [v, COMMIT], not [v, COMMIT, COMMIT]
func TestRecoveryWaitsForTheCommitMarkerInTheLogDecision37(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("s", 1, 2)
	p := tp("s", 0)
	f.begin("t")
	f.txSend("t", "s", 0, "v")
	f.replicate(nil)
	if h := f.commitTx("t"); h.State() != engine.Pending {
		t.Fatalf("commit before the follower fetched the marker: %v", h.State())
	}
	if err := f.c.Crash(); err != nil {
		t.Fatal(err)
	}
	rep := f.reopen()

	wantControls(t, "leader log after recovery", f.leaderBatches(p), record.NoControl, record.Commit)
	acts := rep.Coordination.Transactions.Actions
	if len(acts) != 1 || acts[0].State != txn.PrepareCommit || len(acts[0].Markers) != 0 ||
		len(acts[0].Unreplicated) != 1 || acts[0].Unreplicated[0] != (txn.LoggedMarker{Partition: p, Offset: 1}) {
		t.Fatalf("recovery actions %+v: want no marker to append and the one at s-0@1 to wait for", acts)
	}
	if len(rep.Coordination.Transactions.Orphans) != 0 || len(rep.Coordination.MarkerErrors) != 0 {
		t.Fatalf("open report %+v", rep.Coordination)
	}
	if st := f.txnState("t"); st != txn.PrepareCommit {
		t.Fatalf("state %v before the marker is replicated, want prepare_commit", st)
	}
	if f.hw(p) != 1 || f.lsoOf(p) != 0 {
		t.Fatalf("HW %d LSO %d before replication, want 1 0", f.hw(p), f.lsoOf(p))
	}
	wantStrings(t, "read_committed before replication", f.values(p, engine.ReadCommitted), []string{})
	f.c.TakeEvents()

	f.replicate(nil)
	evs := f.c.TakeEvents()
	if n := countKind(evs, "transaction_completed"); n != 1 {
		t.Fatalf("%d transaction_completed events after replication, want 1: %v", n, eventKinds(evs))
	}
	if st := f.txnState("t"); st != txn.CompleteCommit {
		t.Fatalf("state %v after replication", st)
	}
	for _, b := range []int32{1, 2} {
		wantControls(t, "replica log after replication", f.replicaBatches(p, b), record.NoControl, record.Commit)
	}
	if f.hw(p) != 2 || f.lsoOf(p) != 2 {
		t.Fatalf("HW %d LSO %d after replication, want 2 2", f.hw(p), f.lsoOf(p))
	}
	wantStrings(t, "read_committed", f.values(p, engine.ReadCommitted), []string{"v"})
}

// Decision 37, the follower's side: a completed abort whose ABORT marker a
// follower lost to a torn tail lies above the HW recomputed at open. The
// leader's log already closes the run, so recovery appends nothing (no
// orphan marker either); the follower fetches the marker the leader has and
// the LSO follows the HW.
func TestRecoveryAppendsNoAbortMarkerAFollowerLostDecision37(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("s", 1, 2)
	p := tp("s", 0)
	f.begin("t")
	f.txSend("t", "s", 0, "v")
	f.replicate(nil)
	h := f.abortTx("t")
	f.replicate(nil)
	if h.State() != engine.Done || f.txnState("t") != txn.CompleteAbort {
		t.Fatalf("abort %v, state %v", h.State(), f.txnState("t"))
	}
	if _, err := f.c.Corrupt(p, 2, -1, storage.Truncate, 1); err != nil { // tear the follower's marker
		t.Fatal(err)
	}
	if err := f.c.Crash(); err != nil {
		t.Fatal(err)
	}
	rep := f.reopen()

	wantControls(t, "follower after recovery", f.replicaBatches(p, 2), record.NoControl)
	wantControls(t, "leader after recovery", f.leaderBatches(p), record.NoControl, record.Abort)
	if tr := rep.Coordination.Transactions; len(tr.Orphans) != 0 || len(tr.Actions) != 0 {
		t.Fatalf("recovery %+v: the leader's ABORT marker needs no second one", tr)
	}
	if f.hw(p) != 1 || f.lsoOf(p) != 0 {
		t.Fatalf("HW %d LSO %d before replication, want 1 0", f.hw(p), f.lsoOf(p))
	}
	f.replicate(nil)
	for _, b := range []int32{1, 2} {
		wantControls(t, "replica log after replication", f.replicaBatches(p, b), record.NoControl, record.Abort)
	}
	if f.hw(p) != 2 || f.lsoOf(p) != 2 {
		t.Fatalf("HW %d LSO %d after replication, want 2 2", f.hw(p), f.lsoOf(p))
	}
	wantStrings(t, "read_committed", f.values(p, engine.ReadCommitted), []string{})
}

// Decision 37 for a live retry: a commit retried while its marker is in
// the leader's log but not yet replicated appends nothing; the retry waits
// for the marker the first attempt wrote, and both attempts complete the
// transaction once, when replication carries it.
func TestCommitRetryWaitsForTheMarkerInTheLogDecision37(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("s", 1, 2)
	p := tp("s", 0)
	f.begin("t")
	f.txSend("t", "s", 0, "v")
	f.replicate(nil)
	first, retry := f.commitTx("t"), f.commitTx("t")
	wantControls(t, "leader log after the retry", f.leaderBatches(p), record.NoControl, record.Commit)
	if first.State() != engine.Pending || retry.State() != engine.Pending {
		t.Fatalf("before replication: %v %v", first.State(), retry.State())
	}
	if len(retry.Acks) != 1 || retry.Acks[0].Target != 2 {
		t.Fatalf("retry acks %+v: want one wait for the marker at offset 1", retry.Acks)
	}
	f.c.TakeEvents()
	f.replicate(nil)
	if n := countKind(f.c.TakeEvents(), "transaction_completed"); n != 1 {
		t.Fatalf("%d transaction_completed events, want 1", n)
	}
	for _, h := range []*engine.TxnCompletion{first, retry} {
		if h.State() != engine.Done || h.Value().State != txn.CompleteCommit {
			t.Fatalf("completion #%d: %v %v %+v", h.Promise.ID(), h.State(), h.Err(), h.Value())
		}
	}
	wantControls(t, "follower", f.replicaBatches(p, 2), record.NoControl, record.Commit)
}
