package vfs

import (
	"bytes"
	"os"
	"testing"
)

// digestOf is m's Digest as bytes.
func digestOf(m *Mem) []byte {
	var b bytes.Buffer
	m.Digest(&b)
	return b.Bytes()
}

// TestDigest: a Digest is the same when taken again and on a clone (the
// inode numbering of one run does not leak into the next, also where a
// durable listing names an inode the current listing names under another
// name), and it tells apart a changed byte, a durable listing and an
// unsynced file.
func TestDigest(t *testing.T) {
	m := NewMem()
	mustNil(t, MkdirAllSynced(m, "d/sub", 0o755))
	mustNil(t, WriteFile(m, "d/sub/a", []byte("alpha"), 0o644))
	mustNil(t, WriteFile(m, "d/b", bytes.Repeat([]byte("b"), 2*pageSize+5), 0o644))
	m.SyncAll()
	// A rename not yet synced: the durable listing names "a", the current
	// one "c": the same inode twice.
	mustNil(t, m.Rename("d/sub/a", "d/sub/c"))
	first := digestOf(m)
	if again := digestOf(m); !bytes.Equal(first, again) {
		t.Fatalf("a second digest differs:\n%x\n%x", first, again)
	}
	clone := m.Clone()
	if got := digestOf(clone); !bytes.Equal(first, got) {
		t.Fatalf("a clone's digest differs:\n%x\n%x", first, got)
	}
	mustNil(t, WriteFile(clone, "d/b", bytes.Repeat([]byte("b"), 2*pageSize+5), 0o644))
	clone.SyncAll()
	if got := digestOf(clone); bytes.Equal(first, got) {
		t.Fatal("a synced rename leaves the digest unchanged")
	}
	other := m.Clone()
	f, err := other.OpenFile("d/b", os.O_WRONLY, 0)
	mustNil(t, err)
	_, err = f.WriteAt([]byte("B"), pageSize+1)
	mustNil(t, err)
	mustNil(t, f.Close())
	if got := digestOf(other); bytes.Equal(first, got) {
		t.Fatal("an unsynced byte change leaves the digest unchanged")
	}
	if again := digestOf(m); !bytes.Equal(first, again) {
		t.Fatal("the clones' changes reached the original's digest")
	}
}
