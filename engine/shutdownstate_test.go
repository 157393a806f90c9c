package engine_test

import (
	"fmt"
	"io/fs"
	"reflect"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/producer"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/storage"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// readCounter wraps a file system and counts the bytes read from each
// segment log file.
type readCounter struct {
	vfs.FS
	bytes map[string]int64
}

func (r readCounter) OpenFile(name string, flag int, perm fs.FileMode) (vfs.File, error) {
	f, err := r.FS.OpenFile(name, flag, perm)
	if err != nil || !counted(name) {
		return f, err
	}
	return countedReads{f, r.bytes}, nil
}

func (r readCounter) ReadFile(name string) ([]byte, error) {
	b, err := r.FS.ReadFile(name)
	if counted(name) {
		r.bytes[name] += int64(len(b))
	}
	return b, err
}

// counted says readCounter counts the reads of the file: segment and
// index files.
func counted(name string) bool {
	return strings.HasSuffix(name, storage.LogFileSuffix) || strings.HasSuffix(name, storage.IndexFileSuffix)
}

type countedReads struct {
	vfs.File
	bytes map[string]int64
}

func (f countedReads) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	f.bytes[f.Name()] += int64(n)
	return n, err
}

func (f countedReads) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(p, off)
	f.bytes[f.Name()] += int64(n)
	return n, err
}

