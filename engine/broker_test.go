package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/storage"
)

// A crashed follower stays in the ISR until replica.lag.time.max.ms of
// clock time passes without a fetch; then the HW can move again.
func TestCrashedFollowerLeavesISRAfterLagTime(t *testing.T) {
	t.Parallel()
	f := open(t, two, func(c *engine.Config) { c.ReplicaLagTimeMaxMs = 100 })
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	if err := f.c.CrashBroker(2, false); err != nil {
		t.Fatal(err)
	}
	f.append(p0, batchOf("x"), engine.Acks1)
	f.replicate(nil) // the crashed follower does not fetch
	wantInts(t, "ISR right after the crash", f.isr(p0), []int32{1, 2})
	if f.hw(p0) != 0 {
		t.Fatal("the HW waits for the crashed ISR member")
	}
	st := f.state(p0)
	if st.Replicas[1].Up || !st.Replicas[1].InISR {
		t.Fatalf("%+v", st.Replicas[1])
	}
	f.advance(100)
	wantInts(t, "ISR at 100 ms", f.isr(p0), []int32{1, 2})
	f.c.TakeEvents()
	f.advance(1)
	wantInts(t, "ISR at 101 ms", f.isr(p0), []int32{1})
	evs := f.c.TakeEvents()
	wantStrings(t, "events", eventKinds(evs), []string{"isr_shrank", "hw_moved"})
	if !strings.Contains(evs[0].String(), "no fetch for 101 ms > replica.lag.time.max.ms=100") {
		t.Fatalf("%q", evs[0])
	}
	if f.hw(p0) != 1 {
		t.Fatal("HW after the shrink")
	}
	_, err := f.c.Replicate(&p0, 2)
	wantCode(t, err, kerr.BrokerNotAvailable, "broker 2 is down")
	_, err = f.c.ReplicaLog(p0, 2)
	wantCode(t, err, kerr.BrokerNotAvailable, "")
	bs, _ := f.c.Brokers()
	if len(bs) != 2 || bs[1].Up || !bs[0].Up || len(bs[0].LeaderOf) != 1 || len(bs[1].ReplicaOf) != 1 {
		t.Fatalf("brokers %+v", bs)
	}
	wantCode(t, f.c.CrashBroker(2, false), kerr.IllegalState, "already down")
}

// A crashed leader takes its partitions offline; produce and fetch are
// LEADER_NOT_AVAILABLE with the way out; promoting an in-sync replica fixes
// it; a crashed broker cannot be promoted.
func TestCrashedLeaderIsOfflineUntilPromotion(t *testing.T) {
	t.Parallel()
	f := open(t, two, nil)
	f.topic("events", 1, 2)
	p0 := tp("events", 0)
	f.append(p0, batchOf("a"), engine.Acks1)
	f.replicate(nil)
	pending := f.append(p0, batchOf("b"), engine.AcksAll)
	f.c.TakeEvents()
	if err := f.c.CrashBroker(1, false); err != nil {
		t.Fatal(err)
	}
	wantCode(t, pending.Err(), kerr.LeaderNotAvailable, "leader 1 of events-0 crashed before acknowledgement")
	evs := f.c.TakeEvents()
	first := evs[0] // the crash comes before the acks it fails
	if first.String() != "broker 1 crashed, dropping 150 unflushed bytes; offline until a promotion or a restart: events-0" {
		t.Fatalf("%q", first)
	}
	_, err := f.c.Produce("events", 0, rec("c"), engine.Acks1)
	wantCode(t, err, kerr.LeaderNotAvailable, "leader 1 of events-0 is down; promote an in-sync replica (promote events-0 2) or restart the broker (broker restart 1)")
	_, err = f.c.Fetch(p0, 0, 10, engine.ReadUncommitted)
	wantCode(t, err, kerr.LeaderNotAvailable, "")
	_, err = f.c.Replicate(&p0, engine.AllFollowers)
	wantCode(t, err, kerr.LeaderNotAvailable, "")
	rep, err := f.c.Replicate(nil, engine.AllFollowers)
	if err != nil || rep.Partitions[0].Skipped != "leader 1 is down" {
		t.Fatalf("replicate all: %+v %v", rep, err)
	}
	if f.state(p0).Online {
		t.Fatal("online")
	}
	wantCode(t, f.c.Promote(p0, 1), kerr.BrokerNotAvailable, "broker 1 is down")
	if err := f.c.Promote(p0, 2); err != nil {
		t.Fatal(err)
	}
	wantStrings(t, "after failover", f.values(p0, engine.ReadUncommitted), []string{"a"})
	res, err := f.c.Produce("events", 0, rec("c"), engine.Acks1)
	if err != nil || res.Value().BaseOffset != 1 {
		t.Fatalf("produce on the new leader: %v", err)
	}
	st := f.state(p0)
	if !st.Online || st.Leader != 2 || st.LeaderEpoch != 1 || !st.Replicas[0].Diverged {
		t.Fatalf("%+v", st)
	}
}

