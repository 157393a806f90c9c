package replication

import (
	"fmt"
	"slices"

	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/storage"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// Settings are the replication knobs. Replica sets read them through a
// pointer, so a change (config set min.insync.replicas=2) applies at once.
type Settings struct {
	// MinInsyncReplicas is min.insync.replicas; it affects acks=all only.
	MinInsyncReplicas int
	// Lag holds replica.lag.max.offsets and replica.lag.time.max.ms.
	Lag LagConfig
	// FetchMaxBytes is replica.fetch.max.bytes: the byte budget of one
	// follower fetch (the first batch is always copied whole).
	FetchMaxBytes int
	// Rules are the switchable rules (MiniKafka's or Kafka's, rules.go).
	Rules Rules
}

// Env is what every replica set of one cluster shares: the clock, the event
// log, the handle ids, the settings and the dispatcher of the listeners on
// its promises.
type Env struct {
	Clock    clock.Clock
	Events   *EventLog
	IDs      *IDSource
	Settings *Settings
	// DiskFailed, when set, hears of every replica log operation that the
	// file system refused (storage.IsDiskError): the broker's log
	// directory has failed. It is called when the operation has failed and
	// nothing more happens to the replica set in that step; the caller
	// decides what a failed directory means (the engine takes the broker's
	// replicas offline once the step is over).
	DiskFailed func(broker int32, tp topic.Partition, err error)
	Dispatch   Dispatcher

	// fetchBuf is the follower fetch's read buffer: a follower copies the
	// leader's frames with AppendRaw before the next fetch reads, so one
	// buffer serves every partition of the cluster.
	fetchBuf storage.ReadBuffer
}

// Replica is one broker's copy of a partition.
type Replica struct {
	Broker      int32
	log         *storage.Log // nil while the broker is down
	lastFetchMs int64
	// diverged is set when the replica held offsets above the HW at a leader
	// change; divergedAt is that HW, where its log may start to differ.
	diverged   bool
	divergedAt int64
	// While the broker is down the leader only knows what the replica last
	// had: its LEO and log start at the moment it crashed.
	downLEO, downLogStart int64
	// hw is the high watermark this replica last learned from a fetch
	// response (follower.hw=fetch); the leader's is the replica set's.
	hw int64
	// reconcile is set when the replica must find, before it fetches again,
	// where its log stops agreeing with the leader's (truncation.go); while
	// it is set the leader does not know its LEO.
	reconcile bool
	// caughtUpMs is Kafka's lastCaughtUpTimeMs: the last time the replica
	// had everything the leader had at its previous fetch; lastFetchLeaderLEO
	// is the leader's LEO at its last fetch (Replica.updateFetchStateOrThrow).
	caughtUpMs         int64
	lastFetchLeaderLEO int64
	// fetched is set by a fetch and cleared by the next ISR refresh: under
	// Kafka's ISR rule a replica joins the ISR only as it fetches
	// (Partition.maybeExpandIsr runs on a follower's fetch).
	fetched bool
}

// Up reports whether the replica's broker is running.
func (r *Replica) Up() bool { return r.log != nil }

// LEO is the replica's log end offset; for a crashed broker, the LEO it had
// when it crashed (what the leader last knew).
func (r *Replica) LEO() int64 {
	if r.log == nil {
		return r.downLEO
	}
	return r.log.LEO()
}

// LogStart is the replica's log start offset (last known while down).
func (r *Replica) LogStart() int64 {
	if r.log == nil {
		return r.downLogStart
	}
	return r.log.LogStartOffset()
}

// Log returns the replica's log, nil while the broker is down.
func (r *Replica) Log() *storage.Log { return r.log }

// ReplicaSet is one partition's replicas, leader, leader epoch, ISR, high
// watermark, pending acks=all waiters and broker-side producer state. It is a
// deterministic state machine: it changes only when called, and it reports
// each change to the event log.
type ReplicaSet struct {
	tp         topic.Partition
	env        *Env
	assignment []int32 // metadata order; assignment[0] was the first leader
	byID       []int32 // the assignment sorted by broker id
	leader     int32
	epoch      int32
	replicas   map[int32]*Replica
	isr        map[int32]bool
	// isrOrder is the ISR in stored order, as Kafka keeps it: the
	// assignment order at creation, a joining replica appended at the end.
	isrOrder []int32
	// epochStart is the leader's LEO when it took the current epoch (Kafka's
	// leaderEpochStartOffset).
	epochStart int64
	// leaderless is set when the KRaft controller fenced the leader and
	// could elect nobody; leader then names the fenced broker.
	leaderless bool
	hw         int64
	waiters    []*waiter
	producers  *ProducerStateManager
}

// NewReplicaSet builds a partition's replica set over open logs (§9.1): every
// replica's last fetch time is now; the ISR is the leader plus every replica
// whose LEO equals the leader's; the HW is the minimum LEO over all replicas;
// producer state is rebuilt from the leader's log. A follower whose log
// stops agreeing with the leader's below its LEO (DivergencePoint) is marked
// diverged and counts with the LEO where it still agrees (decision 7); when
// its tail holds records of the current epoch (the leader lost them), the
// leader starts a new epoch, which LeaderEpoch reports and the caller must
// persist. logs must hold one open log per assigned broker.
func NewReplicaSet(env *Env, tp topic.Partition, assignment []int32, leader, epoch int32, logs map[int32]*storage.Log) (*ReplicaSet, error) {
	return NewReplicaSetFrom(env, tp, assignment, leader, epoch, logs, nil)
}

// NewReplicaSetFrom is NewReplicaSet with the producer state given rather
// than replayed from the leader's log: producers must be what replaying
// that log would build (a snapshot written at the last clean shutdown,
// DecodeProducerSnapshot); it becomes the replica set's own. nil replays.
func NewReplicaSetFrom(env *Env, tp topic.Partition, assignment []int32, leader, epoch int32, logs map[int32]*storage.Log, producers *ProducerStateManager) (*ReplicaSet, error) {
	rs := &ReplicaSet{
		tp: tp, env: env, assignment: append([]int32(nil), assignment...), byID: sortedCopy(assignment),
		leader: leader, epoch: epoch,
		replicas: map[int32]*Replica{}, isr: map[int32]bool{},
	}
	leos := map[int32]int64{}
	now := env.Clock.NowMs()
	for _, b := range assignment {
		l := logs[b]
		if l == nil {
			return nil, kerr.State("no log for broker %d of %s", b, tp)
		}
		rs.replicas[b] = &Replica{Broker: b, log: l, lastFetchMs: now, caughtUpMs: now}
		leos[b] = l.LEO()
	}
	if rs.replicas[leader] == nil {
		return nil, kerr.State("leader %d of %s is not a replica", leader, tp)
	}
	// Decision 7 across a restart: a follower whose log stops agreeing with
	// the leader's below its LEO (a former leader's tail, never truncated)
	// is diverged. It counts with the LEO where it still agrees, so it is
	// not in the initial ISR and the HW does not cover what it disagrees on.
	var diverged []int32
	newEpoch := false
	for _, b := range rs.byID {
		if b == leader {
			continue
		}
		at, err := DivergencePoint(logs[leader], logs[b])
		if err != nil {
			return nil, err
		}
		if at < leos[b] {
			r := rs.replicas[b]
			r.diverged, r.divergedAt = true, at
			leos[b] = at
			diverged = append(diverged, b)
			// A tail written in the current epoch is the leader's own,
			// lost on its side (unflushed bytes): the leader must not write
			// those offsets again in the same epoch, or the logs would
			// look alike where they differ. It starts a new epoch.
			last, err := lastEpoch(logs[b])
			if err != nil {
				return nil, err
			}
			newEpoch = newEpoch || last >= epoch
		}
	}
	if newEpoch {
		for _, b := range assignment {
			rs.epoch = max(rs.epoch, logs[b].LeaderEpoch())
		}
		rs.epoch++
		for _, b := range rs.byID {
			logs[b].SetLeaderEpoch(rs.epoch)
		}
		env.Events.Emit(LeaderChanged{TP: tp, From: leader, To: leader, Epoch: rs.epoch,
			Reason: "new epoch at open: a follower holds records of the last epoch that the leader lost"})
	}
	initial := InitialISR(leader, assignment, leos)
	for _, b := range assignment {
		if slices.Contains(initial, b) && !rs.replicas[b].diverged {
			rs.addISR(b)
		}
	}
	rs.hw = InitialHighWatermark(assignment, leos)
	rs.epochStart = logs[leader].LEO()
	for _, b := range assignment {
		r := rs.replicas[b]
		r.hw = min(rs.hw, r.LEO())
		r.lastFetchLeaderLEO = leos[leader]
	}
	for _, b := range diverged {
		rs.env.Events.Emit(ReplicaDiverged{TP: tp, Broker: b, LEO: logs[b].LEO(), HW: rs.replicas[b].divergedAt, Epoch: rs.epoch})
	}
	if producers != nil {
		producers.rules = rs.rules()
		rs.producers = producers
		return rs, nil
	}
	if err := rs.rebuildProducerState(); err != nil {
		return nil, err
	}
	return rs, nil
}

// TP is the partition.
func (rs *ReplicaSet) TP() topic.Partition { return rs.tp }

// Leader is the current leader's broker id.
func (rs *ReplicaSet) Leader() int32 { return rs.leader }

// LeaderEpoch is the current leader epoch.
func (rs *ReplicaSet) LeaderEpoch() int32 { return rs.epoch }

// HighWatermark is the exclusive end of what consumers may read.
func (rs *ReplicaSet) HighWatermark() int64 { return rs.hw }

// Assignment lists the replicas in metadata order.
func (rs *ReplicaSet) Assignment() []int32 { return append([]int32(nil), rs.assignment...) }

// Replica returns one broker's replica, or nil.
func (rs *ReplicaSet) Replica(broker int32) *Replica { return rs.replicas[broker] }

// Online reports whether the partition has a leader and its broker is
// running.
func (rs *ReplicaSet) Online() bool { return !rs.leaderless && rs.replicas[rs.leader].Up() }

// ISR lists the in-sync replicas, sorted.
func (rs *ReplicaSet) ISR() []int32 {
	out := make([]int32, 0, len(rs.isr))
	for _, b := range rs.byID {
		if rs.isr[b] {
			out = append(out, b)
		}
	}
	return out
}

// ISRStored lists the in-sync replicas in stored order, as Kafka keeps and
// prints them: the assignment order at creation, a replica that joins later
// at the end.
func (rs *ReplicaSet) ISRStored() []int32 { return append([]int32(nil), rs.isrOrder...) }

// addISR adds a broker to the ISR (at the end of the stored order).
func (rs *ReplicaSet) addISR(b int32) {
	if !rs.isr[b] {
		rs.isr[b] = true
		rs.isrOrder = append(rs.isrOrder, b)
	}
}

// removeISR takes a broker out of the ISR.
func (rs *ReplicaSet) removeISR(b int32) {
	if rs.isr[b] {
		delete(rs.isr, b)
		rs.isrOrder = slices.DeleteFunc(rs.isrOrder, func(x int32) bool { return x == b })
	}
}

// InISR reports whether a broker is in the ISR.
func (rs *ReplicaSet) InISR(broker int32) bool { return rs.isr[broker] }

// Followers lists the non-leader replicas sorted by broker id.
func (rs *ReplicaSet) Followers() []int32 {
	out := make([]int32, 0, len(rs.byID)-1)
	for _, b := range rs.byID {
		if b != rs.leader {
			out = append(out, b)
		}
	}
	return out
}

// LeaderLog returns the leader's log, or LEADER_NOT_AVAILABLE when the
// leader's broker is down.
func (rs *ReplicaSet) LeaderLog() (*storage.Log, error) {
	if err := rs.checkOnline(); err != nil {
		return nil, err
	}
	return rs.replicas[rs.leader].log, nil
}

// RegisterProducerEpoch tells the partition that producer pid now runs with
// this epoch, fencing older instances (PRODUCER_FENCED on a lower epoch).
func (rs *ReplicaSet) RegisterProducerEpoch(pid int64, epoch int32) error {
	return rs.producers.RegisterEpoch(pid, epoch)
}

// CheckProducerEpoch reports what RegisterProducerEpoch would return.
func (rs *ReplicaSet) CheckProducerEpoch(pid int64, epoch int32) error {
	return rs.producers.CheckEpoch(pid, epoch)
}

// checkOnline returns LEADER_NOT_AVAILABLE, with the way out, when the
// leader's broker is down.
func (rs *ReplicaSet) checkOnline() error {
	if rs.Online() {
		return nil
	}
	if rs.leaderless {
		return kerr.New(kerr.LeaderNotAvailable, "%s has no leader: leader %d was fenced and no in-sync replica is running; restart a member of the ISR %s (broker restart ID), or allow an unclean election (config set unclean.leader.election.enable=true)",
			rs.tp, rs.leader, FormatBrokers(rs.ISR()))
	}
	hint := fmt.Sprintf("restart it (broker restart %d)", rs.leader)
	for _, b := range rs.ISR() {
		if b != rs.leader && rs.replicas[b].Up() {
			hint = fmt.Sprintf("promote an in-sync replica (promote %s %d) or restart the broker (broker restart %d)", rs.tp, b, rs.leader)
			break
		}
	}
	if rs.rules().KeepISR {
		hint += "; the KRaft controller elects a new leader once it fences the broker (clock advance past broker.session.timeout.ms)"
	}
	return kerr.New(kerr.LeaderNotAvailable, "leader %d of %s is down; %s", rs.leader, rs.tp, hint)
}

func (rs *ReplicaSet) replica(broker int32) (*Replica, error) {
	r := rs.replicas[broker]
	if r == nil {
		return nil, kerr.New(kerr.UnknownPartition, "broker %d has no replica for %s", broker, rs.tp)
	}
	return r, nil
}

// rebuildProducerState replays every sequenced batch of the leader's log.
func (rs *ReplicaSet) rebuildProducerState() error {
	m := NewProducerStateManager()
	m.rules = rs.rules()
	l := rs.replicas[rs.leader].log
	if l != nil {
		err := l.Batches(l.LogStartOffset(), func(b storage.RawBatch) error {
			m.Record(b.Meta)
			return nil
		})
		if err != nil {
			return err
		}
	}
	rs.producers = m
	return nil
}

// advanceHighWatermark applies the HW rule (§9.3) and then resolves the ack
// waiters, which also fails them when the ISR fell below min.insync.replicas.
func (rs *ReplicaSet) advanceHighWatermark() {
	if !rs.Online() {
		// Offline: nobody can be acknowledged and the HW waits for a leader.
		return
	}
	rs.raiseHighWatermark()
	rs.resolveWaiters()
}

// raiseHighWatermark applies the HW rule (hw.under.min.isr=) to the ISR as
// it stands, the LEOs of crashed members being the ones they had. A leader
// change runs it first: after a restart the HW is the minimum LEO over every
// replica (decision 8) until something advances it, and a new leader cut
// back to that HW would drop records every in-sync replica holds.
func (rs *ReplicaSet) raiseHighWatermark() {
	next := rs.hw
	if rs.rules().HighWatermark == HoldUnderMinISR {
		next = rs.kafkaHighWatermark()
	} else {
		var buf [8]int64
		leos := buf[:0]
		known := true
		for _, b := range rs.assignment {
			if rs.isr[b] {
				leo, ok := rs.knownLEO(rs.replicas[b])
				known = known && ok
				leos = append(leos, leo)
			}
		}
		if known {
			next = NextHighWatermark(rs.hw, leos)
		}
	}
	if next != rs.hw {
		rs.env.Events.Emit(HWMoved{TP: rs.tp, From: rs.hw, To: next})
		rs.hw = next
	}
	if l := rs.replicas[rs.leader]; !rs.leaderless {
		l.hw = rs.hw // the leader knows the HW it computes
	}
}

// knownLEO is a replica's LEO as the leader may count it for the HW: a
// replica that must reconcile its log first is unknown (Kafka resets a
// follower's LEO to unknown when leadership changes), and a diverged one
// counts only up to where it still agrees.
func (rs *ReplicaSet) knownLEO(r *Replica) (int64, bool) {
	switch {
	case r.Broker == rs.leader:
		return r.LEO(), true
	case r.reconcile:
		return 0, false
	case r.diverged:
		return min(r.LEO(), r.divergedAt), true
	}
	return r.LEO(), true
}

// kafkaHighWatermark is Kafka's HW rule since 3.7
// (Partition.maybeIncrementLeaderHW): no advance while the ISR is below
// min(min.insync.replicas, replication factor) (KAFKA-15583); otherwise the
// minimum LEO over the ISR and over the followers that are caught up and
// may join it, never below the current HW.
func (rs *ReplicaSet) kafkaHighWatermark() int64 {
	if len(rs.isr) < rs.effectiveMinISR() {
		return rs.hw
	}
	leader := rs.replicas[rs.leader]
	next := leader.LEO()
	now := rs.env.Clock.NowMs()
	for _, b := range rs.Followers() {
		r := rs.replicas[b]
		counts := rs.isr[b] || (r.Up() && rs.caughtUp(r, leader.LEO(), now))
		if !counts {
			continue
		}
		leo, ok := rs.knownLEO(r)
		if !ok {
			return rs.hw
		}
		next = min(next, leo)
	}
	return max(rs.hw, next)
}

// caughtUp is Kafka's Replica.isCaughtUp: at the leader's LEO, or caught up
// within replica.lag.time.max.ms.
func (rs *ReplicaSet) caughtUp(r *Replica, leaderLEO, now int64) bool {
	if leo, ok := rs.knownLEO(r); ok && leo == leaderLEO {
		return true
	}
	return now-r.caughtUpMs <= rs.env.Settings.Lag.MaxTimeMs
}

// RefreshISR re-evaluates every follower against the ISR rule
// (replica.lag.from=; §10.1 and decisions 7 and 12 for MiniKafka's, Kafka's
// Replica.isCaughtUp and Partition.isFollowerInSync for Kafka's), reports
// each change, then advances the HW. While the leader's broker is down
// nothing changes: the leader is the one that judges its followers.
func (rs *ReplicaSet) RefreshISR() {
	if !rs.Online() {
		return
	}
	leaderLEO := rs.replicas[rs.leader].LEO()
	now := rs.env.Clock.NowMs()
	for _, b := range rs.Followers() {
		r := rs.replicas[b]
		var ok bool
		var why func() string
		if rs.rules().ISRLag == LagFromLastCaughtUp {
			ok, why = rs.kafkaInSync(r, leaderLEO, now)
		} else {
			view := FollowerView{LEO: r.LEO(), LastFetchMs: r.lastFetchMs, Up: r.Up(), Diverged: r.diverged || r.reconcile, InISR: rs.isr[b]}
			rule := isrRule(leaderLEO, rs.hw, now, view, rs.env.Settings.Lag)
			ok = rule == caughtUp
			why = func() string { return rule.reason(leaderLEO, rs.hw, now, view, rs.env.Settings.Lag) }
		}
		r.fetched = false
		if ok != rs.isr[b] {
			if ok {
				rs.addISR(b)
				rs.env.Events.Emit(ISRExpanded{TP: rs.tp, Broker: b, Reason: why(), ISR: rs.ISR()})
			} else {
				rs.removeISR(b)
				rs.env.Events.Emit(ISRShrank{TP: rs.tp, Broker: b, Reason: why(), ISR: rs.ISR()})
			}
		}
	}
	rs.advanceHighWatermark()
}

// kafkaInSync is Kafka's ISR rule. A member stays while it is caught up
// (Replica.isCaughtUp: at the leader's LEO, or caught up within
// replica.lag.time.max.ms), so a follower at the leader's LEO never leaves
// for silence; a running replica joins as it fetches, once its LEO reaches
// the HW and the start offset of the leader's current epoch
// (Partition.maybeExpandIsr, isFollowerInSync).
func (rs *ReplicaSet) kafkaInSync(r *Replica, leaderLEO, now int64) (bool, func() string) {
	lag := rs.env.Settings.Lag.MaxTimeMs
	if rs.isr[r.Broker] {
		if rs.caughtUp(r, leaderLEO, now) {
			return true, nil
		}
		return false, func() string {
			return fmt.Sprintf("not caught up to the leader's LEO for %d ms > replica.lag.time.max.ms=%d", now-r.caughtUpMs, lag)
		}
	}
	leo := r.LEO()
	switch {
	case !r.Up() || !r.fetched:
		return false, nil
	case r.reconcile || r.diverged || leo > leaderLEO:
		return false, nil
	case leo >= rs.hw && leo >= rs.epochStart:
		return true, func() string {
			return fmt.Sprintf("caught up: LEO %d reaches HW %d and the epoch start %d", leo, rs.hw, rs.epochStart)
		}
	}
	return false, nil
}

// RemoveFromISR takes a follower out of the ISR (the leader cannot be
// removed: argument error). It then advances the HW, which may fail pending
// acks=all waiters with NOT_ENOUGH_REPLICAS_AFTER_APPEND.
func (rs *ReplicaSet) RemoveFromISR(broker int32) error {
	if _, err := rs.replica(broker); err != nil {
		return err
	}
	if broker == rs.leader {
		return kerr.Argument("leader cannot be removed from ISR (broker %d leads %s)", broker, rs.tp)
	}
	if rs.isr[broker] {
		rs.removeISR(broker)
		rs.env.Events.Emit(ISRShrank{TP: rs.tp, Broker: broker, Reason: "removed by request", ISR: rs.ISR()})
	}
	rs.advanceHighWatermark()
	return nil
}

// diskFailure reports err to Env.DiskFailed when the file system refused an
// operation on broker's replica log, and returns err unchanged.
func (rs *ReplicaSet) diskFailure(broker int32, err error) error {
	if err != nil && rs.env.DiskFailed != nil && storage.IsDiskError(err) {
		rs.env.DiskFailed(broker, rs.tp, err)
	}
	return err
}
