package invariant_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/invariant"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// fixture is a cluster of brokers 1, 2 and 3 on a manual clock, in memory
// (a vfs.Mem): the properties are about the cluster, not the disk.
type fixture struct {
	t   *testing.T
	c   *engine.Cluster
	cfg engine.Config
	clk *clock.Manual
}

func open(t *testing.T, tweak func(*engine.Config)) *fixture {
	t.Helper()
	cfg := engine.DefaultConfig("data")
	cfg.FS = vfs.NewMem()
	cfg.BrokerIDs = []int32{1, 2, 3}
	if tweak != nil {
		tweak(&cfg)
	}
	f := &fixture{t: t, cfg: cfg, clk: clock.NewManual(0)}
	f.reopen()
	t.Cleanup(func() { f.c.Close() })
	return f
}

func (f *fixture) reopen() {
	f.t.Helper()
	c, _, err := engine.Open(f.cfg, f.clk)
	if err != nil {
		f.t.Fatalf("open: %v", err)
	}
	f.c = c
}

func (f *fixture) must(err error) {
	f.t.Helper()
	if err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) topic(name string, partitions, rf int) {
	f.t.Helper()
	_, err := f.c.CreateTopic(name, partitions, rf)
	f.must(err)
}

// produce appends value to tp with acks and returns its acknowledgement.
func (f *fixture) produce(tp engine.TopicPartition, value string, acks engine.AckMode) *engine.Ack {
	f.t.Helper()
	ack, err := f.c.Produce(tp.Topic, tp.Partition, rec(value), acks)
	f.must(err)
	return ack
}

func (f *fixture) replicate() {
	f.t.Helper()
	_, err := f.c.Replicate(nil, engine.AllFollowers)
	f.must(err)
}

func rec(value string) record.Record {
	return record.Record{Value: []byte(value), TimestampMs: engine.NoTimestamp}
}

var t0 = engine.TopicPartition{Topic: "t", Partition: 0}

// healthy builds a cluster with replicated records, a committed and an
// aborted transaction, and a group with a committed offset.
func healthy(t *testing.T) *fixture {
	f := open(t, nil)
	f.topic("t", 2, 3)
	for _, v := range []string{"a", "b", "c"} {
		f.produce(t0, v, engine.Acks1)
	}
	f.must(f.c.BeginTransaction("x"))
	_, err := f.c.TransactionSend("x", "t", 0, rec("kept"))
	f.must(err)
	_, err = f.c.CommitTransaction("x")
	f.must(err)
	f.must(f.c.BeginTransaction("y"))
	_, err = f.c.TransactionSend("y", "t", 0, rec("dropped"))
	f.must(err)
	_, err = f.c.AbortTransaction("y")
	f.must(err)
	f.replicate()
	f.replicate()
	con, err := f.c.NewConsumer(engine.ConsumerOptions{GroupID: "g"})
	f.must(err)
	f.must(con.Subscribe([]string{"t"}))
	_, err = con.Poll(100)
	f.must(err)
	f.must(con.Commit())
	return f
}

// TestHealthyClusterHasNoViolation: a cluster that did nothing wrong passes
// every check, alone and followed by a monitor.
func TestHealthyClusterHasNoViolation(t *testing.T) {
	t.Parallel()
	f := healthy(t)
	if vs := invariant.Check(f.c); len(vs) > 0 {
		t.Fatalf("violations: %v", vs)
	}
	var m invariant.Monitor
	for range 2 {
		if vs := m.Observe(f.c); len(vs) > 0 {
			t.Fatalf("monitor: %v", vs)
		}
		f.must(m.SawHW(f.c, t0))
	}
	o := invariant.Observe(f.c)
	st, _ := f.c.PartitionState(t0)
	if p := o.Partitions[0]; p.HW != st.HW || len(p.Readable) == 0 || len(p.Logs) != 3 || len(o.Groups) != 1 {
		t.Fatalf("observation misses what the checks read: %+v", o)
	}
}