// Restart: real recovery (a torn tail is reported), a follower above the HW
// truncates, and catches up at the next Replicate.
func TestRestartRecoversTruncatesAndCatchesUp(t *testing.T) {
	t.Parallel()
	f := open(t, two, nil)
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	f.append(p0, batchOf("a"), engine.Acks1)
	f.replicate(nil)
	f.c.RunFlushCycle()                      // everything durable so far
	f.append(p0, batchOf("b"), engine.Acks1) // leader LEO 2
	f.c.Replicate(&p0, 2)                    // follower LEO 2, HW 2
	f.append(p0, batchOf("c"), engine.Acks1) // leader LEO 3
	f.c.Replicate(&p0, 2)                    // follower LEO 3, HW 3
	if f.hw(p0) != 3 {
		t.Fatalf("HW %d", f.hw(p0))
	}
	if err := f.c.CrashBroker(2, true); err != nil {
		t.Fatal(err)
	}
	// Tear the follower's tail on disk, as a torn write would.
	dir := f.path("broker-2", "t-0")
	seg := filepath.Join(dir, storage.SegmentFileName(0))
	fh, _ := f.fs().OpenFile(seg, os.O_WRONLY|os.O_APPEND, 0)
	fh.Write([]byte("MKB1\x00\x00\x00\x20partial"))
	fh.Close()
	f.append(p0, batchOf("d"), engine.Acks1)
	f.c.TakeEvents()
	rep, err := f.c.RestartBroker(2)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Replicas) != 1 || rep.Replicas[0].Recovery.Truncation == nil || rep.Replicas[0].Recovery.Truncation.BytesDropped != 15 {
		t.Fatalf("report %+v", rep)
	}
	evs := f.c.TakeEvents()
	wantStrings(t, "restart events", eventKinds(evs), []string{"broker_restarted", "recovery_truncated"})
	if f.leo(p0, 2) != 3 {
		t.Fatalf("recovered LEO %d", f.leo(p0, 2))
	}
	f.replicate(nil)
	if f.leo(p0, 2) != 4 || f.hw(p0) != 4 {
		t.Fatal("caught up")
	}
	wantStrings(t, "follower", f.replicaValues(p0, 2), []string{"a", "b", "c", "d"})
}

// A follower that comes back above the HW truncates to it and reports it.
func TestRestartAboveHWTruncates(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2, 3}, nil)
	f.topic("t", 1, 3)
	p0 := tp("t", 0)
	f.append(p0, batchOf("a"), engine.Acks1)
	f.c.Replicate(&p0, 2) // 2 has offset 0; 3 does not: HW 0
	if f.hw(p0) != 0 || f.leo(p0, 2) != 1 {
		t.Fatal("setup")
	}
	f.c.CrashBroker(2, true)
	f.c.TakeEvents()
	rep, err := f.c.RestartBroker(2)
	if err != nil {
		t.Fatal(err)
	}
	tr := rep.Replicas[0].Truncation
	if tr == nil || tr.From != 1 || tr.To != 0 || f.leo(p0, 2) != 0 {
		t.Fatalf("%+v", rep.Replicas[0])
	}
	if !strings.Contains(tr.Reason, "restarted above HW 0") {
		t.Fatalf("reason %q", tr.Reason)
	}
	f.replicate(nil)
	if f.leo(p0, 2) != 1 || f.hw(p0) != 1 {
		t.Fatal("caught up")
	}
}

