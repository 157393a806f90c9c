package repl

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// TestCorruptFile: each mode changes exactly the bytes it says, and a
// missing journal or an impossible size changes nothing.
func TestCorruptFile(t *testing.T) {
	t.Parallel()
	orig := []byte("line one\nline two\n")
	fsys := vfs.NewMem()
	if err := fsys.MkdirAll("/data", 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("/data", engine.TransactionJournalFileName)
	if _, err := corruptFile(fsys, path, engine.CorruptGarbage, 4); !errors.Is(err, kerr.IllegalState) {
		t.Fatalf("missing journal: %v", err)
	}
	for _, c := range []struct {
		mode engine.CorruptMode
		n    int
		want []byte
		pos  int64
	}{
		{engine.CorruptGarbage, 4, append(append([]byte{}, orig...), tornJournalLine[:4]...), int64(len(orig))},
		{engine.CorruptGarbage, len(tornJournalLine) + 2, append(append(append([]byte{}, orig...), tornJournalLine...), tornJournalLine[:2]...), int64(len(orig))},
		{engine.CorruptTruncate, 3, orig[:len(orig)-3], int64(len(orig) - 3)},
		{engine.CorruptFlip, 1, append(append([]byte{}, orig[:len(orig)-1]...), '\n'^1), int64(len(orig) - 1)},
	} {
		if err := vfs.WriteFile(fsys, path, orig, 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := corruptFile(fsys, path, c.mode, c.n)
		if err != nil {
			t.Fatalf("%s: %v", c.mode, err)
		}
		got, _ := readAll(fsys, path)
		if !bytes.Equal(got, c.want) || rep.Position != c.pos || rep.SizeBefore != int64(len(orig)) || rep.SizeAfter != int64(len(c.want)) {
			t.Errorf("%s %d: file %q, report %+v", c.mode, c.n, got, rep)
		}
	}
	for _, mode := range []engine.CorruptMode{engine.CorruptTruncate, engine.CorruptFlip} {
		if err := vfs.WriteFile(fsys, path, orig, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := corruptFile(fsys, path, mode, len(orig)+1); !errors.Is(err, kerr.InvalidArgument) {
			t.Errorf("%s past the start: %v", mode, err)
		}
		if got, _ := readAll(fsys, path); !bytes.Equal(got, orig) {
			t.Errorf("%s past the start changed the file: %q", mode, got)
		}
	}
}

// TestCorruptJournalRecovery: the damage reaches the next open, which
// reports the dropped tail (decision 17); the lost COMPLETE_COMMIT line is
// redone by recovery, since the marker is in the log.
// It runs on the disk and in memory: corrupt goes through the cluster's
// file system.
func TestCorruptJournalRecovery(t *testing.T) {
	t.Parallel()
	t.Run("disk", func(t *testing.T) { t.Parallel(); corruptJournalRecovery(t, Options{}) })
	t.Run("mem", func(t *testing.T) { t.Parallel(); corruptJournalRecovery(t, Options{FS: vfs.NewMem()}) })
}

func corruptJournalRecovery(t *testing.T, opts Options) {
	s := newTestSession(t, opts)
	var out strings.Builder
	for _, line := range []string{
		"cluster open brokers=1", "topic create orders", "txn begin t1", "txn send t1 orders value=a",
		"txn commit t1", "corrupt journal mode=truncate bytes=5", "cluster restart",
	} {
		if err := s.Exec(&out, line); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out.String())
		}
	}
	text := out.String()
	for _, want := range []string{
		"transactions.journal: cut 5 bytes off the end",
		"transactions.journal: 3 lines replayed (1 transaction)",
		"dropped ", "(1 line) at byte ",
		"recovery: transaction t1 was prepare_commit, now complete_commit",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in\n%s", want, text)
		}
	}
}