// TestObserveChangesNothing: observing twice gives the same observation and
// no event.
func TestObserveChangesNothing(t *testing.T) {
	t.Parallel()
	f := healthy(t)
	f.c.TakeEvents()
	a, b := invariant.Observe(f.c), invariant.Observe(f.c)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two observations differ")
	}
	if evs := f.c.TakeEvents(); len(evs) > 0 {
		t.Fatalf("observing emitted %v", evs)
	}
}

// TestClosedClusterIsNotChecked: a closed cluster has nothing to observe.
func TestClosedClusterIsNotChecked(t *testing.T) {
	t.Parallel()
	f := healthy(t)
	f.must(f.c.Close())
	var m invariant.Monitor
	if vs := append(invariant.Check(f.c), m.Observe(f.c)...); len(vs) > 0 {
		t.Fatalf("violations on a closed cluster: %v", vs)
	}
}

// has fails unless vs holds a violation of property (and nothing else but
// the properties in also).
func has(t *testing.T, vs []invariant.Violation, property string, also ...string) {
	t.Helper()
	found := false
	for _, v := range vs {
		switch {
		case v.Property == property:
			found = true
			if v.Detail == "" || strings.Contains(v.Detail, "\n") {
				t.Errorf("%s: want a one-line explanation, got %q", property, v.Detail)
			}
		case !slices.Contains(also, v.Property):
			t.Errorf("unexpected violation %s", v)
		}
	}
	if !found {
		t.Fatalf("no %s violation in %v", property, vs)
	}
}

// observe returns an observation of a healthy cluster's partition t-0, to
// break.
func observe(t *testing.T) (*fixture, invariant.Observation, *invariant.PartitionObservation) {
	f := healthy(t)
	o := invariant.Observe(f.c)
	return f, o, &o.Partitions[0]
}

