package engine_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/producer"
	"github.com/minikafka-lab/minikafka/engine/record"
)

// U3: config validation names the field (by its Kafka name).
func TestConfigValidationU3(t *testing.T) {
	t.Parallel()
	for _, k := range engine.ConfigKeys() {
		cfg := engine.DefaultConfig(t.TempDir())
		err := cfg.Set(k.Name, "-1")
		wantCode(t, err, kerr.InvalidArgument, k.Name)
		if got, _ := cfg.Get(k.Name); got != k.Default {
			t.Fatalf("a rejected Set changed %s to %s", k.Name, got)
		}
	}
	cfg := engine.DefaultConfig(t.TempDir())
	cfg.SegmentBytes = 0
	_, _, err := engine.Open(cfg, nil)
	wantCode(t, err, kerr.InvalidArgument, "segment.bytes")
	for _, bad := range [][]int32{nil, {1, 1}, {-1}} {
		cfg := engine.DefaultConfig(t.TempDir())
		cfg.BrokerIDs = bad
		if err := cfg.Validate(); !errors.Is(err, kerr.InvalidArgument) {
			t.Errorf("brokers %v: %v", bad, err)
		}
	}
	wantCode(t, cfg.Set("no.such.key", "1"), kerr.InvalidArgument, "unknown config")
	wantCode(t, cfg.Set("segment.bytes", "ten"), kerr.InvalidArgument, "segment.bytes")
	if err := cfg.Set("replica.lag.max.offsets", "0"); err != nil {
		t.Fatalf("replica.lag.max.offsets may be 0: %v", err)
	}
}

func TestConfigKeysTable(t *testing.T) {
	t.Parallel()
	want := []string{"segment.bytes", "index.interval.bytes", "session.timeout.ms", "replica.lag.max.offsets",
		"replica.lag.time.max.ms", "replica.fetch.max.bytes", "min.insync.replicas",
		"broker.session.timeout.ms", "request.timeout.ms", "unclean.leader.election.interval.ms",
		"rules", "partitioner", "truncation", "follower.hw", "hw.under.min.isr", "replica.lag.from", "errors",
		"idempotence.window", "controller", "unclean.leader.election.enable", "views"}
	var got []string
	def := engine.DefaultConfig("x")
	for _, k := range engine.ConfigKeys() {
		got = append(got, k.Name)
		if v, _ := def.Get(k.Name); v != k.Default || k.Doc == "" {
			t.Errorf("%s: default %s vs %s", k.Name, v, k.Default)
		}
	}
	wantStrings(t, "keys", got, want)
}

// SetConfig applies live knobs at once and reports those needing a reopen.
func TestSetConfigLiveAndReopen(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("t", 1, 2)
	reopen, err := f.c.SetConfig("min.insync.replicas", "2")
	if err != nil || reopen {
		t.Fatalf("min.insync.replicas: %v %v", reopen, err)
	}
	f.c.RemoveFromISR(tp("t", 0), 2)
	_, err = f.c.AppendBatch(tp("t", 0), batchOf("x"), engine.AcksAll)
	wantCode(t, err, kerr.NotEnoughReplicas, "min.insync.replicas=2")
	if reopen, err := f.c.SetConfig("segment.bytes", "100"); err != nil || !reopen {
		t.Fatalf("segment.bytes: %v %v", reopen, err)
	}
	if f.c.Config().SegmentBytes != 100 {
		t.Fatal("segment.bytes not stored")
	}
	if _, err := f.c.SetConfig("min.insync.replicas", "0"); !errors.Is(err, kerr.InvalidArgument) || f.c.Config().MinInsyncReplicas != 2 {
		t.Fatalf("bad value: %v", err)
	}
}

