package dumplog

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/storage"
)

// golden compares got with testdata/NAME.golden (-update rewrites it).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./repl/dumplog -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s:\n--- got\n%s--- want\n%s", name, path, got, want)
	}
}

// TestGoldenDumps dumps the fixtures in every format, with and without
// records, through DumpFile (the subcommand's path).
func TestGoldenDumps(t *testing.T) {
	cases := []struct {
		golden, file string
		format       Format
		records      bool
	}{
		{"clean-text", "clean/00000000000000000000.log", FormatText, false},
		{"clean-text-records", "clean/00000000000000000000.log", FormatText, true},
		{"clean-json", "clean/00000000000000000000.log", FormatJSON, false},
		{"clean-json-records", "clean/00000000000000000000.log", FormatJSON, true},
		{"torn-tail-text", "torn-tail/00000000000000000000.log", FormatText, true},
		{"torn-tail-json", "torn-tail/00000000000000000000.log", FormatJSON, false},
		{"flipped-byte-text", "flipped-byte/00000000000000000000.log", FormatText, false},
		{"corrupt-closed-text", "corrupt-closed/00000000000000000000.log", FormatText, false},
		{"index-text", "clean/00000000000000000000.index", FormatText, false},
		// Kafka 4.0's lines (DumpLogSegments): no key:/payload: for nulls,
		// the control-record line, a bad-CRC batch with isvalid: false.
		{"clean-kafka-records", "clean/00000000000000000000.log", FormatKafka, true},
		{"flipped-byte-kafka-records", "flipped-byte/00000000000000000000.log", FormatKafka, true},
		{"torn-tail-kafka", "torn-tail/00000000000000000000.log", FormatKafka, false},
		{"index-json", "clean/00000000000000000000.index", FormatJSON, false},
	}
	for _, c := range cases {
		t.Run(c.golden, func(t *testing.T) {
			var out bytes.Buffer
			// A relative path keeps the "Dumping" line independent of the checkout.
			path := filepath.Join(fixtureRoot, c.file)
			if err := DumpFile(&out, path, c.format, c.records); err != nil {
				t.Fatal(err)
			}
			golden(t, c.golden, out.Bytes())
		})
	}
}

// Every JSON line parses, and the damaged tail is the last object.
func TestJSONLinesParse(t *testing.T) {
	var out bytes.Buffer
	if err := DumpFile(&out, filepath.Join(fixtureRoot, "torn-tail/00000000000000000000.log"), FormatJSON, true); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	for i, line := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if i == len(lines)-1 {
			if m["invalid_bytes"] != 15.0 || m["reason"] != "batch length does not match frame" {
				t.Fatalf("tail object %v", m)
			}
		} else if _, ok := m["records"]; !ok {
			t.Fatalf("line %d has no records", i)
		}
	}
}

