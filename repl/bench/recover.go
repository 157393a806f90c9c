package bench

import (
	"fmt"
	"time"

	"github.com/minikafka-lab/minikafka/engine/storage"
)

// recoverWorkload times Open: after a clean close (the marker lets it skip
// closed segments) and after a crash that tore the active tail (every
// segment is scanned and the tail is truncated).
var recoverWorkload = Workload{
	Name:    "recover",
	Summary: "reopen after a clean close, and after a crash with a torn tail",
	Run:     runRecover,
}

func runRecover(dir string, o Options) ([]Figure, error) {
	l, err := fill(dir, o, o.batchOr(DefaultBatch))
	if err != nil {
		return nil, err
	}
	if err := l.Close(); err != nil {
		return nil, err
	}
	opts := storage.Options{SegmentBytes: o.SegmentBytes}
	start := time.Now()
	l, rep, err := storage.Open(dir, opts, 0)
	clean := time.Since(start)
	if err != nil {
		return nil, err
	}
	if !rep.CleanShutdown {
		l.Crash(true)
		return nil, fmt.Errorf("clean open did not trust the marker: %s", rep.MarkerIgnored)
	}
	if _, err := l.Corrupt(-1, storage.Garbage, 0); err != nil {
		l.Crash(true)
		return nil, err
	}
	if err := l.Crash(true); err != nil {
		return nil, err
	}
	start = time.Now()
	l, rep, err = storage.Open(dir, opts, 0)
	torn := time.Since(start)
	if err != nil {
		return nil, err
	}
	defer l.Crash(true)
	if rep.Truncation == nil {
		return nil, fmt.Errorf("the torn tail was not repaired")
	}
	return []Figure{
		{Name: "go.recovery.clean.open_s", Value: clean.Seconds(), Unit: UnitSeconds},
		{Name: "go.recovery.corrupt_tail.open_s", Value: torn.Seconds(), Unit: UnitSeconds},
	}, nil
}
