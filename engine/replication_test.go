package engine_test

import (
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/producer"
	"github.com/minikafka-lab/minikafka/engine/record"
)

var two = []int32{1, 2}

// RP1: a follower copies whole batches.
func TestFollowerCopiesBatchesRP1(t *testing.T) {
	t.Parallel()
	f := open(t, two, nil)
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	f.append(p0, batchOf("a", "b"), engine.Acks1)
	rep := f.replicate(&p0)
	if f.leo(p0, 2) != 2 {
		t.Fatal("follower LEO")
	}
	wantStrings(t, "follower log", f.replicaValues(p0, 2), []string{"a", "b"})
	fol := rep.Partitions[0].Followers[0]
	if fol.Broker != 2 || fol.FromLEO != 0 || fol.ToLEO != 2 || fol.Batches != 1 || fol.Bytes != 98 {
		t.Fatalf("report %+v", fol)
	}
	evs := f.c.TakeEvents()
	wantStrings(t, "events", eventKinds(evs), []string{"follower_fetched", "hw_moved"})
	if evs[0].String() != "t-0 follower 2 copied offsets 0..1 (1 batch, 98 bytes), LEO 0 -> 2" {
		t.Fatalf("event %q", evs[0])
	}
	// The follower's bytes are the leader's bytes.
	ll, _ := f.c.ReplicaLog(p0, 1)
	fl, _ := f.c.ReplicaLog(p0, 2)
	lb, _ := ll.ReadBatches(0, 1<<20, -1)
	fb, _ := fl.ReadBatches(0, 1<<20, -1)
	if string(lb[0].Frame) != string(fb[0].Frame) {
		t.Fatal("the follower re-encoded the batch")
	}
}

// RP2: replicating everything pumps every partition.
func TestReplicateAllRP2(t *testing.T) {
	t.Parallel()
	f := open(t, two, nil)
	f.topic("events", 2, 2)
	p := f.producer(func(o *producer.Options) { o.BatchSize = 1 })
	f.send(p, "events", 0, rec("a"))
	f.send(p, "events", 1, rec("b"))
	f.replicate(nil)
	if f.leo(tp("events", 0), 2) != 1 || f.leo(tp("events", 1), 1) != 1 {
		t.Fatal("both partitions replicate")
	}
}

// RP3, RP5: the HW is the minimum ISR LEO; one replica advances it at once.
func TestHighWatermarkRP3RP5(t *testing.T) {
	t.Parallel()
	f := open(t, two, nil)
	f.topic("t", 1, 2)
	f.topic("single", 1, 1)
	p0 := tp("t", 0)
	res := f.append(p0, batchOf("x"), engine.Acks1).Value()
	if res.NextOffset != 1 || f.leo(p0, 1) != 1 || f.hw(p0) != 0 {
		t.Fatalf("before replication: %+v HW %d", res, f.hw(p0))
	}
	f.replicate(nil)
	if f.hw(p0) != 1 {
		t.Fatal("after replication")
	}
	f.append(tp("single", 0), batchOf("x"), engine.Acks1)
	if f.hw(tp("single", 0)) != 1 {
		t.Fatal("a single replica's HW follows its LEO")
	}
}

// RP4: nothing above the HW is readable, for either isolation level.
func TestNoReadAboveHWRP4(t *testing.T) {
	t.Parallel()
	f := open(t, two, nil)
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	f.append(p0, batchOf("hidden"), engine.Acks1)
	for _, iso := range []engine.Isolation{engine.ReadCommitted, engine.ReadUncommitted} {
		if got := f.values(p0, iso); len(got) != 0 {
			t.Fatalf("%s before replication: %v", iso, got)
		}
	}
	recs, err := f.c.Fetch(p0, 1, 10, engine.ReadUncommitted) // HW < offset <= LEO: empty, no error
	if err != nil || len(recs) != 0 {
		t.Fatalf("fetch at the LEO: %v %v", recs, err)
	}
	f.replicate(nil)
	wantStrings(t, "after", f.values(p0, engine.ReadCommitted), []string{"hidden"})
	if lso, _ := f.c.LastStableOffset(p0); lso != 1 || f.state(p0).LSO != 1 {
		t.Fatal("LSO is the HW without transactions")
	}
}

