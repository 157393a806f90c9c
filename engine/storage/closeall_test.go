package storage

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// syncCounter wraps a file system and counts the fsyncs of every file and
// directory by path.
type syncCounter struct {
	vfs.FS
	syncs map[string]int
}

func newSyncCounter(fsys vfs.FS) *syncCounter {
	return &syncCounter{FS: fsys, syncs: map[string]int{}}
}

func (c *syncCounter) OpenFile(name string, flag int, perm fs.FileMode) (vfs.File, error) {
	f, err := c.FS.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return countedFile{f, c}, nil
}

func (c *syncCounter) SyncDir(name string) error {
	c.syncs[name+"/"]++
	return c.FS.SyncDir(name)
}

type countedFile struct {
	vfs.File
	c *syncCounter
}

func (f countedFile) Sync() error {
	f.c.syncs[f.Name()]++
	return f.File.Sync()
}

// A graceful close fsyncs every file that changed exactly once, touches no
// file that did not change, and fsyncs each log directory for its new
// marker (and first for a new segment or the consumed marker's deletion,
// as Flush does).
func TestCloseAllSyncsEachChangedFileOnce(t *testing.T) {
	mem := vfs.NewMem()
	o := opts(200, 1)
	o.FS = mem
	dirs := []string{"/d/idle", "/d/busy", "/d/rolled"}
	for _, d := range dirs {
		l, _, err := Open(d, o, 0)
		if err != nil {
			t.Fatal(err)
		}
		if d != "/d/idle" {
			if _, _, err := l.Append(values(0, "a", "b")); err != nil {
				t.Fatal(err)
			}
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
	counter := newSyncCounter(mem)
	o.FS = counter
	var logs []*Log
	for _, d := range dirs {
		l, rep, err := Open(d, o, 0)
		if err != nil || !rep.CleanShutdown {
			t.Fatalf("open %s: %v %+v", d, err, rep)
		}
		logs = append(logs, l)
	}
	if _, _, err := logs[1].Append(values(0, "c")); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ { // rolls: each fsyncs the rolled log file once
		if _, _, err := logs[2].Append(values(0, strings.Repeat("x", 150))); err != nil {
			t.Fatal(err)
		}
	}
	before := map[string]int{}
	for k, v := range counter.syncs {
		before[k] = v
	}
	for i, err := range CloseAll(logs) {
		if err != nil {
			t.Fatalf("close %s: %v", dirs[i], err)
		}
	}
	got := map[string]int{}
	for k, v := range counter.syncs {
		if n := v - before[k]; n > 0 {
			got[k] = n
		}
	}
	want := map[string]int{
		"/d/idle/cleanshutdown.tmp": 1, "/d/idle/": 2, // the consumed marker's deletion, then the new one
		"/d/busy/cleanshutdown.tmp": 1, "/d/busy/": 2,
		"/d/busy/" + SegmentFileName(0): 1, "/d/busy/" + IndexFileName(0): 1,
		// The last roll created a segment no directory fsync covers yet.
		"/d/rolled/cleanshutdown.tmp": 1, "/d/rolled/": 2,
	}
	for _, s := range logs[2].Segments() {
		if s.Active {
			want[s.LogPath] = 1 // the rolled ones were fsynced by their roll
		}
		if s.Base > 0 {
			want[s.IndexPath] = 1 // written at their roll (the active one at close), fsynced at close
		}
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %d fsyncs at close, want %d", k, got[k], v)
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %d fsyncs at close, want none", k, v)
		}
	}
	for _, d := range dirs {
		_, rep, err := Open(d, o, 0)
		if err != nil || !rep.CleanShutdown {
			t.Fatalf("reopen %s: %v %+v", d, err, rep)
		}
	}
}
