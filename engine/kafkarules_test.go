package engine_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/producer"
)

// withRules opens a cluster whose config takes the given settings (rules=
// first, as cluster open does).
func withRules(t *testing.T, brokers []int32, settings ...string) *fixture {
	t.Helper()
	return open(t, brokers, func(c *engine.Config) {
		var s []engine.Setting
		for _, kv := range settings {
			k, v, _ := strings.Cut(kv, "=")
			s = append(s, engine.Setting{Name: k, Value: v})
		}
		if err := c.SetAll(s); err != nil {
			t.Fatal(err)
		}
	})
}

func hasEvent(evs []engine.Event, kind, text string) bool {
	for _, e := range evs {
		if e.Kind() == kind && strings.Contains(e.String(), text) {
			return true
		}
	}
	return false
}

// rules=kafka sets every rule knob; a single rule named beside it wins
// whatever the order; rules=minikafka is the default.
func TestRuleSetsAndSingleKnobs(t *testing.T) {
	def := engine.DefaultConfig("x")
	if def.Rules != engine.MiniKafkaRules() || def.Rules.Summary() != "rules=minikafka" {
		t.Fatalf("default rules %+v", def.Rules)
	}
	c := engine.DefaultConfig("x")
	if err := c.SetAll([]engine.Setting{{Name: "truncation", Value: "high-watermark"}, {Name: "rules", Value: "kafka"}}); err != nil {
		t.Fatal(err)
	}
	want := engine.KafkaRules()
	want.Truncation = "high-watermark"
	if c.Rules != want || c.Rules.Summary() != "rules=kafka with truncation=high-watermark" {
		t.Fatalf("rules %+v, summary %q", c.Rules, c.Rules.Summary())
	}
	for _, bad := range []engine.Setting{{Name: "rules", Value: "zookeeper"}, {Name: "truncation", Value: "hw"},
		{Name: "idempotence.window", Value: "6"}, {Name: "unclean.leader.election.enable", Value: "maybe"}} {
		before := c
		if err := c.SetAll([]engine.Setting{bad}); !errors.Is(err, kerr.InvalidArgument) || c.Rules != before.Rules {
			t.Errorf("%s=%s: %v, rules changed: %v", bad.Name, bad.Value, err, c.Rules != before.Rules)
		}
	}
}

// The seeds' chapter 1 result under both rule sets: key alice on a
// 2-partition topic is partition 1, offset 0 (crc32("alice") % 2 = 1, and
// Kafka's toPositive(murmur2("alice")) = 1951417749, % 2 = 1); on three
// partitions the rules differ (crc32: 2, murmur2: 0).
func TestAlicePartitionUnderBothRuleSets(t *testing.T) {
	for _, c := range []struct {
		rules   string
		twoPart int32
		three   int32
	}{{"minikafka", 1, 2}, {"kafka", 1, 0}} {
		f := withRules(t, []int32{1}, "rules="+c.rules)
		f.topic("orders", 2, 1)
		f.topic("three", 3, 1)
		ack, err := f.c.Produce("orders", engine.AnyPartition, keyed("alice", "created"), engine.Acks1)
		if err != nil || ack.Value().TP.Partition != c.twoPart || ack.Value().BaseOffset != 0 {
			t.Fatalf("%s: alice -> %+v %v, want orders-%d@0", c.rules, ack.Value(), err, c.twoPart)
		}
		ack, err = f.c.Produce("three", engine.AnyPartition, keyed("alice", "created"), engine.Acks1)
		if err != nil || ack.Value().TP.Partition != c.three {
			t.Fatalf("%s: alice on three partitions -> %d, want %d", c.rules, ack.Value().TP.Partition, c.three)
		}
	}
}

