package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/invariant"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// replicationModel drives a 3-broker cluster with random steps and checks the
// invariants (engine/invariant) after every one.
type replicationModel struct {
	c      *engine.Cluster
	clk    *clock.Manual
	tps    []engine.TopicPartition
	minISR int
	next   int
	acks   []promisedAck // promised writes waiting for their acknowledgement
	mon    invariant.Monitor
	cfg    engine.Config
}

// TestReplicationStateMachine: random produce (acks 0/1/all), replicate (one
// partition or all, one follower or all), clock advance, broker crash (with
// or without the unflushed bytes) and restart, promote and rejoin, flush,
// retention, compaction and reopen. After every step an invariant.Monitor
// checks every property: HW <= every ISR member's LEO (hw-le-isr-leo), the
// leader in the ISR and no diverged replica in it; the HW never decreases
// within a leader epoch and the epoch never decreases; nothing at or above
// the HW is readable; a record acknowledged with acks=all under
// min.insync.replicas >= 2 is never lost (only a DataLost event — every copy
// lost its unflushed bytes — or a reopen may take it, acked-not-lost);
// nothing below a HW a consumer could see is lost (committed-not-lost); no
// two replicas (not awaiting a diverged truncation) hold different bytes at
// the same offset below the HW (logs-agree). It runs under both rule sets
// (rules=minikafka and rules=kafka, the KRaft controller fencing after
// 100 ms), where the Kafka-only properties do work: no ISR member counts as
// committed a record the leader lacks (isr-agrees-below-own-hw) and no clean
// election loses a committed record (clean-election-keeps-committed).
func TestReplicationStateMachine(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(rt *rapid.T) {
		// In memory: the cluster's logic under random calls, not the disk
		// (engine/storage and the REPL's transcripts test the disk).
		var err error
		dir, mem := "data", vfs.NewMem()
		m := &replicationModel{clk: clock.NewManual(0), minISR: rapid.IntRange(1, 2).Draw(rt, "min.insync.replicas")}
		cfg := engine.DefaultConfig(dir)
		cfg.FS = mem
		cfg.BrokerIDs = []int32{1, 2, 3}
		cfg.MinInsyncReplicas = m.minISR
		cfg.ReplicaLagTimeMaxMs = 100
		cfg.ReplicaLagMaxOffsets = rapid.SampledFrom([]int64{0, 3, 10_000}).Draw(rt, "replica.lag.max.offsets")
		cfg.ReplicaFetchMaxBytes = rapid.SampledFrom([]int{1, 200, 1 << 20}).Draw(rt, "replica.fetch.max.bytes")
		cfg.SegmentBytes = 400
		if err := cfg.Set("rules", rapid.SampledFrom([]string{"minikafka", "kafka"}).Draw(rt, "rules")); err != nil {
			rt.Fatal(err)
		}
		cfg.BrokerSessionTimeoutMs = 100
		m.cfg = cfg
		m.c, _, err = engine.Open(cfg, m.clk)
		if err != nil {
			rt.Fatal(err)
		}
		defer func() { m.c.Close() }()
		if _, err := m.c.CreateTopic("r", 2, 3); err != nil {
			rt.Fatal(err)
		}
		m.tps = []engine.TopicPartition{tp("r", 0), tp("r", 1)}
		rt.Repeat(map[string]func(*rapid.T){
			"":          m.check,
			"produce":   m.produce,
			"replicate": m.replicate,
			"advance":   m.advance,
			"crash":     m.crash,
			"restart":   m.restart,
			"promote":   m.promote,
			"rejoin":    m.rejoin,
			"flush":     func(*rapid.T) { m.c.RunFlushCycle() },
			"retention": m.retention,
			"reopen":    m.reopen,
			"compact":   m.compact,
		})
	})
}

func (m *replicationModel) drawTP(t *rapid.T) engine.TopicPartition {
	return rapid.SampledFrom(m.tps).Draw(t, "tp")
}

func (m *replicationModel) drawBroker(t *rapid.T) int32 {
	return rapid.Int32Range(1, 3).Draw(t, "broker")
}

// allowed fails the test on an error that is not one of the expected codes.
func allowed(t *rapid.T, what string, err error, codes ...kerr.Code) {
	if err == nil {
		return
	}
	for _, c := range codes {
		if kerr.CodeOf(err) == c {
			return
		}
	}
	t.Fatalf("%s: unexpected error %v", what, err)
}

func (m *replicationModel) produce(t *rapid.T) {
	p := m.drawTP(t)
	acks := rapid.SampledFrom([]engine.AckMode{engine.Acks0, engine.Acks1, engine.AcksAll}).Draw(t, "acks")
	m.next++
	value := fmt.Sprintf("v%d", m.next)
	ack, err := m.c.Produce(p.Topic, p.Partition, record.Record{Value: []byte(value), TimestampMs: engine.NoTimestamp}, acks)
	allowed(t, "produce", err, kerr.LeaderNotAvailable, kerr.NotEnoughReplicas)
	if err != nil || !invariant.Promised(acks, m.minISR) {
		return
	}
	m.acks = append(m.acks, promisedAck{ack: ack, tp: p, value: value})
}

