package engine_test

import (
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/producer"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/storage"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// apiModel drives the public Cluster API with random argument values, valid
// or not, including after close, crash and failure. It checks that nothing
// panics, that every error carries a code, that an argument error changes
// nothing (describe output identical before and after, no event), and that
// describing twice in a row gives the same answer (describing changes
// nothing).
type apiModel struct {
	dir       string
	cfg       engine.Config
	clk       *clock.Manual
	c         *engine.Cluster
	producers []*producer.Producer
	consumers []*engine.Consumer
}

// TestPublicAPIStateMachine: random calls with random arguments (negative,
// huge, unknown brokers and partitions, empty ids), see apiModel, under
// either rule set, rules and single rule knobs switching as it runs.
func TestPublicAPIStateMachine(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(rt *rapid.T) {
		// In memory: the cluster's logic under random calls, not the disk
		// (engine/storage and the REPL's transcripts test the disk).
		var err error
		dir, mem := "data", vfs.NewMem()
		m := &apiModel{dir: dir, clk: clock.NewManual(0)}
		m.cfg = engine.DefaultConfig(dir)
		m.cfg.FS = mem
		m.cfg.BrokerIDs = []int32{1, 2, 3}
		m.cfg.SegmentBytes = 300
		m.cfg.IndexIntervalBytes = 64
		m.cfg.ReplicaLagTimeMaxMs = 100
		m.cfg.SessionTimeoutMs = 100
		m.cfg.MinInsyncReplicas = rapid.IntRange(1, 3).Draw(rt, "min.insync.replicas")
		if err := m.cfg.Set("rules", rapid.SampledFrom([]string{"minikafka", "kafka"}).Draw(rt, "rules")); err != nil {
			rt.Fatal(err)
		}
		m.cfg.BrokerSessionTimeoutMs = 100
		if m.c, _, err = engine.Open(m.cfg, m.clk); err != nil {
			rt.Fatal(err)
		}
		defer func() { m.c.Close() }()
		if _, err := m.c.CreateTopic("t", 2, 3); err != nil {
			rt.Fatal(err)
		}
		rt.Repeat(map[string]func(*rapid.T){
			"":           m.check,
			"create":     m.step(m.create),
			"produce":    m.step(m.produce),
			"append":     m.step(m.appendBatch),
			"fetch":      m.step(m.fetch),
			"replicate":  m.step(m.replicate),
			"isr":        m.step(m.isr),
			"broker":     m.step(m.broker),
			"advance":    m.step(m.advance),
			"logtools":   m.step(m.logTools),
			"producer":   m.step(m.producerOp),
			"consumer":   m.step(m.consumerOp),
			"txn":        m.step(m.txnOp),
			"config":     m.step(m.config),
			"lifecycle":  m.lifecycle,
			"flushcycle": m.step(func(t *rapid.T) error { return m.c.RunFlushCycle() }),
		})
	})
}

// step runs op and checks the error rules around it.
func (m *apiModel) step(op func(*rapid.T) error) func(*rapid.T) {
	return func(t *rapid.T) {
		before := m.snapshot(t, false)
		m.c.TakeEvents()
		err := op(t)
		if err == nil {
			return
		}
		if kerr.CodeOf(err) == "" {
			t.Fatalf("error without a code: %v", err)
		}
		var ke *kerr.Error
		if errors.As(err, &ke) && ke.Code == kerr.InvalidArgument && !isJoined(err) {
			if evs := m.c.TakeEvents(); len(evs) > 0 {
				t.Fatalf("argument error %v emitted events %v", err, evs)
			}
			if after := m.snapshot(t, false); after != before {
				t.Fatalf("argument error %v changed the cluster:\nbefore %s\nafter  %s", err, before, after)
			}
		}
	}
}

func isJoined(err error) bool {
	_, ok := err.(interface{ Unwrap() []error })
	return ok
}

