package vfs

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// A tree on the OS copied into a Mem and written back out to another
// directory comes back byte for byte, and the Mem copy is durable.
func TestCopyTreeRoundTrip(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	files := map[string]string{
		"metadata.json": `{"topics":[]}`,
		"broker-1/orders-0/00000000000000000000.log":   string(make([]byte, 3*pageSize+17)),
		"broker-1/orders-0/00000000000000000000.index": "",
		"broker-2/empty/.keep":                         "k",
	}
	for name, data := range files {
		p := filepath.Join(src, name)
		mustNil(t, os.MkdirAll(filepath.Dir(p), 0o755))
		mustNil(t, os.WriteFile(p, []byte(data), 0o644))
	}
	mustNil(t, os.Mkdir(filepath.Join(src, "broker-3"), 0o755))
	m, err := MemFrom(OS, src)
	mustNil(t, err)
	m.Crash() // everything copied is durable
	want := tree(t, OS, src)
	if got := tree(t, m, src); got != want {
		t.Fatalf("mem copy:\n%s\nwant\n%s", got, want)
	}
	mustNil(t, WriteFile(m, filepath.Join(src, "broker-3", "new"), []byte("added"), 0o644))
	out := filepath.Join(t.TempDir(), "restored")
	mustNil(t, CopyTree(OS, out, m, src))
	if got, want := tree(t, OS, out), tree(t, m, src); got != want {
		t.Fatalf("written out:\n%s\nwant\n%s", got, want)
	}
	if _, err := os.Stat(filepath.Join(src, "broker-3", "new")); !os.IsNotExist(err) {
		t.Fatalf("the Mem wrote through to the source: %v", err)
	}
}

// tree renders every entry under root with file sizes and contents' sums.
func tree(t *testing.T, fsys FS, root string) string {
	t.Helper()
	out := ""
	var walk func(dir, rel string)
	walk = func(dir, rel string) {
		es, err := fsys.ReadDir(dir)
		mustNil(t, err)
		for _, e := range es {
			p := filepath.Join(dir, e.Name())
			if e.IsDir() {
				out += rel + e.Name() + "/\n"
				walk(p, rel+e.Name()+"/")
				continue
			}
			b, err := fsys.ReadFile(p)
			mustNil(t, err)
			var sum uint32
			for _, c := range b {
				sum = sum*31 + uint32(c)
			}
			out += fmt.Sprintf("%s%s %d %08x\n", rel, e.Name(), len(b), sum)
		}
	}
	walk(root, "")
	return out
}

// NoSync turns Sync and SyncDir into no-ops: on a Mem, nothing written
// through it becomes durable.
func TestNoSync(t *testing.T) {
	t.Parallel()
	m := NewMem()
	n := NoSync(m)
	mustNil(t, n.Mkdir("d", 0o755))
	f, err := n.OpenFile("d/f", os.O_RDWR|os.O_CREATE, 0o644)
	mustNil(t, err)
	f.Write([]byte("data"))
	mustNil(t, f.Sync())
	mustNil(t, n.SyncDir("d"))
	mustNil(t, n.SyncDir("."))
	if got := readString(t, m, "d/f"); got != "data" {
		t.Fatalf("content %q", got)
	}
	m.Crash()
	if _, err := m.Stat("d"); err == nil {
		t.Fatal("a directory created through NoSync survived a crash")
	}
	StartWriteback(f, 0, 4) // not an OS file: nothing happens
}

// The OS file system hands out *os.File values, which StartWriteback
// recognises.
func TestOSFiles(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "f")
	f, err := OS.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	mustNil(t, err)
	defer f.Close()
	if _, ok := f.(*os.File); !ok {
		t.Fatalf("OS file is %T", f)
	}
	if _, err := f.WriteAt([]byte("hello"), 0); err != nil {
		t.Fatal(err)
	}
	StartWriteback(f, 0, 5)
	mustNil(t, OS.SyncDir(filepath.Dir(p)))
	if _, err := OS.OpenFile(filepath.Join(p, "x"), os.O_RDONLY, 0); err == nil {
		t.Fatal("opened a path below a file")
	}
	if f, err := OS.OpenFile(p+".missing", os.O_RDONLY, 0); f != nil || err == nil {
		t.Fatalf("missing file: %v, %v", f, err)
	}
}