// Frames read from an open log (the REPL's log dump reads them through the
// cluster's LogBatches) render like the file.
func TestTextFromLog(t *testing.T) {
	dir := t.TempDir()
	buildFixture(t, fixtures[0], dir)
	l, _, err := storage.Open(dir, storage.Options{IndexIntervalBytes: 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	batches, err := l.ReadBatches(0, 1<<20, -1)
	if err != nil {
		t.Fatal(err)
	}
	var fromLog, fromFile bytes.Buffer
	frames := make([]Frame, len(batches))
	for i, b := range batches {
		frames[i] = Frame{Position: b.Position, Bytes: b.Frame, Meta: b.Meta}
	}
	Text(&fromLog, Segment{Name: "00000000000000000000.log", BaseOffset: 0, Frames: frames}, true)
	seg, err := ReadSegmentFile(filepath.Join(dir, "00000000000000000000.log"))
	if err != nil {
		t.Fatal(err)
	}
	seg.Name = "00000000000000000000.log"
	Text(&fromFile, seg, true)
	if fromLog.String() != fromFile.String() {
		t.Fatalf("log view:\n%s\nfile view:\n%s", fromLog.String(), fromFile.String())
	}
}

// Bad input ends in an error that says what is wrong, never a panic.
func TestDumpFileBadInput(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello"), 0o644)
	os.WriteFile(filepath.Join(dir, "copy.log"), []byte("hello"), 0o644)
	os.Mkdir(filepath.Join(dir, "00000000000000000000.log"), 0o755)
	os.WriteFile(filepath.Join(dir, "00000000000000000005.index"), []byte{1, 2, 3}, 0o644)
	os.WriteFile(filepath.Join(dir, "00000000000000000007.log"), nil, 0o644)
	cases := map[string]string{
		"missing.log":                "no such file or directory",
		"00000000000000000000.log":   "is a directory",
		"notes.txt":                  "is not a segment file: dump-log reads .log and .index files",
		"copy.log":                   "is not a segment file name",
		"00000000000000000005.index": "partial index entry",
	}
	for name, want := range cases {
		var out bytes.Buffer
		err := DumpFile(&out, filepath.Join(dir, name), FormatText, true)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", name, err, want)
		}
	}
	// An empty segment is valid: the header only.
	var out bytes.Buffer
	if err := DumpFile(&out, filepath.Join(dir, "00000000000000000007.log"), FormatText, false); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "Log starting offset: 7\n") {
		t.Fatalf("empty segment dump %q", out.String())
	}
	if _, err := ParseFormat("yaml"); err == nil {
		t.Fatal("yaml accepted")
	}
}

func TestBytesRendering(t *testing.T) {
	for in, want := range map[string]string{"plain text": "plain text", "\x00\xff": "hex:00ff", "tab\there": "hex:7461620968657265", "": "", "αβ": "αβ"} {
		if got := Bytes([]byte(in)); got != want {
			t.Errorf("Bytes(%q) = %q, want %q", in, got, want)
		}
	}
	if Bytes(nil) != "null" {
		t.Fatal("nil is not null")
	}
}

// heapSampler is a writer that records the largest live heap seen while
// the dump writes.
type heapSampler struct {
	writes int
	peak   uint64
}

func (h *heapSampler) Write(p []byte) (int, error) {
	if h.writes%16 == 0 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		h.peak = max(h.peak, m.HeapAlloc)
	}
	h.writes++
	return len(p), nil
}

// TestDumpFileStreams: dumping a 32 MiB segment holds about one frame, not
// the file (the old ReadFile held all of it); a device such as
// /dev/urandom behind a segment name is refused before anything is read.
func TestDumpFileStreams(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, storage.SegmentFileName(0))
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	value := bytes.Repeat([]byte("v"), 64<<10)
	for i := 0; i < 512; i++ {
		b, err := record.NewBatch([]record.Record{{Value: value}}).Assign(int64(i), 0)
		if err != nil {
			t.Fatal(err)
		}
		frame, err := record.Encode(b)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(frame); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for _, format := range []Format{FormatText, FormatJSON} {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		base := m.HeapAlloc
		h := &heapSampler{}
		if err := DumpFile(h, path, format, true); err != nil {
			t.Fatal(err)
		}
		if h.writes < 512 {
			t.Fatalf("%s: %d writes for 512 batches", format, h.writes)
		}
		if grew := int64(h.peak) - int64(base); grew > 12<<20 {
			t.Errorf("%s: the heap grew by %d MiB while dumping a 32 MiB segment", format, grew>>20)
		}
	}

	if _, err := os.Stat("/dev/urandom"); err != nil {
		t.Skip("no /dev/urandom")
	}
	link := filepath.Join(dir, storage.SegmentFileName(100))
	if err := os.Symlink("/dev/urandom", link); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = DumpFile(&out, link, FormatText, false)
	if err == nil || !strings.Contains(err.Error(), "is not a regular file") || out.Len() != 0 {
		t.Fatalf("a device as a segment: %v, %q", err, out.String())
	}
}