// M2: round-robin placement.
func TestAssignReplicasM2(t *testing.T) {
	t.Parallel()
	got, err := engine.AssignReplicas([]int32{1, 2, 3}, 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int32{{1, 2}, {2, 3}, {3, 1}, {1, 2}}
	for p := range want {
		wantInts(t, "partition replicas", got[p], want[p])
	}
	_, err = engine.AssignReplicas([]int32{1}, 1, 2)
	wantCode(t, err, kerr.InvalidArgument, "replication factor")
	_, err = engine.AssignReplicas([]int32{1}, 0, 1)
	wantCode(t, err, kerr.InvalidArgument, "partitions must be positive")
	_, err = engine.AssignReplicas([]int32{1}, engine.MaxPartitions+1, 1)
	wantCode(t, err, kerr.InvalidArgument, "at most")
}

// M3, M4: bad topic names and replication factors are argument errors that
// leave nothing behind.
func TestCreateTopicArgumentsM3M4(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	for _, name := range []string{"", ".", "..", "has/slash", "white space", strings.Repeat("x", 250)} {
		_, err := f.c.CreateTopic(name, 1, 1)
		wantCode(t, err, kerr.InvalidArgument, "topic")
	}
	_, err := f.c.CreateTopic("t", 1, 2)
	wantCode(t, err, kerr.InvalidArgument, "replication factor")
	_, err = f.c.CreateTopic("t", 0, 1)
	wantCode(t, err, kerr.InvalidArgument, "partitions")
	_, err = f.c.CreateTopic("t", 1, 0)
	wantCode(t, err, kerr.InvalidArgument, "replication factor")
	if tree := f.tree(); len(tree) != 0 {
		t.Fatalf("rejected creates left %v", tree)
	}
	if ts, _ := f.c.Topics(); len(ts) != 0 {
		t.Fatalf("topics %v", ts)
	}
	if _, err := f.c.CreateTopic(strings.Repeat("x", 249), 1, 1); err != nil {
		t.Fatalf("249 characters: %v", err)
	}
}

// A create that fails while writing metadata.json removes every directory it
// created and changes nothing in memory.
func TestCreateTopicFailureLeavesNoPartialState(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("kept", 1, 1)
	before := f.tree()
	blocker := f.path(engine.MetadataTempFile)
	if err := f.fs().Mkdir(blocker, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := f.c.CreateTopic("doomed", 3, 2)
	wantCode(t, err, kerr.StorageError, "metadata.json")
	f.fs().Remove(blocker)
	wantStrings(t, "data dir after the failed create", f.tree(), before)
	if _, err := f.c.Topic("doomed"); !errors.Is(err, kerr.UnknownTopic) {
		t.Fatalf("doomed: %v", err)
	}
	if ts, _ := f.c.Topics(); len(ts) != 1 {
		t.Fatalf("topics %v", ts)
	}
	f.topic("doomed", 3, 2) // and it can be created afterwards
	f.restart()
	if ts, _ := f.c.Topics(); len(ts) != 2 {
		t.Fatalf("after restart: %v", ts)
	}
}

// §5.3: metadata.json is compact JSON with sorted keys.
func TestMetadataFileFormat(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2, 3}, nil)
	f.topic("orders", 2, 2)
	data, err := f.fs().ReadFile(f.path(engine.MetadataFile))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"topics":{"orders":{"partitions":{"0":{"leader_epoch":0,"leader_id":1,"replicas":[1,2]},"1":{"leader_epoch":0,"leader_id":2,"replicas":[2,3]}}}},"version":1}`
	if string(data) != want {
		t.Fatalf("metadata.json:\n%s\nwant\n%s", data, want)
	}
	if _, err := f.fs().Stat(f.path(engine.MetadataTempFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("metadata.tmp left behind")
	}
}

// An unparseable or incomplete metadata.json is STORAGE_ERROR at open.
func TestInvalidMetadataIsStorageError(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"{", `{"topics":{}}`, `{"topics":{},"version":2}`,
		`{"topics":{"t":{"partitions":{"1":{"leader_epoch":0,"leader_id":1,"replicas":[1]}}}},"version":1}`,
		`{"topics":{"t":{"partitions":{"0":{"leader_id":1,"replicas":[1]}}}},"version":1}`,
		`{"topics":{"t":{"partitions":{"0":{"leader_epoch":0,"leader_id":3,"replicas":[1]}}}},"version":1}`,
		`{"topics":{"a b":{"partitions":{"0":{"leader_epoch":0,"leader_id":1,"replicas":[1]}}}},"version":1}`} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, engine.MetadataFile), []byte(bad), 0o644)
		_, _, err := engine.Open(engine.DefaultConfig(dir), nil)
		wantCode(t, err, kerr.StorageError, "invalid metadata file")
	}
}

func FuzzDecodeMetadata(f *testing.F) {
	f.Add([]byte(`{"topics":{"orders":{"partitions":{"0":{"leader_epoch":0,"leader_id":1,"replicas":[1,2]},"1":{"leader_epoch":3,"leader_id":3,"replicas":[2,3]}}}},"version":1}`))
	f.Add([]byte(`{"topics":{},"version":1}`))
	f.Add([]byte(`{"topics":{"t":{"partitions":{"00":{"leader_epoch":0,"leader_id":1,"replicas":[1]}}}},"version":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		topics, err := engine.DecodeMetadata(data)
		if err != nil {
			return
		}
		// A decoded file re-encodes canonically and decodes to the same thing.
		again, err := engine.DecodeMetadata(engine.EncodeMetadata(topics))
		if err != nil || len(again) != len(topics) {
			t.Fatalf("round trip: %v", err)
		}
		for i := range topics {
			if len(again[i].Partitions) != len(topics[i].Partitions) || again[i].Name != topics[i].Name {
				t.Fatalf("round trip changed %s", topics[i].Name)
			}
			for p, pm := range topics[i].Partitions {
				if pm.Partition != int32(p) || len(pm.Replicas) == 0 {
					t.Fatalf("partition %d: %+v", p, pm)
				}
			}
		}
	})
}

