package bench

import (
	"fmt"
	"path/filepath"
	"runtime"
	"time"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/producer"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/storage"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// producerWorkload measures the producer client: Send of every record,
// the accumulator, a flush at batch.size (B records), the append through
// the cluster and the futures settled, against appending the same batches
// to a bare log. Both skip fsync (vfs.NoSync), so the ratio is one of CPU.
// Where the process's CPU time can be read (getrusage), it also reports
// the CPU per record of the client's least costly round and the ratio of
// the two sides' least costly rounds by CPU.
var producerWorkload = Workload{
	Name:    "producer",
	Summary: "the producer client (send, batch, flush, settle) vs bare log appends of the same batches",
	Run:     runProducer,
}

// groupJoinWorkload joins 1,000 members (fewer with --records below
// 1,000), one after the other, to one group of a cluster on disk.
var groupJoinWorkload = Workload{
	Name:    "group-join",
	Summary: "1,000 members joining one consumer group, one join at a time",
	Run:     runGroupJoin,
}

// readCommittedWorkload fetches 100 records from the middle of a partition
// holding 10,000 committed one-record transactions (--records, when
// fewer), read_committed and read_uncommitted. The transactions are
// written without fsync (vfs.NoSync): only the fetches are timed.
var readCommittedWorkload = Workload{
	Name:    "read-committed",
	Summary: "a 100-record read_committed fetch after 10,000 transactions vs a plain fetch",
	Run:     runReadCommitted,
}

// benchCluster opens a cluster with cfg on a manual clock and creates the
// topic "bench" with partitions partitions and rf replicas.
func benchCluster(cfg engine.Config, partitions, rf int) (*engine.Cluster, error) {
	c, _, err := engine.Open(cfg, clock.NewManual(0))
	if err != nil {
		return nil, err
	}
	if _, err := c.CreateTopic("bench", partitions, rf); err != nil {
		c.Crash()
		return nil, err
	}
	return c, nil
}

// allocated is the bytes the program allocated so far.
func allocated() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

func runProducer(dir string, o Options) ([]Figure, error) {
	b := o.batchOr(DefaultBatch)
	n := (o.Records + b - 1) / b * b
	full := batchOf(b, o.ValueSize, 0)
	var perRecord float64
	// clientCPU and bareCPU are the least CPU a round of each side took.
	var clientCPU, bareCPU time.Duration
	round := 0
	client, err := best(o, func() (time.Duration, error) {
		round++
		cfg := engine.DefaultConfig(filepath.Join(dir, fmt.Sprintf("client-%d", round)))
		cfg.FS = vfs.NoSync(vfs.OS)
		cfg.SegmentBytes = o.SegmentBytes
		c, err := benchCluster(cfg, 1, 1)
		if err != nil {
			return 0, err
		}
		defer c.Crash()
		opts := producer.DefaultOptions()
		opts.BatchSize = int64(b) * producer.EstimateSize(full.Records[0])
		opts.MaxBufferBytes = 4 * opts.BatchSize
		p, err := c.NewProducer(opts)
		if err != nil {
			return 0, err
		}
		before := allocated()
		cpu := cpuSince()
		start := time.Now()
		for i := 0; i < n; i++ {
			if _, err := p.Send("bench", 0, full.Records[i%b]); err != nil {
				return 0, err
			}
			if i%b == b-1 {
				c.TakeEvents()
			}
		}
		d := time.Since(start)
		clientCPU = least(clientCPU, cpu())
		perRecord = float64(allocated()-before) / float64(n)
		return d, nil
	})
	if err != nil {
		return nil, err
	}
	round = 0
	bare, err := best(o, func() (time.Duration, error) {
		round++
		l, _, err := storage.Open(filepath.Join(dir, fmt.Sprintf("log-%d", round)), storage.Options{SegmentBytes: o.SegmentBytes, FS: vfs.NoSync(vfs.OS)}, 0)
		if err != nil {
			return 0, err
		}
		defer l.Crash(true)
		cpu := cpuSince()
		start := time.Now()
		for i := 0; i < n; i += b {
			if _, _, err := l.Append(full); err != nil {
				return 0, err
			}
		}
		d := time.Since(start)
		bareCPU = least(bareCPU, cpu())
		return d, nil
	})
	if err != nil {
		return nil, err
	}
	figs := []Figure{
		{Name: fmt.Sprintf("go.producer.b%d.records_per_s", b), Value: perSecond(float64(n), client), Unit: UnitRecordsPerSec},
		{Name: fmt.Sprintf("go.producer.client_over_log.b%d.time_ratio", b), Value: client.Seconds() / max(bare, time.Nanosecond).Seconds(), Unit: UnitRatio},
		{Name: fmt.Sprintf("go.producer.b%d.alloc_bytes_per_record", b), Value: perRecord, Unit: UnitBytes},
	}
	if _, ok := ProcessCPU(); ok {
		figs = append(figs,
			Figure{Name: fmt.Sprintf("go.producer.b%d.cpu_ns_per_record", b), Value: float64(clientCPU.Nanoseconds()) / float64(n), Unit: UnitNanoseconds},
			Figure{Name: fmt.Sprintf("go.producer.client_over_log.b%d.cpu_ratio", b), Value: clientCPU.Seconds() / max(bareCPU, time.Nanosecond).Seconds(), Unit: UnitRatio})
	}
	return figs, nil
}

// cpuSince starts counting the process's CPU time: the function it returns
// gives the CPU time used since (0 where it cannot be read).
func cpuSince() func() time.Duration {
	start, _ := ProcessCPU()
	return func() time.Duration {
		now, _ := ProcessCPU()
		return now - start
	}
}

// least is the smaller of the least so far (0 for none yet) and d.
func least(sofar, d time.Duration) time.Duration {
	if sofar == 0 {
		return d
	}
	return min(sofar, d)
}

func runGroupJoin(dir string, o Options) ([]Figure, error) {
	members := min(1000, o.Records)
	round := 0
	elapsed, err := best(o, func() (time.Duration, error) {
		round++
		c, err := benchCluster(engine.DefaultConfig(filepath.Join(dir, fmt.Sprint(round))), 4, 1)
		if err != nil {
			return 0, err
		}
		defer c.Crash()
		start := time.Now()
		for i := range members {
			if _, err := c.JoinGroup("g", fmt.Sprintf("member-%04d", i), []string{"bench"}); err != nil {
				return 0, err
			}
		}
		return time.Since(start), nil
	})
	if err != nil {
		return nil, err
	}
	return []Figure{
		{Name: fmt.Sprintf("go.group_join.m%d.seconds", members), Value: elapsed.Seconds(), Unit: UnitSeconds},
		{Name: fmt.Sprintf("go.group_join.m%d.joins_per_s", members), Value: perSecond(float64(members), elapsed), Unit: UnitJoinsPerSec},
	}, nil
}

func runReadCommitted(dir string, o Options) ([]Figure, error) {
	const fetch, repeat = 100, 200
	txns := min(10000, max(o.Records, 2*fetch))
	cfg := engine.DefaultConfig(dir)
	cfg.FS = vfs.NoSync(vfs.OS)
	c, err := benchCluster(cfg, 1, 1)
	if err != nil {
		return nil, err
	}
	defer c.Crash()
	r := record.Record{Value: make([]byte, o.ValueSize), TimestampMs: 1}
	for range txns {
		if err := c.BeginTransaction("tx"); err != nil {
			return nil, err
		}
		if _, err := c.TransactionSend("tx", "bench", 0, r); err != nil {
			return nil, err
		}
		if _, err := c.CommitTransaction("tx"); err != nil {
			return nil, err
		}
		c.TakeEvents()
	}
	tp := engine.TopicPartition{Topic: "bench"}
	timed := func(iso engine.Isolation) (time.Duration, error) {
		return best(o, func() (time.Duration, error) {
			start := time.Now()
			for range repeat {
				// Each transaction is a record and a marker: the middle
				// of the partition is offset txns.
				if _, err := c.Fetch(tp, int64(txns), fetch, iso); err != nil {
					return 0, err
				}
			}
			return time.Since(start) / repeat, nil
		})
	}
	committed, err := timed(engine.ReadCommitted)
	if err != nil {
		return nil, err
	}
	plain, err := timed(engine.ReadUncommitted)
	if err != nil {
		return nil, err
	}
	return []Figure{
		{Name: fmt.Sprintf("go.read_committed.t%d.fetch100_s", txns), Value: committed.Seconds(), Unit: UnitSeconds},
		{Name: fmt.Sprintf("go.read_uncommitted.t%d.fetch100_s", txns), Value: plain.Seconds(), Unit: UnitSeconds},
		{Name: fmt.Sprintf("go.read_committed_over_plain.t%d.fetch100.time_ratio", txns), Value: committed.Seconds() / max(plain, time.Nanosecond).Seconds(), Unit: UnitRatio},
	}, nil
}
