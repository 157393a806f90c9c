package engine_test

import (
	"slices"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/group"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/storage"
	"github.com/minikafka-lab/minikafka/engine/txn"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

func (f *fixture) begin(id string) {
	f.t.Helper()
	if err := f.c.BeginTransaction(id); err != nil {
		f.t.Fatalf("begin %s: %v", id, err)
	}
}

func (f *fixture) txSend(id, topicName string, partition int32, value string) *engine.Ack {
	f.t.Helper()
	ack, err := f.c.TransactionSend(id, topicName, partition, rec(value))
	if err != nil {
		f.t.Fatalf("txn send %s: %v", id, err)
	}
	return ack
}

func (f *fixture) commitTx(id string) *engine.TxnCompletion {
	f.t.Helper()
	h, err := f.c.CommitTransaction(id)
	if err != nil {
		f.t.Fatalf("commit %s: %v", id, err)
	}
	return h
}

func (f *fixture) abortTx(id string) *engine.TxnCompletion {
	f.t.Helper()
	h, err := f.c.AbortTransaction(id)
	if err != nil {
		f.t.Fatalf("abort %s: %v", id, err)
	}
	return h
}

func (f *fixture) txnState(id string) txn.State {
	f.t.Helper()
	d, err := f.c.DescribeTransaction(id)
	if err != nil {
		f.t.Fatal(err)
	}
	return d.State
}

func (f *fixture) lsoOf(p engine.TopicPartition) int64 {
	f.t.Helper()
	lso, err := f.c.LastStableOffset(p)
	if err != nil {
		f.t.Fatal(err)
	}
	return lso
}

// leaderBatches lists the leader log's batches.
func (f *fixture) leaderBatches(p engine.TopicPartition) []record.Meta {
	f.t.Helper()
	l, err := f.c.LeaderLog(p)
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

// T1: the commit marker makes the pending record visible to read_committed;
// every batch after the data is a control batch.
func TestT1CommitMarker(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("out", 1, 1)
	p := tp("out", 0)
	f.begin("tx-1")
	if ack := f.txSend("tx-1", "out", engine.AnyPartition, "pending"); ack.State() != engine.Done {
		t.Fatalf("one-replica acks=all: %v", ack.State())
	}
	wantStrings(t, "read_uncommitted", f.values(p, engine.ReadUncommitted), []string{"pending"})
	wantStrings(t, "read_committed", f.values(p, engine.ReadCommitted), []string{})
	h := f.commitTx("tx-1")
	if h.State() != engine.Done || h.Value().State != txn.CompleteCommit {
		t.Fatalf("commit %v %+v", h.State(), h.Value())
	}
	wantStrings(t, "read_committed after commit", f.values(p, engine.ReadCommitted), []string{"pending"})
	batches := f.leaderBatches(p)
	for _, m := range batches[1:] {
		if !m.IsControl() || m.Control != record.Commit || m.TransactionalID != "tx-1" || m.ProducerID != -1 {
			t.Fatalf("batch after the first: %+v", m)
		}
	}
	if !batches[0].Transactional || batches[0].TransactionalID != "tx-1" || batches[0].ProducerID != -1 {
		t.Fatalf("data batch %+v", batches[0])
	}
}

// T2, T3, T6: with 2 brokers and min ISR 2, the send, the commit and the
// abort each stay pending until a replication round.
func TestT2T3T6PendingUntilReplication(t *testing.T) {
	t.Parallel()
	f := open(t, two, func(c *engine.Config) { c.MinInsyncReplicas = 2 })
	f.topic("out", 1, 2)
	p := tp("out", 0)
	f.begin("tx")
	ack := f.txSend("tx", "out", 0, "v")
	if ack.Settled() {
		t.Fatal("T2: send completed before replication")
	}
	f.replicate(nil)
	if ack.State() != engine.Done {
		t.Fatalf("T2: after replication %v", ack.State())
	}
	h := f.commitTx("tx")
	if h.Settled() || f.txnState("tx") != txn.PrepareCommit || f.lsoOf(p) != 0 {
		t.Fatalf("T3: %v %v LSO %d", h.State(), f.txnState("tx"), f.lsoOf(p))
	}
	f.replicate(nil)
	if h.State() != engine.Done || f.txnState("tx") != txn.CompleteCommit {
		t.Fatalf("T3: after replication %v %v", h.State(), f.txnState("tx"))
	}
	wantStrings(t, "committed", f.values(p, engine.ReadCommitted), []string{"v"})

	f.begin("tx2")
	f.txSend("tx2", "out", 0, "w")
	f.replicate(nil)
	a := f.abortTx("tx2")
	if a.Settled() {
		t.Fatal("T6: abort completed before replication")
	}
	f.replicate(nil)
	if a.State() != engine.Done || f.txnState("tx2") != txn.CompleteAbort {
		t.Fatalf("T6: %v %v", a.State(), f.txnState("tx2"))
	}
	wantStrings(t, "after abort", f.values(p, engine.ReadCommitted), []string{"v"})
	events := eventKinds(f.c.TakeEvents())
	if !slices.Contains(events, "transaction_completed") {
		t.Fatalf("events %v", events)
	}
}

// T4: the LSO holds back a plain record after open transactional data.
func TestT4LSOHoldsBackLaterRecords(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("out", 1, 1)
	p := tp("out", 0)
	f.begin("tx")
	f.txSend("tx", "out", 0, "pending")
	f.produce("out", 0, "later")
	wantStrings(t, "read_committed", f.values(p, engine.ReadCommitted), []string{})
	if f.lsoOf(p) != 0 || f.state(p).LSO != 0 {
		t.Fatalf("LSO %d", f.lsoOf(p))
	}
	f.commitTx("tx")
	wantStrings(t, "after commit", f.values(p, engine.ReadCommitted), []string{"pending", "later"})
}

// T5: an aborted transaction is invisible to read_committed.
func TestT5Abort(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("out", 1, 1)
	p := tp("out", 0)
	f.begin("tx-2")
	f.txSend("tx-2", "out", 0, "discard")
	if h := f.abortTx("tx-2"); h.State() != engine.Done {
		t.Fatalf("abort %v", h.State())
	}
	wantStrings(t, "read_committed", f.values(p, engine.ReadCommitted), []string{})
	wantStrings(t, "read_uncommitted", f.values(p, engine.ReadUncommitted), []string{"discard"})
}

// T7 and T8: staged offsets are published with the commit, dropped by an
// abort.
func TestT7T8OffsetsWithTheTransaction(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("input", 1, 1)
	f.topic("output", 1, 1)
	in0 := tp("input", 0)
	f.begin("tx")
	f.txSend("tx", "output", 0, "result")
	if err := f.c.TransactionSendOffsets("tx", "workers", map[engine.TopicPartition]int64{in0: 4}); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.committed("workers", in0); ok {
		t.Fatal("T7: offset visible before commit")
	}
	f.commitTx("tx")
	if o, ok := f.committed("workers", in0); !ok || o != 4 {
		t.Fatalf("T7: %d %v", o, ok)
	}
	f.begin("tx8")
	if err := f.c.TransactionSendOffsets("tx8", "other", map[engine.TopicPartition]int64{in0: 4}); err != nil {
		t.Fatal(err)
	}
	f.abortTx("tx8")
	if _, ok := f.committed("other", in0); ok {
		t.Fatal("T8: aborted offset committed")
	}
	err := f.c.TransactionSendOffsets("tx8", "other", map[engine.TopicPartition]int64{in0: 5})
	wantCode(t, err, kerr.IllegalState, "transaction tx8 is complete_abort")
	f.begin("tx9")
	err = f.c.TransactionSendOffsets("tx9", "other", map[engine.TopicPartition]int64{tp("nope", 0): 5})
	wantCode(t, err, kerr.UnknownTopic, "")
}

// T9: a committed transaction is visible after a restart.
func TestT9CommittedSurvivesRestart(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("out", 1, 1)
	f.begin("durable")
	f.txSend("durable", "out", 0, "kept")
	f.commitTx("durable")
	f.restart()
	wantStrings(t, "after restart", f.values(tp("out", 0), engine.ReadCommitted), []string{"kept"})
}

// T10: a journal holding a PREPARE_COMMIT with staged offsets is completed
// when the cluster opens.
func TestT10RecoverPrepareCommit(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("input", 1, 1)
	if err := f.c.Close(); err != nil {
		t.Fatal(err)
	}
	e := txn.Entry{ID: "recover-me", State: txn.PrepareCommit,
		StagedOffsets: map[string]group.Offsets{"workers": {tp("input", 0): 7}}}
	if err := vfs.WriteFile(f.fs(), f.path(txn.JournalFileName), e.AppendLine(nil), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := f.reopen()
	if o, ok := f.committed("workers", tp("input", 0)); !ok || o != 7 {
		t.Fatalf("offset %d %v", o, ok)
	}
	acts := rep.Coordination.Transactions.Actions
	if len(acts) != 1 || acts[0].Found != txn.PrepareCommit || acts[0].State != txn.CompleteCommit || !acts[0].OffsetsApplied {
		t.Fatalf("recovery %+v", acts)
	}
}

// T11: a journal whose tail is damaged is cut back to the last valid line,
// and the open report says what was dropped.
func TestT11JournalTailDropped(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	if err := f.c.Close(); err != nil {
		t.Fatal(err)
	}
	valid := txn.Entry{ID: "valid", State: txn.CompleteAbort}.AppendLine(nil)
	path := f.path(txn.JournalFileName)
	if err := vfs.WriteFile(f.fs(), path, append(valid, "deadbeef {"...), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := f.reopen()
	j := rep.Coordination.Journal
	if j.Lines != 1 || j.Dropped == nil || j.Dropped.Bytes != 10 || j.Dropped.Lines != 1 {
		t.Fatalf("journal report %+v %+v", j, j.Dropped)
	}
	if st, _ := f.fs().Stat(path); st.Size() != int64(len(valid)) {
		t.Fatalf("journal size %d", st.Size())
	}
	list, err := f.c.ListTransactions()
	if err != nil || len(list) != 1 || list[0].ID != "valid" {
		t.Fatalf("list %+v %v", list, err)
	}
}

// E4 fixed (decision 14): reusing an id never changes older batches.
func TestE4TransactionIDReuse(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("out", 1, 1)
	p := tp("out", 0)
	f.begin("t1")
	f.txSend("t1", "out", 0, "t1-old")
	f.commitTx("t1")
	f.begin("t1") // (a): the new instance must not hide the committed record
	f.txSend("t1", "out", 0, "t1-new")
	wantStrings(t, "while the new t1 is open", f.values(p, engine.ReadCommitted), []string{"t1-old"})
	f.abortTx("t1")
	wantStrings(t, "after the new t1 aborted", f.values(p, engine.ReadCommitted), []string{"t1-old"})
	f.begin("t2") // (b): a new t2 must not reveal the aborted record
	f.txSend("t2", "out", 0, "t2-old")
	f.abortTx("t2")
	f.begin("t2")
	f.txSend("t2", "out", 0, "t2-new")
	f.commitTx("t2")
	wantStrings(t, "after t2 reuse", f.values(p, engine.ReadCommitted), []string{"t1-old", "t2-new"})
}

// E5 with decision 15: an ONGOING transaction at restart is aborted by
// recovery, which writes its ABORT marker; the LSO is released and the id
// can begin again.
func TestE5OngoingAbortedAtRestart(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("out", 1, 1)
	p := tp("out", 0)
	f.begin("t2")
	f.txSend("t2", "out", 0, "open")
	f.produce("out", 0, "plain")
	if f.lsoOf(p) != 0 {
		t.Fatal("LSO not held back")
	}
	if err := f.c.Crash(); err != nil {
		t.Fatal(err)
	}
	rep := f.reopen()
	acts := rep.Coordination.Transactions.Actions
	if len(acts) != 1 || acts[0].Found != txn.Ongoing || acts[0].State != txn.PrepareAbort || len(acts[0].Markers) != 1 {
		t.Fatalf("recovery %+v", acts)
	}
	if f.txnState("t2") != txn.CompleteAbort { // one replica: the marker is acknowledged at once
		t.Fatalf("state %v", f.txnState("t2"))
	}
	if f.lsoOf(p) != f.hw(p) {
		t.Fatalf("LSO %d HW %d", f.lsoOf(p), f.hw(p))
	}
	wantStrings(t, "read_committed", f.values(p, engine.ReadCommitted), []string{"plain"})
	f.begin("t2")
	events := eventKinds(f.c.TakeEvents())
	if !slices.Contains(events, "transaction_recovered") {
		t.Fatalf("events %v", events)
	}
}

// Decision 16: a commit whose marker cannot be written leaves the
// transaction prepared, with the LSO held; the same outcome is retried once
// the ISR is back, and an abort is refused meanwhile.
func TestDecision16CommitRetryAfterMarkerFailure(t *testing.T) {
	t.Parallel()
	f := open(t, two, func(c *engine.Config) { c.MinInsyncReplicas = 2 })
	f.topic("out", 1, 2)
	p := tp("out", 0)
	f.begin("tx")
	f.txSend("tx", "out", 0, "v")
	f.replicate(nil)
	if err := f.c.RemoveFromISR(p, 2); err != nil {
		t.Fatal(err)
	}
	h := f.commitTx("tx")
	if h.State() != engine.Failed {
		t.Fatalf("commit %v", h.State())
	}
	wantCode(t, h.Err(), kerr.NotEnoughReplicas, "")
	if f.txnState("tx") != txn.PrepareCommit || f.lsoOf(p) != 0 {
		t.Fatalf("state %v LSO %d", f.txnState("tx"), f.lsoOf(p))
	}
	_, err := f.c.AbortTransaction("tx")
	wantCode(t, err, kerr.IllegalState, "transaction tx is prepare_commit")
	wantCode(t, f.c.BeginTransaction("tx"), kerr.IllegalState, "transaction tx is active")
	f.replicate(nil) // the follower is caught up: it re-enters the ISR
	h = f.commitTx("tx")
	f.replicate(nil)
	if h.State() != engine.Done || f.txnState("tx") != txn.CompleteCommit {
		t.Fatalf("retry %v %v", h.State(), f.txnState("tx"))
	}
	wantStrings(t, "committed", f.values(p, engine.ReadCommitted), []string{"v"})
}

// A promotion before the commit marker is acknowledged fails the completion
// (FENCED_LEADER_EPOCH) and cuts the marker; the retry writes it on the new
// leader, whose transaction index is rebuilt from its own log.
func TestCommitRetryAfterLeaderChange(t *testing.T) {
	t.Parallel()
	f := open(t, two, func(c *engine.Config) { c.MinInsyncReplicas = 2 })
	f.topic("out", 1, 2)
	p := tp("out", 0)
	f.begin("tx")
	f.txSend("tx", "out", 0, "v")
	f.replicate(nil)
	h := f.commitTx("tx")
	if err := f.c.Promote(p, 2); err != nil {
		t.Fatal(err)
	}
	if h.State() != engine.Failed {
		t.Fatalf("completion %v", h.State())
	}
	wantCode(t, h.Err(), kerr.FencedLeaderEpoch, "")
	if f.txnState("tx") != txn.PrepareCommit || f.lsoOf(p) != 0 {
		t.Fatalf("%v LSO %d", f.txnState("tx"), f.lsoOf(p))
	}
	d, _ := f.c.DescribeTransaction("tx")
	if len(d.OpenRuns) != 1 || d.OpenRuns[0].Offset != 0 {
		t.Fatalf("open runs on the new leader %+v", d.OpenRuns)
	}
	if err := f.c.Rejoin(p, 1); err != nil {
		t.Fatal(err)
	}
	f.replicate(nil)
	h = f.commitTx("tx")
	f.replicate(nil)
	if h.State() != engine.Done {
		t.Fatalf("retry %v %v", h.State(), h.Err())
	}
	wantStrings(t, "committed", f.values(p, engine.ReadCommitted), []string{"v"})
}

// Decision 18: the LSO never exceeds the HW, even with no transaction.
func TestLSONeverAboveHW(t *testing.T) {
	t.Parallel()
	f := open(t, two, nil)
	f.topic("out", 1, 2)
	p := tp("out", 0)
	f.produce("out", 0, "a", "b")
	if f.hw(p) != 0 || f.lsoOf(p) != 0 {
		t.Fatalf("HW %d LSO %d", f.hw(p), f.lsoOf(p))
	}
	f.begin("tx")
	f.txSend("tx", "out", 0, "t")
	f.replicate(nil)
	if f.hw(p) != 3 || f.lsoOf(p) != 2 {
		t.Fatalf("HW %d LSO %d", f.hw(p), f.lsoOf(p))
	}
}

func TestTransactionStateErrors(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("out", 1, 1)
	_, err := f.c.TransactionSend("ghost", "out", 0, rec("x"))
	wantCode(t, err, kerr.IllegalState, "has not begun")
	wantCode(t, f.c.BeginTransaction(""), kerr.InvalidArgument, "")
	f.begin("tx")
	_, err = f.c.TransactionSend("tx", "nope", engine.AnyPartition, rec("x"))
	wantCode(t, err, kerr.UnknownTopic, "")
	_, err = f.c.TransactionSend("tx", "out", 3, rec("x"))
	wantCode(t, err, kerr.UnknownPartition, "")
	f.commitTx("tx")
	_, err = f.c.TransactionSend("tx", "out", 0, rec("x"))
	wantCode(t, err, kerr.IllegalState, "transaction tx is complete_commit")
	_, err = f.c.CommitTransaction("tx")
	wantCode(t, err, kerr.IllegalState, "")
	if l := f.leaderBatches(tp("out", 0)); len(l) != 0 {
		t.Fatalf("an empty transaction wrote %d batches", len(l))
	}
}

// §12.3: a keyed transactional send goes to crc32(key) mod n; a keyless one
// to partition 0 (no sticky partitioning).
func TestTransactionSendPartitioning(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("out", 2, 1)
	f.begin("tx")
	if a, err := f.c.TransactionSend("tx", "out", engine.AnyPartition, keyed("alice", "v")); err != nil || a.TP.Partition != 1 {
		t.Fatalf("alice went to %v (%v)", a, err)
	}
	for i := 0; i < 3; i++ {
		if a := f.txSend("tx", "out", engine.AnyPartition, "k"); a.TP.Partition != 0 {
			t.Fatalf("keyless went to %d", a.TP.Partition)
		}
	}
	list, _ := f.c.ListTransactions()
	if len(list) != 1 || len(list[0].Partitions) != 2 || len(list[0].FirstOffsets) != 2 || len(list[0].OpenRuns) != 2 {
		t.Fatalf("txn list %+v", list)
	}
}

// A broker crash that loses a commit marker (its bytes were not flushed,
// the data's were): when the leader comes back, the new leader log's open
// run belongs to no unstable transaction, so the cluster writes the marker
// again — COMMIT, since the coordinator completed that very instance.
func TestLostMarkerRewrittenForNewLeaderLog(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("out", 1, 1)
	p := tp("out", 0)
	f.begin("tx")
	f.txSend("tx", "out", 0, "v")
	l, err := f.c.LeaderLog(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	f.commitTx("tx")
	wantStrings(t, "before the crash", f.values(p, engine.ReadCommitted), []string{"v"})
	if err := f.c.CrashBroker(1, false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.RestartBroker(1); err != nil {
		t.Fatal(err)
	}
	wantStrings(t, "after the restart", f.values(p, engine.ReadCommitted), []string{"v"})
	if f.lsoOf(p) != f.hw(p) || f.hw(p) != 2 {
		t.Fatalf("LSO %d HW %d", f.lsoOf(p), f.hw(p))
	}
	batches := f.leaderBatches(p)
	if len(batches) != 2 || batches[1].Control != record.Commit {
		t.Fatalf("batches %+v", batches)
	}
}