// RP6: the offset-lag rule, out and back in.
func TestOffsetLagRP6(t *testing.T) {
	t.Parallel()
	f := open(t, two, func(c *engine.Config) { c.ReplicaLagMaxOffsets = 0 })
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	f.append(p0, batchOf("x"), engine.Acks1)
	f.c.RefreshISR(p0)
	wantInts(t, "ISR", f.isr(p0), []int32{1})
	evs := f.c.TakeEvents()
	if evs[0].String() != "t-0 ISR shrank: broker 2 removed (1 offset behind > replica.lag.max.offsets=0); ISR [1]" {
		t.Fatalf("event %q", evs[0])
	}
	f.replicate(nil)
	wantInts(t, "ISR", f.isr(p0), []int32{1, 2})
}

// RP7: the time-lag rule; exactly replica.lag.time.max.ms stays in sync.
func TestTimeLagRP7(t *testing.T) {
	t.Parallel()
	f := open(t, two, func(c *engine.Config) { c.ReplicaLagTimeMaxMs = 100 })
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	f.advance(100)
	wantInts(t, "ISR at 100 ms", f.isr(p0), []int32{1, 2})
	f.advance(1)
	wantInts(t, "ISR at 101 ms", f.isr(p0), []int32{1})
}

// RP8: acks=all waits for the follower.
func TestAcksAllWaitsRP8(t *testing.T) {
	t.Parallel()
	f := open(t, two, func(c *engine.Config) { c.MinInsyncReplicas = 2 })
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	a := f.append(p0, batchOf("x"), engine.AcksAll)
	if a.State() != engine.Pending || len(f.c.PendingAcks()) != 1 || f.state(p0).PendingAcks[0] != a.ID() {
		t.Fatal("pending")
	}
	f.c.TakeEvents()
	f.replicate(nil)
	if a.State() != engine.Done || a.Value().NextOffset != 1 || len(f.c.PendingAcks()) != 0 {
		t.Fatalf("%v %+v", a.State(), a.Value())
	}
	evs := f.c.TakeEvents()
	wantStrings(t, "events", eventKinds(evs), []string{"follower_fetched", "hw_moved", "ack_resolved"})
	if evs[2].String() != "ack #1 (append) t-0 done: offset 0" {
		t.Fatalf("%q", evs[2])
	}
}

// RP9: NOT_ENOUGH_REPLICAS before the append; nothing written.
func TestNotEnoughReplicasRP9(t *testing.T) {
	t.Parallel()
	f := open(t, two, func(c *engine.Config) { c.MinInsyncReplicas = 2 })
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	f.c.RemoveFromISR(p0, 2)
	_, err := f.c.AppendBatch(p0, batchOf("x"), engine.AcksAll)
	wantCode(t, err, kerr.NotEnoughReplicas, "ISR [1] has 1, below min.insync.replicas=2")
	if f.leo(p0, 1) != 0 {
		t.Fatal("appended")
	}
	// acks 0 and 1 ignore min.insync.replicas.
	f.append(p0, batchOf("x"), engine.Acks1)
}

// RP10: NOT_ENOUGH_REPLICAS_AFTER_APPEND once appended.
func TestNotEnoughReplicasAfterAppendRP10(t *testing.T) {
	t.Parallel()
	f := open(t, two, func(c *engine.Config) { c.MinInsyncReplicas = 2 })
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	a := f.append(p0, batchOf("x"), engine.AcksAll)
	f.c.RemoveFromISR(p0, 2)
	wantCode(t, a.Err(), kerr.NotEnoughReplicasAfterAppend, "")
	if f.leo(p0, 1) != 1 {
		t.Fatal("the batch is in the leader log")
	}
}

// §9.4: the captured ISR does not shrink: a follower removed after the
// append still has to catch up (3 brokers, min ISR 1).
func TestCapturedISRDoesNotShrink(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2, 3}, nil)
	f.topic("t", 1, 3)
	p0 := tp("t", 0)
	a := f.append(p0, batchOf("x"), engine.AcksAll)
	f.c.RemoveFromISR(p0, 3)
	if a.Settled() {
		t.Fatal("resolved without broker 3")
	}
	f.replicate(nil)
	if a.State() != engine.Done {
		t.Fatal("the next round resolves it")
	}
}

