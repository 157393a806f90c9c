package engine_test

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/producer"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// fixture is a cluster on a manual clock, in memory (a vfs.Mem) unless the
// test asks for the disk.
type fixture struct {
	t   *testing.T
	c   *engine.Cluster
	clk *clock.Manual
	cfg engine.Config
}

// open starts a cluster with the given brokers on a fresh vfs.Mem (data
// directory "data"); tweak adjusts the config. The engine's files behave on
// a Mem as on the disk (engine/vfs's TestMemMatchesOS); tests of the real
// disk use openOnDisk.
func open(t *testing.T, brokers []int32, tweak func(*engine.Config)) *fixture {
	t.Helper()
	cfg := engine.DefaultConfig("data")
	cfg.FS = vfs.NewMem()
	return openWith(t, cfg, brokers, tweak)
}

// openOnDisk is open in a temporary directory of the real file system.
func openOnDisk(t *testing.T, brokers []int32, tweak func(*engine.Config)) *fixture {
	t.Helper()
	return openWith(t, engine.DefaultConfig(t.TempDir()), brokers, tweak)
}

func openWith(t *testing.T, cfg engine.Config, brokers []int32, tweak func(*engine.Config)) *fixture {
	t.Helper()
	cfg.BrokerIDs = brokers
	if tweak != nil {
		tweak(&cfg)
	}
	f := &fixture{t: t, clk: clock.NewManual(0), cfg: cfg}
	f.reopen()
	t.Cleanup(func() { f.c.Close() })
	return f
}

// fs is the file system the fixture's cluster lives in.
func (f *fixture) fs() vfs.FS {
	if f.cfg.FS == nil {
		return vfs.OS
	}
	return f.cfg.FS
}

// path joins elems below the data directory.
func (f *fixture) path(elems ...string) string {
	return filepath.Join(append([]string{f.cfg.DataDir}, elems...)...)
}

// removeFile deletes a file of the cluster's file system.
func (f *fixture) removeFile(path string) {
	f.t.Helper()
	if err := f.fs().Remove(path); err != nil {
		f.t.Fatal(err)
	}
}

// tree lists every path under the data directory, relative, sorted.
func (f *fixture) tree() []string {
	f.t.Helper()
	var out []string
	var walk func(dir, rel string)
	walk = func(dir, rel string) {
		es, err := f.fs().ReadDir(dir)
		if err != nil {
			f.t.Fatal(err)
		}
		for _, e := range es {
			if rel == "" && e.Name() == vfs.LockFileName {
				continue // the open cluster's lock, not data
			}
			out = append(out, filepath.Join(rel, e.Name()))
			if e.IsDir() {
				walk(filepath.Join(dir, e.Name()), filepath.Join(rel, e.Name()))
			}
		}
	}
	walk(f.cfg.DataDir, "")
	return out
}

// reopen opens the cluster again on the same directory and clock.
func (f *fixture) reopen() engine.OpenReport {
	f.t.Helper()
	c, rep, err := engine.Open(f.cfg, f.clk)
	if err != nil {
		f.t.Fatalf("open: %v", err)
	}
	f.c = c
	return rep
}

// restart closes gracefully and reopens.
func (f *fixture) restart() {
	f.t.Helper()
	if err := f.c.Close(); err != nil {
		f.t.Fatalf("close: %v", err)
	}
	f.reopen()
}

// advance moves the manual clock through the cluster and runs what is due.
func (f *fixture) advance(ms int64) {
	f.t.Helper()
	if err := f.c.Advance(ms); err != nil {
		f.t.Fatalf("advance %d: %v", ms, err)
	}
}

func (f *fixture) topic(name string, partitions, rf int) {
	f.t.Helper()
	if _, err := f.c.CreateTopic(name, partitions, rf); err != nil {
		f.t.Fatalf("create %s: %v", name, err)
	}
}

func tp(topic string, p int32) engine.TopicPartition {
	return engine.TopicPartition{Topic: topic, Partition: p}
}

func rec(value string) record.Record {
	return record.Record{Value: []byte(value), TimestampMs: engine.NoTimestamp}
}

