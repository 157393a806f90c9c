package vfs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"syscall"
	"testing"

	"pgregory.net/rapid"
)

// crashModel is what a Mem must hold: two directories whose own entries
// in the root are durable, files by id with their current and durable
// contents, and each directory's current and durable listing.
type crashModel struct {
	files  map[int]*modelFile
	cur    map[string]map[string]int // dir -> name -> file id
	dur    map[string]map[string]int
	nextID int
}

type modelFile struct{ data, synced []byte }

var crashDirs = []string{"d1", "d2"}

func newCrashModel() *crashModel {
	m := &crashModel{files: map[int]*modelFile{}, cur: map[string]map[string]int{}, dur: map[string]map[string]int{}}
	for _, d := range crashDirs {
		m.cur[d], m.dur[d] = map[string]int{}, map[string]int{}
	}
	return m
}

func (m *crashModel) clone() *crashModel {
	c := newCrashModel()
	c.nextID = m.nextID
	for id, f := range m.files {
		c.files[id] = &modelFile{data: slices.Clone(f.data), synced: slices.Clone(f.synced)}
	}
	for _, d := range crashDirs {
		c.cur[d], c.dur[d] = maps.Clone(m.cur[d]), maps.Clone(m.dur[d])
	}
	return c
}

// crash reverts the directories in dirs (path order) and the files they
// then hold, as Mem.CrashWith does; tears says how many unsynced bytes of
// each file survive.
func (m *crashModel) crash(t *rapid.T, dirs []string, tears map[string]int64) {
	seen := map[int]bool{}
	for _, d := range dirs {
		m.cur[d] = maps.Clone(m.dur[d])
		for _, name := range slices.Sorted(maps.Keys(m.cur[d])) {
			id := m.cur[d][name]
			if seen[id] {
				delete(m.cur[d], name)
				continue
			}
			seen[id] = true
			f := m.files[id]
			old := f.data
			f.data = slices.Clone(f.synced)
			if unsynced := len(old) - len(f.synced); unsynced > 0 {
				k, asked := tears[d+"/"+name]
				if !asked {
					t.Fatalf("the crash did not ask how much of %s/%s to keep", d, name)
				}
				if k > 0 {
					f.data = append(f.data, old[len(f.synced):len(f.synced)+int(k)]...)
					f.synced = slices.Clone(f.data)
				}
				delete(tears, d+"/"+name)
			}
		}
	}
	if len(tears) > 0 {
		t.Fatalf("the crash asked about files the model keeps whole: %v", tears)
	}
}

func writeModel(f *modelFile, off int64, data []byte) {
	if end := int(off) + len(data); end > len(f.data) {
		f.data = append(f.data, make([]byte, end-len(f.data))...)
	}
	copy(f.data[off:], data)
}

// check compares a Mem with the model: listings, contents, durable sizes.
func (m *crashModel) check(t *rapid.T, mem *Mem, which string) {
	for _, d := range crashDirs {
		es, err := mem.ReadDir(d)
		if err != nil {
			t.Fatalf("%s: readdir %s: %v", which, d, err)
		}
		var got []string
		for _, e := range es {
			got = append(got, e.Name())
		}
		want := slices.Sorted(maps.Keys(m.cur[d]))
		if !slices.Equal(got, want) {
			t.Fatalf("%s: %s holds %v, want %v", which, d, got, want)
		}
		for _, name := range want {
			f := m.files[m.cur[d][name]]
			data, err := mem.ReadFile(d + "/" + name)
			if err != nil || !bytes.Equal(data, f.data) {
				t.Fatalf("%s: %s/%s is %d bytes (%v), want %d", which, d, name, len(data), err, len(f.data))
			}
			if n, _ := mem.SyncedSize(d + "/" + name); n != int64(len(f.synced)) {
				t.Fatalf("%s: %s/%s has %d synced bytes, want %d", which, d, name, n, len(f.synced))
			}
		}
	}
}

