package storage

import (
	"testing"

	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// CreateAll makes every new directory durable with one fsync each: after a
// machine crash every log is still there, and opens clean and empty.
func TestCreateAllIsDurableWithOneSyncPerDirectory(t *testing.T) {
	mem := vfs.NewMem()
	counter := newSyncCounter(mem)
	o := opts(1<<20, 4096)
	o.FS = counter
	dirs := []string{"/data/b1/t-0", "/data/b1/t-1", "/data/b2/t-0"}
	logs, err := CreateAll(dirs, o)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"//": 1, "/data/": 1, "/data/b1/": 1, "/data/b2/": 1,
		"/data/b1/t-0/": 1, "/data/b1/t-1/": 1, "/data/b2/t-0/": 1}
	for k, v := range counter.syncs {
		if want[k] != v {
			t.Errorf("%s: %d fsyncs, want %d", k, v, want[k])
		}
	}
	for _, l := range logs {
		l.Crash(false) // nothing of them may be dropped: everything is durable
	}
	mem.Crash()
	for _, d := range dirs {
		l, rep, err := Open(d, o, 0)
		if err != nil || l.LEO() != 0 || rep.Segments != 1 {
			t.Fatalf("%s after a crash: %v %+v", d, err, rep)
		}
		l.Close()
	}
	if _, err := CreateAll([]string{dirs[0]}, o); err == nil {
		t.Fatal("CreateAll over an existing directory succeeded")
	}
}
