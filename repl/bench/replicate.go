package bench

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
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
// times one follower fetching until its LEO reaches the leader's.
func followerCatchUp(dir string, o Options, b int) ([]Figure, error) {
	cfg := engine.DefaultConfig(dir)
	cfg.BrokerIDs = []int32{1, 2, 3}
	cfg.SegmentBytes = o.SegmentBytes
	c, _, err := engine.Open(cfg, clock.NewManual(0))
	if err != nil {
		return nil, err
	}
	defer c.Crash()
	if _, err := c.CreateTopic("bench", 1, 3); err != nil {
		return nil, err
	}
	tp := engine.TopicPartition{Topic: "bench", Partition: 0}
	full := batchOf(b, o.ValueSize, 0)
	for n := 0; n < o.Records; n += b {
		if _, err := c.AppendBatch(tp, full, engine.Acks1); err != nil {
			return nil, err
		}
		c.TakeEvents()
	}
	leader, err := c.LeaderLog(tp)
	if err != nil {
		return nil, err
	}
	follower, err := c.ReplicaLog(tp, 2)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	var copied int64
	for follower.LEO() < leader.LEO() {
		rep, err := c.Replicate(&tp, 2)
		if err != nil {
			return nil, err
		}
		_, n := rep.Copied()
		copied += n
		c.TakeEvents()
	}
	elapsed := time.Since(start)
	if copied != leader.SizeBytes() {
		return nil, fmt.Errorf("follower copied %d bytes of %d", copied, leader.SizeBytes())
	}
	return []Figure{
		{Name: fmt.Sprintf("go.replicate.b%d.follower_MBps", b), Value: perSecond(float64(copied), elapsed) / 1e6, Unit: UnitMBPerSec},
	}, nil
}

// clusterVersusLog appends the same batches through the cluster (one
// replica, acks=1) and to a bare log, and reports both rates and their ratio.
func clusterVersusLog(dir string, o Options, b int) ([]Figure, error) {
	full := batchOf(b, o.ValueSize, 0)
	cfg := engine.DefaultConfig(filepath.Join(dir, "cluster"))
	cfg.SegmentBytes = o.SegmentBytes
	c, _, err := engine.Open(cfg, clock.NewManual(0))
	if err != nil {
		return nil, err
	}
	defer c.Crash()
	if _, err := c.CreateTopic("bench", 1, 1); err != nil {
		return nil, err
	}
	tp := engine.TopicPartition{Topic: "bench", Partition: 0}
	start := time.Now()
	n := 0
	for ; n < o.Records; n += b {
		if _, err := c.AppendBatch(tp, full, engine.Acks1); err != nil {
			return nil, err
		}
		c.TakeEvents()
	}
	viaCluster := time.Since(start)

	l, _, err := storage.Open(filepath.Join(dir, "log"), storage.Options{SegmentBytes: o.SegmentBytes}, 0)
	if err != nil {
		return nil, err
	}
	defer l.Crash(true)
	start = time.Now()
	for m := 0; m < o.Records; m += b {
		if _, _, err := l.Append(full); err != nil {
			return nil, err
		}
	}
	bare := time.Since(start)
	return []Figure{
		{Name: fmt.Sprintf("go.produce.cluster.b%d.records_per_s", b), Value: perSecond(float64(n), viaCluster), Unit: UnitRecordsPerSec},
		{Name: fmt.Sprintf("go.produce.log.b%d.records_per_s", b), Value: perSecond(float64(n), bare), Unit: UnitRecordsPerSec},
		{Name: fmt.Sprintf("go.produce.cluster_over_log.b%d.time_ratio", b), Value: float64(viaCluster) / float64(max(bare, time.Nanosecond)), Unit: UnitRatio},
	}, nil
}
