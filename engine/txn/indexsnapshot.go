package txn

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/minikafka-lab/minikafka/engine/record"
)

// Index snapshots: a partition's transaction index written at a clean
// shutdown and read at the next open instead of replaying the leader's log
// (Kafka keeps a transaction index file per segment). All integers
// big-endian:
//
//	i64 next offset
//	u32 transactional id count, then per id, ascending:
//	  u16 id length, the id's bytes (non-empty)
//	  u32 run count (at least 1), oldest first:
//	    i64 first offset, i64 marker offset (-1 while open),
//	    u8 outcome (0 open, 1 commit, 2 abort)

// AppendSnapshot appends the index to b in the snapshot format.
func (x *Index) AppendSnapshot(b []byte) []byte {
	be := binary.BigEndian
	b = be.AppendUint64(b, uint64(x.next))
	ids := slices.Sorted(maps.Keys(x.runs))
	b = be.AppendUint32(b, uint32(len(ids)))
	for _, id := range ids {
		b = be.AppendUint16(b, uint16(len(id)))
		b = append(b, id...)
		runs := x.runs[id]
		b = be.AppendUint32(b, uint32(len(runs)))
		for _, r := range runs {
			b = be.AppendUint64(b, uint64(r.First))
			b = be.AppendUint64(b, uint64(r.Marker))
			b = append(b, byte(r.Outcome))
		}
	}
	return b
}

// errIndexSnapshot is the cause of every index snapshot decoding error.
var errIndexSnapshot = errors.New("transaction index snapshot")

// DecodeIndexSnapshot reads a snapshot written by AppendSnapshot from the
// front of b and returns the index and the bytes after it. Anything that
// AppendSnapshot cannot have written (a truncated snapshot, ids out of
// order or too long for their length, runs out of order, an open run that
// is not the last, a marker at or before its run's first batch or at or
// after the next offset, two runs closed by one marker) is an error
// wrapping errIndexSnapshot: the caller rebuilds from the log instead.
func DecodeIndexSnapshot(b []byte) (*Index, []byte, error) {
	be := binary.BigEndian
	bad := func(format string, args ...any) (*Index, []byte, error) {
		return nil, nil, fmt.Errorf("%w: %s", errIndexSnapshot, fmt.Sprintf(format, args...))
	}
	if len(b) < 12 {
		return bad("truncated")
	}
	x := NewIndex()
	x.next = int64(be.Uint64(b))
	n := be.Uint32(b[8:])
	b = b[12:]
	if x.next < 0 {
		return bad("next offset %d", x.next)
	}
	markers := map[int64]bool{}
	prev := ""
	for i := uint32(0); i < n; i++ {
		if len(b) < 2 {
			return bad("truncated")
		}
		l := int(be.Uint16(b))
		if l == 0 || len(b) < 2+l+4 {
			return bad("truncated")
		}
		id := string(b[2 : 2+l])
		if i > 0 && id <= prev {
			return bad("ids out of order at %q", id)
		}
		prev = id
		count := be.Uint32(b[2+l:])
		b = b[2+l+4:]
		if count == 0 || uint64(count)*17 > uint64(len(b)) {
			return bad("%d runs for %q in %d bytes", count, id, len(b))
		}
		runs := make([]Run, 0, count)
		for j := uint32(0); j < count; j++ {
			r := Run{ID: id, First: int64(be.Uint64(b)), Marker: int64(be.Uint64(b[8:])), Outcome: record.ControlType(b[16])}
			b = b[17:]
			if r.First < 0 || r.First >= x.next || (j > 0 && r.First <= runs[j-1].Marker) {
				return bad("run of %q at %d out of order", id, r.First)
			}
			switch {
			case r.Marker == -1 && r.Outcome == record.NoControl:
				if j != count-1 {
					return bad("open run of %q is not its last", id)
				}
				x.open[id] = r.First
			case r.Marker > r.First && r.Marker < x.next && (r.Outcome == record.Commit || r.Outcome == record.Abort):
				if markers[r.Marker] {
					return bad("two runs closed at %d", r.Marker)
				}
				markers[r.Marker] = true
				x.closed = append(x.closed, r)
			default:
				return bad("run of %q at %d has marker %d, outcome %d", id, r.First, r.Marker, r.Outcome)
			}
			runs = append(runs, r)
		}
		x.runs[id] = runs
	}
	slices.SortFunc(x.closed, func(a, b Run) int { return cmp.Compare(a.Marker, b.Marker) })
	return x, b, nil
}
