package storage

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"pgregory.net/rapid"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// memLog opens a log in "log" on a fresh Mem.
func memLog(t *testing.T, segmentBytes, interval int64) (*Log, *vfs.Mem) {
	t.Helper()
	mem := vfs.NewMem()
	o := opts(segmentBytes, interval)
	o.FS = mem
	l, _ := mustOpen(t, "log", o)
	return l, mem
}

// logState is what an append that failed must not change.
type logState struct {
	leo      int64
	segments []SegmentInfo
	records  []string
	fileSize int64 // the active segment file's length
}

func stateOf(t *testing.T, l *Log) logState {
	t.Helper()
	segs := l.Segments()
	st, err := l.FS().Stat(segs[len(segs)-1].LogPath)
	if err != nil {
		t.Fatal(err)
	}
	return logState{l.LEO(), segs, offsetValues(fetchAll(t, l)), st.Size()}
}

func wantSameState(t *testing.T, what string, got, want logState) {
	t.Helper()
	if got.leo != want.leo || got.fileSize != want.fileSize {
		t.Fatalf("%s: LEO %d, active file %d bytes; want %d, %d", what, got.leo, got.fileSize, want.leo, want.fileSize)
	}
	wantEqual(t, what+": segments", got.segments, want.segments)
	wantEqual(t, what+": records", got.records, want.records)
}

// wantStorageErr requires STORAGE_ERROR carrying the file system's errno.
func wantStorageErr(t *testing.T, err error, errno syscall.Errno) {
	t.Helper()
	wantCode(t, err, kerr.StorageError, "write segment")
	if !errors.Is(err, errno) {
		t.Fatalf("error %v does not carry %v", err, errno)
	}
}

// A segment write that fails (ENOSPC, EIO, torn or not, on a rolling
// append or not, leader or follower append) is STORAGE_ERROR and changes
// nothing: same LEO, segments, records and file; the next append takes the
// same offset and position; a reopen finds no damaged tail to cut.
func TestAppendWriteFailureChangesNothing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		fault vfs.Fault
		roll  bool
		raw   bool
	}{
		{"enospc", vfs.Fault{Op: vfs.OpWrite, Err: syscall.ENOSPC}, false, false},
		{"eio", vfs.Fault{Op: vfs.OpWrite, Err: syscall.EIO}, false, false},
		{"torn", vfs.Fault{Op: vfs.OpWrite, Err: syscall.EIO, Tear: 20}, false, false},
		{"rolling", vfs.Fault{Op: vfs.OpWrite, Err: syscall.ENOSPC, Tear: 7}, true, false},
		{"follower", vfs.Fault{Op: vfs.OpWrite, Err: syscall.ENOSPC, Tear: 9}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			segBytes := int64(1 << 20)
			if tc.roll {
				segBytes = 100 // every batch gets a segment of its own
			}
			l, mem := memLog(t, segBytes, 1)
			for i := 0; i < 3; i++ {
				mustAppend(t, l, values(int64(i), fmt.Sprintf("v%d-%s", i, "0123456789012345678901234567890123456789")))
			}
			if err := l.Flush(); err != nil {
				t.Fatal(err)
			}
			before := stateOf(t, l)
			batch := values(9, "refused")
			a, _ := batch.Assign(l.LEO(), 0)
			frame, _ := record.Encode(a)
			mem.Inject(tc.fault)
			var err error
			if tc.raw {
				_, err = l.AppendRaw(frame)
			} else {
				_, _, err = l.Append(batch)
			}
			wantStorageErr(t, err, tc.fault.Err.(syscall.Errno))
			wantSameState(t, "after the failed append", stateOf(t, l), before)
			if got := l.UnflushedBytes(); got != 0 {
				t.Fatalf("unflushed %d after a failed append", got)
			}
			info := mustAppend(t, l, values(9, "accepted"))
			if info.BaseOffset != before.leo || info.Rolled != tc.roll {
				t.Fatalf("next append %+v, want offset %d rolled %v", info, before.leo, tc.roll)
			}
			if err := l.Crash(true); err != nil {
				t.Fatal(err)
			}
			l2, rep := mustOpen(t, "log", l.Options())
			if rep.Truncation != nil {
				t.Fatalf("reopen cut a tail: %+v", rep.Truncation)
			}
			wantEqual(t, "records after reopen", offsetValues(fetchAll(t, l2))[len(before.records):], []string{fmt.Sprintf("%d:-=accepted", before.leo)})
		})
	}
}