// A machine crash loses the unflushed bytes; keep-unflushed does not. A
// leader that comes back without records the HW covered lowers the HW in a
// new epoch and says so.
func TestUnflushedBytesLostVersusKept(t *testing.T) {
	t.Parallel()
	for _, keep := range []bool{false, true} {
		f := openOnDisk(t, []int32{1}, nil) // the page cache of the real disk
		f.topic("t", 1, 1)
		p0 := tp("t", 0)
		f.append(p0, batchOf("flushed"), engine.Acks1)
		f.c.RunFlushCycle()
		f.append(p0, batchOf("unflushed"), engine.Acks1)
		if bs, _ := f.c.Brokers(); bs[0].UnflushedBytes != 83 {
			t.Fatalf("unflushed %d", bs[0].UnflushedBytes)
		}
		f.c.CrashBroker(1, keep)
		f.c.TakeEvents()
		rep, err := f.c.RestartBroker(1)
		if err != nil {
			t.Fatal(err)
		}
		st := f.state(p0)
		evs := f.c.TakeEvents()
		if keep {
			if st.LEO != 2 || st.HW != 2 || rep.Replicas[0].DataLost != nil {
				t.Fatalf("kept: %+v", st)
			}
			wantStrings(t, "values", f.values(p0, engine.ReadUncommitted), []string{"flushed", "unflushed"})
		} else {
			if st.LEO != 1 || st.HW != 1 || rep.Replicas[0].DataLost == nil {
				t.Fatalf("lost: %+v", st)
			}
			if evs[1].String() != "t-0 HW lowered 2 -> 1: offsets 1..1 are gone (leader 1 restarted without them: their bytes were not flushed before the crash, and no in-sync replica has them)" {
				t.Fatalf("%q", evs[1])
			}
			wantStrings(t, "values", f.values(p0, engine.ReadUncommitted), []string{"flushed"})
		}
		if !rep.Replicas[0].LeaderChanged || rep.Replicas[0].Leader != 1 || st.LeaderEpoch != 1 {
			t.Fatalf("re-election: %+v", st)
		}
		pm, _ := f.c.PartitionMetadata(p0)
		if pm.LeaderEpoch != 1 {
			t.Fatal("the new epoch is saved")
		}
	}
}

// A whole-cluster crash keeps what was handed to the OS (§15.2); only the
// clean-shutdown marker is missing.
func TestClusterCrashKeepsWrittenBytes(t *testing.T) {
	t.Parallel()
	f := openOnDisk(t, []int32{1}, nil) // the page cache of the real disk
	f.topic("t", 1, 1)
	f.append(tp("t", 0), batchOf("x"), engine.Acks1)
	f.c.Crash()
	rep := f.reopen()
	if rep.Replicas[0].Report.CleanShutdown || f.leo(tp("t", 0), 1) != 1 {
		t.Fatalf("%+v", rep.Replicas[0].Report)
	}
}

// A restarted follower that lost records below the HW leaves the ISR and
// cannot be promoted until it has caught up.
func TestRestartBelowHWLeavesISR(t *testing.T) {
	t.Parallel()
	f := open(t, two, nil)
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	f.append(p0, batchOf("x"), engine.Acks1)
	f.replicate(nil)
	f.c.CrashBroker(2, false) // its copy was never flushed
	f.c.RestartBroker(2)
	wantInts(t, "ISR", f.isr(p0), []int32{1})
	wantCode(t, f.c.Promote(p0, 2), kerr.NotInSyncReplica, "")
	f.replicate(nil)
	wantInts(t, "ISR", f.isr(p0), []int32{1, 2})
}

