package storage

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// I1: floor lookups, also after a validating reopen.
func TestI1IndexFloor(t *testing.T) {
	t.Parallel()
	x := offsetIndex{base: 100}
	for _, e := range []IndexEntry{{100, 0}, {110, 512}, {125, 900}} {
		if err := x.append(e.Offset, e.Position); err != nil {
			t.Fatal(err)
		}
	}
	check := func(x *offsetIndex) {
		for off, want := range map[int64]int64{99: 0, 100: 0, 117: 512, 125: 900} {
			if got := x.floor(off); got != want {
				t.Errorf("floor(%d) = %d, want %d", off, got, want)
			}
		}
	}
	check(&x)
	path := filepath.Join(t.TempDir(), IndexFileName(100))
	if err := writeIndexFile(vfs.OS, path, 100, x.entries); err != nil {
		t.Fatal(err)
	}
	entries, err := ReadIndexFile(path, 100)
	if err != nil {
		t.Fatal(err)
	}
	check(&offsetIndex{base: 100, entries: entries})
}

// I2: entries must grow in both fields.
func TestI2IndexMonotonic(t *testing.T) {
	t.Parallel()
	x := offsetIndex{base: 0}
	if err := x.append(5, 20); err != nil {
		t.Fatal(err)
	}
	wantCode(t, x.append(4, 30), kerr.InvalidArgument, "monotonic")
	wantCode(t, x.append(6, 20), kerr.InvalidArgument, "monotonic")
	wantCode(t, x.append(-1+0, 40), kerr.InvalidArgument, "relative offset")
	wantCode(t, x.append(7, -1), kerr.InvalidArgument, "negative")
	if len(x.entries) != 1 {
		t.Fatalf("bad appends changed the index: %v", x.entries)
	}
}

// I3: a 3-byte index file is CORRUPT_INDEX "partial".
func TestI3IndexPartial(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), IndexFileName(0))
	os.WriteFile(path, []byte{1, 2, 3}, 0o644)
	_, err := ReadIndexFile(path, 0)
	wantCode(t, err, kerr.CorruptIndex, "partial")
}

// I3 (second rule): entries not strictly increasing are "non-monotonic".
func TestIndexOpenNonMonotonic(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), IndexFileName(0))
	os.WriteFile(path, encodeIndex(nil, 0, []IndexEntry{{0, 0}, {10, 100}, {10, 200}}), 0o644)
	_, err := ReadIndexFile(path, 0)
	wantCode(t, err, kerr.CorruptIndex, "non-monotonic")
}

// I4: truncate to 15 keeps (0,0), (10,100); flushed and reopened.
func TestI4IndexTruncate(t *testing.T) {
	t.Parallel()
	x := offsetIndex{base: 0}
	for _, e := range []IndexEntry{{0, 0}, {10, 100}, {20, 200}} {
		x.append(e.Offset, e.Position)
	}
	x.truncateTo(15)
	path := filepath.Join(t.TempDir(), IndexFileName(0))
	if err := writeIndexFile(vfs.OS, path, 0, x.entries); err != nil {
		t.Fatal(err)
	}
	got, err := ReadIndexFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "entries", got, []IndexEntry{{0, 0}, {10, 100}})
}

func TestIndexMissingFileIsStorageError(t *testing.T) {
	t.Parallel()
	_, err := ReadIndexFile(filepath.Join(t.TempDir(), "nope.index"), 0)
	wantCode(t, err, kerr.StorageError, "")
}

// FuzzIndexOpen: the validating open never panics; what it accepts is
// strictly increasing and re-encodes to the same bytes.
func FuzzIndexOpen(f *testing.F) {
	f.Add([]byte{}, int64(0))
	f.Add([]byte{1, 2, 3}, int64(0))
	f.Add(encodeIndex(nil, 100, []IndexEntry{{100, 0}, {110, 512}, {125, 900}}), int64(100))
	f.Add(encodeIndex(nil, 0, []IndexEntry{{0, 0}, {10, 100}, {10, 200}}), int64(0))
	f.Fuzz(func(t *testing.T, data []byte, base int64) {
		if base < 0 {
			base = -base
		}
		entries, err := parseIndex(data, base, "fuzz.index")
		if err != nil {
			if !kerr.IsDomain(err) {
				t.Fatalf("non-domain error %v", err)
			}
			return
		}
		for i := 1; i < len(entries); i++ {
			if entries[i].Offset <= entries[i-1].Offset || entries[i].Position <= entries[i-1].Position {
				t.Fatalf("accepted non-monotonic entries %v", entries)
			}
		}
		if again := encodeIndex(nil, base, entries); !bytes.Equal(again, data) {
			t.Fatalf("re-encoding differs")
		}
		x := offsetIndex{base: base, entries: entries}
		for _, e := range entries {
			if x.floor(e.Offset) != e.Position {
				t.Fatalf("floor(%d) != %d", e.Offset, e.Position)
			}
		}
	})
}