// The KIP-101 promotion rule: a new leader keeps the records it holds above
// the old HW under truncation=leader-epoch (Kafka since 0.11 keeps the new
// leader's log), and discards them under truncation=high-watermark
// (MiniKafka keeps only the committed prefix).
func TestNewLeaderKeepsRecordsAboveHWUnderLeaderEpochKIP101(t *testing.T) {
	for _, c := range []struct {
		truncation string
		wantLEO    int64
		wantValues []string
	}{
		{"leader-epoch", 2, []string{"a", "b"}},
		{"high-watermark", 1, []string{"a"}},
	} {
		t.Run(c.truncation, func(t *testing.T) {
			f := withRules(t, []int32{1, 2, 3}, "truncation="+c.truncation)
			f.topic("t", 1, 3)
			p := tp("t", 0)
			f.append(p, batchOf("a"), engine.AcksAll)
			f.replicate(&p)
			// b reaches broker 2 only: the HW stays at 1 (broker 3 has 1).
			f.append(p, batchOf("b"), engine.Acks1)
			if _, err := f.c.Replicate(&p, 2); err != nil {
				t.Fatal(err)
			}
			if f.hw(p) != 1 || f.leo(p, 2) != 2 {
				t.Fatalf("setup: HW %d, LEO@2 %d", f.hw(p), f.leo(p, 2))
			}
			if err := f.c.CrashBroker(1, true); err != nil {
				t.Fatal(err)
			}
			if err := f.c.Promote(p, 2); err != nil {
				t.Fatal(err)
			}
			if f.leo(p, 2) != c.wantLEO {
				t.Fatalf("new leader LEO %d, want %d", f.leo(p, 2), c.wantLEO)
			}
			f.replicate(&p)
			f.replicate(&p)
			if got := f.values(p, engine.ReadUncommitted); !slices.Equal(got, c.wantValues) {
				t.Fatalf("visible %q, want %q", got, c.wantValues)
			}
			if got := f.replicaValues(p, 3); !slices.Equal(got, c.wantValues) {
				t.Fatalf("broker 3 holds %q, want %q", got, c.wantValues)
			}
		})
	}
}

// KIP-101's first scenario (data loss): followers learn the HW one round
// late; a follower that restarts and truncates to its own HW, then becomes
// leader, loses a record that acks=all acknowledged. It happens under
// truncation=high-watermark with follower.hw=fetch (Kafka before 0.11) and
// never under truncation=leader-epoch (KIP-101, Kafka 0.11+). The story is
// ZooKeeper-era, so the controller is manual: a restarted follower stays in
// the ISR until the leader's lag rule says otherwise, and the learner
// elects it (under KRaft a restarted broker re-registers fenced, outside
// the ISR, and the story cannot happen).
func TestKIP101CommittedDataLossWithFollowerHWLag(t *testing.T) {
	for _, c := range []struct {
		truncation string
		wantValues []string
		lost       bool
	}{
		{"high-watermark", []string{"m1"}, true},
		{"leader-epoch", []string{"m1", "m2"}, false},
	} {
		t.Run(c.truncation, func(t *testing.T) {
			f := withRules(t, []int32{1, 2}, "rules=kafka", "controller=manual", "truncation="+c.truncation)
			f.topic("t", 1, 2)
			p := tp("t", 0)
			m1 := f.append(p, batchOf("m1"), engine.AcksAll)
			f.replicate(&p) // leader HW 1; the follower learns HW 0
			f.replicate(&p) // the follower learns HW 1
			m2 := f.append(p, batchOf("m2"), engine.AcksAll)
			f.replicate(&p) // leader HW 2, m2 acknowledged; the follower knows HW 1
			if m1.State() != engine.Done || m2.State() != engine.Done {
				t.Fatalf("acks: %v %v", m1.State(), m2.State())
			}
			st := f.state(p)
			if st.HW != 2 || st.Replicas[1].HW != 1 {
				t.Fatalf("leader HW %d, follower HW %d, want 2 and 1", st.HW, st.Replicas[1].HW)
			}
			// The follower's process restarts (its page cache survives).
			if err := f.c.CrashBroker(2, true); err != nil {
				t.Fatal(err)
			}
			if _, err := f.c.RestartBroker(2); err != nil {
				t.Fatal(err)
			}
			// Before it fetches again, the leader dies and the follower,
			// still in the ISR, is elected.
			if err := f.c.CrashBroker(1, true); err != nil {
				t.Fatal(err)
			}
			if err := f.c.Promote(p, 2); err != nil {
				t.Fatal(err)
			}
			st = f.state(p)
			if st.Leader != 2 || !st.Online {
				t.Fatalf("leader %d online %v, want broker 2", st.Leader, st.Online)
			}
			if got := f.replicaValues(p, 2); !slices.Equal(got, c.wantValues) {
				t.Fatalf("new leader holds %q, want %q", got, c.wantValues)
			}
			if c.lost != !slices.Contains(f.replicaValues(p, 2), "m2") {
				t.Fatalf("m2 lost: %v, want %v", !c.lost, c.lost)
			}
			// Broker 1 comes back and follows: under high-watermark it ends
			// up without m2 too; under leader-epoch both keep it.
			if _, err := f.c.RestartBroker(1); err != nil {
				t.Fatal(err)
			}
			f.replicate(&p)
			f.replicate(&p)
			if got := f.replicaValues(p, 1); !slices.Equal(got, c.wantValues) {
				t.Fatalf("broker 1 holds %q, want %q", got, c.wantValues)
			}
		})
	}
}

