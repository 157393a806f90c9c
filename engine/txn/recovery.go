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
// the partitions where one of its runs is still open. A run already closed
// by a marker above the HW is never given a second marker (decision 37):
// the transaction waits for that marker to be replicated instead
// (RecoveryAction.Unreplicated). Those partitions are added to its entry if
// the journal did not have them. Open runs whose id has no unstable
// transaction become one OrphanMarker each (OrphanOutcome decides it); a
// closed run of such an id needs nothing, since its marker replicates like
// any batch.
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
			need := NeedFor(unstable[tp], id)
			if !need.Found {
				continue
			}
			if need.Open {
				act.Markers = append(act.Markers, tp)
			} else {
				act.Unreplicated = append(act.Unreplicated, LoggedMarker{Partition: tp, Offset: need.Marker})
			}
			next.Partitions = addPartition(next.Partitions, tp)
			if _, ok := next.FirstOffsets[tp]; !ok {
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
			if next.State == PrepareCommit {
				err = m.CompleteCommit(id)
				act.OffsetsApplied = err == nil && len(next.StagedOffsets) > 0
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
// leader's open runs): COMMIT when the id's latest entry is COMPLETE_COMMIT
// with the same first offset in tp (its marker was lost), ABORT otherwise.
// ok is false when the run needs no marker from recovery: it is closed
// already (a marker in the log is never written twice, decision 37), or an
// unstable transaction of r.ID owns it (its completion writes the marker).
func (m *Manager) OrphanOutcome(tp topic.Partition, r Run) (outcome record.ControlType, ok bool) {
	if !r.IsOpen() || m.owned(r.ID) {
		return record.NoControl, false
	}
	if e := m.txns[r.ID]; e != nil && e.State == CompleteCommit {
		if first, wrote := e.FirstOffsets[tp]; wrote && first == r.First {
			return record.Commit, true
		}
	}
	return record.Abort, true
}

// owned reports whether an unstable transaction of id exists.
func (m *Manager) owned(id string) bool {
	e := m.txns[id]
	return e != nil && e.State.Unstable()
}

// Need is what a commit or an abort of one transaction id still needs in
// one partition, read from the partition's unstable runs
// (Index.UnstableRuns): nothing when Found is false; a marker appended when
// Open (one of its runs has none yet); otherwise nothing appended but a wait
// for the marker at offset Marker, the last of the markers the HW has not
// passed (waiting for it covers the earlier ones): a marker already in the
// log is never written a second time (decision 37). First is the first
// offset of the id's earliest unstable run there.
type Need struct {
	First, Marker int64
	Open, Found   bool
}

// NeedFor reads id's Need from one partition's unstable runs.
func NeedFor(runs []Run, id string) Need {
	var n Need
	for _, r := range runs {
		if r.ID != id {
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
