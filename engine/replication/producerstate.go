package replication

import (
	"sort"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
)

// ProducerEntry is one batch a partition remembers about an idempotent
// producer: its epoch and sequence range and where it was stored (§8.5.2).
// MiniKafka's dedupe window is one batch per producer id; Kafka's is five
// (idempotence.window=, ProducerStateEntry.NUM_BATCHES_TO_RETAIN).
type ProducerEntry struct {
	PID          int64
	Epoch        int32 // epoch of the remembered batch (or a newer registered one)
	BaseSequence int32 // of the remembered batch; -1 after a new epoch registered
	LastSequence int32
	BaseOffset   int64 // where the remembered batch was stored
	NextOffset   int64
	Registered   int32 // highest epoch registered or seen for this PID
}

// producerState is one producer id's remembered batches, oldest first, all
// of one epoch.
type producerState struct {
	epoch   int32
	batches []ProducerEntry
}

func (st *producerState) last() (ProducerEntry, bool) {
	if len(st.batches) == 0 {
		return ProducerEntry{}, false
	}
	return st.batches[len(st.batches)-1], true
}

// ProducerStateManager is the broker-side producer state of one partition.
// It is rebuilt from the leader's log at open, at topic creation and at every
// leader change, so registered-but-unused epochs are forgotten then
// (decision 6, a documented limitation).
type ProducerStateManager struct {
	states map[int64]*producerState // pid -> last accepted batches
	// epochs maps pid -> highest epoch registered or recorded; every pid in
	// states is here, with an epoch at least its remembered batches'.
	epochs map[int64]int32
	// rules chooses the dedupe window and the stale-epoch code; nil means
	// MiniKafka's (one batch, PRODUCER_FENCED).
	rules *Rules
}

// NewProducerStateManager returns an empty manager with MiniKafka's rules.
func NewProducerStateManager() *ProducerStateManager {
	return &ProducerStateManager{states: map[int64]*producerState{}, epochs: map[int64]int32{}}
}

// NewProducerStateManagerFor returns an empty manager that follows rules
// (its dedupe window), as a replica set's does.
func NewProducerStateManagerFor(rules *Rules) *ProducerStateManager {
	m := NewProducerStateManager()
	m.rules = rules
	return m
}

// Window is how many batches per producer id the manager remembers now.
func (m *ProducerStateManager) Window() int { return m.window() }

// window is how many batches per producer id are remembered.
func (m *ProducerStateManager) window() int {
	if m.rules == nil || m.rules.DedupeWindow <= 1 {
		return 1
	}
	return min(m.rules.DedupeWindow, MaxDedupeWindow)
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
// A higher epoch than the remembered batches' restarts the sequence at 0.
func (m *ProducerStateManager) RegisterEpoch(pid int64, epoch int32) error {
	if err := m.CheckEpoch(pid, epoch); err != nil {
		return err
	}
	m.epochs[pid] = epoch
	if st, ok := m.states[pid]; ok && epoch > st.epoch {
		st.epoch, st.batches = epoch, nil
	}
	return nil
}

// Validate runs before any append (§8.5.2). It returns the remembered entry
// when the batch is an exact duplicate of a remembered batch (same epoch,
// same base and last sequence: the last one under MiniKafka's window, any
// of the last five under Kafka's), nil when the batch may be appended, or an
// error: PRODUCER_FENCED for an old epoch (INVALID_PRODUCER_EPOCH under
// errors=kafka, as a Kafka partition answers since 2.7), OUT_OF_ORDER_SEQUENCE
// for a gap, an overlap, a retry older than the window or a new epoch not
// starting at 0. Unsequenced batches (producer id < 0) always proceed.
func (m *ProducerStateManager) Validate(b *record.Batch) (*ProducerEntry, error) {
	pid := b.ProducerID
	if pid < 0 {
		return nil, nil
	}
	if cur, ok := m.epochs[pid]; ok && b.ProducerEpoch < cur {
		if m.rules != nil && m.rules.Errors == KafkaErrors {
			return nil, kerr.New(kerr.InvalidProducerEpoch, "producer %d epoch %d is older than epoch %d, the last this partition has seen", pid, b.ProducerEpoch, cur)
		}
		return nil, fenced(pid, b.ProducerEpoch, cur)
	}
	st, ok := m.states[pid]
	last := b.LastSequence()
	expected := int32(0)
	if ok && b.ProducerEpoch == st.epoch {
		w := st.batches[max(0, len(st.batches)-m.window()):]
		for i := range w {
			if w[i].BaseSequence >= 0 && b.BaseSequence == w[i].BaseSequence && last == w[i].LastSequence {
				dup := w[i]
				return &dup, nil
			}
		}
		if e, ok := st.last(); ok {
			expected = e.LastSequence + 1
		}
	}
	if b.BaseSequence != expected {
		return nil, kerr.OutOfOrder(int64(expected), int64(b.BaseSequence))
	}
	return nil, nil
}

// Record remembers an appended batch (after a successful leader append, or
// while rebuilding from a log). Unsequenced batches are ignored. A batch of a
// new epoch forgets the older epoch's batches.
func (m *ProducerStateManager) Record(meta record.Meta) {
	if meta.ProducerID < 0 {
		return
	}
	st := m.states[meta.ProducerID]
	if st == nil {
		st = &producerState{epoch: meta.ProducerEpoch}
		m.states[meta.ProducerID] = st
	}
	if st.epoch != meta.ProducerEpoch {
		st.epoch, st.batches = meta.ProducerEpoch, nil
	}
	st.batches = append(st.batches, ProducerEntry{
		PID:          meta.ProducerID,
		Epoch:        meta.ProducerEpoch,
		BaseSequence: meta.BaseSequence,
		LastSequence: meta.LastSequence(),
		BaseOffset:   meta.BaseOffset,
		NextOffset:   meta.NextOffset(),
	})
	if extra := len(st.batches) - m.window(); extra > 0 {
		st.batches = append(st.batches[:0], st.batches[extra:]...)
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
			if last, ok := st.last(); ok {
				e = last
			} else {
				e.Epoch = st.epoch
			}
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
