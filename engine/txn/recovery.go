package txn

import (
	"maps"
	"slices"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// RecoveryAction is what recovery did with one unstable transaction.
type RecoveryAction struct {
	ID    string
	Found State // the state the journal held
	State State // the state now
	// Markers are the partitions that still need a marker of the
	// transaction's outcome (sorted). When empty the transaction is already
	// complete; otherwise the cluster appends the markers with acks=all and
	// then calls CompleteCommit or CompleteAbort, exactly as for a live commit.
	Markers []topic.Partition
	// Unreplicated are the markers of the transaction's outcome already in
	// the leader's log but above the HW (sorted by partition): nothing is
	// appended for them (decision 37); the transaction completes only once
	// the HW has passed them too.
	Unreplicated []LoggedMarker
	// OffsetsApplied: the staged offsets were committed to the offset store.
	OffsetsApplied bool
}

// LoggedMarker is a marker in a partition's leader log, at Offset.
type LoggedMarker struct {
	Partition topic.Partition
	Offset    int64
}

// OrphanMarker is a marker recovery asks for although no unstable
// transaction owns the run: a run still open while the journal's latest
// entry for the id is complete (or missing, after journal damage). The
// cluster appends the marker with acks=all; no completion step follows.
type OrphanMarker struct {
	Partition topic.Partition
	ID        string
	First     int64
	Outcome   record.ControlType
}

// Recovery reports what Recover did (§12.5 and decision 15).
type Recovery struct {
	Actions []RecoveryAction // by id
	Orphans []OrphanMarker   // by partition, then id
}

// Recover resolves every unstable transaction after Open (§12.5, decision 15):
//
//   - ONGOING: nobody can finish it any more, so it is aborted: PREPARE_ABORT
//     is journaled and it continues as below;
//   - PREPARE_COMMIT / PREPARE_ABORT: the outcome is decided; the markers
//     still needed are computed; with none needed and none waiting it
//     completes now (COMPLETE_COMMIT applies the staged offsets first).
//
// How recovery knows which markers exist: unstable maps each partition to
// the runs its leader's transaction index reports as unstable
// (Index.UnstableRuns(hw)): runs with no marker yet, and runs whose marker
// the HW has not passed. A transaction needs a marker appended on exactly
// the partitions where the run it owns (Owns) is still open. A run already
// closed by a marker above the HW is never given a second marker (decision
// 37): the transaction waits for that marker to be replicated instead
// (RecoveryAction.Unreplicated). A run it owns in a partition the journal
// did not record (its line was lost) is added to its entry. Open runs no
// unstable transaction owns become one OrphanMarker each (OrphanOutcome
// decides it): runs of an id with no unstable transaction, and runs of an
// earlier instance of an unstable id whose marker was lost (decision 44:
// the current instance's marker must not close them). A closed run nobody
// owns needs nothing, since its marker replicates like any batch.
func (m *Manager) Recover(unstable map[topic.Partition][]Run) (Recovery, error) {
	var rec Recovery
	tps := slices.Collect(maps.Keys(unstable))
	topic.Sort(tps)
	for _, id := range m.IDs() {
		e := m.txns[id]
		if !e.State.Unstable() {
			continue
		}
		act := RecoveryAction{ID: id, Found: e.State}
		next := e.clone()
		if next.State == Ongoing {
			next.State = PrepareAbort
		}
		for _, tp := range tps {
			need := m.Need(tp, unstable[tp], id)
			if !need.Found {
				continue
			}
			if need.Open {
				act.Markers = append(act.Markers, tp)
			} else {
				act.Unreplicated = append(act.Unreplicated, LoggedMarker{Partition: tp, Offset: need.Marker})
			}
			if _, ok := next.FirstOffsets[tp]; !ok { // a run the journal lost the line of
				next.Partitions = addPartition(next.Partitions, tp)
				next.FirstOffsets[tp] = need.First
			}
		}
		if next.State != e.State || len(next.Partitions) != len(e.Partitions) {
			if err := m.store(next); err != nil {
				return rec, err
			}
		}
		if len(act.Markers) == 0 && len(act.Unreplicated) == 0 {
			var err error
			if m.txns[id].State == PrepareCommit {
				err = m.CompleteCommit(id)
				act.OffsetsApplied = err == nil && len(m.txns[id].StagedOffsets) > 0
			} else {
				err = m.CompleteAbort(id)
			}
			if err != nil {
				return rec, err
			}
		}
		act.State = m.txns[id].State
		rec.Actions = append(rec.Actions, act)
	}
	for _, tp := range tps {
		var orphans []OrphanMarker
		for _, r := range unstable[tp] {
			if outcome, ok := m.OrphanOutcome(tp, r); ok {
				orphans = append(orphans, OrphanMarker{Partition: tp, ID: r.ID, First: r.First, Outcome: outcome})
			}
		}
		slices.SortFunc(orphans, func(a, b OrphanMarker) int { return strings.Compare(a.ID, b.ID) })
		rec.Orphans = append(rec.Orphans, orphans...)
	}
	return rec, nil
}

// OrphanOutcome is the marker a run of r.ID in tp needs when no unstable
// transaction owns it (the orphan rule of Recover, also used for a new
// leader's open runs): the outcome of the instance that wrote it when the
// coordinator knows that instance, ABORT otherwise. It knows the id's
// latest instance when that is complete and started its run in tp at
// r.First, and, per partition, the last finished instance that wrote
// there (Manager.finished): an earlier instance whose marker was lost while
// a later instance of the id is open (decision 44). So a run whose COMMIT
// marker was lost is committed again, and any other run is aborted (a run
// nobody recorded: the journal lost its lines). ok is false when the run
// needs no marker from recovery: it is closed already (a marker in the log
// is never written twice, decision 37), or the current instance of r.ID
// owns it (Owns: its completion writes the marker).
func (m *Manager) OrphanOutcome(tp topic.Partition, r Run) (outcome record.ControlType, ok bool) {
	if !r.IsOpen() || m.Owns(tp, r) {
		return record.NoControl, false
	}
	if e := m.txns[r.ID]; e != nil && !e.State.Unstable() {
		if first, wrote := e.FirstOffsets[tp]; wrote && first == r.First {
			if e.State == CompleteCommit {
				return record.Commit, true
			}
			return record.Abort, true
		}
	}
	if f, ok := m.finished[r.ID][tp]; ok && f.first == r.First && f.committed {
		return record.Commit, true
	}
	return record.Abort, true
}

// Need is what a commit or an abort of one transaction still needs in one
// partition, read from the partition's unstable runs (Index.UnstableRuns):
// nothing when Found is false; a marker appended when Open (the run it
// owns there has none yet); otherwise nothing appended but a wait for the
// marker at offset Marker that closes its run, which the HW has not passed:
// a marker already in the log is never written a second time (decision 37).
// First is the first offset of its run there.
type Need struct {
	First, Marker int64
	Open, Found   bool
}

// Need reads what the current instance of id needs in tp from tp's
// unstable runs. Only the run it owns counts (Owns, decision 44): an open
// run of an earlier instance of id is an orphan, and the current
// instance's marker must not decide its fate.
func (m *Manager) Need(tp topic.Partition, runs []Run, id string) Need {
	var n Need
	for _, r := range runs {
		if r.ID != id || !m.Owns(tp, r) {
			continue
		}
		if !n.Found {
			n.First, n.Found = r.First, true
		}
		if r.IsOpen() {
			n.Open = true
		} else {
			n.Marker = max(n.Marker, r.Marker)
		}
	}
	return n
}
