package engine_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// TestOneClusterPerDataDirectory: while a cluster has a data directory
// open, a second Open of it, however it is spelled, is ILLEGAL_STATE naming
// the holder, and changes nothing; after Close or Crash it opens again with
// the first cluster's records.
func TestOneClusterPerDataDirectory(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir := filepath.Join(base, "data")
	f := openOnDisk(t, []int32{1}, func(c *engine.Config) { c.DataDir = dir })
	f.topic("orders", 1, 1)
	if _, err := f.c.Produce("orders", 0, rec("kept"), engine.Acks1); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	for _, spelling := range []string{dir, dir + "/.", link, dir + "/"} {
		cfg := f.cfg
		cfg.DataDir = spelling
		c, _, err := engine.Open(cfg, clock.NewManual(0))
		if c != nil {
			c.Close()
		}
		if !errors.Is(err, kerr.IllegalState) || !errors.Is(err, vfs.ErrLocked) {
			t.Fatalf("second open as %q: %v", spelling, err)
		}
		if !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
			t.Errorf("the refusal does not name the holder: %v", err)
		}
	}
	wantStrings(t, "the first cluster", f.values(tp("orders", 0), engine.ReadUncommitted), []string{"kept"})
	if err := f.c.Crash(); err != nil {
		t.Fatal(err)
	}
	f.reopen()
	wantStrings(t, "after the crash", f.values(tp("orders", 0), engine.ReadUncommitted), []string{"kept"})
	if err := f.c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, vfs.LockFileName)); !os.IsNotExist(err) {
		t.Fatalf("the lock file outlived the cluster: %v", err)
	}
	f.reopen()
}

// TestOneClusterPerDataDirectoryInMemory: the in-memory file system locks
// the same way, and a simulated machine crash releases the lock.
func TestOneClusterPerDataDirectoryInMemory(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("orders", 1, 1)
	for _, spelling := range []string{"data", "data/.", "./data/"} {
		cfg := f.cfg
		cfg.DataDir = spelling
		if _, _, err := engine.Open(cfg, clock.NewManual(0)); !errors.Is(err, vfs.ErrLocked) {
			t.Fatalf("second open as %q: %v", spelling, err)
		}
	}
	mem := f.cfg.FS.(*vfs.Mem)
	mem.Crash() // the machine dies with the cluster in it
	f.reopen()
	if ts, err := f.c.Topics(); err != nil || len(ts) != 1 {
		t.Fatalf("after the machine crash: %v %v", ts, err)
	}
}