// D1: a 3-partition, rf-2 topic on two brokers.
func TestCreateTopicD1(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	tm, err := f.c.CreateTopic("orders", 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(tm.Partitions) != 3 {
		t.Fatalf("partitions %v", tm.Partitions)
	}
	for i, p := range tm.Partitions {
		if p.Partition != int32(i) {
			t.Fatalf("partition order %v", tm.Partitions)
		}
	}
	wantInts(t, "p0 replicas", tm.Partitions[0].Replicas, []int32{1, 2})
	if f.leo(tp("orders", 0), 1) != 0 || f.leo(tp("orders", 0), 2) != 0 {
		t.Fatal("fresh logs have LEO 0")
	}
	_, err = f.c.CreateTopic("orders", 3, 2)
	wantCode(t, err, kerr.TopicAlreadyExists, "orders")
}

// D2: describe equals create; a missing topic is UNKNOWN_TOPIC.
func TestDescribeTopicD2(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{7}, nil)
	created, err := f.c.CreateTopic("events", 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	described, err := f.c.Topic("events")
	if err != nil || described.Name != created.Name || len(described.Partitions) != 1 ||
		described.Partitions[0].Leader != 7 || described.Partitions[0].Replicas[0] != 7 {
		t.Fatalf("described %+v vs %+v (%v)", described, created, err)
	}
	_, err = f.c.Topic("missing")
	wantCode(t, err, kerr.UnknownTopic, "missing")
	_, err = f.c.PartitionMetadata(tp("events", 1))
	wantCode(t, err, kerr.UnknownPartition, "events-1")
}

// D3: metadata survives a restart; partition 1's leader is 2.
func TestReopenD3(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("events", 2, 2)
	f.restart()
	pm, err := f.c.PartitionMetadata(tp("events", 1))
	if err != nil || pm.Leader != 2 {
		t.Fatalf("events-1: %+v %v", pm, err)
	}
	l, err := f.c.ReplicaLog(tp("events", 1), 1)
	if err != nil || l.LEO() != 0 {
		t.Fatalf("replica log: %v", err)
	}
	_, err = f.c.ReplicaLog(tp("events", 1), 3)
	wantCode(t, err, kerr.UnknownPartition, "broker 3 has no replica for events-1")
}

// Decision 30: partitions are always listed in numeric order, also after a
// restart with 11 or more partitions.
func TestPartitionOrderAfterRestart(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("many", 12, 1)
	f.restart()
	tm, _ := f.c.Topic("many")
	for i, p := range tm.Partitions {
		if p.Partition != int32(i) {
			t.Fatalf("order %v", tm.Partitions)
		}
	}
}

// Every entry point validates its arguments and changes nothing when it
// rejects them (§2.2).
func TestArgumentValidationChangesNothing(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("t", 2, 2)
	p0 := tp("t", 0)
	before := f.state(p0)

	_, err := f.c.AppendBatch(p0, nil, engine.Acks1)
	wantCode(t, err, kerr.InvalidArgument, "batch")
	_, err = f.c.AppendBatch(p0, batchOf("x"), engine.AckMode(5))
	wantCode(t, err, kerr.InvalidArgument, "acks")
	_, err = f.c.AppendBatch(p0, record.NewBatch(nil), engine.Acks1)
	wantCode(t, err, kerr.InvalidRecord, "at least one record")
	assigned, _ := batchOf("x").Assign(0, 0)
	_, err = f.c.AppendBatch(p0, assigned, engine.Acks1)
	wantCode(t, err, kerr.InvalidRecord, "already assigned")
	_, err = f.c.AppendBatch(tp("t", 2), batchOf("x"), engine.Acks1)
	wantCode(t, err, kerr.UnknownPartition, "t-2")
	_, err = f.c.AppendBatch(tp("nope", 0), batchOf("x"), engine.Acks1)
	wantCode(t, err, kerr.UnknownTopic, "nope")
	_, err = f.c.Produce("t", 2, rec("x"), engine.Acks1)
	wantCode(t, err, kerr.UnknownPartition, "t-2")
	_, err = f.c.Produce("t", -2, rec("x"), engine.Acks1)
	wantCode(t, err, kerr.UnknownPartition, "t--2")
	_, err = f.c.Produce("nope", engine.AnyPartition, rec("x"), engine.Acks1)
	wantCode(t, err, kerr.UnknownTopic, "nope")
	_, err = f.c.Produce("t", 0, rec("x"), engine.AckMode(3))
	wantCode(t, err, kerr.InvalidArgument, "acks")

	_, err = f.c.Fetch(p0, 0, -1, engine.ReadUncommitted)
	wantCode(t, err, kerr.InvalidArgument, "negative")
	_, err = f.c.Fetch(p0, 0, 1, engine.Isolation(9))
	wantCode(t, err, kerr.InvalidArgument, "isolation")
	_, err = f.c.Fetch(p0, 1, 1, engine.ReadUncommitted)
	wantCode(t, err, kerr.OffsetOutOfRange, "offset 1 outside retained range [0, 0]")
	_, err = f.c.Fetch(p0, -1, 1, engine.ReadUncommitted)
	wantCode(t, err, kerr.OffsetOutOfRange, "")

	wantCode(t, f.c.Promote(p0, 9), kerr.NotInSyncReplica, "broker 9")
	wantCode(t, f.c.Rejoin(p0, 1), kerr.InvalidArgument, "leader cannot rejoin")
	wantCode(t, f.c.Rejoin(p0, 9), kerr.UnknownPartition, "broker 9")
	wantCode(t, f.c.RemoveFromISR(p0, 1), kerr.InvalidArgument, "leader cannot be removed from ISR")
	_, err = f.c.Replicate(nil, 9)
	wantCode(t, err, kerr.InvalidArgument, "unknown broker 9")
	_, err = f.c.Replicate(&p0, 1)
	wantCode(t, err, kerr.InvalidArgument, "only followers fetch")
	wantCode(t, f.c.CrashBroker(9, false), kerr.InvalidArgument, "unknown broker 9")
	_, err = f.c.RestartBroker(1)
	wantCode(t, err, kerr.IllegalState, "broker 1 is running")
	wantCode(t, f.c.Advance(-1), kerr.InvalidArgument, "backwards")

	opts := producer.DefaultOptions()
	opts.BatchSize = 0
	_, err = f.c.NewProducer(opts)
	wantCode(t, err, kerr.InvalidArgument, "batch.size")
	opts = producer.DefaultOptions()
	opts.Idempotent, opts.Acks = true, engine.Acks0
	_, err = f.c.NewProducer(opts)
	wantCode(t, err, kerr.InvalidArgument, "idempotent producer requires acks=all")
	if len(f.c.Producers()) != 0 {
		t.Fatal("a rejected producer was registered")
	}
	if _, err := f.fs().Stat(f.path(producer.IdentityFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a rejected idempotent producer allocated an identity")
	}

	after := f.state(p0)
	if after.LEO != before.LEO || after.HW != before.HW || after.LeaderEpoch != before.LeaderEpoch ||
		len(after.ISR) != len(before.ISR) || f.c.Now() != 0 {
		t.Fatalf("state changed: %+v -> %+v", before, after)
	}
	if evs := f.c.TakeEvents(); len(evs) != 0 {
		t.Fatalf("rejected calls reported events: %v", evs)
	}
}

// E1, decision 1: max 0 returns no records (the reference returned all).
func TestFetchMaxZeroE1(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 1, 1)
	f.append(tp("t", 0), batchOf("a", "b"), engine.Acks1)
	for _, iso := range []engine.Isolation{engine.ReadUncommitted, engine.ReadCommitted} {
		recs, err := f.c.Fetch(tp("t", 0), 0, 0, iso)
		if err != nil || len(recs) != 0 {
			t.Fatalf("%s max 0: %v %v", iso, recs, err)
		}
		recs, err = f.c.Fetch(tp("t", 0), 1, 1, iso)
		if err != nil || len(recs) != 1 || recs[0].Offset != 1 || string(recs[0].Value) != "b" {
			t.Fatalf("%s from 1: %v %v", iso, recs, err)
		}
	}
}

// LC1: an injected flush failure becomes terminal; crash still works.
func TestTerminalFailureLC1(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	if err := f.c.RunFlushCycle(); err != nil {
		t.Fatal(err)
	}
	f.c.FailNextFlush(kerr.New(kerr.StorageError, "disk failed"))
	wantCode(t, f.c.RunFlushCycle(), kerr.StorageError, "disk failed")
	if f.c.State() != engine.FailedState || f.c.State().String() != "failed" {
		t.Fatalf("state %v", f.c.State())
	}
	_, err := f.c.CreateTopic("t", 1, 1)
	wantCode(t, err, kerr.StorageError, "disk failed")
	if kerr.MessageOf(err) != "disk failed" {
		t.Fatalf("message %q", kerr.MessageOf(err))
	}
	if err := f.c.Crash(); err != nil {
		t.Fatal(err)
	}
	_, err = f.c.Topics()
	wantCode(t, err, kerr.StorageError, "disk failed")
}

// LC2: close flushes a lingering send; a second close does nothing.
func TestGracefulCloseLC2(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 1, 1)
	p := f.producer(func(o *producer.Options) { o.LingerMs = 1000 })
	fut := f.send(p, "t", 0, rec("x"))
	if fut.Settled() {
		t.Fatal("the send flushed before linger.ms")
	}
	if err := f.c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.c.Close(); err != nil {
		t.Fatal(err)
	}
	if fut.State() != engine.Done || fut.Value().Offset != 0 || f.c.State() != engine.Closed {
		t.Fatalf("future %v %+v, state %v", fut.State(), fut.Value(), f.c.State())
	}
	_, err := f.c.Topics()
	wantCode(t, err, kerr.IllegalState, "cluster is closed")
	f.reopen()
	if f.leo(tp("t", 0), 1) != 1 {
		t.Fatal("leader LEO after reopen")
	}
}

