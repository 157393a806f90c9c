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
	clean, err := best(o, func() (time.Duration, error) {
		start := time.Now()
		l, rep, err := storage.Open(dir, opts, 0)
		d := time.Since(start)
		if err != nil {
			return 0, err
		}
		defer l.Close()
		if !rep.CleanShutdown {
			return 0, fmt.Errorf("clean open did not trust the marker: %s", rep.MarkerIgnored)
		}
		return d, nil
	})
	if err != nil {
		return nil, err
	}
	torn, err := best(o, func() (time.Duration, error) {
		l, _, err := storage.Open(dir, opts, 0)
		if err != nil {
			return 0, err
		}
		if _, err := l.Corrupt(-1, storage.Garbage, 0); err != nil {
			l.Crash(true)
			return 0, err
		}
		if err := l.Crash(true); err != nil {
			return 0, err
		}
		start := time.Now()
		l, rep, err := storage.Open(dir, opts, 0)
		d := time.Since(start)
		if err != nil {
			return 0, err
		}
		defer l.Crash(true)
		if rep.Truncation == nil {
			return 0, fmt.Errorf("the torn tail was not repaired")
		}
		return d, nil
	})
	if err != nil {
		return nil, err
	}
	return []Figure{
		{Name: "go.recovery.clean.open_s", Value: clean.Seconds(), Unit: UnitSeconds},
		{Name: "go.recovery.corrupt_tail.open_s", Value: torn.Seconds(), Unit: UnitSeconds},
	}, nil
}