// canFail lists, for every property, a situation that breaks it: a real
// one where the engine allows it (a weaker promise than the engine's, a
// reopen the monitor is not told of, explicit offsets, a damaged segment),
// a deliberately broken observation otherwise.
var canFail = map[string]func(t *testing.T){
	invariant.HWWithinISR: func(t *testing.T) {
		_, o, p := observe(t)
		p.Replicas[1].LEO = p.HW - 1
		has(t, o.Check(), invariant.HWWithinISR)
	},
	invariant.LeaderInISR: func(t *testing.T) {
		_, o, p := observe(t)
		p.Replicas[0].InISR = false // the first replica leads
		has(t, o.Check(), invariant.LeaderInISR)
	},
	invariant.ISRNotDiverged: func(t *testing.T) {
		_, o, p := observe(t)
		p.Replicas[2].Diverged = true
		has(t, o.Check(), invariant.ISRNotDiverged, invariant.LogsAgree)
	},
	invariant.NoReadAboveHW: func(t *testing.T) {
		_, o, p := observe(t)
		p.Readable = append(p.Readable, engine.StoredRecord{Topic: "t", Offset: p.HW})
		has(t, o.Check(), invariant.NoReadAboveHW)
	},
	invariant.LogsAgree: func(t *testing.T) {
		_, o, p := observe(t)
		b := &p.Logs[2][0]
		b.Frame = append([]byte{}, b.Frame...)
		b.Frame[len(b.Frame)-1] ^= 1
		has(t, o.Check(), invariant.LogsAgree, invariant.ISRAgreesBelowOwnHW)
	},
	invariant.ISRAgreesBelowOwnHW: func(t *testing.T) {
		// An ISR member counts a batch as committed (below its own HW)
		// that the leader does not hold.
		_, o, p := observe(t)
		last := p.Logs[2][len(p.Logs[2])-1]
		last.Meta.BaseOffset = p.HW
		p.Logs[2] = append(p.Logs[2], last)
		p.Replicas[1].HW = p.HW + 1
		has(t, o.Check(), invariant.ISRAgreesBelowOwnHW)
	},
	invariant.CleanElectionKeepsCommitted: func(t *testing.T) {
		// KIP-101's data loss: Kafka before 0.11 (high-watermark
		// truncation, followers learning the HW one fetch late).
		f, m := kip101(t, "high-watermark")
		has(t, m.Observe(f.c), invariant.CleanElectionKeepsCommitted)
	},
	invariant.ReadCommittedClean: func(t *testing.T) {
		f, o, p := observe(t)
		// read_uncommitted shows the aborted transaction's record.
		p.ReadCommitted = p.Readable
		has(t, o.Check(), invariant.ReadCommittedClean)
		has(t, invariant.CheckReadCommitted(f.c, p.Readable), invariant.ReadCommittedClean)
		// An open transaction holds the LSO: its record is above it.
		f.must(f.c.BeginTransaction("z"))
		_, err := f.c.TransactionSend("z", "t", 0, rec("open"))
		f.must(err)
		f.replicate()
		o = invariant.Observe(f.c)
		p = &o.Partitions[0]
		p.ReadCommitted = p.Readable
		has(t, o.Check(), invariant.ReadCommittedClean)
	},
	invariant.LSOWithinHW: func(t *testing.T) {
		_, o, p := observe(t)
		p.LSO = p.HW + 1
		has(t, o.Check(), invariant.LSOWithinHW)
	},
	invariant.CommittedWithinHW: func(t *testing.T) {
		f := healthy(t)
		con, err := f.c.NewConsumer(engine.ConsumerOptions{GroupID: "manual"})
		f.must(err)
		f.must(con.Assign([]engine.TopicPartition{t0}))
		// Explicit offsets are the caller's word: the engine takes them.
		f.must(con.CommitOffsets(map[engine.TopicPartition]int64{t0: 100}))
		has(t, invariant.Check(f.c), invariant.CommittedWithinHW)
	},
	invariant.AssignmentDisjoint: func(t *testing.T) {
		f := healthy(t)
		con, err := f.c.NewConsumer(engine.ConsumerOptions{GroupID: "g"})
		f.must(err)
		f.must(con.Subscribe([]string{"t"}))
		o := invariant.Observe(f.c)
		g := &o.Groups[0]
		g.Members[1].Assignment = append(g.Members[1].Assignment, g.Members[0].Assignment...)
		has(t, o.Check(), invariant.AssignmentDisjoint)
	},
	invariant.Observable: func(t *testing.T) {
		f := open(t, func(c *engine.Config) { c.SegmentBytes = 100 })
		f.topic("t", 1, 1)
		for _, v := range []string{"a", "b", "c", "d"} {
			f.produce(t0, v, engine.Acks1)
		}
		// A bit flipped in a closed segment: the running log reads it
		// from the file and finds the damage.
		_, err := f.c.Corrupt(t0, 1, 0, engine.CorruptFlip, 0)
		f.must(err)
		has(t, invariant.Check(f.c), invariant.Observable)
	},
	invariant.HWMonotone: func(t *testing.T) {
		f := healthy(t)
		var m invariant.Monitor
		m.Check(invariant.Observe(f.c))
		o := invariant.Observe(f.c)
		o.Partitions[0].HW--
		o.Partitions[0].Readable = o.Partitions[0].Readable[:len(o.Partitions[0].Readable)-1]
		has(t, m.Check(o), invariant.HWMonotone, invariant.LSOWithinHW, invariant.CommittedWithinHW)
	},
	invariant.EpochMonotone: func(t *testing.T) {
		f := healthy(t)
		f.must(f.c.Promote(t0, 2))
		var m invariant.Monitor
		m.Check(invariant.Observe(f.c))
		o := invariant.Observe(f.c)
		o.Partitions[0].LeaderEpoch--
		has(t, m.Check(o), invariant.EpochMonotone)
	},
	invariant.AckedNotLost: func(t *testing.T) {
		// acks=1 promises less than the monitor is told: the leader
		// acknowledges alone, its broker fails, and a follower that never
		// had the record is promoted.
		f := open(t, nil)
		f.topic("t", 1, 3)
		ack := f.produce(t0, "only-on-the-leader", engine.Acks1)
		var m invariant.Monitor
		m.Acknowledged(t0, ack.Value().BaseOffset, rec("only-on-the-leader"))
		f.must(f.c.CrashBroker(1, false))
		f.must(f.c.Promote(t0, 2))
		m.Events(f.c.TakeEvents())
		has(t, m.Observe(f.c), invariant.AckedNotLost)
		if invariant.Promised(engine.Acks1, 3) {
			t.Fatal("acks=1 is promised")
		}
	},
	invariant.CommittedNotLost: func(t *testing.T) {
		// A reopen recomputes the HW (decision 8); a monitor not told of
		// it sees the committed records, and the HW, disappear.
		f, m := reopenLosingTheHW(t)
		has(t, m.Observe(f.c), invariant.CommittedNotLost, invariant.HWMonotone, invariant.CommittedWithinHW)
	},
}

