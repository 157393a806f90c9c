package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/group"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/replication"
	"github.com/minikafka-lab/minikafka/engine/storage"
	"github.com/minikafka-lab/minikafka/engine/txn"
)

// txnLayer is the cluster's transaction layer: the coordinator (txn.Manager)
// and one transaction index per partition, describing the partition's
// current leader log. It implements Transactions for the read path.
//
// The index follows the leader's log lazily: before each use it is fed the
// batches appended since (leader appends, and what a follower copied before
// it became leader, are all in the leader's log); when the leader's log is
// another one than the index describes (a promotion, a restart: a new broker,
// epoch or log) or shorter than what was indexed (a truncation), it is
// rebuilt from the new leader's log. So appends cost nothing extra and a
// leader change costs one scan of batch headers.
type txnLayer struct {
	c       *Cluster
	m       *txn.Manager
	indexes map[TopicPartition]*leaderIndex
	// opening is set while Open runs recovery, which resolves orphan runs
	// itself.
	opening bool
	// begun counts the BeginTransaction calls per id since the cluster
	// opened: the instance a completion belongs to (a TxnCompletion of an
	// earlier instance must not complete a later one).
	begun map[string]uint64
	// pending holds the completions whose markers are not all settled, by
	// id: the owners of the markers' listeners (markerSettled).
	pending map[int64]*TxnCompletion
}

type leaderIndex struct {
	idx    *txn.Index
	log    *storage.Log
	leader int32
	epoch  int32
	// leo is the leader log's LEO when the index was last brought up to
	// date: while the leader is down, the index still describes its whole
	// log only if leo is the LEO the leader had when it crashed.
	leo int64
	// orphans is set when the index was rebuilt for a new leader log and its
	// open runs have not all been checked against the coordinator yet
	// (settleOrphans does that; reads never do).
	orphans bool
}

// index returns tp's transaction index, brought up to date with the leader's
// log. While the leader is down it returns what it knew when the leader
// crashed (CrashBroker brings the index up to date first, see leaderDown);
// an index that does not describe the crashed leader's whole log (or none)
// is returned with the LEADER_NOT_AVAILABLE error, so that nobody mistakes
// it for the leader's log. A log that cannot be read leaves the index
// unsynced and the error is returned.
func (l *txnLayer) index(tp TopicPartition) (*txn.Index, error) {
	rs := l.c.sets[tp]
	if rs == nil {
		return nil, kerr.New(kerr.UnknownPartition, "%s", tp)
	}
	li := l.indexes[tp]
	lg, err := rs.LeaderLog()
	if err != nil {
		if li == nil {
			return nil, err
		}
		if li.leader != rs.Leader() || li.epoch != rs.LeaderEpoch() || li.leo != rs.Replica(rs.Leader()).LEO() {
			return li.idx, err
		}
		return li.idx, nil
	}
	if li == nil || li.log != lg || li.leader != rs.Leader() || li.epoch != rs.LeaderEpoch() || lg.LEO() < li.idx.NextOffset() {
		fresh := &leaderIndex{idx: txn.NewIndex(), log: lg, leader: rs.Leader(), epoch: rs.LeaderEpoch(), orphans: li != nil}
		if err := lg.Batches(lg.LogStartOffset(), func(b storage.RawBatch) error { return fresh.idx.Add(b.Meta) }); err != nil {
			return nil, err
		}
		fresh.leo = lg.LEO()
		l.indexes[tp], li = fresh, fresh
	} else if lg.LEO() > li.idx.NextOffset() {
		if err := lg.Batches(li.idx.NextOffset(), func(b storage.RawBatch) error { return li.idx.Add(b.Meta) }); err != nil {
			return li.idx, err
		}
	}
	li.leo = lg.LEO()
	return li.idx, nil
}

// indexed feeds tp's index the batch the transaction layer itself just
// appended to the leader's log, when the index was up to date just before
// it (checkRun made it so): the next index call then reads nothing, so
// consecutive transactional sends cost no log read. Otherwise the next index
// call reads the batch from the log as usual.
func (l *txnLayer) indexed(tp TopicPartition, m record.Meta) {
	li := l.indexes[tp]
	if li == nil || li.idx.NextOffset() != m.BaseOffset {
		return
	}
	rs := l.c.sets[tp]
	if lg, err := rs.LeaderLog(); err != nil || lg != li.log || li.leader != rs.Leader() || li.epoch != rs.LeaderEpoch() || lg.LEO() != m.NextOffset() {
		return
	}
	if li.idx.Add(m) == nil {
		li.leo = m.NextOffset()
	}
}

