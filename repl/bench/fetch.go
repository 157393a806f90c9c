package bench

import (
	"fmt"
	"time"
)

// fetchChunk is the records per call of the chunked read.
const fetchChunk = 1000

// fetchWorkload reads a log back: once in a single Fetch call, and once in
// 1000-record calls as a consumer does.
var fetchWorkload = Workload{
	Name:    "fetch",
	Summary: "read the log in one Fetch call and in 1000-record calls",
	Run:     runFetch,
}

func runFetch(dir string, o Options) ([]Figure, error) {
	l, err := fill(dir, o, o.batchOr(DefaultBatch))
	if err != nil {
		return nil, err
	}
	defer l.Crash(true)
	single, err := best(o, func() (time.Duration, error) {
		start := time.Now()
		recs, err := l.Fetch(0, o.Records, -1)
		d := time.Since(start)
		if err == nil && len(recs) != o.Records {
			err = fmt.Errorf("single pass read %d records, want %d", len(recs), o.Records)
		}
		return d, err
	})
	if err != nil {
		return nil, err
	}
	n := 0
	chunked, err := best(o, func() (time.Duration, error) {
		start := time.Now()
		n = 0
		for off := int64(0); off < l.LEO(); {
			got, err := l.Fetch(off, fetchChunk, -1)
			if err != nil {
				return 0, err
			}
			if len(got) == 0 {
				return 0, fmt.Errorf("empty fetch at offset %d", off)
			}
			n += len(got)
			off = got[len(got)-1].Offset + 1
		}
		return time.Since(start), nil
	})
	if err != nil {
		return nil, err
	}
	return []Figure{
		{Name: "go.fetch.single.records_per_s", Value: perSecond(float64(o.Records), single), Unit: UnitRecordsPerSec},
		{Name: fmt.Sprintf("go.fetch.chunked.c%d.n%d.records_per_s", fetchChunk, o.Records), Value: perSecond(float64(n), chunked), Unit: UnitRecordsPerSec},
	}, nil
}