// kip101 plays KIP-101's first scenario under rules=kafka with a manual
// controller and the given truncation rule: two records committed and seen
// by a consumer, the follower (which knows HW 1) restarts, the leader dies,
// the follower is elected. The Monitor returned saw HW 2 before.
func kip101(t *testing.T, truncation string) (*fixture, *invariant.Monitor) {
	f := open(t, func(c *engine.Config) {
		f := func(err error) {
			if err != nil {
				t.Fatal(err)
			}
		}
		f(c.SetAll([]engine.Setting{{Name: "rules", Value: "kafka"}, {Name: "controller", Value: "manual"}, {Name: "truncation", Value: truncation}}))
	})
	f.topic("t", 1, 2)
	f.produce(t0, "m1", engine.AcksAll)
	f.replicate()
	f.replicate()
	f.produce(t0, "m2", engine.AcksAll)
	f.replicate()
	m := &invariant.Monitor{}
	if vs := m.Observe(f.c); len(vs) > 0 {
		t.Fatal(vs)
	}
	f.must(m.SawHW(f.c, t0))
	f.must(f.c.CrashBroker(2, true))
	_, err := f.c.RestartBroker(2)
	f.must(err)
	f.must(f.c.CrashBroker(1, true))
	f.must(f.c.Promote(t0, 2))
	m.Events(f.c.TakeEvents())
	return f, m
}

// TestCleanElectionKeepsCommittedUnderLeaderEpoch: KIP-101's scenario keeps
// every committed record under truncation=leader-epoch.
func TestCleanElectionKeepsCommittedUnderLeaderEpoch(t *testing.T) {
	f, m := kip101(t, "leader-epoch")
	if vs := m.Observe(f.c); len(vs) > 0 {
		t.Fatal(vs)
	}
}

// reopenLosingTheHW: three records replicated to every replica and seen by
// a consumer (and committed by its group), then a follower's machine fails
// and loses them (they were never flushed), and the cluster reopens: the
// HW is the minimum LEO over the replicas, 0.
func reopenLosingTheHW(t *testing.T) (*fixture, *invariant.Monitor) {
	f := open(t, nil)
	f.topic("t", 1, 3)
	for _, v := range []string{"a", "b", "c"} {
		f.produce(t0, v, engine.Acks1)
	}
	f.replicate()
	f.replicate()
	con, err := f.c.NewConsumer(engine.ConsumerOptions{GroupID: "g"})
	f.must(err)
	f.must(con.Assign([]engine.TopicPartition{t0}))
	_, err = con.Poll(10)
	f.must(err)
	f.must(con.Commit())
	m := &invariant.Monitor{}
	if vs := m.Observe(f.c); len(vs) > 0 {
		t.Fatal(vs)
	}
	f.must(m.SawHW(f.c, t0))
	f.must(f.c.CrashBroker(2, false))
	f.must(f.c.Close())
	f.reopen()
	if st, _ := f.c.PartitionState(t0); st.HW != 0 {
		t.Fatalf("HW after the reopen is %d, want 0", st.HW)
	}
	return f, m
}

