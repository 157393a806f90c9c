package replication

import (
	"sort"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
)

// ProducerEntry is what a partition remembers about one idempotent producer:
// its epoch and its single most recent accepted batch (§8.5.2). MiniKafka's
// dedupe window is one batch; Kafka remembers five.
type ProducerEntry struct {
	PID          int64
	Epoch        int32 // epoch of the remembered batch (or a newer registered one)
	BaseSequence int32 // of the remembered batch; -1 after a new epoch registered
	LastSequence int32
	BaseOffset   int64 // where the remembered batch was stored
	NextOffset   int64
	Registered   int32 // highest epoch registered or seen for this PID
}

// ProducerStateManager is the broker-side producer state of one partition.
// It is rebuilt from the leader's log at open, at topic creation and at every
// leader change, so registered-but-unused epochs are forgotten then
// (decision 6, a documented limitation).
type ProducerStateManager struct {
	states map[int64]*ProducerEntry // pid -> last accepted batch
	// epochs maps pid -> highest epoch registered or recorded; every pid in
	// states is here, with an epoch at least its remembered batch's.
	epochs map[int64]int32
}

// NewProducerStateManager returns an empty manager.
func NewProducerStateManager() *ProducerStateManager {
	return &ProducerStateManager{states: map[int64]*ProducerEntry{}, epochs: map[int64]int32{}}
}

func fenced(pid int64, epoch, current int32) error {
	return kerr.New(kerr.ProducerFenced, "producer %d epoch %d is fenced by %d", pid, epoch, current)
}

// CheckEpoch reports the error RegisterEpoch would return, changing nothing.
func (m *ProducerStateManager) CheckEpoch(pid int64, epoch int32) error {
	if cur, ok := m.epochs[pid]; ok && epoch < cur {
		return fenced(pid, epoch, cur)
	}
	return nil
}

// RegisterEpoch records that a producer instance with this epoch exists, which
// fences every older epoch. A lower epoch than the one known is PRODUCER_FENCED.
// A higher epoch than the remembered batch's restarts the sequence at 0.
func (m *ProducerStateManager) RegisterEpoch(pid int64, epoch int32) error {
	if err := m.CheckEpoch(pid, epoch); err != nil {
		return err
	}
	m.epochs[pid] = epoch
	if st, ok := m.states[pid]; ok && epoch > st.Epoch {
		st.Epoch, st.BaseSequence, st.LastSequence = epoch, record.NoSequence, record.NoSequence
	}
	return nil
}

// Validate runs before any append (§8.5.2). It returns the remembered entry
// when the batch is an exact duplicate of the last accepted batch (same epoch,
// same base and last sequence), nil when the batch may be appended, or an
// error: PRODUCER_FENCED for an old epoch, OUT_OF_ORDER_SEQUENCE for a gap, an
// overlap, an older retry or a new epoch not starting at 0. Unsequenced
// batches (producer id < 0) always proceed.
func (m *ProducerStateManager) Validate(b *record.Batch) (*ProducerEntry, error) {
	pid := b.ProducerID
	if pid < 0 {
		return nil, nil
	}
	if err := m.CheckEpoch(pid, b.ProducerEpoch); err != nil {
		return nil, err
	}
	st, ok := m.states[pid]
	last := b.LastSequence()
	if ok && st.BaseSequence >= 0 && b.ProducerEpoch == st.Epoch &&
		b.BaseSequence == st.BaseSequence && last == st.LastSequence {
		dup := *st
		return &dup, nil
	}
	expected := int32(0)
	if ok && b.ProducerEpoch == st.Epoch {
		expected = st.LastSequence + 1
	}
	if b.BaseSequence != expected {
		return nil, kerr.OutOfOrder(int64(expected), int64(b.BaseSequence))
	}
	return nil, nil
}

// Record remembers an appended batch (after a successful leader append, or
// while rebuilding from a log). Unsequenced batches are ignored.
func (m *ProducerStateManager) Record(meta record.Meta) {
	if meta.ProducerID < 0 {
		return
	}
	m.states[meta.ProducerID] = &ProducerEntry{
		PID:          meta.ProducerID,
		Epoch:        meta.ProducerEpoch,
		BaseSequence: meta.BaseSequence,
		LastSequence: meta.LastSequence(),
		BaseOffset:   meta.BaseOffset,
		NextOffset:   meta.NextOffset(),
	}
	if cur, ok := m.epochs[meta.ProducerID]; !ok || meta.ProducerEpoch > cur {
		m.epochs[meta.ProducerID] = meta.ProducerEpoch
	}
}

// Entries lists the remembered producers, sorted by producer id, with the
// highest registered epoch filled in.
func (m *ProducerStateManager) Entries() []ProducerEntry {
	pids := make([]int64, 0, len(m.epochs))
	for pid := range m.epochs {
		pids = append(pids, pid)
	}
	sort.Slice(pids, func(i, j int) bool { return pids[i] < pids[j] })
	out := make([]ProducerEntry, 0, len(pids))
	for _, pid := range pids {
		e := ProducerEntry{PID: pid, Epoch: m.epochs[pid], BaseSequence: record.NoSequence,
			LastSequence: record.NoSequence, BaseOffset: -1, NextOffset: -1}
		if st, ok := m.states[pid]; ok {
			e = *st
		}
		e.Registered = m.epochs[pid]
		out = append(out, e)
	}
	return out
}

// metaOf describes an assigned batch the way the log's Meta does.
func metaOf(b *record.Batch, size int) record.Meta {
	return record.Meta{
		Size: size, BaseOffset: b.BaseOffset, LeaderEpoch: b.LeaderEpoch,
		ProducerID: b.ProducerID, ProducerEpoch: b.ProducerEpoch, BaseSequence: b.BaseSequence,
		Transactional: b.Transactional, TransactionalID: b.TransactionalID, Control: b.Control,
		LastOffsetDelta: b.LastOffsetDelta, RecordCount: len(b.Records), MaxTimestamp: b.MaxTimestamp(),
	}
}
