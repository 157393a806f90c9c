package engine_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/producer"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// runScript drives a scripted scenario — topics, producers with linger,
// acks 0/1/all, replication, clock advances, a broker crash, a promotion, a
// restart and a rejoin — and returns its transcript: every event and the
// describe output after each step.
func runScript(t *testing.T, fsys vfs.FS, dir string) string {
	t.Helper()
	var out strings.Builder
	cfg := engine.DefaultConfig(dir)
	cfg.FS = fsys
	cfg.BrokerIDs = []int32{1, 2, 3}
	cfg.ReplicaLagTimeMaxMs = 50
	cfg.SegmentBytes = 300
	c, _, err := engine.Open(cfg, clock.NewManual(0))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	step := func(name string, err error) {
		fmt.Fprintf(&out, "> %s: err=%v\n", name, err)
		for _, e := range c.TakeEvents() {
			fmt.Fprintf(&out, "  %s | %s\n", e.Kind(), e)
		}
		states, _ := c.PartitionStates()
		for _, st := range states {
			fmt.Fprintf(&out, "  %+v\n", st)
		}
		brokers, _ := c.Brokers()
		fmt.Fprintf(&out, "  %+v\n", brokers)
		for _, p := range c.Producers() {
			fmt.Fprintf(&out, "  %+v\n", p.Describe())
		}
	}
	_, err = c.CreateTopic("orders", 3, 3)
	step("create orders", err)
	_, err = c.CreateTopic("audit", 1, 2)
	step("create audit", err)
	opts := producer.DefaultOptions()
	opts.LingerMs, opts.Acks, opts.Idempotent = 20, engine.AcksAll, true
	p, err := c.NewProducer(opts)
	step("producer", err)
	for i := range 6 {
		_, err = p.Send("orders", producer.AnyPartition, record.Record{Key: []byte(fmt.Sprint("k", i%4)), Value: []byte(fmt.Sprint("v", i)), TimestampMs: producer.NoTimestamp})
		step("send", err)
	}
	step("advance 20", c.Advance(20))
	_, err = c.Replicate(nil, engine.AllFollowers)
	step("replicate", err)
	for _, acks := range []engine.AckMode{engine.Acks0, engine.Acks1, engine.AcksAll} {
		_, err = c.Produce("audit", engine.AnyPartition, record.Record{Value: []byte("a" + acks.String()), TimestampMs: engine.NoTimestamp}, acks)
		step("produce audit", err)
	}
	step("crash broker 2", c.CrashBroker(2, false))
	step("advance 60", c.Advance(60))
	_, err = c.Replicate(nil, engine.AllFollowers)
	step("replicate", err)
	step("promote audit-0 1", c.Promote(tp("audit", 0), 1))
	_, err = c.RestartBroker(2)
	step("restart broker 2", err)
	step("rejoin orders-1 2", c.Rejoin(tp("orders", 1), 2))
	_, err = c.Replicate(nil, engine.AllFollowers)
	step("replicate", err)
	recs, err := c.Fetch(tp("orders", 0), 0, 100, engine.ReadCommitted)
	fmt.Fprintf(&out, "fetch orders-0: %d records, %v\n", len(recs), err)
	step("close", c.Close())
	return out.String()
}

// files returns every file under dir with its contents, by relative path.
func files(t *testing.T, fsys vfs.FS, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	var walk func(dir, rel string)
	walk = func(dir, rel string) {
		es, err := fsys.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			p := filepath.Join(dir, e.Name())
			if e.IsDir() {
				walk(p, filepath.Join(rel, e.Name()))
				continue
			}
			data, err := fsys.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out[filepath.Join(rel, e.Name())] = string(data)
		}
	}
	walk(dir, "")
	return out
}

// The same script run three times, on the disk and twice on a fresh
// vfs.Mem, gives the same transcript (events and describe output) and the
// same data directory contents, byte for byte: the engine is deterministic,
// and an in-memory cluster is the same cluster as one on disk.
func TestScriptedScenarioIsDeterministic(t *testing.T) {
	t.Parallel()
	disk, mem1, mem2 := t.TempDir(), vfs.NewMem(), vfs.NewMem()
	first := runScript(t, vfs.OS, disk)
	for i, mem := range []*vfs.Mem{mem1, mem2} {
		if got := runScript(t, mem, "data"); got != first {
			t.Fatalf("transcripts differ (in memory, run %d):\n%s\n---\n%s", i+1, got, first)
		}
	}
	for _, want := range []string{"isr_shrank", "leader_changed", "batch_flushed", "ack_resolved", "broker_crashed", "broker_restarted"} {
		if !strings.Contains(first, want) {
			t.Errorf("the script never produced %s", want)
		}
	}
	fa := files(t, vfs.OS, disk)
	for _, mem := range []*vfs.Mem{mem1, mem2} {
		fb := files(t, mem, "data")
		if len(fa) != len(fb) || len(fa) < 10 {
			t.Fatalf("%d files vs %d", len(fa), len(fb))
		}
		for name, data := range fa {
			if fb[name] != data {
				t.Errorf("%s differs", name)
			}
		}
	}
}
