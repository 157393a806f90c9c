package vfs

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"testing"
)

func mustNil(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantErrno(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: error %v, want %v", what, err, want)
	}
	var pe *fs.PathError
	var le *os.LinkError
	if !errors.As(err, &pe) && !errors.As(err, &le) {
		t.Fatalf("%s: error %T is not a *fs.PathError or *os.LinkError", what, err)
	}
}

func readString(t *testing.T, m *Mem, name string) string {
	t.Helper()
	b, err := m.ReadFile(name)
	mustNil(t, err)
	return string(b)
}

// The Nth matching write fails once; the others succeed.
func TestFaultNthWriteOnce(t *testing.T) {
	t.Parallel()
	m := NewMem()
	f, err := m.OpenFile("f", os.O_RDWR|os.O_CREATE, 0o644)
	mustNil(t, err)
	inj := m.Inject(Fault{Op: OpWrite, Nth: 2, Err: syscall.ENOSPC})
	for i, want := range []error{nil, syscall.ENOSPC, nil} {
		n, err := f.Write([]byte("ab"))
		if want == nil {
			if err != nil || n != 2 {
				t.Fatalf("write %d: %d, %v", i, n, err)
			}
			continue
		}
		wantErrno(t, "second write", err, want)
		if n != 0 {
			t.Fatalf("failed write wrote %d bytes", n)
		}
	}
	if got := readString(t, m, "f"); got != "abab" {
		t.Fatalf("content %q", got)
	}
	if inj.Fired() != 1 {
		t.Fatalf("fired %d times", inj.Fired())
	}
}

// A persistent fault under a prefix fails every matching operation there,
// and nothing elsewhere, until it is cleared.
func TestFaultPersistentUnderPrefix(t *testing.T) {
	t.Parallel()
	m := NewMem()
	mustNil(t, m.MkdirAll("data/broker-1", 0o755))
	mustNil(t, m.MkdirAll("data/broker-10", 0o755))
	inj := m.Inject(Fault{Op: OpWrite | OpCreate, Under: "data/broker-1", Persistent: true})
	for i := 0; i < 3; i++ {
		_, err := m.OpenFile("data/broker-1/f", os.O_RDWR|os.O_CREATE, 0o644)
		wantErrno(t, "create under the prefix", err, syscall.EIO)
	}
	mustNil(t, WriteFile(m, "data/broker-10/f", []byte("x"), 0o644)) // a sibling, not below
	mustNil(t, WriteFile(m, "data/f", []byte("x"), 0o644))
	if inj.Fired() != 3 {
		t.Fatalf("fired %d times", inj.Fired())
	}
	inj.Clear()
	mustNil(t, WriteFile(m, "data/broker-1/f", []byte("ok"), 0o644))
}

// A torn write writes its first bytes, then fails.
func TestFaultTornWrite(t *testing.T) {
	t.Parallel()
	m := NewMem()
	f, err := m.OpenFile("seg", os.O_RDWR|os.O_CREATE, 0o644)
	mustNil(t, err)
	f.Write([]byte("head|"))
	m.Inject(Fault{Op: OpWrite, Tear: 3})
	n, err := f.WriteAt([]byte("frame"), 5)
	wantErrno(t, "torn write", err, syscall.EIO)
	if n != 3 || readString(t, m, "seg") != "head|fra" {
		t.Fatalf("torn write wrote %d: %q", n, readString(t, m, "seg"))
	}
}

// Sync, SyncDir, rename, truncate and remove faults fail the operation
// and change nothing; a failed sync makes nothing durable.
func TestFaultOtherOperations(t *testing.T) {
	t.Parallel()
	m := NewMem()
	mustNil(t, m.Mkdir("d", 0o755))
	mustNil(t, WriteFile(m, "d/a", []byte("abc"), 0o644))
	m.SyncAll()
	f, err := m.OpenFile("d/a", os.O_RDWR, 0)
	mustNil(t, err)
	f.WriteAt([]byte("def"), 3)

	m.Inject(Fault{Op: OpSync})
	wantErrno(t, "sync", f.Sync(), syscall.EIO)
	if n, _ := m.SyncedSize("d/a"); n != 3 {
		t.Fatalf("failed sync made %d bytes durable", n)
	}
	m.Inject(Fault{Op: OpRename, Under: "d/b", Err: syscall.ENOSPC})
	wantErrno(t, "rename onto the faulty path", m.Rename("d/a", "d/b"), syscall.ENOSPC)
	m.Inject(Fault{Op: OpTruncate})
	wantErrno(t, "truncate", m.Truncate("d/a", 1), syscall.EIO)
	m.Inject(Fault{Op: OpRemove})
	wantErrno(t, "remove", m.Remove("d/a"), syscall.EIO)
	mustNil(t, WriteFile(m, "d/c", nil, 0o644))
	m.Inject(Fault{Op: OpSyncDir})
	wantErrno(t, "syncdir", m.SyncDir("d"), syscall.EIO)
	if got := readString(t, m, "d/a"); got != "abcdef" {
		t.Fatalf("content %q", got)
	}
	m.Crash()
	if got := readString(t, m, "d/a"); got != "abc" {
		t.Fatalf("after crash %q", got)
	}
	if _, err := m.Stat("d/c"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("d/c survived a failed directory sync: %v", err)
	}
}

// A capacity limit answers ENOSPC like a full disk: a write writes what
// fits, truncations that grow fail, and raising the limit lets writes
// through again.
func TestCapacity(t *testing.T) {
	t.Parallel()
	m := NewMem()
	mustNil(t, WriteFile(m, "a", make([]byte, 6), 0o644))
	m.SetCapacity(10)
	f, err := m.OpenFile("b", os.O_RDWR|os.O_CREATE, 0o644)
	mustNil(t, err)
	n, err := f.Write([]byte("123456"))
	wantErrno(t, "write past capacity", err, syscall.ENOSPC)
	if n != 4 || m.Used() != 10 {
		t.Fatalf("wrote %d, used %d", n, m.Used())
	}
	if _, err := f.WriteAt([]byte("xy"), 0); err != nil { // overwriting takes no space
		t.Fatal(err)
	}
	wantErrno(t, "truncate up", m.Truncate("a", 7), syscall.ENOSPC)
	mustNil(t, m.Truncate("a", 2))
	if _, err := f.Write([]byte("56")); err != nil {
		t.Fatalf("write after freeing space: %v", err)
	}
	m.SetCapacity(0)
	if _, err := f.Write(make([]byte, 1<<16)); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, m, "b"); got[:6] != "xy3456" {
		t.Fatalf("content %q", got[:6])
	}
}

// Faults and capacity belong to one Mem: a clone starts without faults.
func TestCloneHasNoFaults(t *testing.T) {
	t.Parallel()
	m := NewMem()
	m.Inject(Fault{Op: OpCreate, Persistent: true})
	c := m.Clone()
	mustNil(t, WriteFile(c, "f", []byte("x"), 0o644))
	if err := WriteFile(m, "f", []byte("x"), 0o644); !errors.Is(err, syscall.EIO) {
		t.Fatalf("original lost its fault: %v", err)
	}
	m.ClearFaults()
	mustNil(t, WriteFile(m, "f", []byte("x"), 0o644))
}
