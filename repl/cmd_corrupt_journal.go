package repl

import (
	"errors"
	"io"
	"io/fs"
	"math"
	"path/filepath"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// partitionsOrJournal completes corrupt's first argument: a partition, or
// the word journal.
func partitionsOrJournal(s *Session) []string {
	return append(livePartitions(s), "journal")
}

// tornJournalLine is what mode=garbage appends to the journal (cut to the
// bytes asked for, repeated past its end): the start of a journal line
// whose write never finished, so it has neither its end nor its newline.
var tornJournalLine = []byte(`00000000 {"first_offsets":[],"id":"torn-write","partitions":[`)

// runCorruptJournal damages transactions.journal in the cluster's data
// directory (on the cluster's file system, Cluster.FS): corrupt journal
// mode=garbage|truncate|flip [bytes=N]. Like a segment's damage, only the
// next open sees it.
func runCorruptJournal(s *Session, w io.Writer, a *Args) error {
	modeName := a.Choice("mode", "", "garbage", "truncate", "flip")
	n := int(a.Int("bytes", 0, 1, math.MaxInt32))
	if !a.Has("mode") {
		a.fail("missing mode=garbage|truncate|flip")
	}
	for _, k := range []string{"broker", "segment"} {
		if a.Has(k) {
			a.fail("%s= names a segment; the journal is one file of the cluster", k)
		}
	}
	if err := a.Err(); err != nil {
		return err
	}
	mode, err := engine.ParseCorruptMode(modeName)
	if err != nil {
		return err
	}
	if n == 0 {
		n = engine.DefaultCorruptBytes(mode)
	}
	path := filepath.Join(s.cfg.DataDir, engine.TransactionJournalFileName)
	c, err := corruptFile(s.cluster.FS(), path, mode, n)
	if err != nil {
		return err
	}
	c.File = engine.TransactionJournalFileName
	return s.emit(w, c)
}

// corruptFile writes the damage into path on fsys and says what changed.
func corruptFile(fsys vfs.FS, path string, mode engine.CorruptMode, n int) (corrupted, error) {
	data, err := readAll(fsys, path)
	if errors.Is(err, fs.ErrNotExist) {
		return corrupted{}, kerr.State("there is no %s yet: the first `txn begin` writes it", engine.TransactionJournalFileName)
	}
	if err != nil {
		return corrupted{}, kerr.Wrap(kerr.StorageError, err, "cannot read %s", engine.TransactionJournalFileName)
	}
	c := corrupted{Mode: mode.String(), Bytes: n, SizeBefore: int64(len(data))}
	switch mode {
	case engine.CorruptGarbage:
		c.Position = int64(len(data))
		for i := 0; i < n; i++ {
			data = append(data, tornJournalLine[i%len(tornJournalLine)])
		}
	case engine.CorruptTruncate:
		if n > len(data) {
			return corrupted{}, kerr.Argument("%s has %s, cannot cut %d", engine.TransactionJournalFileName, plural(len(data), "byte", "bytes"), n)
		}
		data = data[:len(data)-n]
		c.Position = int64(len(data))
	default:
		if n > len(data) {
			return corrupted{}, kerr.Argument("%s has %s, cannot flip the byte %d before the end", engine.TransactionJournalFileName, plural(len(data), "byte", "bytes"), n)
		}
		c.Position = int64(len(data) - n)
		data[c.Position] ^= 1
		c.Bytes = 1
	}
	c.SizeAfter = int64(len(data))
	if err := vfs.WriteFile(fsys, path, data, 0o644); err != nil {
		return corrupted{}, kerr.Wrap(kerr.StorageError, err, "cannot write %s", engine.TransactionJournalFileName)
	}
	return c, nil
}

// readAll reads the file name of fsys whole.
func readAll(fsys vfs.FS, name string) ([]byte, error) {
	f, err := vfs.Open(fsys, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
