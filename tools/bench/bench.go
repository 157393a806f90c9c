// Package bench runs throughput workloads against the storage engine on a
// scratch directory and reports figures, for `minikafka bench`. Each
// workload lives in its own file and is one entry of the table in
// Workloads; adding one (say, replicate) means writing its file and adding
// a line to that table.
//
// Every measurement runs Options.Rounds times (default 3) and reports the
// fastest round. Figures are named like the benchmark dashboards of the
// project, e.g. go.produce.b512.records_per_s, and print either as a table
// or as one line per figure:
//
//	metric=go.produce.b512.records_per_s value=3120000 unit=records/s
package bench

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/olekukonko/tablewriter"

	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/storage"
)

// Options size a run. Zero fields take the defaults.
type Options struct {
	Records      int   // records per workload (default 500000)
	Batch        int   // records per batch (default: produce runs 1 and 512, the others 512)
	ValueSize    int   // value bytes per record (default 100)
	SegmentBytes int64 // segment.bytes (default 1 MiB)
	Rounds       int   // each measurement runs this many times and reports its best (default 3)
	Partitions   int   // partitions of the restart workload (default 1000)
	TempDir      string
}

// Defaults.
const (
	DefaultRecords   = 500_000
	DefaultBatch     = 512
	DefaultValueSize = 100
	DefaultRounds    = 3
)

func (o Options) withDefaults() Options {
	if o.Records <= 0 {
		o.Records = DefaultRecords
	}
	if o.ValueSize <= 0 {
		o.ValueSize = DefaultValueSize
	}
	if o.SegmentBytes <= 0 {
		o.SegmentBytes = storage.DefaultSegmentBytes
	}
	if o.Rounds <= 0 {
		o.Rounds = DefaultRounds
	}
	if o.Partitions <= 0 {
		o.Partitions = DefaultPartitions
	}
	return o
}

// best runs measure o.Rounds times and returns the shortest duration: on a
// shared machine the fastest round is the one least disturbed by others
// (and the first round also pays for growing the heap). Like go test
// -bench, it collects garbage before each round, so that a round does not
// pay for the previous one's allocations.
func best(o Options, measure func() (time.Duration, error)) (time.Duration, error) {
	var fastest time.Duration
	for i := 0; i < o.Rounds; i++ {
		runtime.GC()
		d, err := measure()
		if err != nil {
			return 0, err
		}
		if i == 0 || d < fastest {
			fastest = d
		}
	}
	return fastest, nil
}

// batchOr is the batch size, or def when none was asked for.
func (o Options) batchOr(def int) int {
	if o.Batch > 0 {
		return o.Batch
	}
	return def
}

// Units of figures.
const (
	UnitRecordsPerSec = "records/s"
	UnitMBPerSec      = "MB/s" // 10^6 bytes per second
	UnitSeconds       = "s"
	UnitRatio         = "x" // a ratio of two durations
	UnitBytes         = "B"
	UnitNanoseconds   = "ns"
	UnitJoinsPerSec   = "joins/s"
)

// Figure is one measured number.
type Figure struct {
	Workload string
	Name     string // metric name, e.g. go.fetch.single.records_per_s
	Value    float64
	Unit     string
}

// Workload is one benchmark: Run does its work in dir (a fresh, empty
// directory that is removed afterwards) and returns its figures.
type Workload struct {
	Name    string
	Summary string
	Run     func(dir string, o Options) ([]Figure, error)
}

// Workloads is the table of workloads, in the order `bench` runs them.
func Workloads() []Workload {
	return []Workload{
		produceWorkload,
		fetchWorkload,
		recoverWorkload,
		replicateWorkload,
		restartWorkload,
		producerWorkload,
		groupJoinWorkload,
		readCommittedWorkload,
	}
}

// Find returns the workload with this name.
func Find(name string) (Workload, bool) {
	for _, w := range Workloads() {
		if w.Name == name {
			return w, true
		}
	}
	return Workload{}, false
}

// Run runs the named workloads (all of them when names is empty) on a
// scratch directory under o.TempDir, which it removes, and returns their
// figures in order.
func Run(names []string, o Options) ([]Figure, error) {
	o = o.withDefaults()
	var ws []Workload
	if len(names) == 0 {
		ws = Workloads()
	}
	for _, n := range names {
		w, ok := Find(n)
		if !ok {
			return nil, fmt.Errorf("unknown workload %q", n)
		}
		ws = append(ws, w)
	}
	root, err := os.MkdirTemp(o.TempDir, "minikafka-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(root)
	var figs []Figure
	for i, w := range ws {
		dir := filepath.Join(root, fmt.Sprintf("%d-%s", i, w.Name))
		if err := os.Mkdir(dir, 0o755); err != nil {
			return figs, err
		}
		got, err := w.Run(dir, o)
		if err != nil {
			return figs, fmt.Errorf("%s: %w", w.Name, err)
		}
		for j := range got {
			got[j].Workload = w.Name
		}
		figs = append(figs, got...)
		os.RemoveAll(dir) // free the disk before the next workload
	}
	return figs, nil
}

// FormatValue renders a figure's value: whole records per second, MB/s
// with one decimal, seconds with microsecond precision.
func FormatValue(f Figure) string {
	prec := 0
	switch f.Unit {
	case UnitMBPerSec:
		prec = 1
	case UnitSeconds:
		prec = 6
	case UnitRatio:
		prec = 2
	case UnitBytes:
		prec = 1
	}
	return strconv.FormatFloat(f.Value, 'f', prec, 64)
}

// WriteMetrics writes one line per figure:
// metric=NAME value=VALUE unit=UNIT.
func WriteMetrics(w io.Writer, figs []Figure) error {
	for _, f := range figs {
		if _, err := fmt.Fprintf(w, "metric=%s value=%s unit=%s\n", f.Name, FormatValue(f), f.Unit); err != nil {
			return err
		}
	}
	return nil
}

// WriteTable writes the figures as a table.
func WriteTable(w io.Writer, figs []Figure) error {
	t := tablewriter.NewTable(w)
	t.Header("workload", "metric", "value", "unit")
	for _, f := range figs {
		if err := t.Append(f.Workload, f.Name, FormatValue(f), f.Unit); err != nil {
			return err
		}
	}
	return t.Render()
}

// perSecond is n per elapsed second (elapsed at least 1ns).
func perSecond(n float64, d time.Duration) float64 {
	return n / max(d, time.Nanosecond).Seconds()
}

// batchOf is an unassigned batch of n keyless records with valueSize-byte
// values and timestamps from ts.
func batchOf(n, valueSize int, ts int64) *record.Batch {
	value := make([]byte, valueSize)
	for i := range value {
		value[i] = byte('a' + i%26)
	}
	rs := make([]record.Record, n)
	for i := range rs {
		rs[i] = record.Record{Value: value, TimestampMs: ts + int64(i)}
	}
	return record.NewBatch(rs)
}

// fill opens a log in dir and appends records in batches of batch.
func fill(dir string, o Options, batch int) (*storage.Log, error) {
	l, _, err := storage.Open(dir, storage.Options{SegmentBytes: o.SegmentBytes}, 0)
	if err != nil {
		return nil, err
	}
	full := batchOf(batch, o.ValueSize, 0)
	for n := 0; n < o.Records; n += batch {
		b := full
		if o.Records-n < batch {
			b = batchOf(o.Records-n, o.ValueSize, 0)
		}
		if _, _, err := l.Append(b); err != nil {
			l.Crash(true)
			return nil, err
		}
	}
	return l, nil
}
