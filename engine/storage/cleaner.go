package storage

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// CleanerCheckpointFile records, in a log directory, the first offset that
// compaction did not rewrite: below it the compacted segment may end before
// the next segment begins (a batch whose every record compaction removed
// leaves offsets no segment holds). It plays the part of Kafka's
// cleaner-offset-checkpoint (the first dirty offset of each partition), one
// file per log. Recovery accepts a gap between segments only below it: any
// other gap means a segment file was lost.
const CleanerCheckpointFile = "cleaner-offset-checkpoint"

// writeCleanerCheckpoint writes the checkpoint into dir, fsynced (the
// directory is fsynced with the compacted log it belongs to).
func writeCleanerCheckpoint(fsys vfs.FS, dir string, firstDirty int64) error {
	f, err := fsys.OpenFile(filepath.Join(dir, CleanerCheckpointFile), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return storageErr(err, "write the cleaner checkpoint")
	}
	_, err = f.Write([]byte(strconv.FormatInt(firstDirty, 10) + "\n"))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return storageErr(err, "write the cleaner checkpoint")
	}
	return nil
}

// cleanedThrough reads the checkpoint: the first offset compaction did not
// rewrite, or -1 when the log was never compacted.
func cleanedThrough(fsys vfs.FS, dir string) (int64, error) {
	data, err := fsys.ReadFile(filepath.Join(dir, CleanerCheckpointFile))
	if vfs.IsNotExist(err) {
		return -1, nil
	}
	if err != nil {
		return -1, storageErr(err, "read the cleaner checkpoint")
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil || n < 0 {
		return -1, kerr.New(kerr.StorageError, "invalid cleaner checkpoint %s: %q", filepath.Join(dir, CleanerCheckpointFile), data)
	}
	return n, nil
}

// checkGaps refuses a log whose segments leave offsets unheld where no
// compaction explains it: a segment file was deleted or lost, and opening
// the log would silently drop those records (a follower that still holds
// them would then disagree with its leader).
func (l *Log) checkGaps() error {
	cleaned := int64(-2) // not read yet
	for i := 1; i < len(l.segs); i++ {
		prev, s := l.segs[i-1], l.segs[i]
		if s.base <= prev.next {
			continue
		}
		if cleaned == -2 {
			var err error
			if cleaned, err = cleanedThrough(l.opts.FS, l.dir); err != nil {
				return err
			}
		}
		if s.base <= cleaned {
			continue // compaction removed those batches
		}
		return kerr.New(kerr.StorageError,
			"offsets %d..%d are missing from %s: %s ends at offset %d and the next segment, %s, starts at %d, so a segment file was deleted or lost; "+
				"restore it (or copy the same file from another replica of this partition, broker-N/%s/), and reopen: recovery never opens a log with a hole in it",
			prev.next, s.base-1, l.dir, SegmentFileName(prev.base), prev.next, SegmentFileName(s.base), s.base, filepath.Base(l.dir))
	}
	return nil
}