// LC3: a crash cancels a lingering send; nothing was appended.
func TestCrashCancelsLC3(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("t", 1, 1)
	p := f.producer(func(o *producer.Options) { o.LingerMs = 1000 })
	fut := f.send(p, "t", 0, rec("x"))
	if err := f.c.Crash(); err != nil {
		t.Fatal(err)
	}
	if fut.State() != engine.Cancelled || f.c.State() != engine.Closed {
		t.Fatalf("future %v, state %v", fut.State(), f.c.State())
	}
	if err := f.c.Crash(); err != nil {
		t.Fatal(err)
	}
	f.reopen()
	if f.leo(tp("t", 0), 1) != 0 {
		t.Fatal("the crashed send was appended")
	}
}

// Decision 25: close never hangs; a pending acks=all write fails with a clear
// error, and the batch stays in the leader's log.
func TestCloseFailsPendingAcksDecision25(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("t", 1, 2)
	p := f.producer(func(o *producer.Options) { o.LingerMs = 1000; o.Acks = engine.AcksAll })
	fut := f.send(p, "t", 0, rec("x"))
	direct := f.append(tp("t", 0), batchOf("y"), engine.AcksAll)
	if err := f.c.Close(); err != nil {
		t.Fatal(err)
	}
	if fut.State() != engine.Failed || direct.State() != engine.Failed {
		t.Fatalf("states %v %v", fut.State(), direct.State())
	}
	wantCode(t, fut.Err(), kerr.RequestTimedOut, "cluster closed")
	wantCode(t, direct.Err(), kerr.RequestTimedOut, "stays in the leader log")
	f.reopen()
	if f.leo(tp("t", 0), 1) != 2 {
		t.Fatal("the flushed batches are in the leader log")
	}
}

// The clock: Advance needs a manual clock; Now follows it.
func TestAdvanceMovesTheManualClock(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	if err := f.c.Advance(25); err != nil || f.c.Now() != 25 {
		t.Fatalf("now %d, %v", f.c.Now(), err)
	}
	wantStrings(t, "due order", f.c.DueOrder(), []string{"producer linger flushes", "controller: broker fencing and elections",
		"ISR refresh", "request timeouts", "consumer session expiry"})
}
