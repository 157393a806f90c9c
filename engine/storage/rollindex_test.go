package storage

import (
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// createCounter wraps a syncCounter and records the files OpenFile
// created (opened with O_CREATE where nothing was).
type createCounter struct {
	*syncCounter
	created map[string]int
}

func newCreateCounter(fsys vfs.FS) *createCounter {
	return &createCounter{syncCounter: newSyncCounter(fsys), created: map[string]int{}}
}

func (c *createCounter) OpenFile(name string, flag int, perm fs.FileMode) (vfs.File, error) {
	if flag&os.O_CREATE != 0 {
		if _, err := c.FS.Stat(name); vfs.IsNotExist(err) {
			c.created[name]++
		}
	}
	return c.syncCounter.OpenFile(name, flag, perm)
}

// rolledLog opens a log on c and appends four batches that each fill a
// segment: three rolls, four segments.
func rolledLog(t *testing.T, c vfs.FS) *Log {
	t.Helper()
	o := opts(200, 1)
	o.FS = c
	l, _, err := Open("/d/log", o, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		if _, _, err := l.Append(values(0, strings.Repeat("x", 150))); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(l.Segments()); n != 4 {
		t.Fatalf("%d segments, want 4", n)
	}
	return l
}

// A roll writes the rolled segment's index file (without an fsync), and
// the close that follows creates no index file for it: it fsyncs it once.
func TestRollWritesTheRolledIndexFile(t *testing.T) {
	mem := vfs.NewMem()
	c := newCreateCounter(mem)
	l := rolledLog(t, c)
	segs := l.Segments()
	for _, s := range segs[:3] {
		entries, err := readIndexFile(mem, s.IndexPath, s.Base)
		if err != nil {
			t.Fatalf("rolled segment %d: %v", s.Base, err)
		}
		if len(entries) != s.IndexEntries || s.IndexEntries == 0 {
			t.Errorf("rolled segment %d: %d entries in its index file, want %d", s.Base, len(entries), s.IndexEntries)
		}
		if n := c.syncs[s.IndexPath]; n != 0 {
			t.Errorf("rolled segment %d: index fsynced %d times by the roll, want 0", s.Base, n)
		}
		if n := c.syncs[s.LogPath]; n != 1 {
			t.Errorf("rolled segment %d: log fsynced %d times by the roll, want 1", s.Base, n)
		}
	}
	if _, err := mem.Stat(segs[3].IndexPath); !vfs.IsNotExist(err) {
		t.Errorf("active segment's index file exists before any flush or close: %v", err)
	}
	created := map[string]int{}
	for k, v := range c.created {
		created[k] = v
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	for _, s := range segs[:3] {
		if c.created[s.IndexPath] != created[s.IndexPath] {
			t.Errorf("close created the index file of rolled segment %d", s.Base)
		}
		if n := c.syncs[s.IndexPath]; n != 1 {
			t.Errorf("rolled segment %d: index fsynced %d times in all, want 1 (at close)", s.Base, n)
		}
	}
	if c.created[segs[3].IndexPath] != 1 {
		t.Errorf("close did not create the active segment's index file")
	}
}

// After a process crash the rolled segments' index files are as their
// roll wrote them: only the active segment's index is rebuilt. After a
// machine crash the unsynced index files are lost and rebuilt.
func TestRolledIndexFilesAfterCrashes(t *testing.T) {
	for _, tc := range []struct {
		name          string
		keepUnflushed bool
		want          string
	}{
		{"process", true, "4 segments, 4 scanned, 1 index rebuilt"},
		// The last segment's creation was never made durable.
		{"machine", false, "3 segments, 3 scanned, 3 indexes rebuilt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := vfs.NewMem()
			l := rolledLog(t, mem)
			if err := l.Crash(tc.keepUnflushed); err != nil {
				t.Fatal(err)
			}
			o := opts(200, 1)
			o.FS = mem
			l, rep, err := Open("/d/log", o, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if got := rep.String(); got != tc.want {
				t.Errorf("recovery: %q, want %q", got, tc.want)
			}
			for _, s := range l.Segments() {
				entries, err := readIndexFile(mem, s.IndexPath, s.Base)
				if err != nil || len(entries) != s.IndexEntries {
					t.Errorf("segment %d after recovery: %d entries in the file (%v), want %d", s.Base, len(entries), err, s.IndexEntries)
				}
			}
		})
	}
}