// leaderDown is called just before tp's leader crashes: the index is
// brought up to date with the leader's log, so that while the partition is
// offline it still says which transactions have a marker there (a commit
// must not take an offline partition's missing marker for a written one).
func (c *Cluster) leaderDown(tp TopicPartition) {
	if c.coord != nil {
		_, _ = c.coord.txns.index(tp) // a log that cannot be read leaves the index marked stale
	}
}

// indexBeforeRemoval is called before retention or compaction removes
// batches from tp's logs: the transaction index is brought up to date with
// the leader's log first, as leaderDown does before a crash, so that it has
// seen every marker those batches held. Otherwise what the index knows
// would depend on whether a read fed it before the batches went: a marker
// deleted unseen would leave its run open, and the LSO stuck below it.
func (c *Cluster) indexBeforeRemoval(tp TopicPartition) {
	if c.coord != nil {
		_, _ = c.coord.txns.index(tp) // a log that cannot be read leaves the index as it was
	}
}

// leaderChanged is called when a partition gets a new leader (a promotion,
// a restarted broker re-elected): the transaction index is rebuilt from the
// new leader's log at once and orphan runs get their markers (Kafka does
// this work when a broker becomes leader). If a marker cannot be appended
// now (min.insync.replicas right after a promotion), retryOrphanMarkers tries
// again after the next replication step or ISR refresh. Reads never append.
func (c *Cluster) leaderChanged(tp TopicPartition) {
	if c.coord != nil {
		c.coord.txns.settleOrphans(tp)
	}
}

// retryOrphanMarkers appends the orphan markers that a leader change could
// not append yet (every partition still waiting, in partition order). It
// runs after steps that can grow an ISR: replication and ISR refreshes.
func (c *Cluster) retryOrphanMarkers() {
	if c.coord == nil {
		return
	}
	waiting := false
	for _, li := range c.coord.txns.indexes {
		waiting = waiting || li.orphans
	}
	if !waiting {
		return // the common case: no sorting on every replication step
	}
	for _, tp := range c.sortedTPs() {
		if li := c.coord.txns.indexes[tp]; li != nil && li.orphans {
			c.coord.txns.settleOrphans(tp)
		}
	}
}

// settleOrphans brings tp's index up to date and, when it was rebuilt for a
// new leader log, gives its orphan runs their markers.
func (l *txnLayer) settleOrphans(tp TopicPartition) {
	idx, err := l.index(tp)
	li := l.indexes[tp]
	if err != nil || li == nil || !li.orphans || l.opening {
		return
	}
	li.orphans = !l.resolveOrphans(tp, idx)
}

// resolveOrphans handles a new leader log's open runs that no unstable
// transaction owns: their marker was lost with the old leader's unflushed
// bytes (a broker crash), so nothing would ever close them and the LSO would
// stay behind them. Each gets a marker now (acks=all) with recovery's
// outcome for orphans (txn.Manager.OrphanOutcome): COMMIT when the id's
// current transaction completed with a commit and started its run here at
// the same offset, ABORT otherwise. It reports whether every marker could be appended (otherwise
// retryOrphanMarkers tries again).
func (l *txnLayer) resolveOrphans(tp TopicPartition, idx *txn.Index) bool {
	if l.c.sets[tp].CheckWritable(AcksAll) != nil {
		return len(idx.OpenRuns()) == 0 // a marker would be refused now: say nothing yet
	}
	ok := true
	for _, r := range idx.OpenRuns() {
		outcome, orphan := l.m.OrphanOutcome(tp, r)
		if !orphan {
			continue
		}
		if err := l.writeOrphanMarker(tp, r.ID, outcome, "new leader"); err != nil {
			ok = false
		}
	}
	return ok
}

// writeOrphanMarker announces and appends (acks=all) the marker that
// closes an orphan run of id in tp; why labels the append in the trace.
func (l *txnLayer) writeOrphanMarker(tp TopicPartition, id string, outcome record.ControlType, why string) error {
	e, _ := l.m.Get(id)
	l.c.events.Emit(TransactionRecovered{ID: id, Orphan: true, OrphanOutcome: outcome, Markers: []TopicPartition{tp},
		EarlierInstance: e.State.Unstable()})
	_, err := l.c.sets[tp].Append(record.NewControlBatch(id, outcome), AcksAll, fmt.Sprintf("txn %s %s marker (%s)", id, outcome, why))
	return err
}

// LastStableOffset is min(HW, the first offset of every unstable
// transaction on tp, in the coordinator's view and in the leader index's
// view) — decision 18. If the leader's log cannot be read, nothing beyond
// what is indexed is stable.
func (l *txnLayer) LastStableOffset(tp TopicPartition, hw int64) int64 {
	idx, err := l.index(tp)
	lso := l.m.LastStableOffset(tp, hw, idx)
	if err != nil && idx != nil {
		lso = min(lso, idx.NextOffset())
	}
	return lso
}

