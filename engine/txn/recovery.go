package txn

import (
	"maps"
	"slices"

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
	// OffsetsApplied: the staged offsets were committed to the offset store.
	OffsetsApplied bool
}

// OrphanMarker is a marker recovery asks for although no unstable
// transaction owns the run: a run that is still open, or whose marker is not
// yet replicated, while the journal's latest entry for the id is complete
// (or missing, after journal damage). The cluster appends the marker with
// acks=all; no completion step follows.
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
//     still needed are computed; with none needed it completes now
//     (COMPLETE_COMMIT applies the staged offsets first).
//
// How recovery knows which markers exist: unstable maps each partition to
// the runs its leader's transaction index reports as unstable
// (Index.UnstableRuns(hw)): runs with no marker yet, and runs whose marker
// the HW has not passed (it could still be cut off by a leader change, so it
// is written again; the extra marker is harmless, since a marker for an id
// with no open run is ignored). A transaction needs a marker on exactly the
// partitions where one of its runs is unstable; those partitions are added
// to its entry if the journal did not have them. Runs whose id has no
// unstable transaction become one OrphanMarker per (partition, id): for an
// open run, COMMIT when the journal's latest entry for the id is
// COMPLETE_COMMIT with the same first offset on that partition (its marker
// was lost), ABORT otherwise; for a run already closed but not replicated,
// the same outcome again (a harmless duplicate that gets acknowledged only
// once the in-sync replicas hold both markers).
func (m *Manager) Recover(unstable map[topic.Partition][]Run) (Recovery, error) {
	var rec Recovery
	byID := map[string][]Run{}
	runTP := map[string][]topic.Partition{}
	tps := slices.Collect(maps.Keys(unstable))
	topic.Sort(tps)
	for _, tp := range tps {
		for _, r := range unstable[tp] {
			byID[r.ID] = append(byID[r.ID], r)
			if !slices.Contains(runTP[r.ID], tp) {
				runTP[r.ID] = append(runTP[r.ID], tp)
			}
		}
	}
	for _, id := range m.IDs() {
		e := m.txns[id]
		if !e.State.Unstable() {
			continue
		}
		act := RecoveryAction{ID: id, Found: e.State, Markers: slices.Clone(runTP[id])}
		next := e.clone()
		if next.State == Ongoing {
			next.State = PrepareAbort
		}
		for _, tp := range act.Markers {
			next.Partitions = addPartition(next.Partitions, tp)
			if _, ok := next.FirstOffsets[tp]; !ok {
				next.FirstOffsets[tp] = firstRun(unstable[tp], id)
			}
		}
		if next.State != e.State || len(next.Partitions) != len(e.Partitions) {
			if err := m.store(next); err != nil {
				return rec, err
			}
		}
		if len(act.Markers) == 0 {
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
		// One marker per orphan (partition, id): an open run decides it;
		// otherwise the latest closed run's outcome is repeated, only to get
		// its unreplicated marker acknowledged by the in-sync replicas.
		chosen := map[string]Run{}
		for _, r := range unstable[tp] {
			if m.owned(r.ID) {
				continue
			}
			prev, seen := chosen[r.ID]
			switch {
			case !seen, r.IsOpen():
				chosen[r.ID] = r
			case !prev.IsOpen() && r.First > prev.First:
				chosen[r.ID] = r
			}
		}
		for _, id := range slices.Sorted(maps.Keys(chosen)) {
			r := chosen[id]
			outcome, _ := m.OrphanOutcome(tp, r)
			rec.Orphans = append(rec.Orphans, OrphanMarker{Partition: tp, ID: id, First: r.First, Outcome: outcome})
		}
	}
	return rec, nil
}

// OrphanOutcome is the marker a run of r.ID in tp needs when no unstable
// transaction owns it (the orphan rule of Recover, also used for a new
// leader's open runs): for an open run, COMMIT when the id's latest entry is
// COMPLETE_COMMIT with the same first offset in tp (its marker was lost),
// ABORT otherwise; for a closed run, its own outcome again. ok is false when
// an unstable transaction of r.ID owns the run: its completion writes the
// marker.
func (m *Manager) OrphanOutcome(tp topic.Partition, r Run) (outcome record.ControlType, ok bool) {
	if m.owned(r.ID) {
		return record.NoControl, false
	}
	if !r.IsOpen() {
		return r.Outcome, true
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

func firstRun(runs []Run, id string) int64 {
	for _, r := range runs {
		if r.ID == id {
			return r.First
		}
	}
	return 0
}