// TestEveryPropertyCanFail: each property has a situation that breaks it,
// so none is vacuous.
func TestEveryPropertyCanFail(t *testing.T) {
	t.Parallel()
	for _, name := range invariant.Properties() {
		fail, ok := canFail[name]
		if !ok {
			t.Errorf("property %s has no failing situation", name)
			continue
		}
		t.Run(name, fail)
	}
	if len(canFail) != len(invariant.Properties()) {
		t.Errorf("%d failing situations for %d properties", len(canFail), len(invariant.Properties()))
	}
}

// TestReopenedExcusesWhatDecision8Drops: told of the reopen, the monitor
// gives up the records and the HW the reopen dropped, and excuses the
// committed offset left above the new HW.
func TestReopenedExcusesWhatDecision8Drops(t *testing.T) {
	t.Parallel()
	f, m := reopenLosingTheHW(t)
	f.must(m.Reopened(f.c, f.c.TakeEvents()))
	if vs := m.Observe(f.c); len(vs) > 0 {
		t.Fatalf("violations after Reopened: %v", vs)
	}
}

// TestPromisedWriteSurvivesTheLeader: the companion of the acked-not-lost
// failure: with acks=all and min.insync.replicas 2 the same crash and
// promotion lose nothing.
func TestPromisedWriteSurvivesTheLeader(t *testing.T) {
	t.Parallel()
	f := open(t, func(c *engine.Config) { c.MinInsyncReplicas = 2 })
	f.topic("t", 1, 3)
	ack := f.produce(t0, "kept", engine.AcksAll)
	f.replicate()
	f.replicate()
	if ack.State() != engine.Done || !invariant.Promised(engine.AcksAll, f.c.Config().MinInsyncReplicas) {
		t.Fatalf("ack %v", ack.State())
	}
	var m invariant.Monitor
	m.Acknowledged(t0, ack.Value().BaseOffset, rec("kept"))
	f.must(f.c.CrashBroker(1, false))
	f.must(f.c.Promote(t0, 2))
	m.Events(f.c.TakeEvents())
	if vs := m.Observe(f.c); len(vs) > 0 {
		t.Fatalf("violations: %v", vs)
	}
}

// TestDataLostForgives: a data_lost event is the engine saying the records
// at or above its new HW are gone; the monitor stops holding them.
func TestDataLostForgives(t *testing.T) {
	t.Parallel()
	f := healthy(t)
	var m invariant.Monitor
	m.Check(invariant.Observe(f.c))
	m.Acknowledged(t0, 2, rec("c"))
	f.must(m.SawHW(f.c, t0))
	o := invariant.Observe(f.c)
	o.Partitions[0].Readable = o.Partitions[0].Readable[:2] // offset 2 is gone
	m.Events([]engine.Event{engine.DataLost{TP: t0, Broker: 1, From: 3, To: 2}})
	if vs := m.Check(o); len(vs) > 0 {
		t.Fatalf("violations: %v", vs)
	}
}

func TestViolationString(t *testing.T) {
	t.Parallel()
	v := invariant.Violation{Property: invariant.LogsAgree, TP: t0, Broker: 2, Detail: "holds other bytes"}
	if got, want := v.String(), "logs-agree t-0 broker 2: holds other bytes"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	v = invariant.Violation{Property: invariant.CommittedWithinHW, TP: t0, Broker: -1, Group: "g", Detail: "x"}
	if got, want := v.String(), "committed-le-hw t-0 group g: x"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
}
