package txn

import (
	"errors"
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/group"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/topic"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

func states(t *testing.T, h *harness) []string {
	t.Helper()
	data, err := h.fsys.ReadFile(h.journalPath())
	if err != nil {
		t.Fatal(err)
	}
	entries, _, _, drop := ScanJournal(data)
	if drop != nil {
		t.Fatalf("journal damaged: %+v", drop)
	}
	return ids(entries)
}

func sl(s ...string) []string { return s }

// T1 (state, journal and index level): tx-1 sends "pending"; read_uncommitted
// sees it, read_committed does not; after commit read_committed sees it and
// the batch after the data is a control batch.
func TestT1CommitMarker(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	out := tp("out-0")
	h.begin(t, "tx-1")
	h.send(t, "tx-1", out, "pending")
	if got := h.log(out).readUncommitted(); !reflect.DeepEqual(got, sl("pending")) {
		t.Fatalf("read_uncommitted %v", got)
	}
	if got := h.readCommitted(out); len(got) != 0 {
		t.Fatalf("read_committed before commit %v", got)
	}
	h.commit(t, "tx-1")
	if got := h.readCommitted(out); !reflect.DeepEqual(got, sl("pending")) {
		t.Fatalf("read_committed after commit %v", got)
	}
	for _, m := range h.log(out).metas[1:] {
		if !m.IsControl() || m.Control != record.Commit || m.TransactionalID != "tx-1" {
			t.Fatalf("batch after the first: %+v", m)
		}
	}
	if got := states(t, h); !reflect.DeepEqual(got, sl("tx-1:ongoing", "tx-1:ongoing", "tx-1:prepare_commit", "tx-1:complete_commit")) {
		t.Fatalf("journal %v", got)
	}
	if !h.m.IsCommitted("tx-1") {
		t.Fatal("IsCommitted")
	}
}

// T2, T3, T6 at this level: data, commit and abort are two-phase. Until the
// markers are acknowledged the transaction stays PREPARE_* and the LSO stays
// at its first offset, even once the marker is in the leader's log.
func TestT2T3T6CompletionWaitsForMarkerAcks(t *testing.T) {
	t.Parallel()
	for _, outcome := range []record.ControlType{record.Commit, record.Abort} {
		h := newHarness(t)
		out := tp("out-0")
		h.begin(t, "tx")
		l := h.log(out)
		off := l.appendTxn(t, "tx", "v") // T2: appended by the leader, not yet acknowledged
		if err := h.m.RecordSend("tx", out, off, false); err != nil {
			t.Fatal(err)
		}
		if h.lso(out) != 0 {
			t.Fatalf("LSO %d before replication", h.lso(out))
		}
		l.replicate()
		var parts []topic.Partition
		var err error
		if outcome == record.Commit {
			parts, err = h.m.PrepareCommit("tx")
		} else {
			parts, err = h.m.PrepareAbort("tx")
		}
		if err != nil || !reflect.DeepEqual(parts, []topic.Partition{out}) {
			t.Fatalf("prepare: %v %v", parts, err)
		}
		l.appendMarker(t, "tx", outcome) // leader append; the ack is pending
		if got := h.lso(out); got != 0 {
			t.Fatalf("%v pending: LSO %d, want 0", outcome, got)
		}
		if len(h.readCommitted(out)) != 0 {
			t.Fatal("pending marker exposed data")
		}
		l.replicate() // the acknowledgement
		if outcome == record.Commit {
			err = h.m.CompleteCommit("tx")
		} else {
			err = h.m.CompleteAbort("tx")
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.lso(out) != l.hw {
			t.Fatalf("LSO %d HW %d after completion", h.lso(out), l.hw)
		}
		want := []string{}
		if outcome == record.Commit {
			want = sl("v")
		}
		if got := h.readCommitted(out); !reflect.DeepEqual(got, want) {
			t.Fatalf("%v: read_committed %v", outcome, got)
		}
	}
}

// T4: a plain record after open transactional data is held back by the LSO;
// after commit both are visible. §12.6's observed example: after an abort the
// plain record is visible and the aborted one is not.
func TestT4LSOHoldsBackLaterRecords(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	out := tp("out-0")
	h.begin(t, "tx")
	h.send(t, "tx", out, "pending")
	h.log(out).appendPlain(t, "later")
	h.log(out).replicate()
	if got := h.readCommitted(out); len(got) != 0 || h.lso(out) != 0 {
		t.Fatalf("before commit: LSO %d read %v", h.lso(out), got)
	}
	h.commit(t, "tx")
	if got := h.readCommitted(out); !reflect.DeepEqual(got, sl("pending", "later")) {
		t.Fatalf("after commit %v", got)
	}
	h.begin(t, "t2")
	h.send(t, "t2", out, "nokey")
	h.log(out).appendPlain(t, "plain-after")
	h.log(out).replicate()
	if h.lso(out) != 3 {
		t.Fatalf("LSO %d, want the first offset 3", h.lso(out))
	}
	h.abort(t, "t2")
	if got := h.readCommitted(out); !reflect.DeepEqual(got, sl("pending", "later", "plain-after")) {
		t.Fatalf("after abort %v", got)
	}
}

// T5: an aborted transaction's data never reaches read_committed readers.
func TestT5Abort(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	out := tp("out-0")
	h.begin(t, "tx-2")
	h.send(t, "tx-2", out, "discard")
	h.abort(t, "tx-2")
	if got := h.readCommitted(out); len(got) != 0 {
		t.Fatalf("read_committed %v", got)
	}
	if got := h.log(out).readUncommitted(); !reflect.DeepEqual(got, sl("discard")) {
		t.Fatalf("read_uncommitted %v", got)
	}
	if got := h.log(out).idx.AbortedRanges(0, h.log(out).hw); len(got) != 1 || got[0].ID != "tx-2" {
		t.Fatalf("aborted ranges %+v", got)
	}
}

// T7: output and input offsets are published together at commit.
func TestT7OffsetsPublishedAtCommit(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	in0 := tp("input-0")
	h.begin(t, "tx")
	h.send(t, "tx", tp("output-0"), "result")
	if err := h.m.SendOffsets("tx", "workers", group.Offsets{in0: 4}); err != nil {
		t.Fatal(err)
	}
	if _, ok := h.store.Get("workers", in0); ok {
		t.Fatal("staged offset visible before commit")
	}
	h.commit(t, "tx")
	if o, ok := h.store.Get("workers", in0); !ok || o != 4 {
		t.Fatalf("after commit %d %v", o, ok)
	}
	e, _ := h.m.Get("tx")
	if e.StagedOffsets["workers"][in0] != 4 {
		t.Fatal("complete_commit entry lost its staged offsets")
	}
}

// T8: abort discards staged offsets.
func TestT8AbortDiscardsStagedOffsets(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	in0 := tp("input-0")
	h.begin(t, "tx")
	if err := h.m.SendOffsets("tx", "workers", group.Offsets{in0: 4}); err != nil {
		t.Fatal(err)
	}
	h.abort(t, "tx")
	if _, ok := h.store.Get("workers", in0); ok {
		t.Fatal("aborted offsets committed")
	}
	if e, _ := h.m.Get("tx"); len(e.StagedOffsets) != 0 || e.State != CompleteAbort {
		t.Fatalf("entry %+v", e)
	}
}

// T9: a committed transaction is still visible after reopen.
func TestT9CommittedSurvivesReopen(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	out := tp("out-0")
	h.begin(t, "durable")
	h.send(t, "durable", out, "kept")
	h.commit(t, "durable")
	h.reopen(t)
	if len(h.lastRec.Actions) != 0 || len(h.lastRec.Orphans) != 0 {
		t.Fatalf("recovery did something: %+v", h.lastRec)
	}
	if got := h.readCommitted(out); !reflect.DeepEqual(got, sl("kept")) {
		t.Fatalf("read_committed %v", got)
	}
}

// T10: a journal holding only a PREPARE_COMMIT with staged offsets completes
// at open and the offsets land in the offset store.
func TestT10PrepareCommitRecovered(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	if err := h.m.Close(); err != nil {
		t.Fatal(err)
	}
	e := Entry{ID: "recover-me", State: PrepareCommit, StagedOffsets: map[string]group.Offsets{"workers": {tp("input-0"): 7}}}
	if err := vfs.WriteFile(h.fsys, h.journalPath(), e.AppendLine(nil), 0o644); err != nil {
		t.Fatal(err)
	}
	h.open(t)
	if o, ok := h.store.Get("workers", tp("input-0")); !ok || o != 7 {
		t.Fatalf("offset %d %v", o, ok)
	}
	want := []RecoveryAction{{ID: "recover-me", Found: PrepareCommit, State: CompleteCommit, OffsetsApplied: true}}
	if !reflect.DeepEqual(h.lastRec.Actions, want) {
		t.Fatalf("actions %+v", h.lastRec.Actions)
	}
	// And it was journaled: a second reopen has nothing to do.
	h.reopen(t)
	if len(h.lastRec.Actions) != 0 {
		t.Fatalf("second recovery %+v", h.lastRec.Actions)
	}
}

// Recovery of a prepared transaction whose markers are missing: it stays
// PREPARE_* with the partitions that need markers; the cluster writes them
// and completes it. A marker already in the log and below the HW is not asked
// for again.
func TestRecoveryAsksForMissingMarkers(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	a, b := tp("out-0"), tp("out-1")
	h.begin(t, "tx")
	h.send(t, "tx", a, "va")
	h.send(t, "tx", b, "vb")
	if err := h.m.SendOffsets("tx", "g", group.Offsets{tp("in-0"): 9}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.m.PrepareCommit("tx"); err != nil {
		t.Fatal(err)
	}
	h.log(a).appendMarker(t, "tx", record.Commit) // only out-0's marker made it
	h.log(a).replicate()
	h.reopen(t) // a restart before completion
	want := []RecoveryAction{{ID: "tx", Found: PrepareCommit, State: PrepareCommit, Markers: []topic.Partition{b}}}
	if !reflect.DeepEqual(h.lastRec.Actions, want) {
		t.Fatalf("actions %+v", h.lastRec.Actions)
	}
	if h.lso(b) != 0 || h.lso(a) != 0 {
		t.Fatal("LSO moved before the transaction completed")
	}
	h.finishRecovery(t)
	if got := h.readCommitted(b); !reflect.DeepEqual(got, sl("vb")) {
		t.Fatalf("out-1 %v", got)
	}
	if o, _ := h.store.Get("g", tp("in-0")); o != 9 {
		t.Fatal("staged offsets not applied")
	}
	h.checkLSO(t)
}

// Decision 37: a marker already in the leader's log is never asked for a
// second time, even above the HW recomputed at open. A prepared
// transaction whose marker is there waits for it (Unreplicated) and asks
// for markers only where its run is open; an orphan run closed by a marker
// above the HW asks for nothing.
func TestRecoveryWaitsForMarkersAlreadyInTheLogDecision37(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	a, b, c := tp("out-0"), tp("out-1"), tp("out-2")
	h.begin(t, "gone")
	h.send(t, "gone", c, "vc")
	h.abort(t, "gone")
	h.log(c).hw = 1 // a follower lost the ABORT marker: the HW at open is below it
	h.begin(t, "tx")
	h.send(t, "tx", a, "va")
	h.send(t, "tx", b, "vb")
	if _, err := h.m.PrepareCommit("tx"); err != nil {
		t.Fatal(err)
	}
	h.log(a).appendMarker(t, "tx", record.Commit) // in the log, never replicated
	h.reopen(t)
	want := []RecoveryAction{{ID: "tx", Found: PrepareCommit, State: PrepareCommit,
		Markers: []topic.Partition{b}, Unreplicated: []LoggedMarker{{Partition: a, Offset: 1}}}}
	if !reflect.DeepEqual(h.lastRec.Actions, want) {
		t.Fatalf("actions %+v, want %+v", h.lastRec.Actions, want)
	}
	if len(h.lastRec.Orphans) != 0 {
		t.Fatalf("orphans %+v: out-2's run is closed by the ABORT marker in the log", h.lastRec.Orphans)
	}
	if h.lso(a) != 0 || h.lso(c) != 0 {
		t.Fatalf("LSO out-0 %d out-2 %d before the markers are replicated", h.lso(a), h.lso(c))
	}
	h.finishRecovery(t)
	for tp, n := range map[topic.Partition]int{a: 2, b: 2, c: 2} {
		if got := len(h.log(tp).metas); got != n {
			t.Fatalf("%s holds %d batches, want %d (one marker each)", tp, got, n)
		}
	}
	if got := h.readCommitted(a); !reflect.DeepEqual(got, sl("va")) {
		t.Fatalf("out-0 %v", got)
	}
	if got := h.readCommitted(c); len(got) != 0 {
		t.Fatalf("out-2 %v", got)
	}
	h.checkLSO(t)
}

// E5 with decision 15: an ONGOING transaction at restart is aborted by
// recovery (ABORT markers where its data is), the LSO is released and the id
// can begin again.
func TestE5OngoingAbortedAtRecovery(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	out := tp("out-0")
	h.begin(t, "t1")
	h.send(t, "t1", tp("out-0"), "committed")
	h.commit(t, "t1")
	h.begin(t, "t2")
	h.send(t, "t2", out, "open")
	h.log(out).appendPlain(t, "plain")
	h.log(out).replicate()
	if h.lso(out) != 2 {
		t.Fatalf("LSO %d", h.lso(out))
	}
	h.reopen(t)
	want := []RecoveryAction{{ID: "t2", Found: Ongoing, State: PrepareAbort, Markers: []topic.Partition{out}}}
	if !reflect.DeepEqual(h.lastRec.Actions, want) {
		t.Fatalf("actions %+v", h.lastRec.Actions)
	}
	wantCode(t, h.m.Begin("t2"), kerr.IllegalState) // still unstable until its marker is acknowledged
	h.finishRecovery(t)
	if e, _ := h.m.Get("t2"); e.State != CompleteAbort {
		t.Fatalf("state %v", e.State)
	}
	if got := h.readCommitted(out); !reflect.DeepEqual(got, sl("committed", "plain")) {
		t.Fatalf("read_committed %v", got)
	}
	h.begin(t, "t2")
	h.checkLSO(t)
}

// An ONGOING transaction with no data completes its abort at once.
func TestRecoveryOngoingWithoutData(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.begin(t, "idle")
	if err := h.m.SendOffsets("idle", "g", group.Offsets{tp("in-0"): 1}); err != nil {
		t.Fatal(err)
	}
	h.reopen(t)
	want := []RecoveryAction{{ID: "idle", Found: Ongoing, State: CompleteAbort}}
	if !reflect.DeepEqual(h.lastRec.Actions, want) {
		t.Fatalf("actions %+v", h.lastRec.Actions)
	}
	if _, ok := h.store.Get("g", tp("in-0")); ok {
		t.Fatal("aborted offsets applied")
	}
	if got := states(t, h); !reflect.DeepEqual(got[len(got)-2:], sl("idle:prepare_abort", "idle:complete_abort")) {
		t.Fatalf("journal %v", got)
	}
}

// Orphan runs: data in a log that no unstable transaction owns (the journal
// lost its lines). A run of a COMPLETE_COMMIT instance whose marker is gone
// gets COMMIT again; anything else is aborted.
func TestRecoveryOrphanRuns(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	out := tp("out-0")
	h.begin(t, "done")
	h.send(t, "done", out, "d")
	h.commit(t, "done")
	h.log(out).truncate(1) // the commit marker is lost (say, a damaged tail)
	h.log(out).appendTxn(t, "ghost", "g")
	h.log(out).replicate()
	h.reopen(t)
	want := []OrphanMarker{{Partition: out, ID: "done", First: 0, Outcome: record.Commit}, {Partition: out, ID: "ghost", First: 1, Outcome: record.Abort}}
	if !reflect.DeepEqual(h.lastRec.Orphans, want) {
		t.Fatalf("orphans %+v", h.lastRec.Orphans)
	}
	h.finishRecovery(t)
	if got := h.readCommitted(out); !reflect.DeepEqual(got, sl("d")) {
		t.Fatalf("read_committed %v", got)
	}
	h.checkLSO(t)
}

// The orphan rule Recover and a new leader share: an open run of a
// committed id at its first offset commits, any other open run aborts, a
// closed run needs no marker (it has one, decision 37), and an unstable id
// owns the run that starts at (or, after retention, beyond) its first
// offset there, but not an earlier instance's run below it, which gets that
// instance's outcome (decision 44). Where the current instance recorded
// nothing, it owns a run that starts after the last finished instance's.
func TestOrphanOutcome(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	out, other := tp("out-0"), tp("out-1")
	h.begin(t, "done")
	h.send(t, "done", out, "d") // out-0@0, COMMIT@1
	h.commit(t, "done")
	h.begin(t, "live")
	h.send(t, "live", out, "l") // out-0@2
	h.begin(t, "again")
	h.send(t, "again", other, "a1") // out-1@0, COMMIT@1
	h.commit(t, "again")
	h.begin(t, "again") // its second instance has written nothing
	h.begin(t, "gone")
	h.send(t, "gone", other, "g1") // out-1@2, ABORT@3
	h.abort(t, "gone")
	h.begin(t, "gone")
	for _, c := range []struct {
		tp      topic.Partition
		run     Run
		outcome record.ControlType
		ok      bool
	}{
		{out, Run{ID: "done", First: 0, Marker: -1}, record.Commit, true},
		{out, Run{ID: "done", First: 5, Marker: -1}, record.Abort, true},
		{other, Run{ID: "done", First: 0, Marker: -1}, record.Abort, true},
		{out, Run{ID: "ghost", First: 3, Marker: -1}, record.Abort, true},
		{out, Run{ID: "ghost", First: 3, Marker: 4, Outcome: record.Commit}, record.NoControl, false},
		{out, Run{ID: "live", First: 2, Marker: -1}, record.NoControl, false},
		{out, Run{ID: "live", First: 4, Marker: -1}, record.NoControl, false},
		{out, Run{ID: "live", First: 1, Marker: -1}, record.Abort, true},
		{other, Run{ID: "live", First: 0, Marker: -1}, record.NoControl, false}, // unrecorded: the journal lost its line
		{other, Run{ID: "again", First: 0, Marker: -1}, record.Commit, true},    // instance 1 committed; its marker was lost
		{other, Run{ID: "again", First: 4, Marker: -1}, record.NoControl, false},
		{out, Run{ID: "again", First: 0, Marker: -1}, record.NoControl, false},
		{other, Run{ID: "gone", First: 2, Marker: -1}, record.Abort, true}, // instance 1 aborted
		{other, Run{ID: "gone", First: 1, Marker: -1}, record.Abort, true},
		{other, Run{ID: "gone", First: 5, Marker: -1}, record.NoControl, false},
	} {
		if outcome, ok := h.m.OrphanOutcome(c.tp, c.run); outcome != c.outcome || ok != c.ok {
			t.Errorf("%s %+v: %v %v, want %v %v", c.tp, c.run, outcome, ok, c.outcome, c.ok)
		}
	}
	// The finished runs are rebuilt from the journal's lines at open.
	before := maps.Clone(h.m.finished)
	if len(before) != 2 {
		t.Fatalf("finished runs %+v, want those of again and gone", before)
	}
	h.reopen(t)
	if !reflect.DeepEqual(h.m.finished, before) {
		t.Fatalf("finished runs after reopen %+v, want %+v", h.m.finished, before)
	}
}

// Decision 44 at recovery: instance 1 of "a" aborted, but its ABORT marker
// in out-0 was lost; instance 2 wrote out-1 and is PREPARE_COMMIT when the
// coordinator restarts. Recovery asks for instance 2's marker on out-1 only
// and gives instance 1's run in out-0 an ABORT marker of its own: the run is
// not adopted into instance 2, whose COMMIT would have committed it.
func TestRecoveryLeavesAnEarlierInstancesRunToItsOwnMarker(t *testing.T) {
	h := newHarness(t)
	out, other := tp("out-0"), tp("out-1")
	h.begin(t, "a")
	h.send(t, "a", out, "x1")
	h.abort(t, "a")
	h.log(out).truncate(1) // the ABORT marker is lost
	h.begin(t, "a")
	h.send(t, "a", other, "y2")
	if _, err := h.m.PrepareCommit("a"); err != nil {
		t.Fatal(err)
	}
	if need := h.m.Need(out, h.log(out).idx.UnstableRuns(h.log(out).hw), "a"); need.Found {
		t.Fatalf("instance 2 needs %+v in out-0, where it never wrote", need)
	}
	h.reopen(t)
	want := []RecoveryAction{{ID: "a", Found: PrepareCommit, State: PrepareCommit, Markers: []topic.Partition{other}}}
	if !reflect.DeepEqual(h.lastRec.Actions, want) {
		t.Fatalf("actions %+v, want %+v", h.lastRec.Actions, want)
	}
	wantOrphans := []OrphanMarker{{Partition: out, ID: "a", First: 0, Outcome: record.Abort}}
	if !reflect.DeepEqual(h.lastRec.Orphans, wantOrphans) {
		t.Fatalf("orphans %+v, want %+v", h.lastRec.Orphans, wantOrphans)
	}
	if e, _ := h.m.Get("a"); !reflect.DeepEqual(e.Partitions, []topic.Partition{other}) {
		t.Fatalf("instance 2's partitions %v", e.Partitions)
	}
	h.finishRecovery(t)
	if got := h.readCommitted(out); len(got) != 0 {
		t.Fatalf("out-0 %v: instance 1 aborted", got)
	}
	if got := h.readCommitted(other); !reflect.DeepEqual(got, sl("y2")) {
		t.Fatalf("out-1 %v", got)
	}
	h.checkLSO(t)
}

// RecordSend's startsRun: the first offset of a partition is the first
// offset of the instance's run there. A later batch of the same run leaves
// it; a batch that starts a new run (the earlier one was cut off by a
// truncation) moves it, journaled, so the instance still owns its run.
func TestRecordSendMovesTheFirstOffsetToANewRun(t *testing.T) {
	h := newHarness(t)
	out := tp("out-0")
	h.begin(t, "a")
	first := func() int64 {
		e, _ := h.m.Get("a")
		return e.FirstOffsets[out]
	}
	for _, c := range []struct {
		base      int64
		startsRun bool
		want      int64
	}{
		{5, true, 5},  // the first batch
		{6, false, 5}, // a later batch of the same run
		{5, true, 5},  // nothing moves
		{3, true, 3},  // the run at 5 was cut off; a new one starts at 3
	} {
		if err := h.m.RecordSend("a", out, c.base, c.startsRun); err != nil {
			t.Fatal(err)
		}
		if got := first(); got != c.want {
			t.Fatalf("after a batch at %d (starts a run: %v): first offset %d, want %d", c.base, c.startsRun, got, c.want)
		}
	}
	if got := states(t, h); !reflect.DeepEqual(got, sl("a:ongoing", "a:ongoing", "a:ongoing")) {
		t.Fatalf("journal %v: one line for the begin, one per first offset", got)
	}
	h.reopen(t)
	if got := h.lastRec.Actions; len(got) != 1 || got[0].State != CompleteAbort {
		t.Fatalf("recovery %+v", got)
	}
}

// E4 fixed (decision 14): reusing an id never changes older batches.
func TestE4IDReuseKeepsOldVisibility(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	out := tp("out-0")
	h.begin(t, "t1")
	h.send(t, "t1", out, "t1-first")
	h.commit(t, "t1")
	h.begin(t, "t1") // (a) the new t1 must not hide the old committed record
	h.send(t, "t1", out, "t1-second")
	h.log(out).replicate()
	if got := h.log(out).readCommitted(h.log(out).hw); !reflect.DeepEqual(got, sl("t1-first")) {
		t.Fatalf("while t1 is ongoing, below the HW: %v", got)
	}
	h.abort(t, "t1")
	if got := h.readCommitted(out); !reflect.DeepEqual(got, sl("t1-first")) {
		t.Fatalf("after the new t1 aborted: %v", got)
	}
	h.begin(t, "t2") // (b) the new t2 must not reveal the old aborted record
	h.send(t, "t2", out, "t2-aborted")
	h.abort(t, "t2")
	h.begin(t, "t2")
	h.send(t, "t2", out, "t2-committed")
	h.commit(t, "t2")
	if got := h.readCommitted(out); !reflect.DeepEqual(got, sl("t1-first", "t2-committed")) {
		t.Fatalf("after t2 reuse: %v", got)
	}
	h.reopen(t)
	if got := h.readCommitted(out); !reflect.DeepEqual(got, sl("t1-first", "t2-committed")) {
		t.Fatalf("after reopen: %v", got)
	}
}

// Decision 16: send_offsets requires ONGOING; a PREPARE_* transaction accepts
// a retry of the same outcome, not the other one.
func TestDecision16StateRules(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	out := tp("out-0")
	wantCode(t, h.m.SendOffsets("nope", "g", group.Offsets{}), kerr.IllegalState)
	h.begin(t, "tx")
	wantCode(t, h.m.Begin("tx"), kerr.IllegalState)
	if kerr.MessageOf(h.m.Begin("tx")) != "transaction tx is active" {
		t.Fatalf("message %q", kerr.MessageOf(h.m.Begin("tx")))
	}
	h.send(t, "tx", out, "v")
	if _, err := h.m.PrepareCommit("tx"); err != nil {
		t.Fatal(err)
	}
	err := h.m.SendOffsets("tx", "g", group.Offsets{tp("in-0"): 1})
	wantCode(t, err, kerr.IllegalState)
	if kerr.MessageOf(err) != "transaction tx is prepare_commit" {
		t.Fatalf("message %q", kerr.MessageOf(err))
	}
	wantCode(t, h.m.RecordSend("tx", out, 5, false), kerr.IllegalState)
	_, err = h.m.PrepareAbort("tx")
	wantCode(t, err, kerr.IllegalState)
	wantCode(t, h.m.CompleteAbort("tx"), kerr.IllegalState)
	wantCode(t, h.m.Begin("tx"), kerr.IllegalState)
	// The marker write failed; the retry asks for the same partitions.
	parts, err := h.m.PrepareCommit("tx")
	if err != nil || !reflect.DeepEqual(parts, []topic.Partition{out}) {
		t.Fatalf("retry %v %v", parts, err)
	}
	h.commit(t, "tx")
	_, err = h.m.PrepareCommit("tx")
	wantCode(t, err, kerr.IllegalState)
	wantCode(t, h.m.CompleteCommit("tx"), kerr.IllegalState)
	wantCode(t, h.m.SendOffsets("tx", "g", group.Offsets{tp("in-0"): 1}), kerr.IllegalState)
	got := states(t, h)
	if got[len(got)-2] != "tx:prepare_commit" || got[len(got)-1] != "tx:complete_commit" || len(got) != 4 {
		t.Fatalf("journal %v (a retry journals nothing)", got)
	}
}

func TestArgumentErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	wantCode(t, h.m.Begin(""), kerr.InvalidArgument)
	wantCode(t, h.m.Begin("bad\xff"), kerr.InvalidArgument)
	wantCode(t, h.m.Begin(strings.Repeat("x", 1<<16)), kerr.InvalidArgument)
	h.begin(t, "tx")
	err := h.m.SendOffsets("tx", "g", group.Offsets{tp("in-0"): 1, tp("in-1"): -1})
	wantCode(t, err, kerr.InvalidArgument)
	if kerr.MessageOf(err) != "committed offsets cannot be negative" {
		t.Fatalf("message %q", kerr.MessageOf(err))
	}
	wantCode(t, h.m.SendOffsets("tx", "", group.Offsets{}), kerr.InvalidArgument)
	wantCode(t, h.m.RecordSend("tx", tp("out-0"), -1, false), kerr.InvalidArgument)
	if e, _ := h.m.Get("tx"); len(e.StagedOffsets) != 0 || len(e.Partitions) != 0 {
		t.Fatalf("bad input changed the transaction: %+v", e)
	}
}

// An operation that names no transaction (an empty id) is an argument
// error, never "transaction  has not begun"; it journals nothing.
func TestEmptyTransactionIDIsAnArgumentError(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.begin(t, "tx")
	before := states(t, h)
	_, commitErr := h.m.PrepareCommit("")
	_, abortErr := h.m.PrepareAbort("")
	for name, err := range map[string]error{
		"begin":           h.m.Begin(""),
		"record send":     h.m.RecordSend("", tp("out-0"), 0, false),
		"send offsets":    h.m.SendOffsets("", "g", group.Offsets{tp("in-0"): 1}),
		"prepare commit":  commitErr,
		"prepare abort":   abortErr,
		"complete commit": h.m.CompleteCommit(""),
		"complete abort":  h.m.CompleteAbort(""),
	} {
		wantCode(t, err, kerr.InvalidArgument)
		if msg := kerr.MessageOf(err); msg != "transaction id must be a non-empty UTF-8 string of at most 65535 bytes" {
			t.Fatalf("%s: message %q", name, msg)
		}
	}
	if after := states(t, h); len(after) != len(before) {
		t.Fatalf("journal %v, was %v", after, before)
	}
}

// A journal that cannot be written changes nothing in memory.
func TestJournalFailureChangesNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.begin(t, "tx")
	if err := h.m.journal.f.Close(); err != nil { // make the next write fail
		t.Fatal(err)
	}
	err := h.m.SendOffsets("tx", "g", group.Offsets{tp("in-0"): 1})
	if !errors.Is(err, kerr.StorageError) {
		t.Fatalf("got %v", err)
	}
	if e, _ := h.m.Get("tx"); len(e.StagedOffsets) != 0 {
		t.Fatal("memory changed although the journal write failed")
	}
}

// An offset store failure at completion leaves the transaction prepared, and
// completion can be retried.
type failingStore struct{ fail bool }

func (f *failingStore) CommitMany(map[string]group.Offsets) error {
	if f.fail {
		return kerr.New(kerr.StorageError, "disk failed")
	}
	return nil
}

func TestCompleteCommitRetriesAfterOffsetStoreFailure(t *testing.T) {
	t.Parallel()
	fs := &failingStore{fail: true}
	m, _, err := Open(vfs.NewMem(), JournalFileName, fs)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.Begin("tx"); err != nil {
		t.Fatal(err)
	}
	if err := m.SendOffsets("tx", "g", group.Offsets{tp("in-0"): 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.PrepareCommit("tx"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, m.CompleteCommit("tx"), kerr.StorageError)
	if e, _ := m.Get("tx"); e.State != PrepareCommit {
		t.Fatalf("state %v", e.State)
	}
	fs.fail = false
	if err := m.CompleteCommit("tx"); err != nil {
		t.Fatal(err)
	}
}

// Coordinator and index views agree: each partition's open runs are exactly
// the ONGOING transactions' first offsets there.
func TestCoordinatorAndIndexAgree(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	a, b := tp("out-0"), tp("out-1")
	h.begin(t, "x")
	h.begin(t, "y")
	h.send(t, "x", a, "x1")
	h.send(t, "y", a, "y1")
	h.send(t, "x", a, "x2")
	h.send(t, "y", b, "y2")
	for _, p := range []topic.Partition{a, b} {
		first, ok := h.m.FirstUnstableOffset(p)
		idxFirst, idxOK := h.log(p).idx.FirstUnstable(h.log(p).hw)
		if ok != idxOK || first != idxFirst {
			t.Fatalf("%s: coordinator %d %v, index %d %v", p, first, ok, idxFirst, idxOK)
		}
	}
	if ex, _ := h.m.Get("x"); ex.FirstOffsets[a] != 0 || len(ex.Partitions) != 1 {
		t.Fatalf("x %+v", ex)
	}
	h.commit(t, "x")
	if f, _ := h.m.FirstUnstableOffset(a); f != 1 {
		t.Fatalf("after x commits: %d", f)
	}
	if h.lso(a) != 1 {
		t.Fatalf("LSO %d", h.lso(a))
	}
	h.checkLSO(t)
}

func TestDescribeAndList(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.begin(t, "b")
	h.begin(t, "a")
	h.send(t, "a", tp("out-1"), "v")
	h.send(t, "a", tp("out-0"), "v")
	if err := h.m.SendOffsets("a", "g2", group.Offsets{tp("in-1"): 2, tp("in-0"): 1}); err != nil {
		t.Fatal(err)
	}
	if err := h.m.SendOffsets("a", "g1", group.Offsets{tp("in-0"): 5}); err != nil {
		t.Fatal(err)
	}
	list := h.m.List()
	if len(list) != 2 || list[0].ID != "a" || list[1].ID != "b" {
		t.Fatalf("list %+v", list)
	}
	want := Description{
		ID: "a", State: Ongoing,
		Partitions:    []topic.Partition{tp("out-0"), tp("out-1")},
		FirstOffsets:  []PartitionOffset{{tp("out-0"), 0}, {tp("out-1"), 0}},
		StagedOffsets: []StagedOffset{{"g1", tp("in-0"), 5}, {"g2", tp("in-0"), 1}, {"g2", tp("in-1"), 2}},
	}
	if !reflect.DeepEqual(list[0], want) {
		t.Fatalf("a %+v", list[0])
	}
	if list[1].State.KafkaName() != "Ongoing" || len(list[1].Partitions) != 0 {
		t.Fatalf("b %+v", list[1])
	}
	if _, ok := h.m.Describe("zz"); ok {
		t.Fatal("unknown id described")
	}
}
