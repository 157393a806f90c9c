package bench

import (
	"fmt"
	"path/filepath"
	"sort"
	"time"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/storage"
)

// replicateWorkload measures the replication path of the cluster: a follower
// of a 3-replica partition catching up on the leader (stored batch bytes
// copied unchanged), and producing through the cluster (replica set,
// producer state, HW, acknowledgement) against appending to a bare log.
var replicateWorkload = Workload{
	Name:    "replicate",
	Summary: "a follower catching up on a 3-replica partition; cluster produce vs bare log append",
	Run:     runReplicate,
}

func runReplicate(dir string, o Options) ([]Figure, error) {
	b := o.batchOr(DefaultBatch)
	figs, err := followerCatchUp(filepath.Join(dir, "catch-up"), o, b)
	if err != nil {
		return nil, err
	}
	more, err := clusterVersusLog(filepath.Join(dir, "produce"), o, b)
	return append(figs, more...), err
}

// followerCatchUp fills the leader of a 3-replica partition with acks=1 and
// times one follower fetching until its LEO reaches the leader's (the best
// of o.Rounds, each on a fresh cluster).
func followerCatchUp(dir string, o Options, b int) ([]Figure, error) {
	full := batchOf(b, o.ValueSize, 0)
	var copied int64
	round := 0
	elapsed, err := best(o, func() (time.Duration, error) {
		round++
		cfg := engine.DefaultConfig(filepath.Join(dir, fmt.Sprint(round)))
		cfg.BrokerIDs = []int32{1, 2, 3}
		cfg.SegmentBytes = o.SegmentBytes
		c, err := benchCluster(cfg, 1, 3)
		if err != nil {
			return 0, err
		}
		defer c.Crash()
		tp := engine.TopicPartition{Topic: "bench", Partition: 0}
		for n := 0; n < o.Records; n += b {
			if _, err := c.AppendBatch(tp, full, engine.Acks1); err != nil {
				return 0, err
			}
			c.TakeEvents()
		}
		leader, err := c.DescribeLog(tp, 1)
		if err != nil {
			return 0, err
		}
		follower, err := c.DescribeLog(tp, 2)
		if err != nil {
			return 0, err
		}
		copied = 0
		start := time.Now()
		for leo := follower.LEO; leo < leader.LEO; {
			rep, err := c.Replicate(&tp, 2)
			if err != nil {
				return 0, err
			}
			_, n := rep.Copied()
			if n == 0 {
				return 0, fmt.Errorf("follower stopped at offset %d of %d", leo, leader.LEO)
			}
			copied += n
			for _, f := range rep.Partitions[0].Followers {
				if f.Broker == 2 {
					leo = f.ToLEO
				}
			}
			c.TakeEvents()
		}
		d := time.Since(start)
		if copied != leader.SizeBytes {
			return 0, fmt.Errorf("follower copied %d bytes of %d", copied, leader.SizeBytes)
		}
		return d, nil
	})
	if err != nil {
		return nil, err
	}
	return []Figure{
		{Name: fmt.Sprintf("go.replicate.b%d.follower_MBps", b), Value: perSecond(float64(copied), elapsed) / 1e6, Unit: UnitMBPerSec},
	}, nil
}

// clusterVersusLog appends the same batches through the cluster (one
// replica, acks=1) and to a bare log, on fresh directories, o.Rounds times
// in alternation so that both see the same machine. The rates are the best
// rounds; the ratio is the median of the rounds' ratios.
func clusterVersusLog(dir string, o Options, b int) ([]Figure, error) {
	full := batchOf(b, o.ValueSize, 0)
	n := (o.Records + b - 1) / b * b
	var viaCluster, bare time.Duration
	var ratios []float64
	for round := 1; round <= o.Rounds; round++ {
		dc, err := produceThroughCluster(filepath.Join(dir, fmt.Sprint("cluster-", round)), o, full, n)
		if err != nil {
			return nil, err
		}
		dl, err := produceToLog(filepath.Join(dir, fmt.Sprint("log-", round)), o, full, n)
		if err != nil {
			return nil, err
		}
		if round == 1 || dc < viaCluster {
			viaCluster = dc
		}
		if round == 1 || dl < bare {
			bare = dl
		}
		ratios = append(ratios, float64(dc)/float64(max(dl, time.Nanosecond)))
	}
	sort.Float64s(ratios)
	return []Figure{
		{Name: fmt.Sprintf("go.produce.cluster.b%d.records_per_s", b), Value: perSecond(float64(n), viaCluster), Unit: UnitRecordsPerSec},
		{Name: fmt.Sprintf("go.produce.log.b%d.records_per_s", b), Value: perSecond(float64(n), bare), Unit: UnitRecordsPerSec},
		{Name: fmt.Sprintf("go.produce.cluster_over_log.b%d.time_ratio", b), Value: ratios[len(ratios)/2], Unit: UnitRatio},
	}, nil
}

func produceThroughCluster(dir string, o Options, batch *record.Batch, n int) (time.Duration, error) {
	cfg := engine.DefaultConfig(dir)
	cfg.SegmentBytes = o.SegmentBytes
	c, _, err := engine.Open(cfg, clock.NewManual(0))
	if err != nil {
		return 0, err
	}
	defer c.Crash()
	if _, err := c.CreateTopic("bench", 1, 1); err != nil {
		return 0, err
	}
	tp := engine.TopicPartition{Topic: "bench", Partition: 0}
	start := time.Now()
	for m := 0; m < n; m += len(batch.Records) {
		if _, err := c.AppendBatch(tp, batch, engine.Acks1); err != nil {
			return 0, err
		}
		c.TakeEvents()
	}
	return time.Since(start), nil
}

func produceToLog(dir string, o Options, batch *record.Batch, n int) (time.Duration, error) {
	l, _, err := storage.Open(dir, storage.Options{SegmentBytes: o.SegmentBytes}, 0)
	if err != nil {
		return 0, err
	}
	defer l.Crash(true)
	start := time.Now()
	for m := 0; m < n; m += len(batch.Records) {
		if _, _, err := l.Append(batch); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}
