//go:build linux

package engine_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// smallFS mounts a tmpfs of size bytes and returns its directory; the test
// is skipped, saying why, where that is not allowed (not root, no mount
// permission in this container).
func smallFS(t *testing.T, size int) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root: run as root to test a real full disk")
	}
	dir := filepath.Join(t.TempDir(), "small")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): the real full-disk test needs mount permission", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// TestRealDiskFull fills a real 2 MiB file system with acks=all produces
// until the disk refuses a write: that produce fails with STORAGE_ERROR
// (ENOSPC) and acknowledges nothing, the leader's broker goes offline.
// Once space is freed (a ballast file deleted), broker restart brings it
// back; a close and a reopen hold every acknowledged record, at its
// offset, and no refused one.
func TestRealDiskFull(t *testing.T) {
	dir := smallFS(t, 2<<20)
	ballast := filepath.Join(dir, "ballast")
	if err := os.WriteFile(ballast, make([]byte, 512<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := engine.DefaultConfig(filepath.Join(dir, "data"))
	cfg.BrokerIDs = []int32{1, 2}
	cfg.SegmentBytes = 64 << 10
	clk := clock.NewManual(0)
	c, _, err := engine.Open(cfg, clk)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateTopic("orders", 1, 2); err != nil {
		t.Fatal(err)
	}
	p := topic.Partition{Topic: "orders", Partition: 0}
	value := strings.Repeat("v", 4000)
	acked := map[int64]string{}
	var refused string
	for i := 0; refused == "" && i < 1000; i++ {
		v := fmt.Sprintf("%d-%s", i, value)
		ack, err := c.Produce("orders", 0, record.Record{Value: []byte(v), TimestampMs: engine.NoTimestamp}, engine.AcksAll)
		if err != nil {
			if !errors.Is(err, kerr.StorageError) || !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("record %d: %v, want STORAGE_ERROR (ENOSPC)", i, err)
			}
			refused = v
			break
		}
		if _, err := c.Replicate(nil, engine.AllFollowers); err != nil && !errors.Is(err, syscall.ENOSPC) {
			t.Fatal(err)
		}
		if ack.State() == engine.Done {
			acked[ack.Value().BaseOffset] = v
		}
	}
	if refused == "" {
		t.Fatal("2 MiB never filled up")
	}
	bs, err := c.Brokers()
	if err != nil {
		t.Fatal(err)
	}
	offline := 0
	for _, b := range bs {
		if !b.Up && strings.Contains(b.LogDirFailure, "no space left on device") {
			offline++
		}
	}
	if offline == 0 {
		t.Fatalf("no broker went offline: %+v", bs)
	}
	t.Logf("%d records acknowledged before the disk was full", len(acked))

	if err := os.Remove(ballast); err != nil {
		t.Fatal(err)
	}
	for _, b := range bs {
		if !b.Up {
			if _, err := c.RestartBroker(b.ID); err != nil {
				t.Fatalf("restart broker %d after freeing space: %v", b.ID, err)
			}
		}
	}
	if _, err := c.Replicate(nil, engine.AllFollowers); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Produce("orders", 0, record.Record{Value: []byte("after"), TimestampMs: engine.NoTimestamp}, engine.Acks1); err != nil {
		t.Fatalf("produce after freeing space: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	c, _, err = engine.Open(cfg, clk)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	md, err := c.PartitionMetadata(p)
	if err != nil {
		t.Fatal(err)
	}
	batches, err := c.LogBatches(p, md.Leader, 0, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]string{}
	for _, b := range batches {
		recs, err := b.Records()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			got[r.Offset] = string(r.Value)
			if string(r.Value) == refused {
				t.Errorf("the refused record is at offset %d", r.Offset)
			}
		}
	}
	for off, v := range acked {
		if got[off] != v {
			t.Errorf("acknowledged offset %d lost after the disk was full", off)
		}
	}
}

// TestReadOnlyDataDirectory: a data directory on a read-only file system
// is refused with a message that says so, not as a missing segment.
func TestReadOnlyDataDirectory(t *testing.T) {
	dir := smallFS(t, 2<<20)
	cfg := engine.DefaultConfig(filepath.Join(dir, "data"))
	cfg.BrokerIDs = []int32{1}
	c, _, err := engine.Open(cfg, clock.NewManual(0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateTopic("orders", 1, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Produce("orders", 0, record.Record{Value: []byte("x"), TimestampMs: engine.NoTimestamp}, engine.Acks1); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Skipf("cannot remount read-only: %v", err)
	}
	_, _, err = engine.Open(cfg, clock.NewManual(0))
	if !errors.Is(err, kerr.StorageError) || !strings.Contains(err.Error(), "cannot be written") || strings.Contains(err.Error(), "missing") {
		t.Fatalf("open on a read-only file system: %v", err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_REMOUNT, ""); err != nil {
		t.Fatal(err)
	}
}