// KAFKA-15583 (Kafka 3.7+, Partition.maybeIncrementLeaderHW): the HW does
// not advance while the ISR is below min.insync.replicas, so an acks=all
// write appended before the ISR shrank waits and fails REQUEST_TIMED_OUT
// after request.timeout.ms, and even an acks=1 record stays invisible.
// MiniKafka (and Kafka before 3.7) advances the HW to the leader's LEO and
// fails the write NOT_ENOUGH_REPLICAS_AFTER_APPEND.
func TestHWFrozenUnderMinISRKAFKA15583(t *testing.T) {
	for _, c := range []struct {
		rule     string
		wantCode kerr.Code
		wantHW   int64
	}{
		{"hold", kerr.RequestTimedOut, 1},
		{"advance", kerr.NotEnoughReplicasAfterAppend, 3},
	} {
		t.Run(c.rule, func(t *testing.T) {
			f := withRules(t, []int32{1, 2, 3}, "hw.under.min.isr="+c.rule, "min.insync.replicas=2", "replica.lag.time.max.ms=1000")
			f.topic("t", 1, 3)
			p := tp("t", 0)
			f.append(p, batchOf("a"), engine.AcksAll)
			f.replicate(&p)
			d := f.append(p, batchOf("d"), engine.AcksAll)
			// Both followers stop fetching; after the lag time the ISR is
			// the leader alone.
			f.advance(1001)
			if got := f.isr(p); !slices.Equal(got, []int32{1}) {
				t.Fatalf("ISR %v", got)
			}
			f.append(p, batchOf("c"), engine.Acks1)
			if c.rule == "hold" {
				if d.State() != engine.Pending {
					t.Fatalf("acks=all settled early: %v", d.Err())
				}
				f.advance(28_998) // 29999 ms after the append
				if d.State() != engine.Pending {
					t.Fatalf("acks=all settled before request.timeout.ms: %v", d.Err())
				}
				f.advance(1) // request.timeout.ms after the append
			}
			wantCode(t, d.Err(), c.wantCode, "")
			if f.hw(p) != c.wantHW {
				t.Fatalf("HW %d, want %d", f.hw(p), c.wantHW)
			}
			// acks=all is refused before appending in both.
			_, err := f.c.AppendBatch(p, batchOf("e"), engine.AcksAll)
			wantCode(t, err, kerr.NotEnoughReplicas, "")
		})
	}
}

// Kafka 3.7+ caps the effective min.insync.replicas at the replication
// factor (Partition.effectiveMinIsr): acks=all on an rf=1 topic with
// min.insync.replicas=2 is accepted. MiniKafka refuses it.
func TestEffectiveMinISRCappedAtReplicationFactor(t *testing.T) {
	for _, c := range []struct {
		rule string
		ok   bool
	}{{"hold", true}, {"advance", false}} {
		f := withRules(t, []int32{1, 2}, "hw.under.min.isr="+c.rule, "min.insync.replicas=2")
		f.topic("t", 1, 1)
		_, err := f.c.AppendBatch(tp("t", 0), batchOf("a"), engine.AcksAll)
		if c.ok != (err == nil) {
			t.Fatalf("%s: %v", c.rule, err)
		}
		if !c.ok {
			wantCode(t, err, kerr.NotEnoughReplicas, "")
		}
	}
}

