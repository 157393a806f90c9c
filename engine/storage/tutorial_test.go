package storage

import (
	"fmt"
	"os"
	"testing"
)

// The tutorial's Ch.2 experiment (§6.6, §18): rolling, the active index,
// and a torn tail repaired at reopen.
func TestTutorialCh2Experiment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, _ := mustOpen(t, dir, opts(120, 1))
	for i := 0; i < 3; i++ {
		mustAppend(t, l, values(int64(i), fmt.Sprintf("value-%d", i)))
	}
	wantEqual(t, "segment bases", bases(l), []int64{0, 1, 2})
	wantEqual(t, "active index", mustIndex(t, l, -1), []IndexEntry{{2, 0}})
	validSize := l.Segments()[2].SizeBytes
	l.Close()
	appendToFile(t, segPath(dir, 2), []byte("MKB1\x00\x00\x00\x20partial"))
	l, rep := mustOpen(t, dir, opts(120, 1))
	if l.LEO() != 3 {
		t.Fatalf("recovered leo: %d", l.LEO())
	}
	if fileSize(t, segPath(dir, 2)) != validSize || rep.Truncation == nil {
		t.Fatal("tail repaired: false")
	}
	wantEqual(t, "values", valuesOf(fetchAll(t, l)), []string{"value-0", "value-1", "value-2"})
}

// Ch.2 exercise 2: deleting the active index before reopening.
func TestTutorialCh2DeleteActiveIndex(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, _ := mustOpen(t, dir, opts(120, 1))
	for i := 0; i < 3; i++ {
		mustAppend(t, l, values(int64(i), fmt.Sprintf("value-%d", i)))
	}
	l.Close()
	os.Remove(idxPath(dir, 2))
	l, _ = mustOpen(t, dir, opts(120, 1))
	wantEqual(t, "values", valuesOf(fetchAll(t, l)), []string{"value-0", "value-1", "value-2"})
	onDisk, err := ReadIndexFile(idxPath(dir, 2), 2)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "index file", onDisk, []IndexEntry{{2, 0}})
}

// The Ch.3 retention experiment: "retention deleted: (0, 1, 2) start: 3".
func TestTutorialCh3Retention(t *testing.T) {
	t.Parallel()
	l, _ := mustOpen(t, t.TempDir(), opts(1<<20, 1))
	for i, ts := range []int64{0, 50, 150, 250} {
		if i > 0 {
			l.Roll()
		}
		mustAppend(t, l, values(ts, "retained"))
	}
	deleted, err := l.ApplyRetention(300, 100, -1)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("retention deleted: %v start: %d", deleted, l.LogStartOffset()); got != "retention deleted: [0 1 2] start: 3" {
		t.Fatal(got)
	}
}

// The Ch.3 compaction experiment: "compaction: 4 -> 3" and the records.
func TestTutorialCh3Compaction(t *testing.T) {
	t.Parallel()
	l, _ := mustOpen(t, t.TempDir(), opts(1<<20, 1))
	kv(t, l, "a=1@0", "b=x@1", "|", "a=2@2", "-=event@3", "|", "active=keep@4")
	res, err := l.Compact(10, 1000, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("compaction: %d -> %d", res.RecordsBefore, res.RecordsAfter); got != "compaction: 4 -> 3" {
		t.Fatal(got)
	}
	wantEqual(t, "records", offsetValues(fetchAll(t, l)), []string{"1:b=x", "2:a=2", "3:-=event", "4:active=keep"})
}

// Ch.3 exercise 1: closed maxima 250, 0, 0 at clock 300, retention 100:
// nothing is deleted, by the prefix rule.
func TestTutorialCh3Exercise1(t *testing.T) {
	t.Parallel()
	l := retentionLog(t, t.TempDir(), 250, 0, 0, 300)
	if d, _ := l.ApplyRetention(300, 100, -1); len(d) != 0 {
		t.Fatalf("deleted %v", d)
	}
}

// Ch.3 exercise 2: the tombstone stays at its offset at clock 500 and is
// gone at clock 2000.
func TestTutorialCh3Exercise2(t *testing.T) {
	t.Parallel()
	for clock, want := range map[int64][]string{
		500:  {"1:a=<nil>", "2:active=x"},
		2000: {"2:active=x"},
	} {
		l, _ := mustOpen(t, t.TempDir(), opts(1<<20, 1))
		kv(t, l, "a=1@0", "a=<nil>@100", "|", "active=x@2000")
		l.Compact(clock, 1000, nil)
		wantEqual(t, fmt.Sprintf("clock %d", clock), offsetValues(fetchAll(t, l)), want)
	}
}