// RP12, §10.6: an acks=1 write acknowledged at offset 0 is lost when the
// follower that never fetched it is promoted.
func TestAcknowledgedWriteLossRP12(t *testing.T) {
	t.Parallel()
	f := open(t, two, nil)
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	p := f.producer(func(o *producer.Options) { o.BatchSize = 1 })
	md := f.send(p, "t", engine.AnyPartition, rec("at-risk")).Value()
	if md.Offset != 0 || f.leo(p0, 1) != 1 || f.leo(p0, 2) != 0 || f.hw(p0) != 0 {
		t.Fatalf("%+v", md)
	}
	if err := f.c.Promote(p0, 2); err != nil {
		t.Fatal(err)
	}
	l, _ := f.c.LeaderLog(p0)
	if l.LEO() != 0 || len(f.values(p0, engine.ReadUncommitted)) != 0 {
		t.Fatal("the record survived")
	}
}

// §16.1 and its counterpart: the same story with acks=all and
// min.insync.replicas=2 never loses the record.
func TestLeaderFailureLabWithAcksAll(t *testing.T) {
	t.Parallel()
	f := open(t, two, func(c *engine.Config) { c.MinInsyncReplicas = 2 })
	f.topic("payments", 1, 2)
	p0 := tp("payments", 0)
	p := f.producer(func(o *producer.Options) { o.BatchSize, o.Acks = 1, engine.AcksAll })
	fut := f.send(p, "payments", engine.AnyPartition, rec("payment-confirmed"))
	if fut.Settled() {
		t.Fatal("acknowledged before the follower had it")
	}
	f.replicate(nil)
	if fut.Value().Offset != 0 || f.hw(p0) != 1 {
		t.Fatalf("%+v", fut.Value())
	}
	if err := f.c.CrashBroker(1, false); err != nil {
		t.Fatal(err)
	}
	if err := f.c.Promote(p0, 2); err != nil {
		t.Fatal(err)
	}
	wantStrings(t, "after failover", f.values(p0, engine.ReadUncommitted), []string{"payment-confirmed"})
}

// RP13, RP14: only ISR members can be promoted; the HW gate keeps a
// truncated follower out.
func TestPromotionNeedsISRRP13RP14(t *testing.T) {
	t.Parallel()
	f := open(t, two, nil)
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	f.c.RemoveFromISR(p0, 2)
	wantCode(t, f.c.Promote(p0, 2), kerr.NotInSyncReplica, "broker 2 is not in the ISR")

	g := open(t, two, func(c *engine.Config) { c.ReplicaLagMaxOffsets = 10 })
	g.topic("t", 1, 2)
	g.append(p0, batchOf("x"), engine.Acks1)
	g.replicate(nil)
	g.c.RemoveFromISR(p0, 2)
	l, _ := g.c.ReplicaLog(p0, 2)
	if err := l.TruncateTo(0); err != nil {
		t.Fatal(err)
	}
	g.c.RefreshISR(p0)
	wantInts(t, "ISR", g.isr(p0), []int32{1})
	wantCode(t, g.c.Promote(p0, 2), kerr.NotInSyncReplica, "")
}

// RP15, RP16: promotion bumps the epoch, fences stale appends, and survives a
// restart.
func TestPromotionEpochRP15RP16(t *testing.T) {
	t.Parallel()
	f := open(t, two, nil)
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	if err := f.c.Promote(p0, 2); err != nil {
		t.Fatal(err)
	}
	st := f.state(p0)
	if st.Leader != 2 || st.LeaderEpoch != 1 {
		t.Fatalf("%+v", st)
	}
	stale := batchOf("x")
	stale.LeaderEpoch = 0
	_, err := f.c.AppendBatch(p0, stale, engine.Acks1)
	wantCode(t, err, kerr.FencedLeaderEpoch, "leader epoch 0 does not match 1")
	current := batchOf("y")
	current.LeaderEpoch = 1
	res := f.append(p0, current, engine.Acks1).Value()
	if res.LeaderEpoch != 1 || f.leo(p0, 2) != 1 {
		t.Fatalf("%+v", res)
	}
	f.restart()
	pm, _ := f.c.PartitionMetadata(p0)
	if pm.Leader != 2 || pm.LeaderEpoch != 1 || f.state(p0).Leader != 2 {
		t.Fatalf("after restart %+v", pm)
	}
}