// HideCommitted hides a transactional data batch unless its transaction's
// marker in this partition is COMMIT (decision 14).
func (l *txnLayer) HideCommitted(tp TopicPartition, m record.Meta) bool {
	if !m.Transactional {
		return false
	}
	idx, _ := l.index(tp)
	return idx == nil || !idx.Visible(m)
}

// BeginTransaction starts transaction id (§12.3): a new ONGOING instance,
// journaled. An unstable transaction with the same id is the state error
// "transaction {id} is active".
func (c *Cluster) BeginTransaction(id string) error {
	if err := c.checkCoordination(); err != nil {
		return err
	}
	if err := c.coord.txns.m.Begin(id); err != nil {
		return err
	}
	c.coord.txns.begun[id]++
	return nil
}

// TransactionSend appends one record to a topic inside transaction id
// (§12.3) and returns its acknowledgement. The partition is the explicit one,
// or crc32(key) mod n, or 0 for a null key (no sticky partitioning). The
// batch carries the transactional id and no producer id, and is appended
// with acks=all: NOT_ENOUGH_REPLICAS before the append, and the Ack may stay
// pending until the ISR has it. As soon as the leader has the batch, the
// partition joins the transaction (journaled), so that it gets a marker even
// if the acknowledgement later fails. The transaction must be ONGOING. Any
// error but one means nothing was appended: if the journal cannot record the
// partition (STORAGE_ERROR), the batch is in the log with its Ack, and
// recovery at the next open aborts it.
func (c *Cluster) TransactionSend(id, topicName string, partition int32, r record.Record) (*Ack, error) {
	defer c.drainDiskFailures()
	if err := c.checkCoordination(); err != nil {
		return nil, err
	}
	if err := txn.CheckID(id); err != nil {
		return nil, err
	}
	e, ok := c.coord.txns.m.Get(id)
	if !ok {
		return nil, kerr.State("transaction %s has not begun", id)
	}
	if e.State != txn.Ongoing {
		return nil, kerr.State("transaction %s is %s", id, e.State)
	}
	count, err := c.partitionCount(topicName)
	if err != nil {
		return nil, err
	}
	switch {
	case partition == AnyPartition && r.Key == nil:
		partition = 0
	case partition == AnyPartition:
		// The cluster's partitioner, as PartitionFor (a keyed record).
		if partition, err = c.partitioner.Choose(topicName, count, r.Key); err != nil {
			return nil, err
		}
	case partition < 0 || partition >= count:
		return nil, kerr.New(kerr.UnknownPartition, "%s-%d", topicName, partition)
	}
	if r.TimestampMs < 0 {
		r.TimestampMs = c.clock.NowMs()
	}
	b := record.NewBatch([]record.Record{r})
	b.Transactional, b.TransactionalID = true, id
	tp := TopicPartition{Topic: topicName, Partition: partition}
	run, err := c.coord.txns.checkRun(tp, id)
	if err != nil {
		return nil, err
	}
	ack, err := c.sets[tp].Append(b, AcksAll, "txn "+id)
	if err != nil {
		return nil, err
	}
	c.coord.txns.indexed(tp, record.Meta{BaseOffset: ack.Target - 1, Transactional: true, TransactionalID: id})
	if err := c.coord.txns.m.RecordSend(id, tp, run.first(ack.Target-1), run.starts); err != nil {
		return ack, err
	}
	return ack, nil
}

// runCheck is what checkRun found in a partition's leader index for a
// batch about to be appended: whether it starts a new run of its id
// (starts), or the first offset of the open run it joins (at; -1 when
// unknown: the index could not be read).
type runCheck struct {
	starts bool
	at     int64
}

// first is the first offset of the batch's run, given the batch's own base
// offset: what RecordSend records.
func (r runCheck) first(base int64) int64 {
	if r.starts || r.at < 0 {
		return base
	}
	return r.at
}

