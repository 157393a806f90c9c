package engine_test

import (
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// TestMissingMetadataNextToReplicasIsRefused: a data directory whose
// metadata.json is gone while replica directories hold records is refused
// with STORAGE_ERROR naming them and what to do (it used to open as an
// empty cluster, and a later topic create wiped the old replicas); with
// no records left anywhere, it opens empty.
func TestMissingMetadataNextToReplicasIsRefused(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, nil)
	f.topic("orders", 2, 2)
	if _, err := f.c.Produce("orders", 1, rec("kept"), engine.Acks1); err != nil {
		t.Fatal(err)
	}
	if err := f.c.Close(); err != nil {
		t.Fatal(err)
	}
	fsys := f.cfg.FS
	if err := fsys.Remove("data/metadata.json"); err != nil {
		t.Fatal(err)
	}
	_, _, err := engine.Open(f.cfg, clock.NewManual(0))
	wantCode(t, err, kerr.StorageError, "metadata.json is missing")
	if msg := kerr.MessageOf(err); !strings.Contains(msg, "broker-2/orders-1") || !strings.Contains(msg, "restore metadata.json") {
		t.Errorf("the refusal does not say where or what to do: %s", msg)
	}
	if data, err := fsys.ReadFile("data/broker-2/orders-1/00000000000000000000.log"); err != nil || len(data) == 0 {
		t.Fatalf("the refused open touched the replica: %d bytes, %v", len(data), err)
	}
	if err := fsys.RemoveAll("data/broker-1"); err != nil {
		t.Fatal(err)
	}
	if err := fsys.RemoveAll("data/broker-2"); err != nil {
		t.Fatal(err)
	}
	f.reopen()
	if ts, err := f.c.Topics(); err != nil || len(ts) != 0 {
		t.Fatalf("an empty directory: %v %v", ts, err)
	}
}

// TestDeletedMiddleSegmentIsRefused: the leader's middle segment deleted
// while the follower still holds its records used to open silently with a
// hole; now the open is STORAGE_ERROR naming the offsets and the replica.
func TestDeletedMiddleSegmentIsRefused(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, func(c *engine.Config) { c.SegmentBytes = 100 })
	f.topic("orders", 1, 2)
	p := tp("orders", 0)
	for i := 0; i < 6; i++ {
		f.append(p, batchOf("a-value-long-enough-to-fill-a-segment-quickly-0123456789"), engine.AcksAll)
		f.replicate(&p)
	}
	segs, err := f.c.DescribeLog(p, 1)
	if err != nil || len(segs.Segments) < 3 {
		t.Fatalf("segments: %+v %v", segs, err)
	}
	if err := f.c.Crash(); err != nil {
		t.Fatal(err)
	}
	middle := segs.Segments[1]
	if err := f.cfg.FS.Remove(middle.LogPath); err != nil {
		t.Fatal(err)
	}
	_, _, err = engine.Open(f.cfg, clock.NewManual(0))
	wantCode(t, err, kerr.StorageError, "are missing from data/broker-1/orders-0")
}