// The KRaft controller fences a crashed broker once its session has
// expired (BrokerHeartbeatManager.hasValidSession: valid while lastContact +
// broker.session.timeout.ms >= now, so still valid at exactly 9000 ms and
// fenced 1 ms later), removes it from every ISR and elects the first
// running ISR member in assignment order (ReplicationControlManager
// .handleBrokerFenced, PartitionChangeBuilder.electAnyLeader).
func TestControllerFencesAtBrokerSessionTimeoutAndElectsFromISR(t *testing.T) {
	f := withRules(t, []int32{1, 2, 3}, "controller=kraft")
	f.topic("t", 2, 3) // t-0 led by 1 [1 2 3], t-1 led by 2 [2 3 1]
	p0, p1 := tp("t", 0), tp("t", 1)
	f.append(p0, batchOf("a"), engine.AcksAll)
	f.replicate(nil)
	f.c.TakeEvents()
	if err := f.c.CrashBroker(1, false); err != nil {
		t.Fatal(err)
	}
	f.advance(9000)
	if st := f.state(p0); st.Online || st.Leader != 1 {
		t.Fatalf("fenced early: leader %d online %v", st.Leader, st.Online)
	}
	f.c.TakeEvents()
	f.advance(1)
	evs := f.c.TakeEvents()
	if !hasEvent(evs, "broker_fenced", "broker 1: no heartbeat for 9001 ms > broker.session.timeout.ms=9000") {
		t.Fatalf("no fencing event: %q", eventKinds(evs))
	}
	st := f.state(p0)
	if st.Leader != 2 || !st.Online || st.LeaderEpoch != 1 {
		t.Fatalf("t-0: leader %d epoch %d online %v, want broker 2", st.Leader, st.LeaderEpoch, st.Online)
	}
	wantInts(t, "t-0 ISR", st.ISRStored, []int32{2, 3})
	if got := f.values(p0, engine.ReadUncommitted); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("t-0 reads %q", got)
	}
	// t-1's leader was not fenced: only the ISR shrank, no new epoch.
	st = f.state(p1)
	if st.Leader != 2 || st.LeaderEpoch != 0 {
		t.Fatalf("t-1: leader %d epoch %d", st.Leader, st.LeaderEpoch)
	}
	wantInts(t, "t-1 ISR", st.ISRStored, []int32{2, 3})
	bs, _ := f.c.Brokers()
	if !bs[0].Fenced || bs[1].Fenced {
		t.Fatalf("fenced flags: %+v", bs)
	}
	// Under controller=manual nothing happens: promote by hand.
	m := withRules(t, []int32{1, 2}, "controller=manual")
	m.topic("t", 1, 2)
	m.c.CrashBroker(1, false)
	m.advance(60_000)
	if st := m.state(tp("t", 0)); st.Online || st.Leader != 1 {
		t.Fatalf("manual: leader %d online %v", st.Leader, st.Online)
	}
}

// Unclean leader election (unclean.leader.election.enable,
// PartitionChangeBuilder.electAnyLeader with Election.UNCLEAN): when no ISR
// member is alive the controller may elect an out-of-sync replica, which
// loses records acks=all acknowledged; the loss is reported. Disabled (the
// default), the partition stays without a leader and nothing is lost.
func TestUncleanElectionLosesAcknowledgedDataOnlyWhenEnabled(t *testing.T) {
	for _, unclean := range []bool{false, true} {
		name := "disabled"
		if unclean {
			name = "enabled"
		}
		t.Run(name, func(t *testing.T) {
			f := withRules(t, []int32{1, 2}, "rules=kafka")
			f.topic("t", 1, 2)
			p := tp("t", 0)
			f.append(p, batchOf("a"), engine.AcksAll)
			f.replicate(&p)
			// The follower dies and is fenced: the ISR is {1}, and acks=all
			// acknowledges b on the leader alone (min.insync.replicas=1).
			f.c.CrashBroker(2, true)
			f.advance(9001)
			wantInts(t, "ISR", f.isr(p), []int32{1})
			b := f.append(p, batchOf("b"), engine.AcksAll)
			if b.State() != engine.Done {
				t.Fatalf("b not acknowledged: %v", b.State())
			}
			// The follower comes back, behind; then the leader dies.
			if _, err := f.c.RestartBroker(2); err != nil {
				t.Fatal(err)
			}
			f.c.CrashBroker(1, true)
			if unclean {
				if _, err := f.c.SetConfig("unclean.leader.election.enable", "true"); err != nil {
					t.Fatal(err)
				}
			}
			f.c.TakeEvents()
			f.advance(9001)
			evs := f.c.TakeEvents()
			st := f.state(p)
			if !unclean {
				if st.Online || !hasEvent(evs, "leader_lost", "no in-sync replica is running") {
					t.Fatalf("disabled: online %v, events %q", st.Online, eventKinds(evs))
				}
				// The last ISR member comes back and leads: nothing lost.
				if _, err := f.c.RestartBroker(1); err != nil {
					t.Fatal(err)
				}
				f.replicate(&p)
				f.replicate(&p)
				if got := f.values(p, engine.ReadUncommitted); !slices.Equal(got, []string{"a", "b"}) {
					t.Fatalf("disabled: reads %q", got)
				}
				return
			}
			if st.Leader != 2 || !st.Online || !hasEvent(evs, "data_lost", "unclean election") {
				t.Fatalf("enabled: leader %d online %v, events %q", st.Leader, st.Online, eventKinds(evs))
			}
			f.produceAndReplicate(p, "c")
			if _, err := f.c.RestartBroker(1); err != nil {
				t.Fatal(err)
			}
			f.replicate(&p)
			f.replicate(&p)
			for _, broker := range []int32{1, 2} {
				if got := f.replicaValues(p, broker); !slices.Equal(got, []string{"a", "c"}) {
					t.Fatalf("broker %d holds %q, want [a c]: b was lost", broker, got)
				}
			}
		})
	}
}