// RP17: a divergent tail is truncated by rejoin, then the old leader
// catches up.
func TestDivergentTailRejoinRP17(t *testing.T) {
	t.Parallel()
	f := open(t, two, func(c *engine.Config) { c.MinInsyncReplicas = 2 })
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	f.append(p0, batchOf("committed"), engine.AcksAll)
	f.replicate(nil)
	f.append(p0, batchOf("leader-only"), engine.Acks1)
	if err := f.c.Promote(p0, 2); err != nil {
		t.Fatal(err)
	}
	if f.hw(p0) != 1 || f.leo(p0, 1) != 2 {
		t.Fatal("after promotion")
	}
	if err := f.c.Rejoin(p0, 1); err != nil {
		t.Fatal(err)
	}
	if f.leo(p0, 1) != 1 {
		t.Fatal("rejoin truncates")
	}
	f.append(p0, batchOf("new"), engine.Acks1)
	f.replicate(nil)
	if f.leo(p0, 1) != f.leo(p0, 2) {
		t.Fatal("caught up")
	}
	wantStrings(t, "old leader", f.replicaValues(p0, 1), []string{"committed", "new"})
}

// E3, decision 7: without a rejoin, the old leader is marked diverged at the
// promotion and truncates before it fetches again, so it never re-enters the
// ISR with different bytes at the same offsets.
func TestDivergedOldLeaderE3(t *testing.T) {
	t.Parallel()
	f := open(t, two, func(c *engine.Config) { c.MinInsyncReplicas = 2 })
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	f.append(p0, batchOf("committed"), engine.AcksAll)
	f.replicate(nil)
	f.append(p0, batchOf("old-leader-only"), engine.Acks1)
	f.c.TakeEvents()
	if err := f.c.Promote(p0, 2); err != nil {
		t.Fatal(err)
	}
	evs := f.c.TakeEvents()
	wantStrings(t, "promotion events", eventKinds(evs), []string{"leader_changed", "isr_shrank", "replica_diverged"})
	if evs[2].String() != "t-0 broker 1 marked diverged: LEO 2 > HW 1 at leader epoch 1; it truncates to HW before its next fetch" {
		t.Fatalf("%q", evs[2])
	}
	f.append(p0, batchOf("new-leader"), engine.Acks1) // both LEOs are 2 now
	f.c.RefreshISR(p0)
	wantInts(t, "ISR before the fetch", f.isr(p0), []int32{2})
	f.replicate(nil)
	wantInts(t, "ISR after the fetch", f.isr(p0), []int32{1, 2})
	wantStrings(t, "old leader", f.replicaValues(p0, 1), []string{"committed", "new-leader"})
	if f.state(p0).Replicas[0].Diverged {
		t.Fatal("still diverged")
	}
}

// Decision 13: promoting the current leader bumps the epoch and resets the
// ISR; its own tail above the HW is cut.
func TestPromoteCurrentLeaderDecision13(t *testing.T) {
	t.Parallel()
	f := open(t, two, nil)
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	f.append(p0, batchOf("a"), engine.Acks1)
	if err := f.c.Promote(p0, 1); err != nil {
		t.Fatal(err)
	}
	st := f.state(p0)
	if st.Leader != 1 || st.LeaderEpoch != 1 || len(st.ISR) != 1 || st.LEO != 0 {
		t.Fatalf("%+v", st)
	}
}

// A promotion fails every pending acks=all waiter with FENCED_LEADER_EPOCH.
func TestPromotionFailsWaiters(t *testing.T) {
	t.Parallel()
	f := open(t, two, nil)
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	a := f.append(p0, batchOf("x"), engine.AcksAll)
	f.c.Promote(p0, 1)
	wantCode(t, a.Err(), kerr.FencedLeaderEpoch, "leader changed before acknowledgement")
}

// Decision 12: a follower ahead of the leader is not in sync until it has
// truncated; the next fetch truncates it to the HW.
func TestFollowerAheadDecision12(t *testing.T) {
	t.Parallel()
	f := open(t, two, nil)
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	f.append(p0, batchOf("a"), engine.Acks1)
	f.replicate(nil)
	// Give the follower a batch the leader does not have.
	extra, _ := batchOf("stray").Assign(1, 0)
	frame, _ := record.Encode(extra)
	fl, _ := f.c.ReplicaLog(p0, 2)
	if _, err := fl.AppendRaw(frame); err != nil {
		t.Fatal(err)
	}
	f.c.RefreshISR(p0)
	wantInts(t, "ISR", f.isr(p0), []int32{1})
	f.c.TakeEvents()
	f.replicate(nil)
	evs := f.c.TakeEvents()
	if len(evs) < 2 || evs[0].Kind() != "replica_truncated" || evs[1].Kind() != "isr_expanded" {
		t.Fatalf("events %v", evs)
	}
	if f.leo(p0, 2) != 1 {
		t.Fatal("truncated to the HW")
	}
	wantInts(t, "ISR", f.isr(p0), []int32{1, 2})
}

