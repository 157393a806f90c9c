package bench

import (
	"fmt"
	"path/filepath"
	"time"
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
		n := (o.Records + b - 1) / b * b
		round := 0
		elapsed, err := best(o, func() (time.Duration, error) {
			round++
			return produceToLog(filepath.Join(dir, fmt.Sprintf("b%d-%d", b, round)), o, batch, n)
		})
		if err != nil {
			return nil, err
		}
		size := n / b * batch.EncodedSize() // every append stores the same frame
		figs = append(figs,
			Figure{Name: fmt.Sprintf("go.produce.b%d.records_per_s", b), Value: perSecond(float64(n), elapsed), Unit: UnitRecordsPerSec},
			Figure{Name: fmt.Sprintf("go.produce.b%d.log_MBps", b), Value: perSecond(float64(size), elapsed) / 1e6, Unit: UnitMBPerSec},
		)
	}
	return figs, nil
}
