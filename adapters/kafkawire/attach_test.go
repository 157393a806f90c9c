package kafkawire

import (
	"errors"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// TestListenerAttachesItsCluster: while the listener serves a cluster, the
// cluster refuses snapshots (the listener's group rounds and parked
// requests would be missing from a copy); once it closes, they work.
func TestListenerAttachesItsCluster(t *testing.T) {
	cfg := engine.DefaultConfig("data")
	cfg.FS = vfs.NewMem()
	c, _, err := engine.Open(cfg, clock.NewManual(0))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	srv, err := Listen(Options{Listeners: []Listener{{Broker: 1, Addr: "127.0.0.1:0"}}, Cluster: func() *engine.Cluster { return c }})
	if err != nil {
		t.Fatal(err)
	}
	var snapErr error
	if err := srv.Direct(func() error { _, snapErr = c.Snapshot(); return nil }); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(snapErr, kerr.IllegalState) {
		t.Fatalf("snapshot while listening: %v", snapErr)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Snapshot(); err != nil {
		t.Fatalf("snapshot after the listener closed: %v", err)
	}
}