// TestMemCrashModel drives two Mems (one may be a clone of the other) with
// random creates, writes, truncations, syncs, directory syncs, renames,
// removes, crashes (whole, torn, or under one directory) and clones, and
// checks both against a model after every step: the crash model holds,
// and a clone never sees the other copy's changes.
func TestMemCrashModel(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(rt *rapid.T) {
		mems := [2]*Mem{NewMem(), nil}
		models := [2]*crashModel{newCrashModel(), nil}
		for _, d := range crashDirs {
			if err := mems[0].Mkdir(d, 0o755); err != nil {
				rt.Fatal(err)
			}
		}
		mems[0].SyncDir(".")
		mems[1], models[1] = mems[0].Clone(), models[0].clone()
		names := []string{"x", "y"}
		steps := rapid.IntRange(10, 60).Draw(rt, "steps")
		ops := []string{"create", "write", "write", "truncate", "sync", "syncdir", "rename", "remove", "crash", "crash-under", "clone"}
		for step := 0; step < steps; step++ {
			i := rapid.SampledFrom([]int{0, 1}).Draw(rt, "fs")
			mem, model := mems[i], models[i]
			d := rapid.SampledFrom(crashDirs).Draw(rt, "dir")
			name := rapid.SampledFrom(names).Draw(rt, "name")
			p := d + "/" + name
			id, exists := model.cur[d][name]
			switch op := rapid.SampledFrom(ops).Draw(rt, "op"); op {
			case "create":
				f, err := mem.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
				if err != nil {
					rt.Fatalf("create %s: %v", p, err)
				}
				f.Close()
				if !exists {
					model.nextID++
					model.files[model.nextID] = &modelFile{}
					model.cur[d][name] = model.nextID
				}
			case "write":
				off := rapid.Int64Range(0, 9000).Draw(rt, "off")
				data := bytes.Repeat([]byte{byte(rapid.IntRange(1, 255).Draw(rt, "byte"))}, rapid.IntRange(1, 9000).Draw(rt, "len"))
				f, err := mem.OpenFile(p, os.O_RDWR, 0)
				if !exists {
					if !errors.Is(err, fs.ErrNotExist) {
						rt.Fatalf("open missing %s: %v", p, err)
					}
					continue
				}
				if _, err := f.WriteAt(data, off); err != nil {
					rt.Fatalf("write %s: %v", p, err)
				}
				f.Close()
				writeModel(model.files[id], off, data)
			case "truncate":
				size := rapid.Int64Range(0, 12000).Draw(rt, "size")
				err := mem.Truncate(p, size)
				if !exists {
					if !errors.Is(err, fs.ErrNotExist) {
						rt.Fatalf("truncate missing %s: %v", p, err)
					}
					continue
				}
				if err != nil {
					rt.Fatalf("truncate %s: %v", p, err)
				}
				f := model.files[id]
				if int(size) <= len(f.data) {
					f.data = f.data[:size:size]
				} else {
					f.data = append(f.data, make([]byte, int(size)-len(f.data))...)
				}
			case "sync":
				f, err := mem.OpenFile(p, os.O_RDONLY, 0)
				if !exists {
					continue
				}
				if err != nil || f.Sync() != nil {
					rt.Fatalf("sync %s: %v", p, err)
				}
				f.Close()
				model.files[id].synced = slices.Clone(model.files[id].data)
			case "syncdir":
				if err := mem.SyncDir(d); err != nil {
					rt.Fatal(err)
				}
				model.dur[d] = maps.Clone(model.cur[d])
			case "rename":
				d2 := rapid.SampledFrom(crashDirs).Draw(rt, "dir2")
				name2 := rapid.SampledFrom(names).Draw(rt, "name2")
				err := mem.Rename(p, d2+"/"+name2)
				if !exists {
					if !errors.Is(err, fs.ErrNotExist) {
						rt.Fatalf("rename missing %s: %v", p, err)
					}
					continue
				}
				if err != nil {
					rt.Fatalf("rename %s: %v", p, err)
				}
				// Two names of one file (a crash under one directory after
				// an unsynced rename out of it leaves the file in both):
				// rename does nothing, as rename(2) says.
				if model.cur[d2][name2] != id {
					delete(model.cur[d], name)
					model.cur[d2][name2] = id
				}
			case "remove":
				err := mem.Remove(p)
				if exists != (err == nil) {
					rt.Fatalf("remove %s: %v (exists %v)", p, err, exists)
				}
				delete(model.cur[d], name)
			case "crash", "crash-under": // maybe torn
				tears := map[string]int64{}
				o := CrashOptions{}
				if rapid.Bool().Draw(rt, "torn") {
					o.Tear = func(name string, unsynced int64) int64 {
						k := rapid.Int64Range(0, unsynced).Draw(rt, "keep")
						tears[name] = k
						return k
					}
				} else {
					o.Tear = func(name string, unsynced int64) int64 {
						tears[name] = 0
						return 0
					}
				}
				dirs := crashDirs
				if op == "crash-under" {
					o.Under, dirs = d, []string{d}
				}
				mem.CrashWith(o)
				model.crash(rt, dirs, tears)
			case "clone": // this file system over the other one
				mems[1-i], models[1-i] = mem.Clone(), model.clone()
			}
			for j := range mems {
				models[j].check(rt, mems[j], fmt.Sprintf("fs %d after step %d", j, step))
			}
		}
	})
}

