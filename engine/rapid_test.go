package engine_test

import (
	"fmt"
	"os"
	"testing"

	"pgregory.net/rapid"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/storage"
)

// ackedRecord is a record acknowledged with acks=all while
// min.insync.replicas was at least 2.
type ackedRecord struct {
	tp     engine.TopicPartition
	offset int64
	value  string
}

// replicationModel drives a 3-broker cluster with random steps and checks the
// replication invariants after every one.
type replicationModel struct {
	c        *engine.Cluster
	clk      *clock.Manual
	tps      []engine.TopicPartition
	minISR   int
	next     int
	acked    []ackedRecord
	lastHW   map[engine.TopicPartition]int64
	lastEpoc map[engine.TopicPartition]int32
	lost     int // records the engine reported lost (DataLost), dropped from acked
	cfg      engine.Config
}

// TestReplicationStateMachine: random produce (acks 0/1/all), replicate (one
// partition or all, one follower or all), clock advance, broker crash (with
// or without the unflushed bytes) and restart, promote and rejoin. After every
// step: HW <= every ISR member's LEO; the HW never decreases within a leader
// epoch; nothing at or above the HW is readable; a record acknowledged with
// acks=all under min.insync.replicas >= 2 is never lost by a promotion of an
// ISR member (only a DataLost event — every copy lost its unflushed bytes —
// may take it); no two replicas (not awaiting a diverged truncation) hold
// different bytes at the same offset below the HW.
func TestReplicationStateMachine(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		dir, err := os.MkdirTemp("", "minikafka-rapid")
		if err != nil {
			rt.Fatal(err)
		}
		defer os.RemoveAll(dir)
		m := &replicationModel{clk: clock.NewManual(0), minISR: rapid.IntRange(1, 2).Draw(rt, "min.insync.replicas"),
			lastHW: map[engine.TopicPartition]int64{}, lastEpoc: map[engine.TopicPartition]int32{}}
		cfg := engine.DefaultConfig(dir)
		cfg.BrokerIDs = []int32{1, 2, 3}
		cfg.MinInsyncReplicas = m.minISR
		cfg.ReplicaLagTimeMaxMs = 100
		cfg.ReplicaLagMaxOffsets = rapid.SampledFrom([]int64{0, 3, 10_000}).Draw(rt, "replica.lag.max.offsets")
		cfg.ReplicaFetchMaxBytes = rapid.SampledFrom([]int{1, 200, 1 << 20}).Draw(rt, "replica.fetch.max.bytes")
		cfg.SegmentBytes = 400
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
	if err != nil || acks != engine.AcksAll || m.minISR < 2 {
		return
	}
	ack.OnSettle(func() {
		if ack.State() == engine.Done {
			m.acked = append(m.acked, ackedRecord{tp: p, offset: ack.Value().BaseOffset, value: value})
		}
	})
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
	allowed(t, "rejoin", err, kerr.InvalidArgument, kerr.BrokerNotAvailable)
}

