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
		batch := batchOf(b, o.ValueSize, 0)
		var n int
		var size int64
		round := 0
		elapsed, err := best(o, func() (time.Duration, error) {
			round++
			l, _, err := storage.Open(filepath.Join(dir, fmt.Sprintf("b%d-%d", b, round)), storage.Options{SegmentBytes: o.SegmentBytes}, 0)
			if err != nil {
				return 0, err
			}
			defer l.Crash(true)
			start := time.Now()
			for n = 0; n < o.Records; n += b {
				if _, _, err := l.Append(batch); err != nil {
					return 0, err
				}
			}
			d := time.Since(start)
			size = l.SizeBytes()
			return d, nil
		})
		if err != nil {
			return nil, err
		}
		figs = append(figs,
			Figure{Name: fmt.Sprintf("go.produce.b%d.records_per_s", b), Value: perSecond(float64(n), elapsed), Unit: UnitRecordsPerSec},
			Figure{Name: fmt.Sprintf("go.produce.b%d.log_MBps", b), Value: perSecond(float64(size), elapsed) / 1e6, Unit: UnitMBPerSec},
		)
	}
	return figs, nil
}
