package txn

import (
	"bytes"
	"errors"
	"io/fs"
	"os"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// JournalFileName is the coordinator's journal in the data directory (§4).
const JournalFileName = "transactions.journal"

// JournalDrop describes the bytes journal recovery cut off (decision 17).
type JournalDrop struct {
	Position int64  // byte position of the first bad line: the file's new size
	Bytes    int64  // bytes dropped
	Lines    int    // lines dropped, counting an unterminated tail as one
	Reason   string // why the first dropped line is bad, e.g. "crc mismatch (…)"
}

// JournalRecovery reports what opening the journal found and repaired.
type JournalRecovery struct {
	Path         string
	Exists       bool
	Lines        int   // valid lines replayed
	Transactions int   // distinct transaction ids after replay
	Bytes        int64 // bytes kept
	// NewlineAdded: the last valid line had no newline (a torn write that
	// still holds a whole payload); recovery accepted it and wrote the newline.
	NewlineAdded bool
	Dropped      *JournalDrop // nil when every byte was valid
}

// ScanJournal replays journal bytes (§12.2 recover): lines are read in order,
// later lines for an id override earlier ones, and the first bad line stops
// the scan; it and everything after it are dropped, even valid lines. A final
// line without a newline is accepted when its CRC and JSON are valid. It
// returns the entries in file order, the length of the valid prefix, whether
// that prefix lacks its final newline, and the drop (nil when none). It is
// pure.
func ScanJournal(data []byte) (entries []Entry, valid int, missingNewline bool, drop *JournalDrop) {
	pos := 0
	for pos < len(data) {
		end := bytes.IndexByte(data[pos:], '\n')
		next := pos + end + 1
		if end < 0 {
			end, next = len(data)-pos, len(data)
		}
		e, err := ParseLine(data[pos : pos+end])
		if err != nil {
			rest := data[pos:]
			lines := bytes.Count(rest, []byte{'\n'})
			if rest[len(rest)-1] != '\n' {
				lines++
			}
			return entries, pos, false, &JournalDrop{Position: int64(pos), Bytes: int64(len(rest)), Lines: lines, Reason: err.Error()}
		}
		entries = append(entries, e)
		pos = next
	}
	return entries, pos, pos > 0 && data[pos-1] != '\n', nil
}

// Journal is the append-only transactions.journal. Every append is a full
// snapshot line of one transaction, written, flushed and fsynced before the
// coordinator changes its memory. The file is created by the first append.
type Journal struct {
	fsys vfs.FS
	path string
	f    vfs.File
	size int64
}

// OpenJournal reads and repairs path on fsys: the tail after the first bad line is
// truncated away (and fsynced), a missing final newline is written, and the
// report says what was dropped. A missing file is an empty journal. Failing
// to read or repair the file is STORAGE_ERROR.
func OpenJournal(fsys vfs.FS, path string) (*Journal, []Entry, JournalRecovery, error) {
	rep := JournalRecovery{Path: path}
	data, err := fsys.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Journal{fsys: fsys, path: path}, nil, rep, nil
	}
	if err != nil {
		return nil, nil, rep, kerr.Wrap(kerr.StorageError, err, "cannot read transaction journal %s", path)
	}
	rep.Exists = true
	entries, valid, missingNewline, drop := ScanJournal(data)
	rep.Lines, rep.Bytes, rep.Dropped = len(entries), int64(valid), drop
	ids := map[string]bool{}
	for _, e := range entries {
		ids[e.ID] = true
	}
	rep.Transactions = len(ids)
	j := &Journal{fsys: fsys, path: path, size: int64(valid)}
	if drop != nil || missingNewline {
		f, err := fsys.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, nil, rep, kerr.Wrap(kerr.StorageError, err, "cannot repair transaction journal %s", path)
		}
		j.f = f
		if err := j.repair(missingNewline); err != nil {
			_ = f.Close()
			return nil, nil, rep, kerr.Wrap(kerr.StorageError, err, "cannot repair transaction journal %s", path)
		}
		rep.NewlineAdded = missingNewline
	}
	return j, entries, rep, nil
}

func (j *Journal) repair(addNewline bool) error {
	if err := j.f.Truncate(j.size); err != nil {
		return err
	}
	if addNewline {
		if _, err := j.f.WriteAt([]byte{'\n'}, j.size); err != nil {
			return err
		}
		j.size++
	}
	if err := j.f.Sync(); err != nil {
		return err
	}
	_, err := j.f.Seek(j.size, 0)
	return err
}

// Append writes e's line, then fsyncs. On failure the file is cut back to
// its previous length (so a half-written line never precedes later lines)
// and the error is STORAGE_ERROR.
func (j *Journal) Append(e Entry) error {
	if j.f == nil {
		f, err := j.fsys.OpenFile(j.path, os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			return kerr.Wrap(kerr.StorageError, err, "cannot open transaction journal %s", j.path)
		}
		if _, err := f.Seek(j.size, 0); err != nil {
			_ = f.Close()
			return kerr.Wrap(kerr.StorageError, err, "cannot open transaction journal %s", j.path)
		}
		j.f = f
	}
	line := e.AppendLine(nil)
	_, err := j.f.Write(line)
	if err == nil {
		err = j.f.Sync()
	}
	if err != nil {
		_ = j.f.Truncate(j.size)
		_, _ = j.f.Seek(j.size, 0)
		return kerr.Wrap(kerr.StorageError, err, "cannot append to transaction journal %s", j.path)
	}
	j.size += int64(len(line))
	return nil
}

// Close closes the file. Every line is already fsynced, so a crash needs no
// Close at all.
func (j *Journal) Close() error {
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	if err != nil {
		return kerr.Wrap(kerr.StorageError, err, "cannot close transaction journal %s", j.path)
	}
	return nil
}
