package engine_test

import (
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/storage"
)

// Retention on the leader only: the follower, now below the leader's log
// start, resets to it at its next fetch (decision 11).
func TestRetentionThenFollowerReset(t *testing.T) {
	t.Parallel()
	f := open(t, two, func(c *engine.Config) { c.SegmentBytes = 100 })
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	for _, v := range []string{"a", "b", "c"} {
		f.append(p0, batchOf(v), engine.Acks1)
	}
	f.advance(1000)
	f.c.TakeEvents()
	out, err := f.c.ApplyRetention(p0, 1, 10, -1)
	if err != nil || len(out) != 1 || len(out[0].Deleted) != 2 || out[0].LogStart != 2 {
		t.Fatalf("%+v %v", out, err)
	}
	evs := f.c.TakeEvents()
	if len(evs) != 1 || evs[0].String() != "t-0 broker 1 retention deleted segments [0 1]; log start 2" {
		t.Fatalf("%v", evs)
	}
	rep := f.replicate(nil)
	if fol := rep.Partitions[0].Followers[0]; fol.Reset == nil || fol.ToLEO != 3 {
		t.Fatalf("%+v", fol)
	}
	wantStrings(t, "follower", f.replicaValues(p0, 2), []string{"c"})
	_, err = f.c.ApplyRetention(p0, 9, 10, -1)
	wantCode(t, err, kerr.UnknownPartition, "broker 9")
}

// Compaction on every replica keeps offsets; corruption shows at the next
// restart of the broker, as a recovery truncation.
func TestCompactAndCorrupt(t *testing.T) {
	t.Parallel()
	f := open(t, two, func(c *engine.Config) { c.SegmentBytes = 100 })
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	for _, v := range []string{"1", "2", "3"} {
		f.append(p0, record.NewBatch([]record.Record{{Key: []byte("k"), Value: []byte(v)}}), engine.Acks1)
	}
	f.replicate(nil)
	out, err := f.c.Compact(p0, engine.AllReplicas, 0)
	if err != nil || len(out) != 2 || out[0].RecordsBefore != 2 || out[0].RecordsAfter != 0 {
		t.Fatalf("%+v %v", out, err)
	}
	wantStrings(t, "leader", f.values(p0, engine.ReadUncommitted), []string{"3"})
	_, err = f.c.Compact(p0, engine.AllReplicas, -1)
	wantCode(t, err, kerr.InvalidArgument, "delete.retention.ms")

	rep, err := f.c.Corrupt(p0, 2, -1, storage.Garbage, 0)
	if err != nil || rep.Bytes != 16 {
		t.Fatalf("%+v %v", rep, err)
	}
	f.c.CrashBroker(2, true)
	f.c.TakeEvents()
	rr, err := f.c.RestartBroker(2)
	if err != nil || rr.Replicas[0].Recovery.Truncation == nil || rr.Replicas[0].Recovery.Truncation.BytesDropped != 16 {
		t.Fatalf("%+v %v", rr, err)
	}
	if evs := f.c.TakeEvents(); len(evs) < 2 || evs[1].Kind() != "recovery_truncated" {
		t.Fatalf("%v", evs)
	}
}
