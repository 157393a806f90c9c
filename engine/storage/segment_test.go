package storage

import (
	"os"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
)

// S1: a scan from offset 1 expands batches into records; LEO and max
// timestamp follow the batches.
func TestS1SegmentScan(t *testing.T) {
	t.Parallel()
	l, _ := mustOpen(t, t.TempDir(), opts(0, 1))
	mustAppend(t, l, record.NewBatch([]record.Record{rec("", "a", 0), rec("", "b", 1)}))
	mustAppend(t, l, values(2, "c"))
	recs, err := l.Fetch(1, 10, -1)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "records", offsetValues(recs), []string{"1:-=b", "2:-=c"})
	if l.LEO() != 3 {
		t.Fatalf("LEO %d, want 3", l.LEO())
	}
	if ts := l.Segments()[0].MaxTimestamp; ts != 2 {
		t.Fatalf("max timestamp %d, want 2", ts)
	}
}

// S2: a batch assigned at 1 cannot go into an empty log (base 0).
func TestS2NonContiguousBase(t *testing.T) {
	t.Parallel()
	l, _ := mustOpen(t, t.TempDir(), opts(0, 1))
	b, _ := values(0, "x").Assign(1, 0)
	frame, _ := record.Encode(b)
	_, err := l.AppendRaw(frame)
	wantCode(t, err, kerr.InvalidRecord, "expected base offset 0")
	if l.LEO() != 0 || l.SizeBytes() != 0 {
		t.Fatalf("a refused append changed the log: LEO %d size %d", l.LEO(), l.SizeBytes())
	}
}

// S3: after a flush the log file holds exactly the log's bytes and the
// index file is not empty.
func TestS3FlushWritesFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, _ := mustOpen(t, dir, opts(0, 0))
	mustAppend(t, l, values(0, "a"))
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := fileSize(t, segPath(dir, 0)); got != l.SizeBytes() {
		t.Fatalf("log file %d bytes, log says %d", got, l.SizeBytes())
	}
	if fileSize(t, idxPath(dir, 0)) == 0 {
		t.Fatal("index file is empty after flush")
	}
	if l.UnflushedBytes() != 0 {
		t.Fatalf("unflushed %d after flush", l.UnflushedBytes())
	}
}

// S4: a torn frame after one valid batch is truncated away at open.
func TestS4PartialTailRepaired(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, _ := mustOpen(t, dir, opts(0, 8))
	mustAppend(t, l, values(0, "safe"))
	valid := l.SizeBytes()
	l.Close()
	appendToFile(t, segPath(dir, 0), []byte("MKB1\x00\x00\x00\x20partial"))
	l, rep := mustOpen(t, dir, opts(0, 8))
	if got := fileSize(t, segPath(dir, 0)); got != valid || l.SizeBytes() != valid {
		t.Fatalf("size file %d log %d, want %d", got, l.SizeBytes(), valid)
	}
	if l.LEO() != 1 {
		t.Fatalf("LEO %d, want 1", l.LEO())
	}
	wantEqual(t, "records", offsetValues(fetchAll(t, l)), []string{"0:-=safe"})
	tr := rep.Truncation
	if tr == nil || tr.Position != valid || tr.BytesDropped != 15 || tr.BatchesKept != 1 || tr.Segment != SegmentFileName(0) {
		t.Fatalf("truncation report %+v", tr)
	}
	if tr.Reason != "batch length does not match frame" {
		t.Fatalf("reason %q", tr.Reason)
	}
}

// S5: a flipped last byte invalidates the second batch only.
func TestS5FlippedTailByte(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, _ := mustOpen(t, dir, opts(0, 0))
	first := mustAppend(t, l, values(0, "one"))
	mustAppend(t, l, values(1, "two"))
	l.Close()
	path := segPath(dir, 0)
	flipByte(t, path, fileSize(t, path)-1, 0xFF)
	l, rep := mustOpen(t, dir, opts(0, 0))
	if l.SizeBytes() != int64(first.Size) || l.LEO() != 1 {
		t.Fatalf("size %d LEO %d, want %d and 1", l.SizeBytes(), l.LEO(), first.Size)
	}
	if rep.Truncation == nil || rep.Truncation.Reason != "batch CRC mismatch" {
		t.Fatalf("truncation %+v", rep.Truncation)
	}
}

// S6: the same damage in a closed segment stops the open.
func TestS6ClosedSegmentCorruption(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, _ := mustOpen(t, dir, opts(0, 0))
	mustAppend(t, l, values(0, "one"))
	l.Roll()
	mustAppend(t, l, values(1, "two"))
	l.Crash(true)
	path := segPath(dir, 0)
	flipByte(t, path, fileSize(t, path)-1, 0xFF)
	_, _, err := Open(dir, opts(0, 0), 0)
	wantCode(t, err, kerr.StorageError, "corrupt closed segment "+path+": batch CRC mismatch")
	if !strings.Contains(err.Error(), "closed segment") {
		t.Fatal(err)
	}
}

// S7: a deleted index is rebuilt from the log at open.
func TestS7MissingIndexRebuilt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, _ := mustOpen(t, dir, opts(0, 1))
	mustAppend(t, l, values(0, "a"))
	mustAppend(t, l, values(1, "b"))
	l.Close()
	os.Remove(idxPath(dir, 0))
	l, rep := mustOpen(t, dir, opts(0, 1))
	got, _ := l.Index(0)
	if len(got) != 2 || got[0] != (IndexEntry{0, 0}) {
		t.Fatalf("index %v", got)
	}
	if rep.IndexesRebuilt != 1 {
		t.Fatalf("report %+v", rep)
	}
	onDisk, err := ReadIndexFile(idxPath(dir, 0), 0)
	if err != nil || len(onDisk) != 2 {
		t.Fatalf("index file %v %v", onDisk, err)
	}
}

// §6.3 index rule examples.
func TestIndexRuleExamples(t *testing.T) {
	t.Parallel()
	l, _ := mustOpen(t, t.TempDir(), opts(1<<20, 200))
	for i := 0; i < 10; i++ {
		if info := mustAppend(t, l, values(0, strings.Repeat("x", 30))); info.Size != 104 {
			t.Fatalf("batch size %d, want 104", info.Size)
		}
	}
	idx, _ := l.Index(0)
	wantEqual(t, "index", idx, []IndexEntry{{0, 0}, {2, 208}, {4, 416}, {6, 624}, {8, 832}})

	l2, _ := mustOpen(t, t.TempDir(), opts(1<<20, 0))
	for i := 0; i < 50; i++ {
		mustAppend(t, l2, values(0, strings.Repeat("x", 100)))
	}
	idx, _ = l2.Index(0)
	wantEqual(t, "index", idx, []IndexEntry{{0, 0}, {24, 4176}, {48, 8352}})
}