// A full disk refuses appends until space is freed; nothing it refused is
// in the log.
func TestAppendDiskFull(t *testing.T) {
	t.Parallel()
	l, mem := memLog(t, 1<<20, 1)
	mustAppend(t, l, values(0, "first"))
	mem.SetCapacity(mem.Used() + 10)
	before := stateOf(t, l)
	for i := 0; i < 3; i++ {
		_, _, err := l.Append(values(1, "does not fit"))
		wantStorageErr(t, err, syscall.ENOSPC)
		wantSameState(t, "full disk", stateOf(t, l), before)
	}
	mem.SetCapacity(0)
	if info := mustAppend(t, l, values(2, "fits")); info.BaseOffset != 1 {
		t.Fatalf("append after freeing space: %+v", info)
	}
	wantEqual(t, "records", valuesOf(fetchAll(t, l)), []string{"first", "fits"})
}

// Flush, roll and Close report a failing fsync as STORAGE_ERROR; the bytes
// stay unflushed, and a later Flush succeeds.
func TestFlushSyncFailure(t *testing.T) {
	t.Parallel()
	l, mem := memLog(t, 1<<20, 1)
	mustAppend(t, l, values(0, "a"))
	mem.Inject(vfs.Fault{Op: vfs.OpSync, Err: syscall.EIO})
	err := l.Flush()
	wantCode(t, err, kerr.StorageError, "fsync segment")
	if l.UnflushedBytes() == 0 {
		t.Fatal("a failed fsync counted as a flush")
	}
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	if l.UnflushedBytes() != 0 {
		t.Fatal("flush left unflushed bytes")
	}
}

// The storage crash model and the file system's agree: a log crashed as a
// machine failure (Crash(false)) holds the same records after a reopen as
// one crashed as a process (Crash(true)) whose file system then loses
// everything not fsynced (Mem.Crash).
func TestLogCrashMatchesMemCrash(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(rt *rapid.T) {
		type step struct {
			op    string
			value string
		}
		var steps []step
		for i := rapid.IntRange(1, 40).Draw(rt, "steps"); i > 0; i-- {
			steps = append(steps, step{rapid.SampledFrom([]string{"append", "append", "append", "flush", "roll"}).Draw(rt, "op"), fmt.Sprint("v", i)})
		}
		segBytes := rapid.Int64Range(60, 400).Draw(rt, "segmentBytes")
		run := func(machine bool) []string {
			mem := vfs.NewMem()
			o := opts(segBytes, 1)
			o.FS = mem
			l, _, err := Open("data/log", o, 0)
			if err != nil {
				rt.Fatal(err)
			}
			for _, s := range steps {
				switch s.op {
				case "append":
					_, _, err = l.Append(values(1, s.value))
				case "flush":
					err = l.Flush()
				case "roll":
					err = l.Roll()
				}
				if err != nil {
					rt.Fatal(err)
				}
			}
			if machine {
				err = l.Crash(false)
			} else {
				err = l.Crash(true)
				mem.Crash()
			}
			if err != nil {
				rt.Fatal(err)
			}
			l, _, err = Open("data/log", o, 0)
			if err != nil {
				rt.Fatal(err)
			}
			defer l.Crash(true)
			recs, err := l.Fetch(l.LogStartOffset(), 1<<20, -1)
			if err != nil {
				rt.Fatal(err)
			}
			return offsetValues(recs)
		}
		a, b := run(true), run(false)
		if fmt.Sprint(a) != fmt.Sprint(b) {
			rt.Fatalf("Crash(false) keeps %v, a machine crash of the file system %v", a, b)
		}
	})
}