// Decision 11: a follower below the leader's log start resets to it. Here
// the leader's first segments are deleted while the cluster is closed, as
// retention would delete them.
func TestFollowerBelowLogStartDecision11(t *testing.T) {
	t.Parallel()
	f := open(t, two, func(c *engine.Config) { c.SegmentBytes = 100 })
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	for _, v := range []string{"a", "b", "c"} {
		f.append(p0, batchOf(v), engine.Acks1) // 75 bytes each: one segment per batch
	}
	ll, _ := f.c.ReplicaLog(p0, 1)
	segs := ll.Segments()
	if len(segs) != 3 {
		t.Fatalf("segments %+v", segs)
	}
	f.c.Close()
	for _, s := range segs[:2] {
		f.removeFile(s.LogPath)
		f.removeFile(s.IndexPath)
	}
	f.reopen()
	if st := f.state(p0); st.LogStart != 2 || st.HW != 0 {
		t.Fatalf("after reopen %+v", st)
	}
	f.c.TakeEvents()
	rep := f.replicate(nil)
	fol := rep.Partitions[0].Followers[0]
	if fol.Reset == nil || fol.Reset.From != 0 || fol.Reset.To != 2 || fol.ToLEO != 3 {
		t.Fatalf("report %+v", fol)
	}
	evs := f.c.TakeEvents()
	if evs[0].String() != "t-0 follower 2 reset: LEO 0 is below the leader's log start 2, so its log now starts at 2" {
		t.Fatalf("%q", evs[0])
	}
	wantStrings(t, "follower", f.replicaValues(p0, 2), []string{"c"})
	if st := f.state(p0); st.HW != 3 || st.Replicas[1].LogStart != 2 {
		t.Fatalf("%+v", st)
	}
}

// replica.fetch.max.bytes limits one fetch, but the first batch is always
// copied.
func TestReplicaFetchMaxBytes(t *testing.T) {
	t.Parallel()
	f := open(t, two, func(c *engine.Config) { c.ReplicaFetchMaxBytes = 100 })
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	f.append(p0, batchOf("0123456789012345678901234567890123456789"), engine.Acks1) // 114 bytes
	f.append(p0, batchOf("a"), engine.Acks1)
	f.append(p0, batchOf("b"), engine.Acks1)
	f.replicate(nil)
	if f.leo(p0, 2) != 1 {
		t.Fatal("an oversized first batch is still copied, alone")
	}
	f.replicate(nil)
	if f.leo(p0, 2) != 2 {
		t.Fatal("75 + 75 > 100: one batch per fetch")
	}
}

// Replicating one follower leaves the others alone.
func TestReplicateOneFollower(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2, 3}, nil)
	f.topic("t", 1, 3)
	p0 := tp("t", 0)
	f.append(p0, batchOf("x"), engine.Acks1)
	if _, err := f.c.Replicate(&p0, 3); err != nil {
		t.Fatal(err)
	}
	if f.leo(p0, 3) != 1 || f.leo(p0, 2) != 0 || f.hw(p0) != 0 {
		t.Fatal("only follower 3 fetched")
	}
	if _, err := f.c.Replicate(nil, 2); err != nil {
		t.Fatal(err)
	}
	if f.hw(p0) != 1 {
		t.Fatal("HW")
	}
}

// Tutorial Ch.5 and Ch.6 landmarks (§9.4, §10.1).
func TestTutorialLandmarks(t *testing.T) {
	t.Parallel()
	f := open(t, two, func(c *engine.Config) { c.MinInsyncReplicas = 2; c.ReplicaLagMaxOffsets = 0 })
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	wantInts(t, "initial ISR", f.isr(p0), []int32{1, 2})
	f.append(p0, batchOf("a"), engine.Acks1)
	f.c.RefreshISR(p0)
	wantInts(t, "after leader-only append", f.isr(p0), []int32{1})
	_, err := f.c.AppendBatch(p0, batchOf("b"), engine.AcksAll)
	wantCode(t, err, kerr.NotEnoughReplicas, "")
	f.replicate(nil)
	wantInts(t, "after follower catch-up", f.isr(p0), []int32{1, 2})
	if f.hw(p0) != 1 {
		t.Fatal("HW 1")
	}
	f.c.Promote(p0, 2)
	if st := f.state(p0); st.Leader != 2 || st.LeaderEpoch != 1 {
		t.Fatal("promoted leader/epoch: 2 1")
	}
	stale := batchOf("c")
	stale.LeaderEpoch = 0
	_, err = f.c.AppendBatch(p0, stale, engine.Acks1)
	wantCode(t, err, kerr.FencedLeaderEpoch, "")
}

