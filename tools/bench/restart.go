package bench

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/record"
)

// restartWorkload measures the cluster's lifecycle at a size: creating
// --partitions partitions with three replicas each, a graceful close after
// every replica log changed, and the open that follows it. close_s,
// open_s and restart_s are the best of the rounds; first_close_s and
// first_open_s are round 1's (the first close after filling, which writes
// every log's index file and makes the whole fill durable, and the open
// after it), so that a run of two rounds shows both that close and the
// steady state.
var restartWorkload = Workload{
	Name:    "restart",
	Summary: "create N partitions (rf=3), produce to all, close, open (--partitions N)",
	Run:     runRestart,
}

// DefaultPartitions is the restart workload's partition count.
const DefaultPartitions = 1000

// restartBrokers are the brokers of the restart workload's cluster.
var restartBrokers = []int32{1, 2, 3}

func runRestart(dir string, o Options) ([]Figure, error) {
	n := o.Partitions
	perPartition := max(1, o.Records/n)
	b := min(o.batchOr(DefaultBatch), perPartition)
	cfg := engine.DefaultConfig(filepath.Join(dir, "data"))
	cfg.BrokerIDs = restartBrokers
	cfg.SegmentBytes = o.SegmentBytes
	clk := clock.NewManual(0)
	c, _, err := engine.Open(cfg, clk)
	if err != nil {
		return nil, err
	}
	defer func() { c.Crash() }()
	start := time.Now()
	tps, err := createPartitions(c, n)
	if err != nil {
		return nil, err
	}
	create := time.Since(start)
	// Fill every partition, then one more batch per round, so that each
	// close has every replica log to flush.
	if err := produceToAll(c, tps, batchOf(b, o.ValueSize, 0), perPartition); err != nil {
		return nil, err
	}
	var closeBest, openBest, restartBest, firstClose, firstOpen time.Duration
	for round := 0; round < o.Rounds; round++ {
		if round > 0 {
			if err := produceToAll(c, tps, batchOf(1, o.ValueSize, 0), 1); err != nil {
				return nil, err
			}
		}
		c.TakeEvents()
		start := time.Now()
		if err := c.Close(); err != nil {
			return nil, err
		}
		closed := time.Since(start)
		start = time.Now()
		c, _, err = engine.Open(cfg, clk)
		if err != nil {
			return nil, err
		}
		opened := time.Since(start)
		c.TakeEvents()
		if round == 0 {
			firstClose, firstOpen = closed, opened
		}
		if round == 0 || closed < closeBest {
			closeBest = closed
		}
		if round == 0 || opened < openBest {
			openBest = opened
		}
		if round == 0 || closed+opened < restartBest {
			restartBest = closed + opened
		}
	}
	name := func(what string) string { return fmt.Sprintf("go.restart.p%d.%s_s", n, what) }
	return []Figure{
		{Name: name("create"), Value: create.Seconds(), Unit: UnitSeconds},
		{Name: name("close"), Value: closeBest.Seconds(), Unit: UnitSeconds},
		{Name: name("open"), Value: openBest.Seconds(), Unit: UnitSeconds},
		{Name: name("restart"), Value: restartBest.Seconds(), Unit: UnitSeconds},
		{Name: name("first_close"), Value: firstClose.Seconds(), Unit: UnitSeconds},
		{Name: name("first_open"), Value: firstOpen.Seconds(), Unit: UnitSeconds},
	}, nil
}

// createPartitions creates n partitions with three replicas each, in topics
// of at most engine.MaxPartitions partitions, and lists them.
func createPartitions(c *engine.Cluster, n int) ([]engine.TopicPartition, error) {
	var tps []engine.TopicPartition
	for t := 0; len(tps) < n; t++ {
		name := fmt.Sprintf("bench-%d", t)
		md, err := c.CreateTopic(name, min(n-len(tps), engine.MaxPartitions), len(restartBrokers))
		if err != nil {
			return nil, err
		}
		for _, p := range md.Partitions {
			tps = append(tps, p.TP())
		}
	}
	return tps, nil
}

// produceToAll appends records records to every partition in batches like
// full (acks=1), then lets every follower catch up.
func produceToAll(c *engine.Cluster, tps []engine.TopicPartition, full *record.Batch, records int) error {
	for _, tp := range tps {
		for m := 0; m < records; m += len(full.Records) {
			if _, err := c.AppendBatch(tp, full, engine.Acks1); err != nil {
				return err
			}
		}
		c.TakeEvents()
	}
	for {
		rep, err := c.Replicate(nil, engine.AllFollowers)
		if err != nil {
			return err
		}
		c.TakeEvents()
		if _, n := rep.Copied(); n == 0 {
			return nil
		}
	}
}