// snapshot describes everything observable, as text; full adds every
// replica log's batches (read from the files), which check compares.
func (m *apiModel) snapshot(t *rapid.T, full bool) string {
	c := m.c
	var s strings.Builder
	add := func(v any, err error) { fmt.Fprintf(&s, "%+v|%v\n", v, err) }
	add(c.State(), c.TerminalError())
	add(c.Topics())
	add(c.PartitionStates())
	add(c.Brokers())
	add(c.ListGroups())
	add(c.ListTransactions())
	add(c.Now(), nil)
	for _, p := range m.producers {
		add(p.Describe(), nil)
	}
	for _, con := range m.consumers {
		g, j := con.Generation()
		add(fmt.Sprint(con.String(), con.Positions(), con.Subscriptions(), g, j, con.Closed()), nil)
	}
	add(c.Config().String(), nil)
	// The description API: every running replica's log, its segments'
	// indexes and, when full, its batches (each as its header, place and a
	// checksum of its frame), and the partitioner's choices.
	states, _ := c.PartitionStates()
	for _, st := range states {
		for _, r := range st.Replicas {
			d, err := c.DescribeLog(st.TP, r.Broker)
			add(d, err)
			for _, sg := range d.Segments {
				add(c.LogIndex(st.TP, r.Broker, sg.Base))
			}
			if !full {
				continue
			}
			batches, err := c.LogBatches(st.TP, r.Broker, 0, -1, 0)
			for _, b := range batches {
				add(fmt.Sprint(b.Meta, b.Segment, b.Position, crc32.ChecksumIEEE(b.Frame)), nil)
			}
			add(len(batches), err)
		}
	}
	add(c.PartitionFor("t", []byte("k")))
	add(c.PartitionFor("t", nil))
	return s.String()
}

func (m *apiModel) check(t *rapid.T) {
	a := m.snapshot(t, true)
	m.c.TakeEvents()
	b := m.snapshot(t, true)
	if a != b {
		t.Fatalf("describing changed the cluster:\nfirst  %s\nsecond %s", a, b)
	}
	if evs := m.c.TakeEvents(); len(evs) > 0 {
		t.Fatalf("describing emitted events %v", evs)
	}
}

var apiTopics = []string{"t", "t", "t", "t", "t", "u", "u", "", ".", "missing", "bad name"}

func (m *apiModel) drawTopic(t *rapid.T) string { return rapid.SampledFrom(apiTopics).Draw(t, "topic") }

func (m *apiModel) drawTP(t *rapid.T) engine.TopicPartition {
	return engine.TopicPartition{Topic: m.drawTopic(t), Partition: rapid.SampledFrom([]int32{0, 1, 0, 1, 0, 1, -1, 2}).Draw(t, "partition")}
}

func (m *apiModel) drawBroker(t *rapid.T) int32 {
	return rapid.SampledFrom([]int32{1, 2, 3, 1, 2, 3, -1, 0, 4}).Draw(t, "broker")
}

func (m *apiModel) drawAcks(t *rapid.T) engine.AckMode {
	return engine.AckMode(rapid.SampledFrom([]int8{0, 1, -1, -1, 5}).Draw(t, "acks"))
}

func (m *apiModel) drawRecord(t *rapid.T) record.Record {
	r := record.Record{Value: []byte(rapid.SampledFrom([]string{"a", "bb", ""}).Draw(t, "value")),
		TimestampMs: rapid.SampledFrom([]int64{-1, 0, 50, 1 << 40}).Draw(t, "ts")}
	if k := rapid.SampledFrom([]string{"", "k", "none"}).Draw(t, "key"); k != "none" {
		r.Key = []byte(k)
	}
	if rapid.IntRange(0, 5).Draw(t, "tombstone") == 0 {
		r.Value = nil
	}
	return r
}

func (m *apiModel) create(t *rapid.T) error {
	_, err := m.c.CreateTopic(m.drawTopic(t), rapid.IntRange(-1, 3).Draw(t, "partitions"), rapid.IntRange(-1, 4).Draw(t, "rf"))
	return err
}

func (m *apiModel) produce(t *rapid.T) error {
	_, err := m.c.Produce(m.drawTopic(t), rapid.Int32Range(-3, 3).Draw(t, "partition"), m.drawRecord(t), m.drawAcks(t))
	return err
}

func (m *apiModel) appendBatch(t *rapid.T) error {
	b := record.NewBatch([]record.Record{m.drawRecord(t)})
	switch rapid.IntRange(0, 4).Draw(t, "batch kind") {
	case 1:
		b.ProducerID, b.ProducerEpoch, b.BaseSequence = rapid.Int64Range(0, 2).Draw(t, "pid"),
			rapid.Int32Range(-1, 2).Draw(t, "epoch"), rapid.Int32Range(-1, 3).Draw(t, "seq")
	case 2:
		b.LeaderEpoch = rapid.Int32Range(-1, 3).Draw(t, "leader epoch")
	case 3:
		b.Transactional, b.TransactionalID = true, rapid.SampledFrom([]string{"", "x1"}).Draw(t, "txid")
	case 4:
		b = nil
	}
	_, err := m.c.AppendBatch(m.drawTP(t), b, m.drawAcks(t))
	return err
}

