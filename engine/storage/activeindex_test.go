package storage

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// indexReads wraps a file system and counts how often each index file
// is opened for reading or read whole.
type indexReads struct {
	vfs.FS
	reads map[string]int
}

func (r indexReads) OpenFile(name string, flag int, perm fs.FileMode) (vfs.File, error) {
	if filepath.Ext(name) == IndexFileSuffix && flag&(os.O_WRONLY|os.O_RDWR) == 0 {
		r.reads[name]++
	}
	return r.FS.OpenFile(name, flag, perm)
}

func (r indexReads) ReadFile(name string) ([]byte, error) {
	if filepath.Ext(name) == IndexFileSuffix {
		r.reads[name]++
	}
	return r.FS.ReadFile(name)
}

// A clean open reads the closed segments' index files (validated against
// the marker) but not the active one's, whose entries the scan rebuilds
// and the marker's CRC confirms; the log then works as after a full
// comparison.
func TestCleanOpenSkipsTheActiveIndexFile(t *testing.T) {
	mem := vfs.NewMem()
	l := rolledLog(t, mem)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	o := opts(200, 1)
	r := indexReads{FS: mem, reads: map[string]int{}}
	o.FS = r
	l, rep, err := Open("/d/log", o, 0)
	if err != nil || !rep.CleanShutdown || rep.IndexesRebuilt != 0 {
		t.Fatalf("open: %v %+v", err, rep)
	}
	segs := l.Segments()
	for _, s := range segs {
		want := 1
		if s.Active {
			want = 0
		}
		if got := r.reads[s.IndexPath]; got != want {
			t.Errorf("segment %d (active %v): index file read %d times, want %d", s.Base, s.Active, got, want)
		}
	}
	act := segs[len(segs)-1]
	if act.IndexEntries == 0 {
		t.Fatal("the active segment has no index entry: the test proves nothing")
	}
	// The log goes on: an append and a close write the next entry after
	// the ones the file holds, and a crash-open finds the file complete.
	if _, _, err := l.Append(values(0, "b")); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l, rep, err = Open("/d/log", o, 0)
	if err != nil || !rep.CleanShutdown {
		t.Fatalf("reopen: %v %+v", err, rep)
	}
	if err := l.Crash(true); err != nil {
		t.Fatal(err)
	}
	l, rep, err = Open("/d/log", o, 0)
	if err != nil || rep.CleanShutdown || rep.IndexesRebuilt != 0 {
		t.Fatalf("open after a crash: %v %+v (every index file should be as the scan rebuilds it)", err, rep)
	}
	l.Close()
}

// What a clean open cannot take on trust is compared as before: an
// active index file deleted, cut or grown after the close, a marker of
// version 2 (no CRC), or a scan that indexes differently (another
// index.interval.bytes) is read or rewritten and counted as rebuilt.
func TestCleanOpenComparesAChangedActiveIndex(t *testing.T) {
	for _, tc := range []struct {
		name    string
		damage  func(mem *vfs.Mem, path string) error
		o       Options
		rebuilt int
	}{
		{"deleted", func(mem *vfs.Mem, path string) error { return mem.Remove(path) }, opts(1<<20, 1), 1},
		{"cut", func(mem *vfs.Mem, path string) error { return mem.Truncate(path, IndexEntrySize) }, opts(1<<20, 1), 1},
		{"grown", func(mem *vfs.Mem, path string) error { return mem.Truncate(path, 3*IndexEntrySize) }, opts(1<<20, 1), 1},
		{"version 2 marker", nil, opts(1<<20, 1), 0},
		{"another interval", func(*vfs.Mem, string) error { return nil }, opts(1<<20, 1<<20), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := vfs.NewMem()
			o := opts(1<<20, 1)
			o.FS = mem
			l, _, err := Open("/d/log", o, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range []string{"a", "b"} {
				if _, _, err := l.Append(values(0, v)); err != nil {
					t.Fatal(err)
				}
			}
			act := l.Segments()[0]
			if act.IndexEntries != 2 {
				t.Fatalf("%d index entries, want 2", act.IndexEntries)
			}
			m := l.marker()
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if tc.damage == nil {
				if err := vfs.WriteFile(mem, "/d/log/"+MarkerFileName, encodeMarkerV2(m), 0o644); err != nil {
					t.Fatal(err)
				}
			} else if err := tc.damage(mem, act.IndexPath); err != nil {
				t.Fatal(err)
			}
			r := indexReads{FS: mem, reads: map[string]int{}}
			o = tc.o
			o.FS = r
			l, rep, err := Open("/d/log", o, 0)
			if err != nil || !rep.CleanShutdown {
				t.Fatalf("open: %v %+v", err, rep)
			}
			defer l.Close()
			if rep.IndexesRebuilt != tc.rebuilt {
				t.Errorf("%d indexes rebuilt, want %d", rep.IndexesRebuilt, tc.rebuilt)
			}
			if r.reads[act.IndexPath] != 1 {
				t.Errorf("active index file read %d times, want 1 (compared)", r.reads[act.IndexPath])
			}
			entries, err := readIndexFile(mem, act.IndexPath, act.Base)
			now := l.Segments()[len(l.Segments())-1]
			if err != nil || len(entries) != now.IndexEntries {
				t.Errorf("active index file after the open: %d entries (%v), want %d", len(entries), err, now.IndexEntries)
			}
		})
	}
}