func keyed(key, value string) record.Record {
	return record.Record{Key: []byte(key), Value: []byte(value), TimestampMs: engine.NoTimestamp}
}

func batchOf(values ...string) *record.Batch {
	recs := make([]record.Record, len(values))
	for i, v := range values {
		recs[i] = record.Record{Value: []byte(v)}
	}
	return record.NewBatch(recs)
}

func seqBatch(pid int64, epoch, seq int32, values ...string) *record.Batch {
	b := batchOf(values...)
	b.ProducerID, b.ProducerEpoch, b.BaseSequence = pid, epoch, seq
	return b
}

// append appends a batch and fails the test on error.
func (f *fixture) append(p engine.TopicPartition, b *record.Batch, acks engine.AckMode) *engine.Ack {
	f.t.Helper()
	a, err := f.c.AppendBatch(p, b, acks)
	if err != nil {
		f.t.Fatalf("append to %s: %v", p, err)
	}
	return a
}

func (f *fixture) replicate(p *engine.TopicPartition) engine.ReplicationReport {
	f.t.Helper()
	rep, err := f.c.Replicate(p, engine.AllFollowers)
	if err != nil {
		f.t.Fatalf("replicate: %v", err)
	}
	return rep
}

func (f *fixture) state(p engine.TopicPartition) engine.PartitionState {
	f.t.Helper()
	st, err := f.c.PartitionState(p)
	if err != nil {
		f.t.Fatalf("state %s: %v", p, err)
	}
	return st
}

func (f *fixture) leo(p engine.TopicPartition, broker int32) int64 {
	f.t.Helper()
	for _, r := range f.state(p).Replicas {
		if r.Broker == broker {
			return r.LEO
		}
	}
	f.t.Fatalf("broker %d has no replica of %s", broker, p)
	return 0
}

func (f *fixture) hw(p engine.TopicPartition) int64 { return f.state(p).HW }

func (f *fixture) isr(p engine.TopicPartition) []int32 { return f.state(p).ISR }

func (f *fixture) values(p engine.TopicPartition, iso engine.Isolation) []string {
	f.t.Helper()
	recs, err := f.c.Fetch(p, 0, 1000, iso)
	if err != nil {
		f.t.Fatalf("fetch %s: %v", p, err)
	}
	return valuesOf(recs)
}

// replicaValues reads every record of one replica's log (all of it, not
// bounded by the HW).
func (f *fixture) replicaValues(p engine.TopicPartition, broker int32) []string {
	f.t.Helper()
	l, err := f.c.ReplicaLog(p, broker)
	if err != nil {
		f.t.Fatalf("replica log: %v", err)
	}
	recs, err := l.Fetch(l.LogStartOffset(), 1000, -1)
	if err != nil {
		f.t.Fatal(err)
	}
	out := []string{}
	for _, r := range recs {
		out = append(out, string(r.Value))
	}
	return out
}

func (f *fixture) producer(tweak func(*producer.Options)) *producer.Producer {
	f.t.Helper()
	opts := producer.DefaultOptions()
	if tweak != nil {
		tweak(&opts)
	}
	p, err := f.c.NewProducer(opts)
	if err != nil {
		f.t.Fatalf("producer: %v", err)
	}
	return p
}

func (f *fixture) send(p *producer.Producer, topic string, partition int32, r record.Record) *producer.Future {
	f.t.Helper()
	fut, err := p.Send(topic, partition, r)
	if err != nil {
		f.t.Fatalf("send: %v", err)
	}
	return fut
}

// wantCode fails unless err carries code (and, when msg is not empty, a
// message containing msg).
func wantCode(t *testing.T, err error, code kerr.Code, msg string) {
	t.Helper()
	if !errors.Is(err, code) {
		t.Fatalf("error %v, want %s", err, code)
	}
	if msg != "" && !strings.Contains(err.Error(), msg) {
		t.Fatalf("error %q does not mention %q", err, msg)
	}
}

func wantInts[T ~int32 | ~int64 | int](t *testing.T, what string, got, want []T) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

func wantStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s = %q, want %q", what, got, want)
	}
}

func eventKinds(evs []engine.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Kind())
	}
	return out
}