func (m *apiModel) fetch(t *rapid.T) error {
	_, err := m.c.Fetch(m.drawTP(t), rapid.Int64Range(-2, 30).Draw(t, "offset"), rapid.IntRange(-1, 5).Draw(t, "max"),
		engine.Isolation(rapid.IntRange(0, 2).Draw(t, "isolation")))
	return err
}

func (m *apiModel) replicate(t *rapid.T) error {
	var p *engine.TopicPartition
	if rapid.Bool().Draw(t, "one partition") {
		x := m.drawTP(t)
		p = &x
	}
	_, err := m.c.Replicate(p, m.drawBroker(t))
	return err
}

func (m *apiModel) isr(t *rapid.T) error {
	p, b := m.drawTP(t), m.drawBroker(t)
	switch rapid.IntRange(0, 3).Draw(t, "isr op") {
	case 0:
		return m.c.Promote(p, b)
	case 1:
		return m.c.Rejoin(p, b)
	case 2:
		return m.c.RemoveFromISR(p, b)
	default:
		return m.c.RefreshISR(p)
	}
}

func (m *apiModel) broker(t *rapid.T) error {
	b := m.drawBroker(t)
	if rapid.Bool().Draw(t, "crash") {
		return m.c.CrashBroker(b, rapid.Bool().Draw(t, "keep unflushed"))
	}
	_, err := m.c.RestartBroker(b)
	return err
}

func (m *apiModel) advance(t *rapid.T) error {
	return m.c.Advance(rapid.SampledFrom([]int64{-1, 0, 1, 50, 99, 100, 101, 150}).Draw(t, "ms"))
}

func (m *apiModel) logTools(t *rapid.T) error {
	p, b := m.drawTP(t), m.drawBroker(t)
	switch rapid.IntRange(0, 2).Draw(t, "tool") {
	case 0:
		_, err := m.c.ApplyRetention(p, b, rapid.Int64Range(-2, 300).Draw(t, "retention ms"), rapid.Int64Range(-2, 600).Draw(t, "retention bytes"))
		return err
	case 1:
		_, err := m.c.Compact(p, b, rapid.Int64Range(-2, 100).Draw(t, "delete retention"))
		return err
	default:
		_, err := m.c.Corrupt(p, b, -1, storage.CorruptMode(rapid.IntRange(0, 3).Draw(t, "mode")), rapid.IntRange(-1, 20).Draw(t, "n"))
		return err
	}
}

func (m *apiModel) drawProducer(t *rapid.T) *producer.Producer {
	if len(m.producers) == 0 {
		return nil
	}
	return rapid.SampledFrom(m.producers).Draw(t, "producer")
}

func (m *apiModel) producerOp(t *rapid.T) error {
	p := m.drawProducer(t)
	op := rapid.IntRange(0, 5).Draw(t, "producer op")
	if p == nil || op == 0 {
		opts := producer.DefaultOptions()
		opts.Name = rapid.SampledFrom([]string{"", "w", "w", "v"}).Draw(t, "name")
		opts.Idempotent = rapid.Bool().Draw(t, "idempotent")
		opts.Acks = m.drawAcks(t)
		opts.BatchSize = rapid.Int64Range(-1, 200).Draw(t, "batch size")
		opts.LingerMs = rapid.Int64Range(-1, 50).Draw(t, "linger")
		opts.MaxBufferBytes = rapid.Int64Range(-1, 300).Draw(t, "buffer")
		np, err := m.c.NewProducer(opts)
		if err == nil {
			m.producers = append(m.producers, np)
		}
		return err
	}
	switch op {
	case 1, 2:
		_, err := p.Send(m.drawTopic(t), rapid.Int32Range(-3, 3).Draw(t, "partition"), m.drawRecord(t))
		return err
	case 3:
		p.Flush()
	case 4:
		_, err := p.Retry()
		return err
	default:
		p.Close()
	}
	return nil
}

