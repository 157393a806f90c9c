package repl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// mustRun runs lines that must succeed.
func mustRun(t *testing.T, s *Session, lines ...string) string {
	t.Helper()
	var all strings.Builder
	for _, l := range lines {
		out, err := run(t, s, l)
		if err != nil {
			t.Fatalf("%s: %v\n%s", l, err, out)
		}
		all.WriteString(out)
	}
	return all.String()
}

// TestDiskFullTakesTheBrokerOffline: a produce whose segment write the
// disk refuses (ENOSPC) fails with STORAGE_ERROR and a hint, acknowledges
// nothing, and takes the leader's broker offline; broker list, offsets and
// show say so and why, topic describe shows no leader. Once the disk has
// room, broker restart brings the broker back with every acknowledged
// record, and produce works again.
func TestDiskFullTakesTheBrokerOffline(t *testing.T) {
	mem := vfs.NewMem()
	s := newTestSession(t, Options{FS: mem})
	mustRun(t, s, "cluster open brokers=1,2", "topic create orders rf=2")
	for i := 0; i < 10; i++ {
		mustRun(t, s, fmt.Sprintf("produce orders value=v%d acks=all", i))
	}
	mustRun(t, s, "replicate", "check orders-0 hw == 10")
	full := mem.Inject(vfs.Fault{Op: vfs.OpWrite | vfs.OpCreate | vfs.OpSync, Under: s.cfg.DataDir, Err: syscall.ENOSPC, Persistent: true})

	out, err := run(t, s, "produce orders value=refused acks=all")
	if !errors.Is(err, kerr.StorageError) || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("produce on a full disk: %v\n%s", err, out)
	}
	for _, want := range []string{
		"broker 1: log directory broker-1 failed (orders-0: ",
		"error: STORAGE_ERROR: ",
		"no space left on device",
		"hint: " + diskHint,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("produce output lacks %q:\n%s", want, out)
		}
	}
	for cmd, wants := range map[string][]string{
		"broker list":           {"1       offline", "broker 1 offline: log directory broker-1 failed: orders-0: ", "broker restart 1"},
		"offsets orders-0":      {"offline", "broker 1 offline: log directory broker-1 failed"},
		"show orders-0":         {"offline: its log directory failed"},
		"topic describe orders": {"Leader: none"},
	} {
		out := mustRun(t, s, cmd)
		for _, want := range wants {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q:\n%s", cmd, want, out)
			}
		}
	}
	if out, err := run(t, s, "broker restart 1"); err == nil {
		t.Fatalf("restart on a disk that is still full: %s", out)
	}
	full.Clear()
	mustRun(t, s, "broker restart 1", "replicate")
	mustRun(t, s, "check orders-0 hw == 10", "check orders-0 leader == 1")
	out = mustRun(t, s, "fetch orders-0 max=20")
	if strings.Contains(out, "refused") || !strings.Contains(out, "v9") {
		t.Fatalf("after the restart:\n%s", out)
	}
	mustRun(t, s, "produce orders value=after acks=1", "check orders-0 leo == 11")
	if out := mustRun(t, s, "broker list"); strings.Contains(out, "offline") {
		t.Fatalf("broker list after the restart:\n%s", out)
	}
}

// TestClusterCloseOnAFullDisk: cluster close on a disk that refuses every
// write still closes what it can and says what it could not; after the
// disk has room, cluster restart holds every acknowledged record.
func TestClusterCloseOnAFullDisk(t *testing.T) {
	mem := vfs.NewMem()
	s := newTestSession(t, Options{FS: mem})
	mustRun(t, s, "cluster open brokers=1,2", "topic create orders partitions=2 rf=2")
	for i := 0; i < 10; i++ {
		mustRun(t, s, fmt.Sprintf("produce orders value=v%d partition=%d acks=all", i, i%2))
	}
	mustRun(t, s, "replicate", "check orders-0 hw == 5", "check orders-1 hw == 5")
	full := mem.Inject(vfs.Fault{Op: vfs.OpWrite | vfs.OpCreate | vfs.OpSync | vfs.OpRename, Under: s.cfg.DataDir, Err: syscall.ENOSPC, Persistent: true})
	out, err := run(t, s, "cluster close")
	t.Logf("cluster close on a full disk:\n%s", out)
	if err == nil || !strings.Contains(out, "STORAGE_ERROR") {
		t.Fatalf("cluster close on a full disk: %v\n%s", err, out)
	}
	if out, err := run(t, s, "produce orders value=x"); !errors.Is(err, kerr.IllegalState) {
		t.Fatalf("after the close the cluster runs: %v\n%s", err, out)
	}
	full.Clear()
	mustRun(t, s, "cluster restart", "check orders-0 hw == 5", "check orders-1 hw == 5")
	out = mustRun(t, s, "fetch orders-0", "fetch orders-1")
	for i := 0; i < 10; i++ {
		if !strings.Contains(out, fmt.Sprintf("value=v%d", i)) {
			t.Fatalf("v%d is gone after the restart:\n%s", i, out)
		}
	}
}

// TestOneSessionPerDataDirectory: a session that holds a data directory
// reopens it under another spelling (dir/., its absolute path) instead of
// opening it twice; another session of the same process is refused with
// the holder named and a hint, and the first session's records stay.
func TestOneSessionPerDataDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "same")
	first := newTestSession(t, Options{DataDir: dir})
	mustRun(t, first, "topic create orders rf=1", "produce orders value=kept acks=1")
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, spelling := range []string{dir + "/.", abs} {
		mustRun(t, first, "cluster open dir="+spelling, "check orders-0 values == [kept]")
	}
	second := newTestSession(t, Options{})
	out, err := run(t, second, "cluster open dir="+abs)
	if !errors.Is(err, kerr.IllegalState) || !strings.Contains(out, fmt.Sprintf("pid %d", os.Getpid())) || !strings.Contains(out, "hint: "+lockedHint) {
		t.Fatalf("a second session on the same directory: %v\n%s", err, out)
	}
	mustRun(t, first, "produce orders value=more acks=1", "check orders-0 values == [kept more]")
}
