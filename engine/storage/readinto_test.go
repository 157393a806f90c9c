package storage

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// rawEqual compares two reads batch by batch: bytes, metadata and location.
func rawEqual(t *testing.T, what string, got, want []RawBatch) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d batches, want %d", what, len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if !bytes.Equal(g.Frame, w.Frame) || g.Meta != w.Meta || g.Segment != w.Segment || g.Position != w.Position {
			t.Fatalf("%s: batch %d differs: %+v vs %+v", what, i, g.Meta, w.Meta)
		}
	}
}

// ReadBatchesInto returns exactly what ReadBatches returns, for every start
// offset and budget, across segments and across reads that need more than
// one chunk of the buffer, while one buffer is reused for every read.
func TestReadBatchesIntoMatchesReadBatches(t *testing.T) {
	t.Parallel()
	l, _ := mustOpen(t, t.TempDir(), opts(600, 100))
	for i := range 40 {
		mustAppend(t, l, values(int64(i), strings.Repeat(string(rune('a'+i%26)), 10+i*7)))
	}
	if len(l.Segments()) < 5 {
		t.Fatalf("want several segments, got %d", len(l.Segments()))
	}
	var rb ReadBuffer
	for offset := l.LogStartOffset(); offset <= l.LEO(); offset++ {
		for _, budget := range []int{0, 200, 900, 5000, 1 << 20} {
			for _, end := range []int64{-1, offset + 3} {
				what := fmt.Sprintf("offset %d budget %d end %d", offset, budget, end)
				want, err := l.ReadBatches(offset, budget, end)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				got, err := l.ReadBatchesInto(&rb, offset, budget, end)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				rawEqual(t, what, got, want)
			}
		}
	}
	_, err := l.ReadBatchesInto(&rb, l.LEO()+1, 1, -1)
	wantCode(t, err, kerr.OffsetOutOfRange, "")
}

// ReadBatches keeps its contract when a buffer is reused: its frames are
// never overwritten by later reads of either kind, while ReadBatchesInto on
// a warm buffer reads without allocating.
func TestReadBatchesIntoReusesItsBuffer(t *testing.T) {
	l, _ := mustOpen(t, t.TempDir(), opts(0, 0))
	for i := range 8 {
		mustAppend(t, l, values(0, fmt.Sprintf("value-%d", i)))
	}
	kept, err := l.ReadBatches(0, 1<<20, -1)
	if err != nil {
		t.Fatal(err)
	}
	snapshot := make([][]byte, len(kept))
	for i, b := range kept {
		snapshot[i] = slices.Clone(b.Frame)
	}
	var rb ReadBuffer
	for offset := range int64(8) {
		if _, err := l.ReadBatchesInto(&rb, offset, 1<<20, -1); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Fetch(offset, 10, -1); err != nil {
			t.Fatal(err)
		}
	}
	for i, b := range kept {
		if !bytes.Equal(b.Frame, snapshot[i]) {
			t.Fatalf("ReadBatches frame %d was overwritten by later reads", i)
		}
	}
	allocs := testing.AllocsPerRun(100, func() {
		got, err := l.ReadBatchesInto(&rb, 3, 1<<20, -1)
		if err != nil || len(got) != 5 {
			t.Fatalf("read: %d batches, %v", len(got), err)
		}
	})
	if allocs != 0 {
		t.Fatalf("ReadBatchesInto on a warm buffer made %.1f allocations per read, want 0", allocs)
	}
}
