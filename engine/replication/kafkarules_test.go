package replication

import (
	"errors"
	"slices"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/storage"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// kafkaRules is the replication part of rules=kafka.
func kafkaRules() Rules {
	return Rules{Truncation: TruncateByLeaderEpoch, FollowerHW: FetchedHW, HighWatermark: HoldUnderMinISR,
		ISRLag: LagFromLastCaughtUp, Errors: KafkaErrors, DedupeWindow: MaxDedupeWindow, RequestTimeoutMs: 30_000, KeepISR: true}
}

// testSet builds a replica set over the given logs (assignment order is
// the map's broker ids sorted) with leader and epoch, under rules.
func testSet(t *testing.T, rules Rules, leader, epoch int32, logs map[int32]*storage.Log) (*ReplicaSet, *EventLog) {
	t.Helper()
	var ids []int32
	for b := range logs {
		ids = append(ids, b)
	}
	slices.Sort(ids)
	events := &EventLog{}
	env := &Env{Clock: clock.NewManual(0), Events: events, IDs: &IDSource{}, Settings: &Settings{
		MinInsyncReplicas: 1, Lag: LagConfig{MaxOffsets: 10_000, MaxTimeMs: 10_000}, FetchMaxBytes: 1 << 20, Rules: rules,
	}}
	rs, err := NewReplicaSet(env, topic.Partition{Topic: "t"}, ids, leader, epoch, logs)
	if err != nil {
		t.Fatal(err)
	}
	return rs, events
}

// epochsLog is a log that starts at offset start and holds, for each
// (epoch, n) pair, n one-record batches written in that epoch.
func epochsLog(t *testing.T, name string, start int64, spans ...[2]int) *storage.Log {
	t.Helper()
	l := divergenceLog(t, name)
	if start > 0 {
		if err := l.ResetTo(start); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range spans {
		appendAt(t, l, int32(s[0]), s[1])
	}
	return l
}

// OffsetsForLeaderEpoch answers as LeaderEpochFileCache.endOffsetFor does
// (LeaderEpochFileCacheTest: shouldReturnNextAvailableEpochIfThereIsNoExact
// EpochForTheOneRequested, shouldReturnFirstEpochIfRequestedEpochLessThan
// FirstEpoch, the latest epoch ending at the LEO, and undefined for a newer
// or undefined epoch).
func TestEndOffsetForLeaderEpochLeaderEpochFileCache(t *testing.T) {
	// Epoch 0 from 10, epoch 2 from 13, epoch 4 from 17; LEO 20.
	l := epochsLog(t, "l", 10, [2]int{0, 3}, [2]int{2, 4}, [2]int{4, 3})
	v := epochView{log: l}
	for _, c := range []struct {
		req       int32
		wantEpoch int32
		wantEnd   int64
	}{
		{1, 0, 13}, {2, 2, 17}, {3, 2, 17}, // the next available epoch
		{4, 4, 20}, // the latest epoch ends at the LEO
		{5, UndefinedEpoch, UndefinedEpochOffset}, // newer than any known
		{UndefinedEpoch, UndefinedEpoch, UndefinedEpochOffset},
		{0, 0, 13},
	} {
		e, end, err := v.endOffsetFor(c.req)
		if err != nil || e != c.wantEpoch || end != c.wantEnd {
			t.Errorf("endOffsetFor(%d) = (%d, %d, %v), want (%d, %d)", c.req, e, end, err, c.wantEpoch, c.wantEnd)
		}
	}
	// Epochs 5, 6, 7 from 11, 12, 13: an epoch below the first is answered
	// with itself and the first epoch's start offset.
	first := epochsLog(t, "first", 11, [2]int{5, 1}, [2]int{6, 1}, [2]int{7, 1})
	if e, end, err := (epochView{log: first}).endOffsetFor(4); err != nil || e != 4 || end != 11 {
		t.Errorf("endOffsetFor(4) = (%d, %d, %v), want (4, 11)", e, end, err)
	}
	// A leader that has not written in its current epoch yet still knows
	// it (Partition.makeLeader assigns it at the LEO): the previous epoch
	// ends where the current one starts.
	lead := epochView{log: l, current: &epochEntry{epoch: 6, start: 20}}
	if e, end, err := lead.endOffsetFor(4); err != nil || e != 4 || end != 20 {
		t.Errorf("with current epoch 6: endOffsetFor(4) = (%d, %d, %v), want (4, 20)", e, end, err)
	}
	if e, end, _ := lead.endOffsetFor(6); e != 6 || end != 20 {
		t.Errorf("current epoch: (%d, %d), want (6, 20)", e, end)
	}
	got, err := lead.entries()
	want := []epochEntry{{0, 10}, {2, 13}, {4, 17}, {6, 20}}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("entries = %v %v, want %v", got, err, want)
	}
}

// KIP-279's case: the leader answers with an epoch the follower never had,
// so the follower cuts to the end of its own earlier epoch and asks again
// (AbstractFetcherThread.getOffsetTruncationState, truncationCompleted =
// false), until the logs agree.
func TestReconcileKIP279TwoRounds(t *testing.T) {
	// Leader: epochs 0 (0..1), 1 (2..3), 3 (4..5). Follower: epochs 0
	// (0..1) and 2 (2..4), written by a leader whose epoch 2 was lost.
	leader := epochsLog(t, "leader", 0, [2]int{0, 2}, [2]int{1, 2}, [2]int{3, 2})
	follower := divergenceLog(t, "follower")
	if err := leader.Batches(0, func(b storage.RawBatch) error {
		if b.Meta.BaseOffset < 2 {
			_, err := follower.AppendRaw(b.Frame)
			return err
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	appendAt(t, follower, 2, 3)
	rs, events := testSet(t, kafkaRules(), 1, 3, map[int32]*storage.Log{1: leader, 2: follower})
	events.Take()
	f, err := rs.FetchFollower(2)
	if err != nil {
		t.Fatal(err)
	}
	var asked []LeaderEpochChecked
	for _, e := range events.Take() {
		if c, ok := e.(LeaderEpochChecked); ok {
			asked = append(asked, c)
		}
	}
	// Round 1: epoch 2 -> the leader's epoch 1 ends at 4; the follower has
	// no epoch 1, cuts to the end of its epoch 0 (2) and asks again.
	// Round 2: epoch 0 -> ends at 2 on the leader: nothing more to cut.
	if len(asked) != 2 || asked[0].Requested != 2 || asked[0].Epoch != 1 || asked[0].EndOffset != 4 ||
		asked[1].Requested != 0 || asked[1].Epoch != 0 || asked[1].EndOffset != 2 {
		t.Fatalf("OffsetsForLeaderEpoch exchanges: %+v", asked)
	}
	if len(f.Followers[0].Truncations) != 1 || f.Followers[0].Truncations[0].To != 2 {
		t.Fatalf("truncations: %+v", f.Followers[0].Truncations)
	}
	if follower.LEO() != leader.LEO() {
		t.Fatalf("follower LEO %d, leader %d", follower.LEO(), leader.LEO())
	}
	at, err := DivergencePoint(leader, follower)
	if err != nil || at != follower.LEO() {
		t.Fatalf("the logs still differ at %d (%v)", at, err)
	}
}

// A follower learns the HW from its fetch responses, so its HW is one
// round behind the leader's (follower.hw=fetch, Kafka's real behaviour).
func TestFollowerHWLearnedOneRoundLate(t *testing.T) {
	l1, l2 := divergenceLog(t, "1"), divergenceLog(t, "2")
	rs, _ := testSet(t, kafkaRules(), 1, 0, map[int32]*storage.Log{1: l1, 2: l2})
	if _, err := rs.Append(record.NewBatch([]record.Record{{Value: []byte("a")}}), Acks1, "t"); err != nil {
		t.Fatal(err)
	}
	if _, err := rs.FetchFollowers(); err != nil {
		t.Fatal(err)
	}
	st := rs.State()
	if st.HW != 1 || st.Replicas[1].HW != 0 || !st.FollowerHWs {
		t.Fatalf("after one round: leader HW %d, follower HW %d", st.HW, st.Replicas[1].HW)
	}
	if _, err := rs.FetchFollowers(); err != nil {
		t.Fatal(err)
	}
	if st := rs.State(); st.Replicas[1].HW != 1 {
		t.Fatalf("after two rounds: follower HW %d, want 1", st.Replicas[1].HW)
	}
	// Under MiniKafka's rule every replica knows the leader's HW.
	m1, m2 := divergenceLog(t, "m1"), divergenceLog(t, "m2")
	mk, _ := testSet(t, Rules{}, 1, 0, map[int32]*storage.Log{1: m1, 2: m2})
	mk.Append(record.NewBatch([]record.Record{{Value: []byte("a")}}), Acks1, "t")
	mk.FetchFollowers()
	if st := mk.State(); st.Replicas[1].HW != 1 || st.FollowerHWs {
		t.Fatalf("MiniKafka: follower HW %d", st.Replicas[1].HW)
	}
}

// Kafka's idempotence window: a partition remembers the last five batches
// per producer id (ProducerStateEntry.NUM_BATCHES_TO_RETAIN) and answers a
// retry of any of them with the stored offsets; a retry of an older batch is
// OUT_OF_ORDER_SEQUENCE_NUMBER. MiniKafka remembers one.
func TestIdempotenceWindowProducerStateEntryRetainsFive(t *testing.T) {
	batch := func(seq int32) *record.Batch {
		b := record.NewBatch([]record.Record{{Value: []byte("v")}})
		b.ProducerID, b.ProducerEpoch, b.BaseSequence = 7, 0, seq
		return b
	}
	for _, c := range []struct {
		name   string
		window int
		dups   []int32 // retries answered as duplicates
		oos    []int32 // retries refused OUT_OF_ORDER_SEQUENCE
	}{
		{"kafka", 5, []int32{1, 2, 3, 4, 5}, []int32{0}},
		{"minikafka", 1, []int32{5}, []int32{0, 1, 4}},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := divergenceLog(t, c.name)
			rules := Rules{DedupeWindow: c.window}
			rs, _ := testSet(t, rules, 1, 0, map[int32]*storage.Log{1: l})
			for seq := range int32(6) {
				if _, err := rs.Append(batch(seq), Acks1, "t"); err != nil {
					t.Fatalf("seq %d: %v", seq, err)
				}
			}
			for _, seq := range c.dups {
				ack, err := rs.Append(batch(seq), Acks1, "t")
				if err != nil || !ack.Value().Duplicate || ack.Value().BaseOffset != int64(seq) {
					t.Errorf("retry of seq %d: %+v %v, want the duplicate at offset %d", seq, ack, err, seq)
				}
			}
			for _, seq := range c.oos {
				if _, err := rs.Append(batch(seq), Acks1, "t"); !errors.Is(err, kerr.OutOfOrderSequence) {
					t.Errorf("retry of seq %d: %v, want OUT_OF_ORDER_SEQUENCE", seq, err)
				}
			}
			if l.LEO() != 6 {
				t.Errorf("LEO %d, want 6: a retry appended", l.LEO())
			}
		})
	}
}
