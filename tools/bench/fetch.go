package bench

import (
	"fmt"
	"time"
)

// fetchChunk is the records per call of the chunked read.
const fetchChunk = 1000

// minRoundRecords is how many records a timed fetch round reads at least
// (a small log is read several times): 20 passes, up to a million records.
func minRoundRecords(o Options) int { return max(o.Records, min(20*o.Records, 1_000_000)) }

// fetchWorkload reads a log back: in 1000-record calls as a consumer does,
// then in a single Fetch call. The chunked pass runs first: the single pass
// allocates the whole result at once and would leave a large heap behind.
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
	// A round repeats its pass until it has read minRoundRecords, so that a
	// small log is timed over enough work to average out noise.
	var chunkedRecs, singleRecs int
	chunked, err := best(o, func() (time.Duration, error) {
		start := time.Now()
		chunkedRecs = 0
		for chunkedRecs < minRoundRecords(o) {
			for off := int64(0); off < l.LEO(); {
				got, err := l.Fetch(off, fetchChunk, -1)
				if err != nil {
					return 0, err
				}
				if len(got) == 0 {
					return 0, fmt.Errorf("empty fetch at offset %d", off)
				}
				chunkedRecs += len(got)
				off = got[len(got)-1].Offset + 1
			}
		}
		return time.Since(start), nil
	})
	if err != nil {
		return nil, err
	}
	single, err := best(o, func() (time.Duration, error) {
		start := time.Now()
		singleRecs = 0
		for singleRecs < minRoundRecords(o) {
			recs, err := l.Fetch(0, o.Records, -1)
			if err != nil {
				return 0, err
			}
			if len(recs) != o.Records {
				return 0, fmt.Errorf("single pass read %d records, want %d", len(recs), o.Records)
			}
			singleRecs += len(recs)
		}
		return time.Since(start), nil
	})
	if err != nil {
		return nil, err
	}
	return []Figure{
		{Name: "go.fetch.single.records_per_s", Value: perSecond(float64(singleRecs), single), Unit: UnitRecordsPerSec},
		{Name: fmt.Sprintf("go.fetch.chunked.c%d.n%d.records_per_s", fetchChunk, o.Records), Value: perSecond(float64(chunkedRecs), chunked), Unit: UnitRecordsPerSec},
	}, nil
}
