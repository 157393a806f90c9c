package storage_test

import (
	"fmt"
	"os"

	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/storage"
)

// A torn write at the end of the active segment is repaired at the next
// open, and the recovery report says what was dropped.
func Example_tornTail() {
	dir, _ := os.MkdirTemp("", "example-")
	defer os.RemoveAll(dir)
	l, _, _ := storage.Open(dir, storage.Options{SegmentBytes: 120, IndexIntervalBytes: 1}, 0)
	for i := 0; i < 3; i++ {
		b := record.NewBatch([]record.Record{{Value: []byte(fmt.Sprintf("value-%d", i)), TimestampMs: int64(i)}})
		l.Append(b)
	}
	fmt.Println("segments:", len(l.Segments()), "LEO:", l.LEO())
	rep, _ := l.Corrupt(-1, storage.Garbage, 0) // 16 bytes of a torn frame
	fmt.Println("corrupted", rep.File, "at byte", rep.Position)
	l.Crash(true)

	l, recovery, _ := storage.Open(dir, storage.Options{SegmentBytes: 120, IndexIntervalBytes: 1}, 0)
	defer l.Close()
	fmt.Println(recovery)
	recs, _ := l.Fetch(0, 10, -1)
	for _, r := range recs {
		fmt.Println(r.Offset, string(r.Value))
	}
	// Output:
	// segments: 3 LEO: 3
	// corrupted 00000000000000000002.log at byte 81
	// 3 segments, 3 scanned, 1 index rebuilt; truncated 00000000000000000002.log at byte 81: dropped 16 bytes, kept 1 batch (batch length does not match frame)
	// 0 value-0
	// 1 value-1
	// 2 value-2
}
