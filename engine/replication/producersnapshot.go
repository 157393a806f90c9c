package replication

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// Producer state snapshots: a partition's producer state written at a
// clean shutdown and read at the next open instead of replaying the
// leader's log (Kafka writes a ProducerStateManager snapshot file per
// partition for the same reason). All integers big-endian:
//
//	u32 producer count, then per producer id, ascending:
//	  i64 producer id (>= 0)
//	  i32 highest epoch registered or recorded
//	  u8  1 when batches are remembered for it, else 0, then when 1:
//	      i32 epoch of the remembered batches
//	      u32 batch count (at most MaxDedupeWindow), oldest first:
//	        i32 base sequence, i32 last sequence,
//	        i64 base offset, i64 next offset
//
// The window (how many batches per producer id are kept) is the caller's
// to check: a snapshot holds what the manager held.

// AppendSnapshot appends the manager's state to b in the snapshot format.
func (m *ProducerStateManager) AppendSnapshot(b []byte) []byte {
	be := binary.BigEndian
	pids := make([]int64, 0, len(m.epochs))
	for pid := range m.epochs {
		pids = append(pids, pid)
	}
	slices.Sort(pids)
	b = be.AppendUint32(b, uint32(len(pids)))
	for _, pid := range pids {
		b = be.AppendUint64(b, uint64(pid))
		b = be.AppendUint32(b, uint32(m.epochs[pid]))
		st := m.states[pid]
		if st == nil {
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		b = be.AppendUint32(b, uint32(st.epoch))
		b = be.AppendUint32(b, uint32(len(st.batches)))
		for _, e := range st.batches {
			b = be.AppendUint32(b, uint32(e.BaseSequence))
			b = be.AppendUint32(b, uint32(e.LastSequence))
			b = be.AppendUint64(b, uint64(e.BaseOffset))
			b = be.AppendUint64(b, uint64(e.NextOffset))
		}
	}
	return b
}

// errSnapshot is the cause of every snapshot decoding error.
var errSnapshot = errors.New("producer state snapshot")

// snapshotReader reads big-endian integers, remembering the first
// shortfall.
type snapshotReader struct {
	b   []byte
	err error
}

func (r *snapshotReader) take(n int) []byte {
	if r.err != nil || len(r.b) < n {
		if r.err == nil {
			r.err = fmt.Errorf("%w: truncated", errSnapshot)
		}
		return make([]byte, n)
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *snapshotReader) u8() uint8   { return r.take(1)[0] }
func (r *snapshotReader) u32() uint32 { return binary.BigEndian.Uint32(r.take(4)) }
func (r *snapshotReader) i32() int32  { return int32(r.u32()) }
func (r *snapshotReader) i64() int64  { return int64(binary.BigEndian.Uint64(r.take(8))) }

// DecodeProducerSnapshot reads a snapshot written by AppendSnapshot from the
// front of b and returns the manager, following rules (nil: MiniKafka's),
// and the bytes after it. Anything
// that AppendSnapshot cannot have written (a truncated snapshot, producer
// ids out of order, more batches than any window, offsets going
// backwards, an epoch below its batches') is an error wrapping
// errSnapshot: the caller rebuilds from the log instead.
func DecodeProducerSnapshot(b []byte, rules *Rules) (*ProducerStateManager, []byte, error) {
	r := &snapshotReader{b: b}
	bad := func(format string, args ...any) (*ProducerStateManager, []byte, error) {
		return nil, nil, fmt.Errorf("%w: %s", errSnapshot, fmt.Sprintf(format, args...))
	}
	n := r.u32()
	if r.err == nil && uint64(n)*13 > uint64(len(r.b)) {
		return bad("%d producers in %d bytes", n, len(r.b))
	}
	m := NewProducerStateManagerFor(rules)
	last := int64(-1)
	for i := uint32(0); i < n && r.err == nil; i++ {
		pid, registered, has := r.i64(), r.i32(), r.u8()
		if pid <= last {
			return bad("producer ids out of order at %d", pid)
		}
		last = pid
		m.epochs[pid] = registered
		switch has {
		case 0:
			continue
		case 1:
		default:
			return bad("bad flag %d for producer %d", has, pid)
		}
		st := &producerState{epoch: r.i32()}
		count := r.u32()
		if count > MaxDedupeWindow {
			return bad("%d batches for producer %d", count, pid)
		}
		if st.epoch > registered {
			return bad("producer %d: batches of epoch %d above its epoch %d", pid, st.epoch, registered)
		}
		for j := uint32(0); j < count && r.err == nil; j++ {
			e := ProducerEntry{PID: pid, Epoch: st.epoch, BaseSequence: r.i32(), LastSequence: r.i32(), BaseOffset: r.i64(), NextOffset: r.i64()}
			if e.BaseOffset < 0 || e.NextOffset <= e.BaseOffset {
				return bad("producer %d: inconsistent batch", pid)
			}
			if k := len(st.batches); k > 0 && e.BaseOffset < st.batches[k-1].NextOffset {
				return bad("producer %d: batches out of order", pid)
			}
			st.batches = append(st.batches, e)
		}
		m.states[pid] = st
	}
	if r.err != nil {
		return nil, nil, r.err
	}
	return m, r.b, nil
}