// A handle opened before a crash fails afterwards, as a dead process's
// would; the file opened again works.
func TestMemCrashClosesHandles(t *testing.T) {
	t.Parallel()
	m := NewMem()
	f, err := m.OpenFile("f", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("synced"))
	f.Sync()
	m.SyncDir(".")
	f.Write([]byte(" lost"))
	m.Crash()
	if _, err := f.Write([]byte("x")); !errors.Is(err, syscall.EIO) {
		t.Fatalf("write after crash: %v", err)
	}
	if got, _ := m.ReadFile("f"); string(got) != "synced" {
		t.Fatalf("after crash %q", got)
	}
	g, err := m.OpenFile("f", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.WriteAt([]byte("S"), 0); err != nil {
		t.Fatal(err)
	}
	if got, _ := m.ReadFile("f"); string(got) != "Synced" {
		t.Fatalf("after rewrite %q", got)
	}
}

// A file whose creation no directory sync made durable vanishes in a
// crash even if the file itself was synced; a removal or rename not made
// durable is undone.
func TestMemCrashRevertsDirectoryEntries(t *testing.T) {
	t.Parallel()
	m := NewMem()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(m.MkdirAll("data/p", 0o755))
	must(WriteFile(m, "data/p/kept", []byte("k"), 0o644))
	m.SyncAll()
	f, err := m.OpenFile("data/p/new", os.O_RDWR|os.O_CREATE, 0o644)
	must(err)
	f.Write([]byte("n"))
	must(f.Sync())
	must(m.Rename("data/p/kept", "data/p/moved"))
	m.CrashWith(CrashOptions{Under: "data/p"})
	es, err := m.ReadDir("data/p")
	must(err)
	if len(es) != 1 || es[0].Name() != "kept" {
		t.Fatalf("after crash: %v", es)
	}
}

// A crash under one directory after an unsynced rename out of it leaves one
// file under two names; renaming one name onto the other then does nothing,
// as rename(2) does for two links to one file (found by TestMemCrashModel).
func TestRenameOntoAnotherNameOfTheSameFileDoesNothing(t *testing.T) {
	m := NewMem()
	for _, d := range []string{"d1", "d2"} {
		if err := m.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	m.SyncDir(".")
	if err := WriteFile(m, "d1/y", []byte("v"), 0o644); err != nil {
		t.Fatal(err)
	}
	m.SyncAll() // the file and its name in d1 are durable
	if err := m.Rename("d1/y", "d2/y"); err != nil {
		t.Fatal(err)
	}
	m.CrashWith(CrashOptions{Under: "d1"})
	if err := m.Rename("d1/y", "d2/y"); err != nil {
		t.Fatalf("rename onto the same file: %v", err)
	}
	for _, p := range []string{"d1/y", "d2/y"} {
		if data, err := m.ReadFile(p); err != nil || string(data) != "v" {
			t.Fatalf("%s after the rename: %q, %v; want both names kept", p, data, err)
		}
	}
}