// shutdownScenario fills a 3-broker cluster with what producer state and
// the transaction index are made of (an idempotent producer, committed,
// aborted and unfinished transactions, plain records) over many segments,
// closes it gracefully and returns its file system.
func shutdownScenario(t *testing.T, rules engine.Rules) (*vfs.Mem, engine.Config) {
	t.Helper()
	mem := vfs.NewMem()
	cfg := engine.DefaultConfig("data")
	cfg.FS = mem
	cfg.Rules = rules
	cfg.BrokerIDs = []int32{1, 2, 3}
	cfg.SegmentBytes = 512
	cfg.MinInsyncReplicas = 1
	c, _, err := engine.Open(cfg, clock.NewManual(0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateTopic("t", 2, 3); err != nil {
		t.Fatal(err)
	}
	opts := producer.DefaultOptions()
	opts.Name, opts.Idempotent, opts.BatchSize = "writer", true, 1
	p, err := c.NewProducer(opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		if _, err := p.Send("t", int32(i%2), record.Record{Value: []byte(strings.Repeat("v", 40))}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Produce("t", int32(i%2), record.Record{Value: []byte("plain")}, engine.Acks1); err != nil {
			t.Fatal(err)
		}
	}
	p.Flush()
	for i, end := range []string{"commit", "abort", "open"} {
		id := "tx-" + end
		if err := c.BeginTransaction(id); err != nil {
			t.Fatal(err)
		}
		for j := 0; j < 3; j++ {
			if _, err := c.TransactionSend(id, "t", int32((i+j)%2), record.Record{Value: []byte(end)}); err != nil {
				t.Fatal(err)
			}
		}
		switch end {
		case "commit":
			_, err = c.CommitTransaction(id)
		case "abort":
			_, err = c.AbortTransaction(id)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Replicate(nil, engine.AllFollowers); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	return mem, cfg
}

// view is what a cluster shows of the state the shutdown state carries.
type view struct {
	States    []engine.PartitionState
	Txns      []engine.TransactionDescription
	Committed [][]string
}

func viewOf(t *testing.T, c *engine.Cluster) view {
	t.Helper()
	var v view
	var err error
	if v.States, err = c.PartitionStates(); err != nil {
		t.Fatal(err)
	}
	if v.Txns, err = c.ListTransactions(); err != nil {
		t.Fatal(err)
	}
	for p := int32(0); p < 2; p++ {
		recs, err := c.Fetch(engine.TopicPartition{Topic: "t", Partition: p}, 0, 1000, engine.ReadCommitted)
		if err != nil {
			t.Fatal(err)
		}
		var vals []string
		for _, r := range recs {
			vals = append(vals, string(r.Value))
		}
		v.Committed = append(v.Committed, vals)
	}
	return v
}

// A clean open takes the producer state and the transaction index from the
// markers and reads no closed segment (only the active ones, which storage
// recovery scans) and no active segment's index file; without the markers (a crash) open
// replays the logs and ends in exactly the same state, and both clusters
// go on the same way.
func TestCleanOpenReadsOnlyActiveSegments(t *testing.T) {
	for _, rules := range []engine.Rules{engine.MiniKafkaRules(), engine.KafkaRules()} {
		t.Run(fmt.Sprintf("window=%d", rules.IdempotenceWindow), func(t *testing.T) {
			cleanOpenReadsOnlyActiveSegments(t, rules)
		})
	}
}

func cleanOpenReadsOnlyActiveSegments(t *testing.T, rules engine.Rules) {
	mem, cfg := shutdownScenario(t, rules)
	scanned := mem.Clone()
	closedSegments := map[string]bool{}
	activeIndexes := map[string]bool{}
	crashCfg := cfg
	crashCfg.FS = scanned
	forceReplay(t, scanned, cfg)
	for _, b := range cfg.BrokerIDs {
		for p := 0; p < 2; p++ {
			dir := "data/broker-" + string(rune('0'+b)) + "/t-" + string(rune('0'+p))
			es, err := mem.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var logs []string
			for _, e := range es {
				if strings.HasSuffix(e.Name(), storage.LogFileSuffix) {
					logs = append(logs, dir+"/"+e.Name())
				}
			}
			for _, name := range logs[:len(logs)-1] {
				closedSegments[name] = true
			}
			activeIndexes[strings.TrimSuffix(logs[len(logs)-1], storage.LogFileSuffix)+storage.IndexFileSuffix] = true
		}
	}
	if len(closedSegments) < 12 {
		t.Fatalf("only %d closed segments: the scenario should roll more", len(closedSegments))
	}
	read := map[string]int64{}
	cleanCfg := cfg
	cleanCfg.FS = readCounter{FS: mem, bytes: read}
	clean, rep, err := engine.Open(cleanCfg, clock.NewManual(0))
	if err != nil {
		t.Fatal(err)
	}
	defer clean.Close()
	for _, r := range rep.Replicas {
		if !r.Report.CleanShutdown {
			t.Fatalf("%s broker %d: %s", r.TP, r.Broker, r.Report)
		}
	}
	for name, n := range read {
		if closedSegments[name] {
			t.Errorf("clean open read %d bytes of the closed segment %s", n, name)
		}
		if activeIndexes[name] {
			t.Errorf("clean open read %d bytes of the active index file %s (the scan and the marker's CRC give it)", n, name)
		}
	}
	if len(read) == 0 {
		t.Fatal("clean open read no active segment: the counter counts nothing")
	}
	crashed, _, err := engine.Open(crashCfg, clock.NewManual(0))
	if err != nil {
		t.Fatal(err)
	}
	defer crashed.Close()
	if a, b := viewOf(t, clean), viewOf(t, crashed); !reflect.DeepEqual(a, b) {
		t.Fatalf("after a clean open:\n%+v\nafter a replay:\n%+v", a, b)
	}
	// The same duplicate and the same next batch get the same answers.
	states, _ := clean.PartitionStates()
	last := states[0].Producers[0]
	for _, c := range []*engine.Cluster{clean, crashed} {
		dup := record.NewBatch([]record.Record{{Value: []byte("again")}})
		dup.ProducerID, dup.ProducerEpoch, dup.BaseSequence = last.PID, last.Epoch, last.BaseSequence
		ack, err := c.AppendBatch(engine.TopicPartition{Topic: "t"}, dup, engine.Acks1)
		if err != nil {
			t.Fatal(err)
		}
		if ack.Value().BaseOffset != last.BaseOffset {
			t.Fatalf("duplicate stored at %d, want the remembered %d", ack.Value().BaseOffset, last.BaseOffset)
		}
	}
	if a, b := viewOf(t, clean), viewOf(t, crashed); !reflect.DeepEqual(a, b) {
		t.Fatalf("after a duplicate, clean:\n%+v\nreplayed:\n%+v", a, b)
	}
}

// A damaged marker (its state included) is not trusted: open replays the
// logs and ends where a replay ends, whatever byte was hit.
func TestDamagedShutdownStateIsIgnored(t *testing.T) {
	mem, cfg := shutdownScenario(t, engine.MiniKafkaRules())
	replayed := mem.Clone()
	forceReplay(t, replayed, cfg)
	marker := "data/broker-1/" + storage.DirMarkerFileName
	rcfg := cfg
	rcfg.FS = replayed
	c, _, err := engine.Open(rcfg, clock.NewManual(0))
	if err != nil {
		t.Fatal(err)
	}
	want := viewOf(t, c)
	c.Close()
	data, err := mem.ReadFile(marker)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{0, 20, len(data) / 2, len(data) - 30, len(data) - 5, -1} {
		damaged := mem.Clone()
		b := append([]byte(nil), data...)
		if at < 0 {
			b = b[:len(b)-7] // cut short
		} else {
			b[at] ^= 0x40
		}
		if err := vfs.WriteFile(damaged, marker, b, 0o644); err != nil {
			t.Fatal(err)
		}
		dcfg := cfg
		dcfg.FS = damaged
		c, rep, err := engine.Open(dcfg, clock.NewManual(0))
		if err != nil {
			t.Fatal(err)
		}
		if r := rep.Replicas[0]; r.Report.CleanShutdown || r.Report.MarkerIgnored == "" {
			t.Fatalf("damage at %d: %s", at, r.Report)
		}
		if got := viewOf(t, c); !reflect.DeepEqual(got, want) {
			t.Fatalf("damage at %d:\n%+v\nwant\n%+v", at, got, want)
		}
		c.Close()
	}
}

// A state written under another dedupe window is not used: the open with
// the new window replays the log, as it would have without the state.
func TestShutdownStateOfAnotherWindowIsReplayed(t *testing.T) {
	mem, cfg := shutdownScenario(t, engine.KafkaRules())
	replayed := mem.Clone()
	forceReplay(t, replayed, cfg)
	cfg.Rules = engine.MiniKafkaRules()
	c, _, err := engine.Open(cfg, clock.NewManual(0))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rcfg := cfg
	rcfg.FS = replayed
	r, _, err := engine.Open(rcfg, clock.NewManual(0))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if a, b := viewOf(t, c), viewOf(t, r); !reflect.DeepEqual(a, b) {
		t.Fatalf("with a state of window 5 under window 1:\n%+v\nreplayed:\n%+v", a, b)
	}
}

// forceReplay removes the clean-shutdown file of every broker directory
// (storage.ShutdownAll writes one per directory), so that the next open
// of the cluster in fsys replays every log.
func forceReplay(t *testing.T, fsys vfs.FS, cfg engine.Config) {
	t.Helper()
	for _, b := range cfg.BrokerIDs {
		if err := fsys.Remove(fmt.Sprintf("data/broker-%d/%s", b, storage.DirMarkerFileName)); err != nil {
			t.Fatal(err)
		}
	}
}
