package storage

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// dirMarkerLogs are the logs of the directory tests: one idle, one with
// a few records, one rolled across several segments.
var dirMarkerLogs = []string{"/d/idle", "/d/busy", "/d/rolled"}

// shutdownLogs opens dirMarkerLogs on mem, fills them, gives /d/busy a
// shutdown state, and closes them with ShutdownAll.
func shutdownLogs(t *testing.T, mem *vfs.Mem) Options {
	t.Helper()
	o := opts(200, 1)
	o.FS = mem
	var logs []*Log
	for _, d := range dirMarkerLogs {
		l, _ := mustOpen(t, d, o)
		switch d {
		case "/d/busy":
			mustAppend(t, l, values(3, "a", "b"))
			l.SetShutdownState([]byte("busy state"))
		case "/d/rolled":
			for i := range 6 {
				mustAppend(t, l, values(int64(i), "x", "y", "z"))
			}
		}
		logs = append(logs, l)
	}
	for i, err := range ShutdownAll(logs) {
		if err != nil {
			t.Fatalf("close %s: %v", dirMarkerLogs[i], err)
		}
	}
	return o
}

// logView is what a log holds, for comparing a clean open with a replay.
type logView struct {
	Start, LEO int64
	Epoch      int32
	Segments   []SegmentInfo
	Records    []string
	Indexes    [][]IndexEntry
}

func viewOfLog(t *testing.T, l *Log) logView {
	t.Helper()
	v := logView{Start: l.LogStartOffset(), LEO: l.LEO(), Epoch: l.LeaderEpoch(), Segments: l.Segments(), Records: offsetValues(fetchAll(t, l))}
	for _, s := range v.Segments {
		idx, err := l.Index(s.Base)
		if err != nil {
			t.Fatal(err)
		}
		v.Indexes = append(v.Indexes, idx)
	}
	return v
}

// openDir opens every log of dirMarkerLogs with the directory's markers.
func openDir(t *testing.T, o Options) ([]*Log, []RecoveryReport) {
	t.Helper()
	markers, err := TakeDirMarkers(o.FS, "/d")
	if err != nil {
		t.Fatal(err)
	}
	var logs []*Log
	var reps []RecoveryReport
	for _, d := range dirMarkerLogs {
		l, rep, err := OpenWith(d, o, 0, markers)
		if err != nil {
			t.Fatal(err)
		}
		logs, reps = append(logs, l), append(reps, rep)
	}
	return logs, reps
}

// ShutdownAll writes one file in the parent directory and no marker in
// any log directory; an open with it is clean (only the active segments
// scanned, the state back) and holds what a replay of the same files
// holds; the file is consumed, so a crash afterwards scans.
func TestShutdownAllOpensCleanLikeAReplay(t *testing.T) {
	mem := vfs.NewMem()
	o := shutdownLogs(t, mem)
	for _, d := range dirMarkerLogs {
		for _, name := range []string{MarkerFileName, MarkerFileName + ".tmp"} {
			if _, err := mem.Stat(d + "/" + name); !vfs.IsNotExist(err) {
				t.Fatalf("%s/%s: %v, want no per-log marker", d, name, err)
			}
		}
	}
	replayFS := mem.Clone()
	if err := replayFS.Remove("/d/" + DirMarkerFileName); err != nil {
		t.Fatal(err)
	}
	logs, reps := openDir(t, o)
	if _, err := mem.Stat("/d/" + DirMarkerFileName); !vfs.IsNotExist(err) {
		t.Fatalf("the clean-shutdown file outlived the open: %v", err)
	}
	ro := o
	ro.FS = replayFS
	replayed, replayReps := openDir(t, ro)
	for i, d := range dirMarkerLogs {
		if !reps[i].CleanShutdown || reps[i].Scanned != 1 || reps[i].MarkerIgnored != "" {
			t.Fatalf("%s: %s, want a clean open scanning the active segment", d, reps[i])
		}
		if replayReps[i].CleanShutdown || replayReps[i].Scanned != reps[i].Segments {
			t.Fatalf("%s replayed: %s", d, replayReps[i])
		}
		if a, b := viewOfLog(t, logs[i]), viewOfLog(t, replayed[i]); !reflect.DeepEqual(a, b) {
			t.Fatalf("%s clean:\n%+v\nreplayed:\n%+v", d, a, b)
		}
	}
	if got := logs[1].TakeShutdownState(); string(got) != "busy state" {
		t.Fatalf("state %q after a clean open", got)
	}
	if reps[2].Segments < 3 {
		t.Fatalf("the rolled log has %d segments, want several", reps[2].Segments)
	}
	for _, l := range logs {
		l.Crash(true)
	}
	_, reps = openDir(t, o)
	for i, rep := range reps {
		if rep.CleanShutdown {
			t.Fatalf("%s: clean after a crash: %s", dirMarkerLogs[i], rep)
		}
	}
}

