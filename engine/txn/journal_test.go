package txn

import (
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// crcLine frames payload as a journal line without its newline.
func crcLine(payload string) string {
	return fmt.Sprintf("%08x %s", crc32.ChecksumIEEE([]byte(payload)), payload)
}

func line(e Entry) string { return string(e.AppendLine(nil)) }

func writeJournal(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), JournalFileName)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

func openJournal(t *testing.T, path string) (*Journal, []Entry, JournalRecovery) {
	t.Helper()
	j, entries, rep, err := OpenJournal(vfs.OS, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = j.Close() })
	return j, entries, rep
}

func ids(entries []Entry) []string {
	out := []string{}
	for _, e := range entries {
		out = append(out, e.ID+":"+e.State.String())
	}
	return out
}

// T11: a valid line followed by "deadbeef {" recovers the valid entry and the
// file is cut to the valid size; the report says what was dropped.
func TestT11JournalTruncatesAfterBadLine(t *testing.T) {
	t.Parallel()
	valid := line(Entry{ID: "valid", State: CompleteCommit})
	path := writeJournal(t, valid+"deadbeef {")
	_, entries, rep := openJournal(t, path)
	if !reflect.DeepEqual(ids(entries), []string{"valid:complete_commit"}) {
		t.Fatalf("entries %v", ids(entries))
	}
	if got := fileSize(t, path); got != int64(len(valid)) {
		t.Fatalf("size %d, want %d", got, len(valid))
	}
	want := &JournalDrop{Position: int64(len(valid)), Bytes: 10, Lines: 1, Reason: rep.Dropped.Reason}
	if !reflect.DeepEqual(rep.Dropped, want) || rep.Lines != 1 || rep.Transactions != 1 || !rep.Exists {
		t.Fatalf("report %+v drop %+v", rep, rep.Dropped)
	}
	if rep.Dropped.Reason[:12] != "crc mismatch" {
		t.Fatalf("reason %q", rep.Dropped.Reason)
	}
}

// Garbage after the last good line (several lines of it) is all dropped.
func TestJournalGarbageAfterLastGoodLine(t *testing.T) {
	t.Parallel()
	good := line(Entry{ID: "a", State: Ongoing}) + line(Entry{ID: "a", State: PrepareCommit})
	path := writeJournal(t, good+"garbage\nmore garbage\n\x00\x00")
	j, entries, rep := openJournal(t, path)
	if !reflect.DeepEqual(ids(entries), []string{"a:ongoing", "a:prepare_commit"}) {
		t.Fatalf("entries %v", ids(entries))
	}
	if rep.Dropped == nil || rep.Dropped.Lines != 3 || rep.Dropped.Bytes != int64(len("garbage\nmore garbage\n\x00\x00")) ||
		rep.Dropped.Reason != "missing space after crc" {
		t.Fatalf("drop %+v", rep.Dropped)
	}
	// Appending after a repair continues from the valid end.
	if err := j.Append(Entry{ID: "b", State: Ongoing}); err != nil {
		t.Fatal(err)
	}
	_, entries, rep = openJournal(t, path)
	if len(entries) != 3 || rep.Dropped != nil {
		t.Fatalf("after append: %v %+v", ids(entries), rep.Dropped)
	}
}

// A half-written last line (a torn append) is dropped.
func TestJournalHalfWrittenLine(t *testing.T) {
	t.Parallel()
	first := line(Entry{ID: "a", State: Ongoing})
	second := line(Entry{ID: "a", State: CompleteAbort})
	path := writeJournal(t, first+second[:len(second)/2])
	_, entries, rep := openJournal(t, path)
	if len(entries) != 1 || rep.Dropped == nil || rep.Dropped.Lines != 1 || rep.Dropped.Bytes != int64(len(second)/2) {
		t.Fatalf("entries %v drop %+v", ids(entries), rep.Dropped)
	}
	if fileSize(t, path) != int64(len(first)) {
		t.Fatal("not truncated")
	}
}

