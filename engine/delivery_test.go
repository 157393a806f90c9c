package engine_test

import (
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/producer"
)

// E6 with decision 19: a read_uncommitted consumer moves past a trailing
// commit marker, so it has no phantom lag of 1.
func TestE6TrailingMarkerNoLag(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("out", 1, 1)
	p := tp("out", 0)
	f.begin("tx")
	f.txSend("tx", "out", 0, "v")
	f.commitTx("tx")
	con := f.consumer("g", nil)
	f.assign(con, p)
	wantStrings(t, "poll", valuesOf(f.poll(con, 10)), []string{"v"})
	if f.position(con, p) != 2 || f.lag(con, p) != 0 {
		t.Fatalf("position %d lag %d", f.position(con, p), f.lag(con, p))
	}
	// With a budget used up exactly by the last record, the marker after it
	// is still skipped.
	again := f.consumer("g2", nil)
	f.assign(again, p)
	f.poll(again, 1)
	if f.position(again, p) != 2 {
		t.Fatalf("position %d", f.position(again, p))
	}
}

// Decision 19: a read_committed consumer stops at the LSO, skips aborted
// batches and markers, and its position moves past them.
func TestReadCommittedConsumer(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("out", 1, 1)
	p := tp("out", 0)
	f.begin("t1")
	f.txSend("t1", "out", 0, "aborted") // 0, marker 1
	f.abortTx("t1")
	f.produce("out", 0, "p") // 2
	f.begin("t2")
	f.txSend("t2", "out", 0, "b") // 3
	f.produce("out", 0, "q")      // 4
	rc := f.consumer("rc", func(o *engine.ConsumerOptions) { o.Isolation = engine.ReadCommitted })
	ru := f.consumer("ru", nil)
	f.assign(rc, p)
	f.assign(ru, p)
	wantStrings(t, "read_committed", valuesOf(f.poll(rc, 10)), []string{"p"})
	if f.position(rc, p) != 3 || f.lag(rc, p) != 0 {
		t.Fatalf("position %d lag %d (LSO 3)", f.position(rc, p), f.lag(rc, p))
	}
	wantStrings(t, "read_uncommitted", valuesOf(f.poll(ru, 10)), []string{"aborted", "p", "b", "q"})
	f.commitTx("t2") // marker 5
	wantStrings(t, "after commit", valuesOf(f.poll(rc, 10)), []string{"b", "q"})
	if f.position(rc, p) != 6 || f.lag(rc, p) != 0 {
		t.Fatalf("position %d lag %d", f.position(rc, p), f.lag(rc, p))
	}
	latest := f.consumer("latest", func(o *engine.ConsumerOptions) {
		o.Isolation, o.AutoOffsetReset = engine.ReadCommitted, engine.ResetLatest
	})
	f.begin("t3")
	f.txSend("t3", "out", 0, "open") // 6
	f.assign(latest, p)
	f.poll(latest, 10)
	if f.position(latest, p) != 6 {
		t.Fatalf("latest read_committed starts at %d, want the LSO 6", f.position(latest, p))
	}
}

// §13: the delivery-semantics scenarios, end to end.
func TestDeliverySemantics(t *testing.T) {
	t.Parallel()
	t.Run("at-most-once: commit before processing loses a record", func(t *testing.T) {
		f := open(t, []int32{1}, nil)
		f.topic("in", 1, 1)
		f.produce("in", 0, "work")
		a := f.consumer("g", nil)
		f.subscribe(a, "in")
		f.poll(a, 10)
		f.commit(a)
		if err := f.c.Crash(); err != nil { // a dies before processing
			t.Fatal(err)
		}
		f.reopen()
		b := f.consumer("g", nil)
		f.assign(b, tp("in", 0))
		if recs := f.poll(b, 10); len(recs) != 0 {
			t.Fatalf("redelivered %v", valuesOf(recs))
		}
	})
	t.Run("at-least-once: processing before commit duplicates a record", func(t *testing.T) {
		f := open(t, []int32{1}, nil)
		f.topic("in", 1, 1)
		f.topic("out", 1, 1)
		f.produce("in", 0, "work")
		a := f.consumer("g", nil)
		f.assign(a, tp("in", 0))
		for _, r := range f.poll(a, 10) {
			f.produce("out", 0, "done:"+string(r.Value)) // processed, not yet committed
		}
		if err := f.c.Crash(); err != nil {
			t.Fatal(err)
		}
		f.reopen()
		b := f.consumer("g", nil)
		f.assign(b, tp("in", 0))
		for _, r := range f.poll(b, 10) {
			f.produce("out", 0, "done:"+string(r.Value))
		}
		f.commit(b)
		wantStrings(t, "output", f.values(tp("out", 0), engine.ReadUncommitted), []string{"done:work", "done:work"})
	})
	t.Run("idempotent retry: a resent batch is stored once", func(t *testing.T) {
		f := open(t, []int32{1}, nil)
		f.topic("out", 1, 1)
		p := f.producer(func(o *producer.Options) { o.Idempotent, o.BatchSize = true, 1 })
		first := f.send(p, "out", 0, rec("once"))
		futs, err := p.Retry() // the ack was lost: the producer resends the same batch
		if err != nil || len(futs) != 1 {
			t.Fatalf("retry %v %v", futs, err)
		}
		if futs[0].Value().Offset != first.Value().Offset {
			t.Fatalf("retry got offset %d, first %d", futs[0].Value().Offset, first.Value().Offset)
		}
		wantStrings(t, "log", f.values(tp("out", 0), engine.ReadUncommitted), []string{"once"})
	})
	t.Run("transactional exactly-once: output and input offsets commit together", func(t *testing.T) {
		f := open(t, []int32{1}, nil)
		f.topic("in", 1, 1)
		f.topic("out", 1, 1)
		f.produce("in", 0, "a", "b", "c", "d")
		in0 := tp("in", 0)
		process := func(txid string, max int, crash bool) {
			t.Helper()
			con := f.consumer("workers", func(o *engine.ConsumerOptions) { o.Isolation = engine.ReadCommitted })
			f.assign(con, in0)
			recs := f.poll(con, max)
			f.begin(txid)
			for _, r := range recs {
				f.txSend(txid, "out", 0, "out:"+string(r.Value))
			}
			pos := f.position(con, in0)
			if err := f.c.TransactionSendOffsets(txid, "workers", map[engine.TopicPartition]int64{in0: pos}); err != nil {
				t.Fatal(err)
			}
			if crash {
				if err := f.c.Crash(); err != nil {
					t.Fatal(err)
				}
				f.reopen() // recovery aborts the open transaction
				return
			}
			if h := f.commitTx(txid); h.State() != engine.Done {
				t.Fatalf("commit %v", h.State())
			}
		}
		process("worker", 2, false) // a, b
		process("worker", 2, true)  // c, d: written, then a crash before the commit
		process("worker", 2, false) // c, d again, from the committed offset 2
		wantStrings(t, "read_committed output", f.values(tp("out", 0), engine.ReadCommitted),
			[]string{"out:a", "out:b", "out:c", "out:d"})
		wantStrings(t, "read_uncommitted output (the aborted attempt is in the log)", f.values(tp("out", 0), engine.ReadUncommitted),
			[]string{"out:a", "out:b", "out:c", "out:d", "out:c", "out:d"})
		if o, _ := f.committed("workers", in0); o != 4 {
			t.Fatalf("input committed %d", o)
		}
	})
}
