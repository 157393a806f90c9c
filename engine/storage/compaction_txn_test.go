package storage

import (
	"testing"

	"github.com/minikafka-lab/minikafka/engine/record"
)

// txnRec appends one transactional single-record batch for txid.
func txnRec(t *testing.T, l *Log, txid, key, value string, ts int64) {
	t.Helper()
	b := record.NewBatch([]record.Record{rec(key, value, ts)})
	b.Transactional, b.TransactionalID = true, txid
	mustAppend(t, l, b)
}

func txnMarker(t *testing.T, l *Log, txid string, ctl record.ControlType) {
	t.Helper()
	mustAppend(t, l, record.NewControlBatch(txid, ctl))
}

// A committed value must survive a later aborted write of the same key, and
// the aborted record is removed (Kafka's cleaner drops aborted data).
func TestCompactionDropsAbortedAndKeepsCommitted(t *testing.T) {
	t.Parallel()
	l, _ := mustOpen(t, t.TempDir(), opts(1<<20, 1))
	kv(t, l, "k=committed@0")             // 0
	txnRec(t, l, "t1", "k", "aborted", 1) // 1
	txnMarker(t, l, "t1", record.Abort)   // 2
	kv(t, l, "|", "other=x@3")            // 3 (active)
	res, err := l.Compact(10, 1000, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.AbortedDropped != 1 || res.RecordsBefore != 2 || res.RecordsAfter != 1 || res.FirstUnstable != -1 {
		t.Fatalf("result %+v", res)
	}
	wantEqual(t, "records", offsetValues(fetchAll(t, l)), []string{"0:k=committed", "3:other=x"})
	if got := batchCount(t, l); got != 3 { // k=committed, the ABORT marker, other=x
		t.Fatalf("%d batches", got)
	}
}

// A committed transaction's record supersedes older values like any record,
// and reusing the id for an aborted instance changes nothing about it.
func TestCompactionCommittedTransactionAndIdReuse(t *testing.T) {
	t.Parallel()
	l, _ := mustOpen(t, t.TempDir(), opts(1<<20, 1))
	kv(t, l, "k=v0@0")                   // 0
	txnRec(t, l, "t1", "k", "v1", 1)     // 1 committed
	txnMarker(t, l, "t1", record.Commit) // 2
	txnRec(t, l, "t1", "k", "v2", 3)     // 3 aborted (same id, new instance)
	txnMarker(t, l, "t1", record.Abort)  // 4
	kv(t, l, "|", "z=1@5")               // 5 (active)
	res, err := l.Compact(10, 1000, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "records", offsetValues(fetchAll(t, l)), []string{"1:k=v1", "5:z=1"})
	if res.AbortedDropped != 1 {
		t.Fatalf("result %+v", res)
	}
}

// Nothing at or after the first batch of a still-open transaction is
// rewritten, and an open write never supersedes a committed value.
func TestCompactionStopsAtFirstUnstableOffset(t *testing.T) {
	t.Parallel()
	l, _ := mustOpen(t, t.TempDir(), opts(1<<20, 1))
	kv(t, l, "k=old@0", "k=v1@1")      // 0, 1: offset 0 is superseded
	txnRec(t, l, "t2", "k", "open", 2) // 2: t2 has no marker yet
	kv(t, l, "j=1@3", "j=2@4")         // 3, 4: after the unstable offset
	kv(t, l, "|", "z=1@5")             // 5 (active)
	res, err := l.Compact(10, 1000, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.FirstUnstable != 2 {
		t.Fatalf("first unstable %d", res.FirstUnstable)
	}
	wantEqual(t, "records", offsetValues(fetchAll(t, l)), []string{"1:k=v1", "2:k=open", "3:j=1", "4:j=2", "5:z=1"})
}

func batchCount(t *testing.T, l *Log) int {
	t.Helper()
	n := 0
	if err := l.Batches(-1, func(RawBatch) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}