// A damaged clean-shutdown file is not trusted: every log scans, says
// why, and ends as a replay ends.
func TestDamagedDirMarkerIsIgnored(t *testing.T) {
	mem := vfs.NewMem()
	o := shutdownLogs(t, mem)
	path := "/d/" + DirMarkerFileName
	data, err := mem.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	replayFS := mem.Clone()
	if err := replayFS.Remove(path); err != nil {
		t.Fatal(err)
	}
	ro := o
	ro.FS = replayFS
	replayed, _ := openDir(t, ro)
	for _, at := range []int{0, 5, 13, len(data) / 2, len(data) - 2, -1} {
		damaged := mem.Clone()
		b := append([]byte(nil), data...)
		if at < 0 {
			b = b[:len(b)-9]
		} else {
			b[at] ^= 0x20
		}
		if err := vfs.WriteFile(damaged, path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		do := o
		do.FS = damaged
		logs, reps := openDir(t, do)
		for i, rep := range reps {
			if rep.CleanShutdown || !strings.Contains(rep.MarkerIgnored, "clean-shutdown file") {
				t.Fatalf("damage at %d, %s: %s", at, dirMarkerLogs[i], rep)
			}
			if a, b := viewOfLog(t, logs[i]), viewOfLog(t, replayed[i]); !reflect.DeepEqual(a, b) {
				t.Fatalf("damage at %d, %s:\n%+v\nwant\n%+v", at, dirMarkerLogs[i], a, b)
			}
			if got := logs[i].TakeShutdownState(); got != nil {
				t.Fatalf("damage at %d: state %q came back", at, got)
			}
		}
	}
}

// Data directories of the per-log layout (Close, CloseAll) still open
// clean with the directory's markers; a log's own marker comes before the
// directory's entry, and an entry is used once.
func TestDirMarkersKeepThePerLogLayout(t *testing.T) {
	mem := vfs.NewMem()
	o := opts(200, 1)
	o.FS = mem
	var logs []*Log
	for _, d := range dirMarkerLogs {
		l, _ := mustOpen(t, d, o)
		mustAppend(t, l, values(1, "old", "layout"))
		logs = append(logs, l)
	}
	for _, err := range CloseAll(logs) {
		if err != nil {
			t.Fatal(err)
		}
	}
	logs, reps := openDir(t, o)
	for i, rep := range reps {
		if !rep.CleanShutdown {
			t.Fatalf("%s (per-log marker): %s", dirMarkerLogs[i], rep)
		}
	}
	// /d/busy closes alone (its own marker), then all close together.
	mustAppend(t, logs[1], values(2, "alone"))
	if err := logs[1].Close(); err != nil {
		t.Fatal(err)
	}
	ShutdownAll([]*Log{logs[0], logs[2]})
	markers, err := TakeDirMarkers(mem, "/d")
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range dirMarkerLogs {
		l, rep, err := OpenWith(d, o, 0, markers)
		if err != nil || !rep.CleanShutdown {
			t.Fatalf("%s: %v %s", d, err, rep)
		}
		if i == 1 {
			if got := offsetValues(fetchAll(t, l)); !strings.HasSuffix(got[len(got)-1], "alone") {
				t.Fatalf("%s: %v", d, got)
			}
		}
		l.Crash(true)
		if _, rep, _ = OpenWith(d, o, 0, markers); rep.CleanShutdown {
			t.Fatalf("%s: an entry used twice: %s", d, rep)
		}
	}
}

// ShutdownAll fsyncs each changed file once, no unchanged file, no log
// directory without a new segment, and its own file and the parent once.
func TestShutdownAllSyncsEachChangedFileOnce(t *testing.T) {
	mem := vfs.NewMem()
	o := shutdownLogs(t, mem)
	counter := newSyncCounter(mem)
	o.FS = counter
	logs, _ := openDir(t, o)
	mustAppend(t, logs[1], values(9, "c"))
	for k := range counter.syncs {
		delete(counter.syncs, k)
	}
	for _, err := range ShutdownAll(logs) {
		if err != nil {
			t.Fatal(err)
		}
	}
	busy := logs[1].Segments()
	want := map[string]int{
		"/d/busy/" + SegmentFileName(busy[len(busy)-1].Base): 1,
		"/d/busy/" + IndexFileName(busy[len(busy)-1].Base):   1,
		"/d/cleanshutdown.tmp":                               1,
		"/d/":                                                1,
	}
	if !reflect.DeepEqual(counter.syncs, want) {
		t.Fatalf("syncs %v, want %v", counter.syncs, want)
	}
}

// FuzzDirMarkerDecode: no input panics the decoder, and what it accepts
// re-encodes to the same bytes (seeds in testdata/fuzz).
func FuzzDirMarkerDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		logs, err := decodeDirMarker(b)
		if err != nil {
			return
		}
		var entries []dirMarkerEntry
		p := dirMarkerHeaderSize
		for p < len(b)-4 {
			n := int(b[p])<<8 | int(b[p+1])
			name := string(b[p+2 : p+2+n])
			entries = append(entries, dirMarkerEntry{name: name, marker: logs[name]})
			p += 2 + n + 4 + len(logs[name])
		}
		if len(entries) != len(logs) {
			t.Fatalf("%d entries decoded, %d walked", len(logs), len(entries))
		}
		if again := encodeDirMarker(entries); !bytes.Equal(again, b) {
			t.Fatalf("re-encoded %x, want %x", again, b)
		}
		for _, m := range logs {
			decodeMarker(m) // never panics; FuzzMarkerDecode checks it
		}
	})
}
