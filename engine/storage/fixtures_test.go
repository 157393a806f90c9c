package storage

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// copyFixture copies fixtures/segments/NAME into a fresh directory (Open
// repairs files, and the fixtures must stay as they are).
func copyFixture(t *testing.T, name string) string {
	src := filepath.Join("..", "..", "fixtures", "segments", name)
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(src, e.Name()))
		os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644)
	}
	return dir
}

// The fixtures recover as fixtures/segments/README.md says.
func TestFixturesRecoverAsDocumented(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		leo       int64
		truncated int64
		code      kerr.Code
	}{
		{"clean", 9, 0, ""},
		{"torn-tail", 9, 15, ""},
		{"flipped-byte", 8, 56, ""},
		{"truncated-index", 9, 0, ""},
		{"corrupt-closed", 0, 0, kerr.StorageError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := copyFixture(t, c.name)
			if c.name == "truncated-index" {
				_, err := ReadIndexFile(idxPath(dir, 0), 0)
				wantCode(t, err, kerr.CorruptIndex, "partial")
			}
			l, rep, err := Open(dir, opts(0, 1), 0)
			if c.code != "" {
				wantCode(t, err, c.code, "corrupt closed segment")
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer l.Crash(true)
			if l.LEO() != c.leo || l.LeaderEpoch() != 2 {
				t.Fatalf("LEO %d epoch %d", l.LEO(), l.LeaderEpoch())
			}
			if got := int64(0); rep.Truncation != nil {
				got = rep.Truncation.BytesDropped
				if got != c.truncated {
					t.Fatalf("dropped %d, want %d", got, c.truncated)
				}
			} else if c.truncated != 0 {
				t.Fatal("no truncation reported")
			}
		})
	}
}
