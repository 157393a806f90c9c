package producer

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// §8.5.1: the file format (sorted keys, default separators) and the
// allocation sequence w, w, unnamed -> (5,0), (5,1), (6,0) on a store that
// already holds four names.
func TestIdentityStoreAllocation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	seed := `{"a": [1, 0], "b": [2, 3], "c": [3, 0], "d": [4, 1]}`
	if err := os.WriteFile(filepath.Join(dir, IdentityFile), []byte(seed), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := OpenIdentityStore(vfs.OS, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		want Identity
	}{{"w", Identity{5, 0}}, {"w", Identity{5, 1}}, {"producer-7", Identity{6, 0}}} {
		got, err := s.Allocate(c.name)
		if err != nil || got != c.want {
			t.Fatalf("allocate %s = %+v %v, want %+v", c.name, got, err, c.want)
		}
	}
	data, _ := os.ReadFile(filepath.Join(dir, IdentityFile))
	want := `{"a": [1, 0], "b": [2, 3], "c": [3, 0], "d": [4, 1], "producer-7": [6, 0], "w": [5, 1]}`
	if string(data) != want {
		t.Fatalf("file:\n%s\nwant\n%s", data, want)
	}
	if _, err := os.Stat(filepath.Join(dir, IdentityTempFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("temporary file left behind")
	}
	again, err := OpenIdentityStore(vfs.OS, dir)
	if err != nil || again.Len() != 6 {
		t.Fatalf("reopen: %v", err)
	}
	if id, _ := again.Get("w"); id != (Identity{5, 1}) {
		t.Fatalf("reopened w = %+v", id)
	}
}

// Next predicts Allocate without changing anything, including the refusal
// of a name whose epoch is exhausted.
func TestIdentityStoreNext(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	seed := `{"a": [1, 2147483647], "b": [2, 3]}`
	if err := os.WriteFile(filepath.Join(dir, IdentityFile), []byte(seed), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := OpenIdentityStore(vfs.OS, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		want Identity
	}{{"b", Identity{2, 4}}, {"c", Identity{3, 0}}} {
		if got, err := s.Next(c.name); err != nil || got != c.want {
			t.Fatalf("next %s = %+v %v, want %+v", c.name, got, err, c.want)
		}
	}
	if s.Len() != 2 {
		t.Fatal("Next changed the store")
	}
	_, nextErr := s.Next("a")
	_, allocErr := s.Allocate("a")
	if !errors.Is(nextErr, kerr.IllegalState) || !errors.Is(allocErr, kerr.IllegalState) || nextErr.Error() != allocErr.Error() {
		t.Fatalf("exhausted epoch: next %v, allocate %v", nextErr, allocErr)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, IdentityFile)); string(data) != seed {
		t.Fatalf("a refused allocation rewrote the file: %s", data)
	}
}

func TestIdentityEncodeExample(t *testing.T) {
	t.Parallel()
	got := string(EncodeIdentities(map[string]Identity{"w": {5, 1}, "producer-1": {1, 0}}))
	if got != `{"producer-1": [1, 0], "w": [5, 1]}` {
		t.Fatal(got)
	}
	if string(EncodeIdentities(nil)) != "{}" {
		t.Fatal("empty store")
	}
}

// Decision 29: a malformed store is STORAGE_ERROR; a failed write changes
// nothing.
func TestIdentityStoreErrors(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"", "[]", "null", `{"a": [1]}`, `{"a": [0, 0]}`, `{"a": [1, -1]}`, `{"a": [1, 0]} x`, `{"a": ["1", 0]}`} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, IdentityFile), []byte(bad), 0o644)
		if _, err := OpenIdentityStore(vfs.OS, dir); !errors.Is(err, kerr.StorageError) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	dir := t.TempDir()
	s, _ := OpenIdentityStore(vfs.OS, dir)
	if err := os.Mkdir(filepath.Join(dir, IdentityTempFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Allocate("x"); !errors.Is(err, kerr.StorageError) {
		t.Fatalf("write failure: %v", err)
	}
	if s.Len() != 0 {
		t.Fatal("a failed allocation changed the store")
	}
}

func FuzzDecodeIdentities(f *testing.F) {
	f.Add([]byte(`{"producer-1": [1, 0], "w": [5, 1]}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"a": [1, 2147483648]}`))
	f.Add([]byte(`{"\u00e9": [9223372036854775807, 0]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ids, err := DecodeIdentities(data)
		if err != nil {
			return
		}
		// Whatever decodes re-encodes to something that decodes the same.
		back, err := DecodeIdentities(EncodeIdentities(ids))
		if err != nil || len(back) != len(ids) {
			t.Fatalf("round trip: %v", err)
		}
		for k, v := range ids {
			if back[k] != v || v.PID < 1 || v.Epoch < 0 {
				t.Fatalf("round trip of %q: %+v vs %+v", k, v, back[k])
			}
		}
	})
}