// checkRun says whether a batch of the current instance of id appended to
// tp now would start a new run there (the leader's log holds no open run of
// id) or join the instance's own open run, and refuses it with
// CONCURRENT_TRANSACTIONS (retriable) when the open run of id there is not
// the instance's own (txn.Manager.Owns): an earlier instance's batches whose
// marker was lost (decision 44). Joining that run would let this instance's
// marker decide the earlier instance's batches, since batches carry no
// instance; so the partition waits for the orphan's own marker, which the
// cluster appends after the next replication step or ISR refresh
// (retryOrphanMarkers), as Kafka's coordinator answers
// CONCURRENT_TRANSACTIONS until the previous transaction's markers are
// written. When the leader's log cannot be read, the append decides (it
// fails while the leader is down).
func (l *txnLayer) checkRun(tp TopicPartition, id string) (runCheck, error) {
	idx, err := l.index(tp)
	if err != nil || idx == nil {
		return runCheck{at: -1}, nil
	}
	first, open := idx.OpenRun(id)
	if !open {
		return runCheck{starts: true}, nil
	}
	if l.m.Owns(tp, txn.Run{ID: id, First: first, Marker: -1}) {
		return runCheck{at: first}, nil
	}
	l.indexes[tp].orphans = true // its marker is appended by the next retryOrphanMarkers
	return runCheck{}, kerr.New(kerr.ConcurrentTransactions,
		"%s holds batches of an earlier instance of transaction %s from offset %d with no marker (lost in a crash): they get their own marker first (at the next replication step), then the send can be retried",
		tp, id, first)
}

// TransactionSendOffsets stages consumer offsets for group inside
// transaction id (send_offsets): they are committed to the offset store
// together with the transaction's output, at commit, or dropped at abort.
// Every partition must exist; the transaction must be ONGOING (decision 16).
func (c *Cluster) TransactionSendOffsets(id, groupID string, offsets map[TopicPartition]int64) error {
	if err := c.checkCoordination(); err != nil {
		return err
	}
	for tp := range offsets {
		if _, err := c.replicaSet(tp); err != nil {
			return err
		}
	}
	return c.coord.txns.m.SendOffsets(id, groupID, group.Offsets(offsets))
}

// TransactionResult is what a completed commit or abort did.
type TransactionResult struct {
	ID    string
	State txn.State // COMPLETE_COMMIT or COMPLETE_ABORT
	// Markers are the partitions whose marker this attempt appended, or
	// found in the leader's log above the HW and waited for.
	Markers []TopicPartition
}

// TxnCompletion is the pending completion of a commit or an abort: it
// settles once every marker is acknowledged by its ISR (done), when a marker
// fails (failed: the transaction stays PREPARE_* and the same outcome may be
// retried, decision 16), or when the cluster crashes (cancelled). It belongs
// to one instance of its transaction id: when an earlier attempt already
// completed that instance, it settles done without completing anything
// again (one transaction_completed event per instance), even if its own
// redundant marker fails; it never completes a later instance of the id.
type TxnCompletion struct {
	replication.Promise[TransactionResult]
	ID      string
	Outcome record.ControlType
	// Acks are the markers' acknowledgements, in partition order.
	Acks []*Ack

	instance  uint64           // txnLayer.begun[ID] when the attempt started
	markers   []TopicPartition // the partitions of this attempt's markers, in partition order
	remaining int              // markers not acknowledged yet
}

// CommitTransaction commits transaction id (§12.3, two-phase): it journals
// PREPARE_COMMIT, appends a COMMIT marker with acks=all to every partition
// the transaction wrote (in partition order) whose leader's log holds no
// marker for it yet, waits for the marker a leader's log holds above the HW
// (never written twice, decision 37), and returns the pending completion. When every marker is acknowledged the staged offsets are
// committed atomically and COMPLETE_COMMIT is journaled. A state error (not
// ONGOING or PREPARE_COMMIT) changes nothing; a marker that cannot be
// appended (NOT_ENOUGH_REPLICAS, or LEADER_NOT_AVAILABLE when the
// partition's leader is down) fails the completion at once and leaves the
// transaction in PREPARE_COMMIT, to be retried: it never completes while a
// partition it wrote lacks its marker.
func (c *Cluster) CommitTransaction(id string) (*TxnCompletion, error) {
	defer c.drainDiskFailures()
	return c.endTransaction(id, record.Commit)
}

// AbortTransaction is CommitTransaction with ABORT markers; completion drops
// the staged offsets and journals COMPLETE_ABORT.
func (c *Cluster) AbortTransaction(id string) (*TxnCompletion, error) {
	defer c.drainDiskFailures()
	return c.endTransaction(id, record.Abort)
}

func (c *Cluster) endTransaction(id string, outcome record.ControlType) (*TxnCompletion, error) {
	if err := c.checkCoordination(); err != nil {
		return nil, err
	}
	m := c.coord.txns.m
	var parts []TopicPartition
	var err error
	if outcome == record.Commit {
		parts, err = m.PrepareCommit(id)
	} else {
		parts, err = m.PrepareAbort(id)
	}
	if err != nil {
		return nil, err
	}
	return c.writeMarkers(id, outcome, c.coord.txns.needMarkers(id, parts)), nil
}

