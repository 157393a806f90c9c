package engine_test

import (
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
)

// TestRetentionAfterUnreadMarkerKeepsTheLSO: a transaction's marker that
// retention deletes before any read looked at the partition still closes
// the transaction's run, so the LSO reaches the HW whether or not the
// partition was read between the commit and the retention (the
// transaction index is brought up to date before batches are removed).
func TestRetentionAfterUnreadMarkerKeepsTheLSO(t *testing.T) {
	t.Parallel()
	lso := func(readBetween bool) (int64, int64) {
		f := open(t, []int32{1}, func(c *engine.Config) { c.SegmentBytes = 100 })
		f.topic("t", 1, 1)
		p := tp("t", 0)
		if err := f.c.BeginTransaction("x"); err != nil {
			t.Fatal(err)
		}
		if _, err := f.c.TransactionSend("x", "t", 0, keyed("k", "v")); err != nil {
			t.Fatal(err)
		}
		if _, err := f.c.LastStableOffset(p); err != nil { // the index sees the open run
			t.Fatal(err)
		}
		if _, err := f.c.CommitTransaction("x"); err != nil {
			t.Fatal(err)
		}
		if readBetween {
			if _, err := f.c.LastStableOffset(p); err != nil { // the index sees the marker
				t.Fatal(err)
			}
		}
		for range 6 {
			f.append(p, batchOf("filler"), engine.Acks1)
		}
		if _, err := f.c.ApplyRetention(p, engine.AllReplicas, -1, 1); err != nil {
			t.Fatal(err)
		}
		if start, _ := f.c.LogStartOffset(p); start <= 1 {
			t.Fatalf("retention kept the marker (log start %d)", start)
		}
		o, _ := f.c.LastStableOffset(p)
		return o, f.hw(p)
	}
	read, hw := lso(true)
	unread, _ := lso(false)
	if read != hw || unread != hw {
		t.Fatalf("LSO %d after a read between commit and retention, %d without; HW %d", read, unread, hw)
	}
}
