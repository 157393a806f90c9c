package txn

import (
	"maps"
	"slices"
	"unicode/utf8"

	"github.com/minikafka-lab/minikafka/engine/group"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/topic"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// OffsetCommitter applies a committed transaction's staged consumer offsets
// atomically (group.OffsetStore implements it; decision 20).
type OffsetCommitter interface {
	CommitMany(groups map[string]group.Offsets) error
}

// maxIDBytes is the longest transactional id a batch can carry (u16 length).
const maxIDBytes = 1<<16 - 1

// CheckID checks a transactional id: a non-empty UTF-8 string of at most
// 65535 bytes (a batch carries its length in 16 bits). Anything else is an
// argument error. Every operation that names a transaction checks it first.
func CheckID(id string) error {
	if id == "" || !validID(id) || len(id) > maxIDBytes {
		return kerr.Argument("transaction id must be a non-empty UTF-8 string of at most %d bytes", maxIDBytes)
	}
	return nil
}

// validID reports whether an id can be stored: non-empty is checked by the
// caller; here only that it is valid UTF-8, so JSON can carry it unchanged.
func validID(s string) bool { return utf8.ValidString(s) }

// Manager is the transaction coordinator (§12.3): one Entry per
// transaction id, every change journaled (and fsynced) before memory changes,
// so a failed journal write changes nothing.
type Manager struct {
	journal *Journal
	offsets OffsetCommitter
	txns    map[string]*Entry
	// finished holds, per id and partition, the run that the id's last
	// finished instance writing there left: an instance that Begin
	// replaced. Rebuilt from the journal's lines at Open. It tells an
	// earlier instance's run whose marker a crash lost from the current
	// instance's (Owns), and gives that run its own outcome (OrphanOutcome).
	// One entry per id and partition, like Kafka's producer state.
	finished map[string]map[topic.Partition]finishedRun
}

// finishedRun is the run a finished instance left in one partition: its
// first offset, and whether the instance committed.
type finishedRun struct {
	first     int64
	committed bool
}

// Open opens (or starts) the journal at path on fsys, replays it and returns the
// coordinator with the journal's recovery report. It does not yet resolve
// unstable transactions: the cluster calls Recover once it can see its
// partitions' transaction indexes.
func Open(fsys vfs.FS, path string, offsets OffsetCommitter) (*Manager, JournalRecovery, error) {
	j, entries, rep, err := OpenJournal(fsys, path)
	if err != nil {
		return nil, rep, err
	}
	m := &Manager{journal: j, offsets: offsets, txns: map[string]*Entry{}, finished: map[string]map[topic.Partition]finishedRun{}}
	for _, e := range entries {
		e := e.clone()
		if prev := m.txns[e.ID]; prev != nil && !prev.State.Unstable() && e.State == Ongoing {
			m.retire(prev) // a completed instance followed by ONGOING: a Begin line
		}
		m.txns[e.ID] = &e
	}
	return m, rep, nil
}

// retire remembers the runs of a finished instance that Begin replaces.
func (m *Manager) retire(e *Entry) {
	if len(e.FirstOffsets) == 0 {
		return
	}
	runs := m.finished[e.ID]
	if runs == nil {
		runs = map[topic.Partition]finishedRun{}
		m.finished[e.ID] = runs
	}
	for tp, first := range e.FirstOffsets {
		runs[tp] = finishedRun{first: first, committed: e.State == CompleteCommit}
	}
}

// Close closes the journal file. Nothing is lost by not calling it (a crash):
// every change was fsynced when it was made.
func (m *Manager) Close() error { return m.journal.Close() }

// Begin starts a new instance of transaction id, replacing a completed one.
// An empty id, an id that is not UTF-8 or longer than 65535 bytes is an
// argument error; an unstable transaction with this id is the state error
// "transaction {id} is active".
func (m *Manager) Begin(id string) error {
	if err := CheckID(id); err != nil {
		return err
	}
	prev := m.txns[id]
	if prev != nil && prev.State.Unstable() {
		return kerr.State("transaction %s is active", id)
	}
	if err := m.store(Entry{ID: id, State: Ongoing, FirstOffsets: map[topic.Partition]int64{}, StagedOffsets: map[string]group.Offsets{}}); err != nil {
		return err
	}
	if prev != nil {
		m.retire(prev)
	}
	return nil
}

// RecordSend records that transaction id appended a batch to its run in
// tp starting at first (the batch's own offset for the first batch of a
// run): tp joins the transaction's partitions and first_offsets[tp] is the
// first offset of the transaction's run there. The cluster calls it as
// soon as the leader has appended the batch (before the acks=all
// acknowledgement), so that a batch whose acknowledgement later fails still
// gets a marker, as Kafka's AddPartitionsToTxn guarantees. startsRun says
// that the leader's log held no open run of id in tp before this batch:
// when the transaction's earlier run there was cut off (a truncation after
// a leader change), the batch starts its run anew and first_offsets[tp]
// moves to it, since that offset is how the instance recognises its own run
// (Owns). The transaction must be ONGOING (state error "transaction {id} is
// {state}"). A send that changes nothing (a later batch of the same run) is
// not journaled again.
func (m *Manager) RecordSend(id string, tp topic.Partition, first int64, startsRun bool) error {
	e, err := m.ongoing(id)
	if err != nil {
		return err
	}
	if first < 0 {
		return kerr.Argument("base offset cannot be negative")
	}
	if recorded, ok := e.FirstOffsets[tp]; ok && (!startsRun || recorded == first) {
		return nil
	}
	next := e.clone()
	next.FirstOffsets[tp] = first
	next.Partitions = addPartition(next.Partitions, tp)
	return m.store(next)
}

// Owns reports whether run r of a partition's transaction index (in tp)
// belongs to the current instance of r.ID. That instance must be unstable,
// and r must start at or after the first offset it recorded in tp
// (first_offsets; after it, when retention deleted the run's first
// batches). When it recorded none there (the journal lost that line, or
// could not write it), r is its own if it starts after the run the id's
// last finished instance left in tp, or if no finished instance wrote tp.
// Batches carry a transactional id but no instance, so this is how an
// instance tells its own run from an earlier instance's run that lost its
// marker (a crash dropped the marker's bytes), which lies below everything
// later instances wrote: such a run is an orphan, closed by its own marker
// (OrphanOutcome), never by the current instance's commit or abort, and
// the current instance may not write to tp while it is open (decision 44).
func (m *Manager) Owns(tp topic.Partition, r Run) bool {
	e := m.txns[r.ID]
	if e == nil || !e.State.Unstable() {
		return false
	}
	if first, ok := e.FirstOffsets[tp]; ok {
		return r.First >= first
	}
	last, ok := m.finished[r.ID][tp]
	return !ok || r.First > last.first
}

// SendOffsets stages consumer offsets for group; they are published to the
// offset store only when the transaction commits (atomically with its
// output). Requires ONGOING (decision 16). An empty group id or a negative
// offset is an argument error.
func (m *Manager) SendOffsets(id, groupID string, offsets group.Offsets) error {
	e, err := m.ongoing(id)
	if err != nil {
		return err
	}
	if groupID == "" || !validID(groupID) {
		return kerr.Argument("group id must be a non-empty UTF-8 string")
	}
	for tp, o := range offsets {
		if o < 0 {
			return kerr.Argument("committed offsets cannot be negative")
		}
		if tp.Topic == "" || tp.Partition < 0 || !validID(tp.Topic) {
			return kerr.Argument("invalid topic-partition %q", tp.String())
		}
	}
	next := e.clone()
	merged := next.StagedOffsets[groupID]
	if merged == nil {
		merged = group.Offsets{}
	}
	maps.Copy(merged, offsets)
	next.StagedOffsets[groupID] = merged
	return m.store(next)
}

// PrepareCommit moves an ONGOING transaction to PREPARE_COMMIT (journaled)
// and returns its partitions, sorted: the cluster appends a COMMIT marker to
// each, with acks=all, then calls CompleteCommit. A transaction already in
// PREPARE_COMMIT accepts the call again (a retry after a failed marker,
// decision 16) and returns the same partitions. Any other state is the state
// error "transaction {id} is {state}".
func (m *Manager) PrepareCommit(id string) ([]topic.Partition, error) {
	return m.prepare(id, PrepareCommit)
}

// PrepareAbort is PrepareCommit for the ABORT outcome.
func (m *Manager) PrepareAbort(id string) ([]topic.Partition, error) {
	return m.prepare(id, PrepareAbort)
}

func (m *Manager) prepare(id string, to State) ([]topic.Partition, error) {
	e, err := m.get(id)
	if err != nil {
		return nil, err
	}
	switch e.State {
	case to:
	case Ongoing:
		next := e.clone()
		next.State = to
		if err := m.store(next); err != nil {
			return nil, err
		}
	default:
		return nil, stateError(e)
	}
	return slices.Clone(m.txns[id].Partitions), nil
}

// CompleteCommit finishes a PREPARE_COMMIT transaction once every marker is
// acknowledged: its staged offsets are committed through the offset store in
// one atomic CommitMany, then COMPLETE_COMMIT is journaled. If the offset
// store fails, the transaction stays PREPARE_COMMIT and may be completed
// again.
func (m *Manager) CompleteCommit(id string) error {
	e, err := m.get(id)
	if err != nil {
		return err
	}
	if e.State != PrepareCommit {
		return stateError(e)
	}
	if len(e.StagedOffsets) > 0 {
		staged := make(map[string]group.Offsets, len(e.StagedOffsets))
		for g, offs := range e.StagedOffsets {
			staged[g] = maps.Clone(offs)
		}
		if err := m.offsets.CommitMany(staged); err != nil {
			return err
		}
	}
	next := e.clone()
	next.State = CompleteCommit
	return m.store(next)
}

// CompleteAbort finishes a PREPARE_ABORT transaction once every marker is
// acknowledged: the staged offsets are dropped and COMPLETE_ABORT journaled.
func (m *Manager) CompleteAbort(id string) error {
	e, err := m.get(id)
	if err != nil {
		return err
	}
	if e.State != PrepareAbort {
		return stateError(e)
	}
	next := e.clone()
	next.State = CompleteAbort
	next.StagedOffsets = map[string]group.Offsets{}
	return m.store(next)
}

// Get returns a copy of transaction id's current entry.
func (m *Manager) Get(id string) (Entry, bool) {
	e := m.txns[id]
	if e == nil {
		return Entry{}, false
	}
	return e.clone(), true
}

// IDs returns every known transaction id, sorted.
func (m *Manager) IDs() []string { return slices.Sorted(maps.Keys(m.txns)) }

// IsCommitted reports whether the current instance of id is COMPLETE_COMMIT
// (§12.4). Read visibility does not use it: the log's markers decide that.
func (m *Manager) IsCommitted(id string) bool {
	e := m.txns[id]
	return e != nil && e.State == CompleteCommit
}

// FirstUnstableOffset returns the smallest first offset in tp of the
// unstable transactions that wrote to tp, and false when there are none.
func (m *Manager) FirstUnstableOffset(tp topic.Partition) (int64, bool) {
	first, found := int64(0), false
	for _, e := range m.txns {
		if !e.State.Unstable() {
			continue
		}
		if o, ok := e.FirstOffsets[tp]; ok && (!found || o < first) {
			first, found = o, true
		}
	}
	return first, found
}

// LastStableOffset is tp's LSO given its HW and (optionally) the leader's
// transaction index: min(hw, FirstUnstableOffset(tp), idx.FirstUnstable(hw))
// — never above the HW (decision 18).
func (m *Manager) LastStableOffset(tp topic.Partition, hw int64, idx *Index) int64 {
	lso := hw
	if o, ok := m.FirstUnstableOffset(tp); ok && o < lso {
		lso = o
	}
	if idx != nil {
		if o, ok := idx.FirstUnstable(hw); ok && o < lso {
			lso = o
		}
	}
	return lso
}

func (m *Manager) get(id string) (*Entry, error) {
	if err := CheckID(id); err != nil {
		return nil, err
	}
	e := m.txns[id]
	if e == nil {
		return nil, kerr.State("transaction %s has not begun", id)
	}
	return e, nil
}

func (m *Manager) ongoing(id string) (*Entry, error) {
	e, err := m.get(id)
	if err != nil {
		return nil, err
	}
	if e.State != Ongoing {
		return nil, stateError(e)
	}
	return e, nil
}

// store journals e, then makes it the current entry for its id.
func (m *Manager) store(e Entry) error {
	if err := m.journal.Append(e); err != nil {
		return err
	}
	m.txns[e.ID] = &e
	return nil
}

func stateError(e *Entry) error { return kerr.State("transaction %s is %s", e.ID, e.State) }

func addPartition(ps []topic.Partition, tp topic.Partition) []topic.Partition {
	if slices.Contains(ps, tp) {
		return ps
	}
	ps = append(ps, tp)
	topic.Sort(ps)
	return ps
}