// markerStep is what one commit or abort attempt does in one partition:
// append a marker, or, when at >= 0, wait for the marker already at that
// offset of the leader's log to be replicated (decision 37: a marker in the
// log is never written twice).
type markerStep struct {
	tp TopicPartition
	at int64
}

const appendMarker = -1 // markerStep.at of a marker to append

// needMarkers says what each partition of parts needs from an attempt to
// end id, from its leader index (txn.Manager.Need): a marker when the run
// the instance owns there is open, a wait when it is closed by a marker the
// HW has not passed yet, nothing otherwise. An open run of an earlier
// instance of id is not the instance's to close (decision 44): it gets its
// own marker as an orphan. A partition whose index cannot be read, or does
// not describe its crashed leader's log, gets a marker: its append fails
// (LEADER_NOT_AVAILABLE while the leader is down) and the transaction stays
// prepared until a retry once the partition has a leader again, as Kafka's
// coordinator keeps resending WriteTxnMarkers.
func (l *txnLayer) needMarkers(id string, parts []TopicPartition) []markerStep {
	var out []markerStep
	for _, tp := range parts {
		idx, err := l.index(tp)
		if err != nil || idx == nil {
			out = append(out, markerStep{tp: tp, at: appendMarker})
			continue
		}
		switch need := l.m.Need(tp, idx.UnstableRuns(l.c.sets[tp].HighWatermark()), id); {
		case need.Open:
			out = append(out, markerStep{tp: tp, at: appendMarker})
		case need.Found:
			out = append(out, markerStep{tp: tp, at: need.Marker})
		}
	}
	return out
}

// unstableRun returns the first offset of id's run in tp's leader index
// that is open, or closed by a marker the HW has not passed yet; while id
// has an unstable instance, only the run that instance owns (decision 44).
func (l *txnLayer) unstableRun(idx *txn.Index, tp TopicPartition, id string) (int64, bool) {
	e, _ := l.m.Get(id)
	for _, r := range idx.UnstableRuns(l.c.sets[tp].HighWatermark()) {
		if r.ID == id && (!e.State.Unstable() || l.m.Owns(tp, r)) {
			return r.First, true
		}
	}
	return 0, false
}

// writeMarkers appends id's markers (acks=all), or waits for the ones
// already in the leader's log, in partition order, and returns the
// completion that finishes the transaction once all of them are
// acknowledged.
func (c *Cluster) writeMarkers(id string, outcome record.ControlType, steps []markerStep) *TxnCompletion {
	h := &TxnCompletion{Promise: *replication.NewPromise[TransactionResult](c.ids.Next()), ID: id, Outcome: outcome,
		instance: c.coord.txns.begun[id]}
	parts := make([]TopicPartition, len(steps))
	for i, st := range steps {
		parts[i] = st.tp
		var ack *Ack
		var err error
		if st.at == appendMarker {
			ack, err = c.sets[st.tp].Append(record.NewControlBatch(id, outcome), AcksAll, fmt.Sprintf("txn %s %s marker", id, outcome))
		} else {
			ack, err = c.sets[st.tp].AwaitBatch(st.at, fmt.Sprintf("txn %s %s marker, already in the log", id, outcome))
		}
		if err != nil {
			c.failCompletion(h, fmt.Errorf("%s marker for %s: %w", outcome, st.tp, err))
			return h
		}
		h.Acks = append(h.Acks, ack)
	}
	h.markers, h.remaining = parts, len(h.Acks)
	if len(h.Acks) == 0 {
		c.finishCompletion(h)
		return h
	}
	c.coord.txns.pending[h.Promise.ID()] = h
	for i, ack := range h.Acks {
		ack.Listen(c.dispatcher(), replication.Listener{Kind: replication.ListenMarker, Owner: h.Promise.ID(), Ref: int64(i)})
	}
	return h
}

// markerSettled is the continuation of a marker's acknowledgement
// (replication.ListenMarker): the completion it belongs to finishes when
// its last marker is done, fails when one fails, and is cancelled when one
// is cancelled (a cluster crash). A completion that has settled already
// ignores the rest of its markers.
func (c *Cluster) markerSettled(l replication.Listener) {
	if c.coord == nil {
		return
	}
	h := c.coord.txns.pending[l.Owner]
	if h == nil {
		return
	}
	ack := h.Acks[l.Ref]
	switch ack.State() {
	case Done:
		h.remaining--
		if h.remaining == 0 {
			c.finishCompletion(h)
		}
	case Failed:
		c.failCompletion(h, fmt.Errorf("%s marker for %s: %w", h.Outcome, ack.TP, ack.Err()))
	default:
		delete(c.coord.txns.pending, h.Promise.ID())
		h.Cancel()
	}
}