// A clone shares pages: its first write copies only the page it touches,
// and neither copy sees the other's writes or appends.
func TestCloneSharesPages(t *testing.T) {
	m := NewMem()
	f, err := m.OpenFile("seg", os.O_RDWR|os.O_CREATE, 0o644)
	mustNil(t, err)
	f.Write(make([]byte, 64*pageSize))
	c := m.Clone()
	g, err := c.OpenFile("seg", os.O_RDWR, 0)
	mustNil(t, err)
	allocs := testing.AllocsPerRun(1, func() { g.WriteAt([]byte("clone"), 10*pageSize) })
	if allocs > 3 {
		t.Fatalf("the first write after a clone allocated %v times", allocs)
	}
	f.Write([]byte("appended by the original"))
	g.Seek(0, io.SeekEnd)
	g.Write([]byte("the clone's tail"))
	orig, _ := m.ReadFile("seg")
	cl, _ := c.ReadFile("seg")
	if string(orig[10*pageSize:10*pageSize+5]) != "\x00\x00\x00\x00\x00" || string(orig[64*pageSize:]) != "appended by the original" {
		t.Fatalf("the original saw the clone's write: %q", orig[64*pageSize:])
	}
	if string(cl[10*pageSize:10*pageSize+5]) != "clone" || string(cl[64*pageSize:]) != "the clone's tail" {
		t.Fatalf("the clone saw the original's write: %q", cl[64*pageSize:])
	}
}

// clusterLikeMem is a Mem shaped like a 3-broker, 6-partition cluster
// data directory holding 1,000 records.
func clusterLikeMem(b *testing.B) *Mem {
	m := NewMem()
	if err := m.Mkdir("data", 0o755); err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"metadata.json", "producer-identities.json", "offsets.json", "groups.json"} {
		if err := WriteFile(m, "data/"+name, make([]byte, 300), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for br := 1; br <= 3; br++ {
		for p := 0; p < 6; p++ {
			dir := fmt.Sprintf("data/broker-%d/orders-%d", br, p)
			if err := m.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			WriteFile(m, dir+"/00000000000000000000.log", make([]byte, 1000*120/6), 0o644)
			WriteFile(m, dir+"/00000000000000000000.index", make([]byte, 48), 0o644)
		}
	}
	m.SyncAll()
	return m
}

// BenchmarkMemClone clones a cluster-shaped file system.
func BenchmarkMemClone(b *testing.B) {
	m := clusterLikeMem(b)
	b.ReportAllocs()
	for b.Loop() {
		m.Clone()
	}
}

// BenchmarkMemWriteAfterClone is the first append to a segment after a
// clone: one page copied.
func BenchmarkMemWriteAfterClone(b *testing.B) {
	m := clusterLikeMem(b)
	rec := make([]byte, 120)
	b.ReportAllocs()
	for b.Loop() {
		c := m.Clone()
		f, err := c.OpenFile("data/broker-1/orders-0/00000000000000000000.log", os.O_RDWR, 0)
		if err != nil {
			b.Fatal(err)
		}
		f.WriteAt(rec, 1000*120/6)
	}
}

// MkdirAllSynced makes every directory it creates durable, and costs no
// fsync for one that exists.
func TestMkdirAllSynced(t *testing.T) {
	t.Parallel()
	m := NewMem()
	mustNil(t, m.Mkdir("data", 0o755))
	m.SyncAll()
	mustNil(t, MkdirAllSynced(m, "data/broker-1/orders-0", 0o755))
	m.Crash()
	if _, err := m.Stat("data/broker-1/orders-0"); err != nil {
		t.Fatalf("a new directory did not survive a crash: %v", err)
	}
	m.Inject(Fault{Op: OpSyncDir, Persistent: true})
	mustNil(t, MkdirAllSynced(m, "data/broker-1", 0o755)) // exists: no fsync
	if err := MkdirAllSynced(m, "data/broker-2", 0o755); err == nil {
		t.Fatal("a failing directory fsync went unreported")
	}
	m.ClearFaults()
	mustNil(t, MkdirAllSynced(OS, filepath.Join(t.TempDir(), "a", "b"), 0o755))
}