func (m *apiModel) consumerOp(t *rapid.T) error {
	op := rapid.IntRange(0, 9).Draw(t, "consumer op")
	if len(m.consumers) == 0 || op == 0 {
		con, err := m.c.NewConsumer(engine.ConsumerOptions{
			GroupID:         rapid.SampledFrom([]string{"", "g", "g", "h"}).Draw(t, "group"),
			AutoOffsetReset: rapid.SampledFrom([]string{"", "earliest", "latest", "error", "bogus"}).Draw(t, "reset"),
			Isolation:       engine.Isolation(rapid.IntRange(0, 2).Draw(t, "isolation")),
		})
		if err == nil {
			m.consumers = append(m.consumers, con)
		}
		return err
	}
	con := rapid.SampledFrom(m.consumers).Draw(t, "consumer")
	switch op {
	case 1:
		return con.Assign([]engine.TopicPartition{m.drawTP(t), m.drawTP(t)})
	case 2:
		return con.Subscribe([]string{m.drawTopic(t)})
	case 3, 4:
		_, err := con.Poll(rapid.IntRange(-1, 5).Draw(t, "max"))
		return err
	case 5:
		return con.Commit()
	case 6:
		return con.Seek(m.drawTP(t), rapid.Int64Range(-1, 20).Draw(t, "offset"))
	case 7:
		if rapid.Bool().Draw(t, "heartbeat") {
			return con.Heartbeat()
		}
		return con.RefreshAssignment()
	case 8:
		_, err := con.Lag(m.drawTP(t))
		return err
	default:
		return con.Close()
	}
}

func (m *apiModel) txnOp(t *rapid.T) error {
	id := rapid.SampledFrom([]string{"", "x1", "x2"}).Draw(t, "txid")
	switch rapid.IntRange(0, 4).Draw(t, "txn op") {
	case 0:
		return m.c.BeginTransaction(id)
	case 1:
		_, err := m.c.TransactionSend(id, m.drawTopic(t), rapid.Int32Range(-3, 3).Draw(t, "partition"), m.drawRecord(t))
		return err
	case 2:
		return m.c.TransactionSendOffsets(id, rapid.SampledFrom([]string{"", "g"}).Draw(t, "group"),
			map[engine.TopicPartition]int64{m.drawTP(t): rapid.Int64Range(-1, 5).Draw(t, "offset")})
	case 3:
		_, err := m.c.CommitTransaction(id)
		return err
	default:
		_, err := m.c.AbortTransaction(id)
		return err
	}
}

func (m *apiModel) config(t *rapid.T) error {
	keys := engine.ConfigKeys()
	names := []string{"bogus"}
	for _, k := range keys {
		names = append(names, k.Name)
	}
	values := []string{"-1", "0", "1", "2", "3", "100", "x", "kafka", "minikafka", "true", "false",
		"leader-epoch", "high-watermark", "fetch", "leader", "hold", "advance", "kraft", "manual", "murmur2", "crc32", "last-caught-up"}
	_, err := m.c.SetConfig(rapid.SampledFrom(names).Draw(t, "config"), rapid.SampledFrom(values).Draw(t, "value"))
	return err
}

func (m *apiModel) lifecycle(t *rapid.T) {
	switch rapid.IntRange(0, 10).Draw(t, "lifecycle op") {
	case 0:
		if err := m.c.Crash(); err != nil && kerr.CodeOf(err) == "" {
			t.Fatalf("crash: %v", err)
		}
	case 1:
		if rapid.IntRange(0, 5).Draw(t, "really fail") == 0 {
			_ = m.c.FailNextFlush(kerr.New(kerr.StorageError, "disk failed"))
		}
		return
	default:
		if err := m.c.Close(); err != nil && kerr.CodeOf(err) == "" {
			t.Fatalf("close: %v", err)
		}
	}
	// Calls on the closed cluster and its old handles.
	m.step(m.produce)(t)
	m.step(m.consumerOp)(t)
	m.step(m.producerOp)(t)
	c, _, err := engine.Open(m.cfg, m.clk)
	if err != nil {
		// A damaged closed segment refuses to open; that is the spec.
		if !errors.Is(err, kerr.StorageError) {
			t.Fatalf("reopen: %v", err)
		}
		t.Skip("reopen refused a damaged log")
	}
	m.c, m.producers, m.consumers = c, nil, nil
}