// finishCompletion completes h's transaction once every marker is
// acknowledged, and settles h.
func (c *Cluster) finishCompletion(h *TxnCompletion) {
	if h.Settled() {
		return
	}
	delete(c.coord.txns.pending, h.Promise.ID())
	res := TransactionResult{ID: h.ID, State: completeState(h.Outcome), Markers: h.markers}
	if c.finishedBefore(h) {
		// An earlier attempt's markers completed this instance: it
		// completed once, and said so then.
		h.Resolve(res)
		return
	}
	if err := c.completeTransaction(h.ID, h.Outcome); err != nil {
		c.failCompletion(h, err)
		return
	}
	res.State, _ = c.txnState(h.ID)
	c.events.Emit(TransactionCompleted{ID: h.ID, State: res.State, Markers: h.markers})
	h.Resolve(res)
}

// completeTransaction is the second phase of the current instance, which
// is prepared with this outcome (finishedBefore was false).
func (c *Cluster) completeTransaction(id string, outcome record.ControlType) error {
	if outcome == record.Commit {
		return c.coord.txns.m.CompleteCommit(id)
	}
	return c.coord.txns.m.CompleteAbort(id)
}

// finishedBefore reports whether h's instance of its transaction is
// already complete with h's outcome: an earlier attempt's markers completed
// it, or the id has begun again since (which needs the instance complete,
// and a prepared instance completes only with the outcome it prepared).
func (c *Cluster) finishedBefore(h *TxnCompletion) bool {
	if h.instance != c.coord.txns.begun[h.ID] {
		return true
	}
	st, _ := c.txnState(h.ID)
	return st == completeState(h.Outcome)
}

// completeState is COMPLETE_COMMIT or COMPLETE_ABORT.
func completeState(outcome record.ControlType) txn.State {
	if outcome == record.Commit {
		return txn.CompleteCommit
	}
	return txn.CompleteAbort
}

func (c *Cluster) txnState(id string) (txn.State, bool) {
	e, ok := c.coord.txns.m.Get(id)
	return e.State, ok
}

func (c *Cluster) failCompletion(h *TxnCompletion, err error) {
	if h.Settled() {
		return
	}
	delete(c.coord.txns.pending, h.Promise.ID())
	if c.finishedBefore(h) {
		// A redundant marker of a retried attempt failed after an earlier
		// attempt completed the transaction: nothing is left undone, and
		// "it stays prepared" would not be true.
		var markers []TopicPartition
		for _, a := range h.Acks {
			markers = append(markers, a.TP)
		}
		h.Resolve(TransactionResult{ID: h.ID, State: completeState(h.Outcome), Markers: markers})
		return
	}
	st, _ := c.txnState(h.ID)
	ev := TransactionFailed{ID: h.ID, Outcome: h.Outcome, State: st, Message: err.Error()}
	if e, ok := kerr.As(err); ok {
		// The code is a field of its own: keep the context ("commit marker
		// for t-1: ...") without repeating the code inside the message.
		ev.Code = e.Code
		ev.Message = strings.Replace(ev.Message, string(e.Code)+": ", "", 1)
	}
	c.events.Emit(ev)
	h.Fail(err)
}