// reopen closes (or crashes) the whole cluster and opens it again: the
// diverged marks and the HW are rebuilt from the logs (decisions 7 and 8).
// The model then drops the acknowledged records the engine no longer
// promises to keep:
//   - the HW is recomputed as the minimum LEO over every replica (decision
//     8): a replica that lost unflushed records pulls it below records
//     acknowledged before, which are then not committed any more (a lagging
//     replica may rejoin the ISR at that HW, and a promotion cuts back to
//     it);
//   - opening keeps each partition's leader from the metadata, so when that
//     leader's broker lost unflushed records, records only its followers
//     hold are given up (only RestartBroker elects a replica that has them).
func (m *replicationModel) reopen(t *rapid.T) {
	downLost := map[int32]bool{}
	brokers, _ := m.c.Brokers()
	for _, b := range brokers {
		downLost[b.ID] = !b.Up
	}
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
	keep := m.acked[:0]
	for _, a := range m.acked {
		st, err := m.c.PartitionState(a.tp)
		if err != nil {
			t.Fatal(err)
		}
		if downLost[st.Leader] && a.offset >= st.LEO || a.offset >= st.HW {
			m.lost++
			continue
		}
		keep = append(keep, a)
	}
	m.acked = keep
	m.lastHW = map[engine.TopicPartition]int64{} // decision 8: the HW is recomputed
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
	for _, ev := range m.c.TakeEvents() {
		if lost, ok := ev.(engine.DataLost); ok {
			keep := m.acked[:0]
			for _, a := range m.acked {
				if a.tp == lost.TP && a.offset >= lost.To {
					m.lost++
					continue
				}
				keep = append(keep, a)
			}
			m.acked = keep
		}
	}
	for _, p := range m.tps {
		st, err := m.c.PartitionState(p)
		if err != nil {
			t.Fatal(err)
		}
		m.checkPartition(t, st)
	}
	for _, a := range m.acked {
		st, _ := m.c.PartitionState(a.tp)
		if !st.Online || a.offset < st.LogStart {
			continue // offline, or deleted by retention
		}
		if a.offset >= st.HW {
			// After a reopen the HW is the minimum LEO over all replicas
			// (decision 8): the record must still be in the leader's log.
			l, err := m.c.LeaderLog(a.tp)
			if err != nil {
				t.Fatal(err)
			}
			recs, err := l.Fetch(a.offset, 1, -1)
			if err != nil || len(recs) != 1 || recs[0].Offset != a.offset || string(recs[0].Value) != a.value {
				t.Fatalf("acknowledged %s@%d %q is lost from the leader's log: %v %v (state %+v)", a.tp, a.offset, a.value, recs, err, st)
			}
			continue
		}
		recs, err := m.c.Fetch(a.tp, a.offset, 1, engine.ReadUncommitted)
		if err != nil || len(recs) != 1 || recs[0].Offset != a.offset || string(recs[0].Value) != a.value {
			t.Fatalf("acknowledged %s@%d %q is lost: %v %v (state %+v)", a.tp, a.offset, a.value, recs, err, st)
		}
	}
}

func (m *replicationModel) checkPartition(t *rapid.T, st engine.PartitionState) {
	p := st.TP
	if st.LeaderEpoch == m.lastEpoc[p] && st.HW < m.lastHW[p] {
		t.Fatalf("%s HW went down from %d to %d in epoch %d", p, m.lastHW[p], st.HW, st.LeaderEpoch)
	}
	if st.LeaderEpoch < m.lastEpoc[p] {
		t.Fatalf("%s epoch went down", p)
	}
	m.lastHW[p], m.lastEpoc[p] = st.HW, st.LeaderEpoch
	leaderInISR := false
	for _, r := range st.Replicas {
		if r.InISR {
			if r.LEO < st.HW {
				t.Fatalf("%s ISR member %d has LEO %d < HW %d", p, r.Broker, r.LEO, st.HW)
			}
			if r.Diverged {
				t.Fatalf("%s diverged replica %d is in the ISR", p, r.Broker)
			}
			leaderInISR = leaderInISR || r.Broker == st.Leader
		}
	}
	if !leaderInISR {
		t.Fatalf("%s leader %d is not in the ISR %v", p, st.Leader, st.ISR)
	}
	if !st.Online {
		return
	}
	// Nothing at or above the HW is readable.
	recs, err := m.c.Fetch(p, st.LogStart, 1_000_000, engine.ReadUncommitted)
	if err != nil {
		t.Fatalf("%s fetch: %v", p, err)
	}
	for _, r := range recs {
		if r.Offset >= st.HW {
			t.Fatalf("%s offset %d readable at HW %d", p, r.Offset, st.HW)
		}
	}
	// Replicas agree byte for byte below the HW.
	leaderFrames := m.frames(t, p, st.Leader, st.HW)
	for _, r := range st.Replicas {
		if !r.Up || r.Diverged || r.Broker == st.Leader {
			continue
		}
		for base, frame := range m.frames(t, p, r.Broker, st.HW) {
			if lf, ok := leaderFrames[base]; ok && lf != frame {
				t.Fatalf("%s broker %d holds different bytes than leader %d at offset %d below HW %d", p, r.Broker, st.Leader, base, st.HW)
			}
		}
	}
}

// frames maps base offset to the bytes of every batch that starts below hw.
func (m *replicationModel) frames(t *rapid.T, p engine.TopicPartition, broker int32, hw int64) map[int64]string {
	l, err := m.c.ReplicaLog(p, broker)
	if err != nil {
		t.Fatalf("replica log: %v", err)
	}
	out := map[int64]string{}
	err = l.Batches(l.LogStartOffset(), func(b storage.RawBatch) error {
		if b.Meta.BaseOffset < hw {
			out[b.Meta.BaseOffset] = string(b.Frame)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var _ = testing.Short