// F1, replication parts: an idempotent acks=all producer, replication, a
// promotion of the other replica, and a restart that keeps it.
func TestFinalAcceptanceF1Replication(t *testing.T) {
	t.Parallel()
	f := open(t, two, func(c *engine.Config) { c.MinInsyncReplicas = 2; c.SessionTimeoutMs = 10 })
	f.topic("orders", 2, 2)
	p := f.producer(func(o *producer.Options) { o.Idempotent, o.BatchSize = true, 1 })
	fut := f.send(p, "orders", engine.AnyPartition, keyed("user-42", "created"))
	f.replicate(nil)
	md := fut.Value()
	if fut.State() != engine.Done || md.Partition != 1 {
		t.Fatalf("%v %+v", fut.State(), md)
	}
	part := tp("orders", md.Partition)
	wantStrings(t, "visible", f.values(part, engine.ReadCommitted), []string{"created"})
	pm, _ := f.c.PartitionMetadata(part)
	other := pm.Replicas[0]
	if other == pm.Leader {
		other = pm.Replicas[1]
	}
	if err := f.c.Promote(part, other); err != nil {
		t.Fatal(err)
	}
	f.restart()
	if st := f.state(part); st.Leader != other || st.HW != 1 {
		t.Fatalf("after restart %+v", st)
	}
	wantStrings(t, "after restart", f.values(part, engine.ReadCommitted), []string{"created"})
}

// An acks=all write is acknowledged only once the HW covers it, not merely
// when its captured ISR has it: a broker that joined the ISR during the wait
// could otherwise be promoted and truncate an acknowledged record (the
// reference's rule has this hole; the rapid model checks the invariant).
func TestAcksAllWaitsForHWWhenTheISRGrows(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2, 3}, func(c *engine.Config) {
		c.MinInsyncReplicas, c.ReplicaLagTimeMaxMs, c.ReplicaFetchMaxBytes = 2, 100, 1
	})
	f.topic("t", 1, 3)
	p0 := tp("t", 0)
	f.c.CrashBroker(3, true)
	f.advance(60)
	f.c.Replicate(&p0, 2)
	f.advance(41)
	wantInts(t, "ISR", f.isr(p0), []int32{1, 2})
	f.append(p0, batchOf("a"), engine.Acks1)
	f.append(p0, batchOf("b"), engine.Acks1)
	f.c.Replicate(&p0, 2)
	f.c.Replicate(&p0, 2)
	if f.hw(p0) != 2 {
		t.Fatalf("HW %d", f.hw(p0))
	}
	ack := f.append(p0, batchOf("acked?"), engine.AcksAll) // captured ISR {1, 2}, target 3
	f.c.RestartBroker(3)
	f.c.Replicate(&p0, 3)
	f.c.Replicate(&p0, 3) // LEO 2 >= HW 2: broker 3 joins the ISR
	wantInts(t, "ISR", f.isr(p0), []int32{1, 2, 3})
	f.c.Replicate(&p0, 2) // the captured ISR has the batch; the HW does not cover it
	if ack.Settled() || f.hw(p0) != 2 {
		t.Fatalf("acknowledged at HW %d", f.hw(p0))
	}
	if err := f.c.Promote(p0, 3); err != nil {
		t.Fatal(err)
	}
	wantCode(t, ack.Err(), kerr.FencedLeaderEpoch, "")
}

// E2 (decision 8): after a restart with leader LEO 4 and follower LEO 3, the
// ISR is {leader} and the HW is 3 — the HW is recomputed from every replica,
// not checkpointed.
func TestRestartRecomputesISRAndHWE2(t *testing.T) {
	t.Parallel()
	f := open(t, two, nil)
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	for _, v := range []string{"a", "b", "c"} {
		f.append(p0, batchOf(v), engine.Acks1)
	}
	f.replicate(nil)
	f.append(p0, batchOf("d"), engine.Acks1)
	f.restart()
	st := f.state(p0)
	if st.LEO != 4 || st.HW != 3 {
		t.Fatalf("%+v", st)
	}
	wantInts(t, "ISR", st.ISR, []int32{1})
}