// KAFKA-12670 (3.9): a partition already without a leader is elected
// uncleanly at the controller's next periodic check
// (QuorumController.maybeScheduleNextElectUncleanLeaders, every
// unclean.leader.election.interval.ms, 5 minutes), not when the setting
// changes; fencing and a broker's return elect at once.
func TestUncleanElectionWaitsForThePeriodicCheck(t *testing.T) {
	f := withRules(t, []int32{1, 2}, "rules=kafka")
	f.topic("t", 1, 2)
	p := tp("t", 0)
	f.append(p, batchOf("a"), engine.AcksAll)
	f.replicate(&p)
	f.c.CrashBroker(2, true)
	f.advance(9001) // broker 2 fenced: ISR {1}
	if _, err := f.c.RestartBroker(2); err != nil {
		t.Fatal(err)
	}
	f.c.CrashBroker(1, true)
	f.advance(9001) // broker 1 fenced: no ISR member runs, no leader
	if f.state(p).Online {
		t.Fatal("elected with unclean.leader.election.enable=false")
	}
	if _, err := f.c.SetConfig("unclean.leader.election.enable", "true"); err != nil {
		t.Fatal(err)
	}
	// The clock is at 18002 ms; the first check is due at 300000 ms.
	f.advance(300_000 - 18_002 - 1)
	if f.state(p).Online {
		t.Fatal("elected before the periodic check")
	}
	f.advance(1)
	if st := f.state(p); !st.Online || st.Leader != 2 {
		t.Fatalf("after the check: leader %d online %v", st.Leader, st.Online)
	}
}

func (f *fixture) produceAndReplicate(p engine.TopicPartition, value string) {
	f.t.Helper()
	f.append(p, batchOf(value), engine.Acks1)
	f.replicate(&p)
}

// Partition.checkEnoughReplicasReachOffset: a pending acks=all request whose
// partition changes leader is answered NOT_LEADER_OR_FOLLOWER under
// errors=kafka; MiniKafka fails it FENCED_LEADER_EPOCH.
func TestPendingAcksAllOnLeaderChangeNotLeaderOrFollower(t *testing.T) {
	for _, c := range []struct {
		errs string
		want kerr.Code
	}{{"kafka", kerr.NotLeaderOrFollower}, {"minikafka", kerr.FencedLeaderEpoch}} {
		f := withRules(t, []int32{1, 2}, "errors="+c.errs)
		f.topic("t", 1, 2)
		p := tp("t", 0)
		ack := f.append(p, batchOf("a"), engine.AcksAll)
		if err := f.c.Promote(p, 2); err != nil {
			t.Fatal(err)
		}
		wantCode(t, ack.Err(), c.want, "")
	}
}

// ProducerAppendInfo.checkProducerEpoch: since Kafka 2.7 a partition answers
// a stale producer epoch with INVALID_PRODUCER_EPOCH (PRODUCER_FENCED is the
// transaction coordinator's); MiniKafka answers PRODUCER_FENCED.
func TestStaleProducerEpochInvalidProducerEpoch(t *testing.T) {
	for _, c := range []struct {
		errs string
		want kerr.Code
	}{{"kafka", kerr.InvalidProducerEpoch}, {"minikafka", kerr.ProducerFenced}} {
		f := withRules(t, []int32{1}, "errors="+c.errs)
		f.topic("t", 1, 1)
		old := f.producer(func(o *producer.Options) { o.Name, o.Idempotent, o.BatchSize = "w", true, 1 })
		f.producer(func(o *producer.Options) { o.Name, o.Idempotent, o.BatchSize = "w", true, 1 })
		fut, err := old.Send("t", engine.AnyPartition, rec("zombie"))
		if err == nil {
			err = fut.Err()
		}
		wantCode(t, err, c.want, "")
	}
}

