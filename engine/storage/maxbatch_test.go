package storage

import (
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// A batch whose payload is over MaxBatchBytes could be written but never read
// back (followers would fail with CORRUPT_BATCH and the next Open would treat
// it as damage), so Append and AppendRaw refuse it and change nothing. A
// payload of exactly MaxBatchBytes is accepted and survives a reopen.
func TestAppendRefusesBatchOverMaxBatchBytes(t *testing.T) {
	t.Parallel()
	const limit = 100 // payload = 40 header + 22 record overhead + value
	o := Options{MaxBatchBytes: limit}
	dir := t.TempDir()
	l, _ := mustOpen(t, dir, o)
	mustAppend(t, l, values(0, "a"))
	before, unflushed := l.Segments(), l.UnflushedBytes()

	over := values(0, strings.Repeat("x", limit-40-22+1))
	_, _, err := l.Append(over)
	wantCode(t, err, kerr.InvalidRecord, "batch payload of 101 bytes exceeds the maximum of 100 bytes")

	// A frame from a log with a larger bound (a leader configured
	// differently) is refused by AppendRaw with the same code.
	frameLog, _ := mustOpen(t, t.TempDir(), Options{})
	mustAppend(t, frameLog, values(0, "a"))
	_, _, err = frameLog.Append(over)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := frameLog.ReadBatches(1, 1, -1)
	if err != nil || len(raw) != 1 {
		t.Fatalf("read frame: %v, %d batches", err, len(raw))
	}
	_, err = l.AppendRaw(raw[0].Frame)
	wantCode(t, err, kerr.InvalidRecord, "exceeds the maximum of 100 bytes")

	if l.LEO() != 1 || l.UnflushedBytes() != unflushed {
		t.Fatalf("refused appends changed the log: LEO %d, unflushed %d (was %d)", l.LEO(), l.UnflushedBytes(), unflushed)
	}
	wantEqual(t, "segments", l.Segments(), before)

	atLimit := values(0, strings.Repeat("y", limit-40-22))
	mustAppend(t, l, atLimit)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l2, rep, err := Open(dir, o, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	if rep.Truncation != nil {
		t.Fatalf("reopen truncated: %+v", rep.Truncation)
	}
	got := valuesOf(fetchAll(t, l2))
	wantEqual(t, "values", got, []string{"a", strings.Repeat("y", limit-40-22)})
}