// recover finishes what the journal left unstable (§12.5, decision 15): it
// asks the coordinator what to do given every leader index's unstable runs,
// then appends the markers still missing and waits for the ones already in
// the log above the HW (decision 37), completing each transaction when all
// of them are acknowledged. Markers that cannot be appended now are
// reported; their transactions stay prepared and a commit or abort of the
// same outcome retries them.
func (l *txnLayer) recover() (txn.Recovery, []string, error) {
	c := l.c
	unstable := map[TopicPartition][]txn.Run{}
	for _, tp := range c.sortedTPs() {
		idx, err := l.index(tp)
		if err != nil {
			return txn.Recovery{}, nil, err
		}
		if runs := idx.UnstableRuns(c.sets[tp].HighWatermark()); len(runs) > 0 {
			unstable[tp] = runs
		}
	}
	rec, err := l.m.Recover(unstable)
	if err != nil {
		return rec, nil, err
	}
	var problems []string
	for _, a := range rec.Actions {
		ev := TransactionRecovered{ID: a.ID, Found: a.Found, State: a.State, Markers: a.Markers}
		steps := make([]markerStep, 0, len(a.Markers)+len(a.Unreplicated))
		for _, tp := range a.Markers {
			steps = append(steps, markerStep{tp: tp, at: appendMarker})
		}
		for _, m := range a.Unreplicated {
			ev.Replicating = append(ev.Replicating, m.Partition)
			steps = append(steps, markerStep{tp: m.Partition, at: m.Offset})
		}
		c.events.Emit(ev)
		if len(steps) == 0 {
			continue
		}
		slices.SortFunc(steps, func(a, b markerStep) int { return a.tp.Compare(b.tp) })
		outcome := record.Abort
		if a.State == txn.PrepareCommit {
			outcome = record.Commit
		}
		if h := c.writeMarkers(a.ID, outcome, steps); h.State() == Failed {
			problems = append(problems, fmt.Sprintf("transaction %s: %v", a.ID, h.Err()))
		}
	}
	for _, o := range rec.Orphans {
		rs := c.sets[o.Partition]
		if rs.CheckWritable(AcksAll) != nil {
			// Refused now: retryOrphanMarkers appends it once replication
			// has grown the ISR (no transaction is left to retry it).
			l.indexes[o.Partition].orphans = true
			problems = append(problems, fmt.Sprintf("%s marker for %s in %s waits until the ISR %s reaches min.insync.replicas=%d (replicate)",
				o.Outcome, o.ID, o.Partition, replication.FormatBrokers(rs.ISR()), c.cfg.MinInsyncReplicas))
			continue
		}
		if err := l.writeOrphanMarker(o.Partition, o.ID, o.Outcome, "recovery"); err != nil {
			l.indexes[o.Partition].orphans = true
			problems = append(problems, fmt.Sprintf("%s marker for %s in %s: %v", o.Outcome, o.ID, o.Partition, err))
		}
	}
	return rec, problems, nil
}

// TransactionDescription is one row of `txn list`.
type TransactionDescription struct {
	txn.Description
	// OpenRuns maps each partition the transaction wrote to the first offset
	// of its run there that the HW has not seen resolved by a marker yet
	// (the leader's transaction index says so; when the leader's log cannot
	// be seen, an unstable transaction's first offset there): the
	// partitions that still need a marker. Partitions with no such run are
	// absent.
	OpenRuns []PartitionOffset
	// HoldsLSO maps each partition whose last stable offset the transaction
	// holds back to the offset it holds it at: its open runs, and, while
	// the transaction is unstable, every partition it wrote (the
	// coordinator's view: a partition whose marker is already replicated
	// stays held until the transaction completes, decision 18).
	HoldsLSO []PartitionOffset
}

// PartitionOffset is an offset in a partition.
type PartitionOffset struct {
	TP     TopicPartition
	Offset int64
}

// ListTransactions describes every transaction the coordinator knows (`txn
// list`), sorted by id.
func (c *Cluster) ListTransactions() ([]TransactionDescription, error) {
	if err := c.checkCoordination(); err != nil {
		return nil, err
	}
	var out []TransactionDescription
	for _, d := range c.coord.txns.m.List() {
		out = append(out, c.describeTxn(d))
	}
	return out, nil
}

// DescribeTransaction describes transaction id (a state error when unknown).
func (c *Cluster) DescribeTransaction(id string) (TransactionDescription, error) {
	if err := c.checkCoordination(); err != nil {
		return TransactionDescription{}, err
	}
	if err := txn.CheckID(id); err != nil {
		return TransactionDescription{}, err
	}
	d, ok := c.coord.txns.m.Describe(id)
	if !ok {
		return TransactionDescription{}, kerr.State("transaction %s has not begun", id)
	}
	return c.describeTxn(d), nil
}

func (c *Cluster) describeTxn(d txn.Description) TransactionDescription {
	out := TransactionDescription{Description: d}
	first := map[TopicPartition]int64{}
	if d.State.Unstable() {
		for _, fo := range d.FirstOffsets {
			first[fo.Partition] = fo.Offset
		}
	}
	for _, tp := range d.Partitions {
		open, isOpen := first[tp]
		if idx, err := c.coord.txns.index(tp); err == nil {
			// The leader's log says which runs are unresolved.
			open, isOpen = c.coord.txns.unstableRun(idx, tp, d.ID)
		}
		held, isHeld := first[tp]
		if isOpen {
			out.OpenRuns = append(out.OpenRuns, PartitionOffset{TP: tp, Offset: open})
			if !isHeld || open < held {
				held, isHeld = open, true
			}
		}
		if isHeld {
			out.HoldsLSO = append(out.HoldsLSO, PartitionOffset{TP: tp, Offset: held})
		}
	}
	return out
}

// TransactionCompleted: every marker of a commit or abort was acknowledged
// and the coordinator completed the transaction.
type TransactionCompleted struct {
	ID      string
	State   txn.State
	Markers []TopicPartition
}