// Replica.isCaughtUp: under Kafka's ISR rule a follower at the leader's LEO
// is never out of sync, however long it is silent; MiniKafka removes it
// after replica.lag.time.max.ms without a fetch. With writes going on, a
// silent follower leaves under both.
func TestCaughtUpFollowerNeverLeavesISRForSilence(t *testing.T) {
	for _, c := range []struct {
		rule       string
		stayIdle   bool
		stayWrites bool
	}{{"last-caught-up", true, false}, {"last-fetch", false, false}} {
		f := withRules(t, []int32{1, 2}, "replica.lag.from="+c.rule)
		f.topic("t", 1, 2)
		p := tp("t", 0)
		f.append(p, batchOf("a"), engine.Acks1)
		f.replicate(&p)
		f.advance(60_000)
		if got := slices.Contains(f.isr(p), 2); got != c.stayIdle {
			t.Fatalf("%s, idle: in ISR %v, want %v", c.rule, got, c.stayIdle)
		}
		f.replicate(&p)
		f.append(p, batchOf("b"), engine.Acks1)
		f.advance(10_001)
		if got := slices.Contains(f.isr(p), 2); got != c.stayWrites {
			t.Fatalf("%s, writes: in ISR %v, want %v", c.rule, got, c.stayWrites)
		}
	}
}

// Cluster.EndOffsetForLeaderEpoch answers OffsetsForLeaderEpoch from the
// leader with Kafka's semantics, under either rule set.
func TestClusterEndOffsetForLeaderEpoch(t *testing.T) {
	f := withRules(t, []int32{1, 2}, "rules=kafka")
	f.topic("t", 1, 2)
	p := tp("t", 0)
	f.append(p, batchOf("a", "b"), engine.Acks1) // epoch 0: offsets 0..1
	f.replicate(&p)
	if err := f.c.Promote(p, 2); err != nil { // epoch 1 from offset 2
		t.Fatal(err)
	}
	f.append(p, batchOf("c"), engine.Acks1)
	for _, c := range []struct {
		req       int32
		wantEpoch int32
		wantEnd   int64
	}{{0, 0, 2}, {1, 1, 3}, {2, -1, -1}, {-1, -1, -1}} {
		e, end, err := f.c.EndOffsetForLeaderEpoch(p, c.req)
		if err != nil || e != c.wantEpoch || end != c.wantEnd {
			t.Errorf("epoch %d: (%d, %d, %v), want (%d, %d)", c.req, e, end, err, c.wantEpoch, c.wantEnd)
		}
	}
	if _, _, err := f.c.EndOffsetForLeaderEpoch(tp("nosuch", 0), 0); !errors.Is(err, kerr.UnknownTopic) {
		t.Errorf("unknown topic: %v", err)
	}
	f.c.CrashBroker(2, false)
	if _, _, err := f.c.EndOffsetForLeaderEpoch(p, 0); !errors.Is(err, kerr.LeaderNotAvailable) {
		t.Errorf("leader down: %v", err)
	}
}

// Under the KRaft controller a restarted broker is a new incarnation: it
// cannot register while its old session is valid
// (ClusterControlManager.registerBroker: DuplicateBrokerRegistrationException),
// so it registers after the controller fenced the old incarnation, which
// removed it from every ISR. It comes back outside the ISR and rejoins by
// catching up.
func TestRestartedBrokerReregistersOutsideISRDuplicateBrokerRegistration(t *testing.T) {
	f := withRules(t, []int32{1, 2, 3}, "rules=kafka")
	f.topic("t", 1, 3)
	p := tp("t", 0)
	f.append(p, batchOf("a"), engine.AcksAll)
	f.replicate(&p)
	f.c.CrashBroker(3, true)
	f.c.TakeEvents()
	if _, err := f.c.RestartBroker(3); err != nil {
		t.Fatal(err)
	}
	if evs := f.c.TakeEvents(); !hasEvent(evs, "broker_fenced", "new incarnation") {
		t.Fatalf("events %q", eventKinds(evs))
	}
	wantInts(t, "ISR after the restart", f.isr(p), []int32{1, 2})
	f.replicate(&p)
	wantInts(t, "ISR after a fetch", f.state(p).ISRStored, []int32{1, 2, 3})
}
