package bench

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/minikafka-lab/minikafka/engine/storage"
)

// produceWorkload appends records as a leader does: encode once, buffered
// writes, an fsync at every roll.
var produceWorkload = Workload{
	Name:    "produce",
	Summary: "leader appends of 1-record and 512-record batches (or --batch B)",
	Run:     runProduce,
}

func runProduce(dir string, o Options) ([]Figure, error) {
	sizes := []int{1, DefaultBatch}
	if o.Batch > 0 {
		sizes = []int{o.Batch}
	}
	var figs []Figure
	for _, b := range sizes {
		l, _, err := storage.Open(filepath.Join(dir, fmt.Sprintf("b%d", b)), storage.Options{SegmentBytes: o.SegmentBytes}, 0)
		if err != nil {
			return nil, err
		}
		batch := batchOf(b, o.ValueSize, 0)
		start := time.Now()
		n := 0
		for n < o.Records {
			if _, _, err := l.Append(batch); err != nil {
				l.Crash(true)
				return nil, err
			}
			n += b
		}
		elapsed := time.Since(start)
		size := l.SizeBytes()
		if err := l.Crash(true); err != nil {
			return nil, err
		}
		figs = append(figs,
			Figure{Name: fmt.Sprintf("go.produce.b%d.records_per_s", b), Value: perSecond(float64(n), elapsed), Unit: UnitRecordsPerSec},
			Figure{Name: fmt.Sprintf("go.produce.b%d.log_MBps", b), Value: perSecond(float64(size), elapsed) / 1e6, Unit: UnitMBPerSec},
		)
	}
	return figs, nil
}