// A bad CRC in the middle of three lines keeps only the first; the valid
// third line is dropped too (decision 17 keeps the reference's rule).
func TestJournalBadCRCInTheMiddle(t *testing.T) {
	t.Parallel()
	l1 := line(Entry{ID: "a", State: Ongoing})
	l2 := []byte(line(Entry{ID: "b", State: Ongoing}))
	l2[len(l2)-5] ^= 0x01 // flip a payload bit: the CRC no longer matches
	l3 := line(Entry{ID: "c", State: Ongoing})
	path := writeJournal(t, l1+string(l2)+l3)
	_, entries, rep := openJournal(t, path)
	if !reflect.DeepEqual(ids(entries), []string{"a:ongoing"}) {
		t.Fatalf("entries %v", ids(entries))
	}
	if rep.Dropped.Lines != 2 || rep.Dropped.Bytes != int64(len(l2)+len(l3)) || rep.Dropped.Position != int64(len(l1)) {
		t.Fatalf("drop %+v", rep.Dropped)
	}
}

// §12.2 quirk kept: a final line with a valid CRC and JSON but no newline is
// accepted; recovery writes the newline so the next append starts a line.
func TestJournalFinalLineWithoutNewline(t *testing.T) {
	t.Parallel()
	l1 := line(Entry{ID: "a", State: Ongoing})
	l2 := line(Entry{ID: "a", State: PrepareAbort})
	path := writeJournal(t, l1+l2[:len(l2)-1])
	j, entries, rep := openJournal(t, path)
	if len(entries) != 2 || rep.Dropped != nil || !rep.NewlineAdded {
		t.Fatalf("entries %v report %+v", ids(entries), rep)
	}
	if err := j.Append(Entry{ID: "a", State: CompleteAbort}); err != nil {
		t.Fatal(err)
	}
	_, entries, rep = openJournal(t, path)
	if len(entries) != 3 || rep.Dropped != nil || rep.NewlineAdded {
		t.Fatalf("after append %v %+v", ids(entries), rep)
	}
}

func TestJournalCreatedByFirstAppend(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), JournalFileName)
	j, entries, rep := openJournal(t, path)
	if len(entries) != 0 || rep.Exists {
		t.Fatalf("%v %+v", entries, rep)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("journal created before the first transaction")
	}
	if err := j.Append(Entry{ID: "t1", State: Ongoing}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != `0020b3f9 {"first_offsets":[],"id":"t1","partitions":[],"staged_offsets":{},"state":"ongoing"}`+"\n" {
		t.Fatalf("journal %q", data)
	}
}

func TestScanJournalEmptyAndBlankLine(t *testing.T) {
	t.Parallel()
	entries, valid, nl, drop := ScanJournal(nil)
	if len(entries) != 0 || valid != 0 || nl || drop != nil {
		t.Fatal("empty journal")
	}
	_, valid, _, drop = ScanJournal([]byte(line(Entry{ID: "a"}) + "\n"))
	if drop == nil || drop.Lines != 1 || drop.Bytes != 1 || valid != len(line(Entry{ID: "a"})) {
		t.Fatalf("blank line: valid %d drop %+v", valid, drop)
	}
}

// A journal append the file system fails (a torn or refused write, a failed
// fsync) is STORAGE_ERROR and leaves the file as it was, so the next append
// and the next open see only whole lines.
func TestJournalAppendFailureLeavesNoPartialLine(t *testing.T) {
	t.Parallel()
	for _, f := range []vfs.Fault{
		{Op: vfs.OpWrite, Err: syscall.ENOSPC},
		{Op: vfs.OpWrite, Err: syscall.EIO, Tear: 12},
		{Op: vfs.OpSync, Err: syscall.EIO},
	} {
		mem := vfs.NewMem()
		j, _, _, err := OpenJournal(mem, JournalFileName)
		if err != nil {
			t.Fatal(err)
		}
		if err := j.Append(Entry{ID: "t1", State: Ongoing}); err != nil {
			t.Fatal(err)
		}
		before, _ := mem.ReadFile(JournalFileName)
		mem.Inject(f)
		err = j.Append(Entry{ID: "t2", State: Ongoing})
		if !errors.Is(err, kerr.StorageError) || !errors.Is(err, f.Err) {
			t.Fatalf("%v fault: error %v", f.Op, err)
		}
		if after, _ := mem.ReadFile(JournalFileName); string(after) != string(before) {
			t.Fatalf("%v fault: journal %q, want %q", f.Op, after, before)
		}
		if err := j.Append(Entry{ID: "t3", State: Ongoing}); err != nil {
			t.Fatal(err)
		}
		_, entries, rep, err := OpenJournal(mem, JournalFileName)
		if err != nil || rep.Dropped != nil || len(entries) != 2 || entries[1].ID != "t3" {
			t.Fatalf("%v fault: reopen %v %+v %v", f.Op, ids(entries), rep, err)
		}
	}
}
