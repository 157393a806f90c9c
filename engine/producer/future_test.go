package producer

import (
	"testing"
	"unsafe"
)

// TestFutureSlabFillsItsSizeClass: a slab block of futures, with the
// 8-byte header the allocator puts before a block that holds pointers,
// fills the 8 KiB size class without room for one more future (a field
// added to Future would otherwise waste part of every block, or take the
// next size class).
func TestFutureSlabFillsItsSizeClass(t *testing.T) {
	const class, header = 8192, 8
	size := int(unsafe.Sizeof(Future{}))
	if used := futureSlabSize*size + header; used > class || class-used >= size {
		t.Fatalf("a block of %d futures of %d bytes takes %d bytes of the %d-byte class: set futureSlabSize to %d",
			futureSlabSize, size, used, class, (class-header)/size)
	}
	if size != 24 {
		t.Fatalf("a future takes %d bytes, not 24", size)
	}
}

// TestFutureIDsFollowTheirBatch: the futures of one batch keep their ids
// in the batch they share, in the order they were handed out, with their
// place in the batch and their timestamp, and start pending.
func TestFutureIDsFollowTheirBatch(t *testing.T) {
	var s futureSlab
	fb := &futureBatch{ids: make([]int64, 0, 64)}
	var futs []*Future
	for i, id := range []int64{7, 9, 12} {
		f := s.next(id, fb, int64(100+i))
		futs = append(futs, f)
	}
	for i, want := range []int64{7, 9, 12} {
		if f := futs[i]; f.ID() != want || f.index != int32(i) || f.ts != int64(100+i) || f.Settled() {
			t.Fatalf("future %d: id %d index %d ts %d state %v", i, f.ID(), f.index, f.ts, f.State())
		}
	}
}

// TestRecordsToFill: the room a queue is given is the number of records
// of one size that reach batch.size, at most maxQueueHint.
func TestRecordsToFill(t *testing.T) {
	for _, c := range []struct {
		batchSize, size int64
		want            int
	}{
		{512 * 139, 139, 512}, {512*139 + 1, 139, 513}, {68, 40, 2}, {1, 40, 1}, {40, 40, 1},
		{1 << 62, 39, maxQueueHint}, {1<<63 - 1, 39, maxQueueHint},
	} {
		if got := recordsToFill(c.batchSize, c.size); got != c.want {
			t.Errorf("recordsToFill(%d, %d) = %d, want %d", c.batchSize, c.size, got, c.want)
		}
	}
}