// promisedAck is an acks=all write the engine promises to keep once its
// acknowledgement is done.
type promisedAck struct {
	ack   *engine.Ack
	tp    engine.TopicPartition
	value string
}

// settleAcks tells the monitor about the promised writes acknowledged since
// the last call. It runs after every step, before anything is checked, so
// a write acknowledged and lost within one step is caught.
func (m *replicationModel) settleAcks() {
	keep := m.acks[:0]
	for _, a := range m.acks {
		switch a.ack.State() {
		case engine.Pending:
			keep = append(keep, a)
		case engine.Done:
			m.mon.Acknowledged(a.tp, a.ack.Value().BaseOffset, record.Record{Value: []byte(a.value)})
		}
	}
	m.acks = keep
}

func (m *replicationModel) replicate(t *rapid.T) {
	follower := rapid.SampledFrom([]int32{engine.AllFollowers, 1, 2, 3}).Draw(t, "follower")
	var target *engine.TopicPartition
	if rapid.Bool().Draw(t, "one partition") {
		p := m.drawTP(t)
		target = &p
	}
	_, err := m.c.Replicate(target, follower)
	allowed(t, "replicate", err, kerr.LeaderNotAvailable, kerr.BrokerNotAvailable, kerr.InvalidArgument)
}

func (m *replicationModel) advance(t *rapid.T) {
	if err := m.c.Advance(rapid.Int64Range(0, 150).Draw(t, "ms")); err != nil {
		t.Fatal(err)
	}
}

func (m *replicationModel) crash(t *rapid.T) {
	err := m.c.CrashBroker(m.drawBroker(t), rapid.Bool().Draw(t, "keep unflushed"))
	allowed(t, "crash", err, kerr.IllegalState)
}

func (m *replicationModel) restart(t *rapid.T) {
	_, err := m.c.RestartBroker(m.drawBroker(t))
	allowed(t, "restart", err, kerr.IllegalState)
}

func (m *replicationModel) promote(t *rapid.T) {
	err := m.c.Promote(m.drawTP(t), m.drawBroker(t))
	allowed(t, "promote", err, kerr.NotInSyncReplica, kerr.BrokerNotAvailable)
}

func (m *replicationModel) rejoin(t *rapid.T) {
	err := m.c.Rejoin(m.drawTP(t), m.drawBroker(t))
	allowed(t, "rejoin", err, kerr.InvalidArgument, kerr.BrokerNotAvailable, kerr.LeaderNotAvailable)
}

// reopen closes (or crashes) the whole cluster and opens it again: the
// diverged marks and the HW are rebuilt from the logs (decisions 7 and 8).
// The monitor then drops the acknowledged records the engine no longer
// promises to keep (invariant.Monitor.Reopened): the HW is recomputed as
// the minimum LEO over every replica (decision 8), so a replica that lost
// unflushed records pulls it below records acknowledged before, which are
// then not committed any more (a lagging replica may rejoin the ISR at that
// HW, and a promotion cuts back to it); and opening keeps each partition's
// leader from the metadata, so when that leader's broker lost unflushed
// records, records only its followers hold are given up (only
// RestartBroker elects a replica that has them).
func (m *replicationModel) reopen(t *rapid.T) {
	m.settleAcks()
	if rapid.Bool().Draw(t, "crash") {
		m.c.Crash()
	} else if err := m.c.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	c, _, err := engine.Open(m.cfg, m.clk)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	m.c = c
	if err := m.mon.Reopened(c, c.TakeEvents()); err != nil {
		t.Fatal(err)
	}
}

// retention deletes closed segments of one replica or of all (decision 10:
// a log-level tool, not bounded by the HW; decision 11: followers below the
// leader's new log start reset).
func (m *replicationModel) retention(t *rapid.T) {
	b := rapid.SampledFrom([]int32{engine.AllReplicas, 1, 2, 3}).Draw(t, "broker")
	_, err := m.c.ApplyRetention(m.drawTP(t), b, -1, rapid.Int64Range(1, 800).Draw(t, "retention bytes"))
	allowed(t, "retention", err, kerr.BrokerNotAvailable)
}

// compact compacts one replica or all; the model's records are keyless, so
// compaction keeps every record and offsets never get gaps.
func (m *replicationModel) compact(t *rapid.T) {
	b := rapid.SampledFrom([]int32{engine.AllReplicas, 1, 2, 3}).Draw(t, "broker")
	_, err := m.c.Compact(m.drawTP(t), b, 0)
	allowed(t, "compact", err, kerr.BrokerNotAvailable)
}

func (m *replicationModel) check(t *rapid.T) {
	m.settleAcks()
	m.mon.Events(m.c.TakeEvents())
	if vs := m.mon.Observe(m.c); len(vs) > 0 {
		t.Fatalf("invariants broken:\n%s", violations(vs))
	}
	// Every HW is one a consumer could see: what is below it must stay.
	for _, p := range m.tps {
		if err := m.mon.SawHW(m.c, p); err != nil {
			t.Fatal(err)
		}
	}
}

// violations lists violations one per line.
func violations(vs []invariant.Violation) string {
	lines := make([]string, len(vs))
	for i, v := range vs {
		lines[i] = "  " + v.String()
	}
	return strings.Join(lines, "\n")
}