// CreateTopic places replicas on running brokers only.
func TestCreateTopicSkipsCrashedBrokers(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2, 3}, nil)
	f.c.CrashBroker(1, false)
	tm, err := f.c.CreateTopic("t", 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	wantInts(t, "p0", tm.Partitions[0].Replicas, []int32{2, 3})
	wantInts(t, "p1", tm.Partitions[1].Replicas, []int32{3, 2})
	_, err = f.c.CreateTopic("u", 1, 3)
	wantCode(t, err, kerr.InvalidArgument, "cannot exceed the 2 available brokers")
}

// A leader that lost committed records in a machine crash does not take them
// from the replicas that have them: at its restart the first in-sync replica
// holding the HW is elected, and the restarted broker follows and catches up.
func TestLeaderRestartBelowHWElectsAnInSyncReplica(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2, 3}, nil)
	f.topic("t", 1, 3)
	p0 := tp("t", 0)
	f.append(p0, batchOf("a"), engine.AcksAll)
	f.replicate(nil)
	f.c.CrashBroker(1, false) // nothing was flushed
	f.c.TakeEvents()
	rep, err := f.c.RestartBroker(1)
	if err != nil {
		t.Fatal(err)
	}
	out := rep.Replicas[0]
	if !out.LeaderChanged || out.Leader != 2 || out.DataLost != nil || !out.LeftISR {
		t.Fatalf("%+v", out)
	}
	evs := f.c.TakeEvents()
	wantStrings(t, "events", eventKinds(evs), []string{"broker_restarted", "isr_shrank", "leader_changed", "isr_shrank"})
	if evs[2].String() != "t-0 leader 1 -> 2, epoch 1 (elected: leader 1 restarted without offsets 0..0, which broker 2 has)" {
		t.Fatalf("%q", evs[2])
	}
	st := f.state(p0)
	if st.Leader != 2 || st.HW != 1 {
		t.Fatalf("%+v", st)
	}
	wantStrings(t, "values", f.values(p0, engine.ReadUncommitted), []string{"a"})
	f.replicate(nil)
	if f.leo(p0, 1) != 1 {
		t.Fatal("the old leader caught up")
	}
	pm, _ := f.c.PartitionMetadata(p0)
	if pm.Leader != 2 || pm.LeaderEpoch != 1 {
		t.Fatalf("metadata %+v", pm)
	}
}

// A restart that gives several partitions a new leader epoch saves
// metadata.json once with all of them; a failed save is one STORAGE_ERROR
// in the restart's result, not one per partition.
func TestRestartSavesMetadataOnce(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 2, 1)
	if err := f.c.CrashBroker(1, true); err != nil {
		t.Fatal(err)
	}
	rep, err := f.c.RestartBroker(1)
	if err != nil || len(rep.Replicas) != 2 || !rep.Replicas[0].LeaderChanged || !rep.Replicas[1].LeaderChanged {
		t.Fatalf("restart %+v: %v", rep, err)
	}
	topics, err := f.c.Topics()
	if err != nil {
		t.Fatal(err)
	}
	data, err := f.fs().ReadFile(f.path(engine.MetadataFile))
	if err != nil || string(data) != string(engine.EncodeMetadata(topics)) {
		t.Fatalf("metadata.json %s: %v", data, err)
	}
	f.restart()
	for _, p := range []engine.TopicPartition{tp("t", 0), tp("t", 1)} {
		if pm, _ := f.c.PartitionMetadata(p); pm.LeaderEpoch != 1 {
			t.Fatalf("%s reopened with %+v", p, pm)
		}
	}

	if err := f.c.CrashBroker(1, true); err != nil {
		t.Fatal(err)
	}
	blocker := f.path(engine.MetadataTempFile)
	if err := f.fs().Mkdir(blocker, 0o755); err != nil {
		t.Fatal(err)
	}
	defer f.fs().Remove(blocker)
	rep, err = f.c.RestartBroker(1)
	wantCode(t, err, kerr.StorageError, "metadata.json")
	if len(rep.Replicas) != 2 || !rep.Replicas[0].LeaderChanged || !rep.Replicas[1].LeaderChanged {
		t.Fatalf("restart %+v", rep)
	}
	if joined, ok := err.(interface{ Unwrap() []error }); !ok || len(joined.Unwrap()) != 1 {
		t.Fatalf("want one error, got %v", err)
	}
}