// Kind returns "transaction_completed".
func (TransactionCompleted) Kind() string { return "transaction_completed" }

// String describes the event on one line.
func (e TransactionCompleted) String() string {
	if len(e.Markers) == 0 {
		return fmt.Sprintf("transaction %s is %s (no partition needed a marker)", e.ID, e.State)
	}
	markers := "markers"
	if len(e.Markers) == 1 {
		markers = "marker"
	}
	return fmt.Sprintf("transaction %s is %s (%s acknowledged on %s)", e.ID, e.State, markers, tpList(e.Markers))
}

// TransactionFailed: a commit or abort could not complete now; the
// transaction stays prepared and may be retried with the same outcome.
type TransactionFailed struct {
	ID      string
	Outcome record.ControlType
	State   txn.State
	Code    kerr.Code
	Message string
}

// Kind returns "transaction_failed".
func (TransactionFailed) Kind() string { return "transaction_failed" }

// String describes the event on one line.
func (e TransactionFailed) String() string {
	msg := e.Message
	if e.Code != "" {
		msg = string(e.Code) + ": " + msg
	}
	return fmt.Sprintf("transaction %s: %s did not complete (%s); it stays %s, and `txn %s %s` retries it", e.ID, e.Outcome, msg, e.State, e.Outcome, e.ID)
}

// TransactionRecovered: opening the cluster found an unfinished transaction
// (or a run of batches no transaction owns) and resolved it. Markers are
// the partitions that get a marker; Replicating those whose marker is in the
// leader's log already, above the HW: recovery waits for it to replicate.
// An orphan run belongs to no unstable transaction; EarlierInstance says
// that its id has one, a later instance, which does not own the run
// (decision 44).
type TransactionRecovered struct {
	ID              string
	Found, State    txn.State
	Markers         []TopicPartition
	Replicating     []TopicPartition
	Orphan          bool
	OrphanOutcome   record.ControlType
	EarlierInstance bool
}

// Kind returns "transaction_recovered".
func (TransactionRecovered) Kind() string { return "transaction_recovered" }

// String describes the event on one line.
func (e TransactionRecovered) String() string {
	if e.Orphan {
		marker := "a commit marker"
		if e.OrphanOutcome == record.Abort {
			marker = "an abort marker"
		}
		if e.EarlierInstance {
			return fmt.Sprintf("recovery: %s batches of an earlier instance of transaction %s lost their marker (the open instance does not own them): writing %s", tpList(e.Markers), e.ID, marker)
		}
		return fmt.Sprintf("recovery: %s batches of transaction %s with no open transaction: writing %s", tpList(e.Markers), e.ID, marker)
	}
	s := fmt.Sprintf("recovery: transaction %s was %s, now %s", e.ID, e.Found, e.State)
	if e.Found == e.State {
		s = fmt.Sprintf("recovery: transaction %s is still %s", e.ID, e.State)
	}
	if e.Found == txn.Ongoing {
		s += " (nobody can finish it after a restart, so it is aborted)"
	}
	switch n := len(e.Markers) + len(e.Replicating); {
	case len(e.Replicating) == 0 && n == 1:
		s += "; writing its marker on " + tpList(e.Markers) + ", it completes when that is acknowledged"
	case len(e.Replicating) == 0 && n > 1:
		s += "; writing its markers on " + tpList(e.Markers) + ", it completes when they are acknowledged"
	case len(e.Markers) == 0 && n == 1:
		s += "; " + markersInLog(e.Replicating) + ", so it completes when replication carries it"
	case len(e.Markers) == 0:
		s += "; " + markersInLog(e.Replicating) + ", so it completes when replication carries them"
	default:
		what := "marker"
		if len(e.Markers) > 1 {
			what = "markers"
		}
		s += "; writing its " + what + " on " + tpList(e.Markers) + "; " + markersInLog(e.Replicating) + "; it completes when all are acknowledged"
	}
	return s
}

// markersInLog says that the markers of these partitions are in the
// leader's log already (decision 37).
func markersInLog(tps []TopicPartition) string {
	if len(tps) == 1 {
		return "its marker on " + tpList(tps) + " is in the leader's log already, above the HW"
	}
	return "its markers on " + tpList(tps) + " are in the leaders' logs already, above the HW"
}

func tpList(tps []TopicPartition) string {
	if len(tps) == 0 {
		return "no partition"
	}
	names := make([]string, len(tps))
	for i, tp := range tps {
		names[i] = tp.String()
	}
	return strings.Join(names, ", ")
}

var _ Transactions = (*txnLayer)(nil)
