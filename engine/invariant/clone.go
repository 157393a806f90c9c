package invariant

import (
	"cmp"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/statekey"
)

// Clone returns an independent copy of the Monitor: a state explorer
// keeps one per state it reached, as it keeps a snapshot of the cluster.
// The held keys and values are shared: nothing changes them in place.
func (m *Monitor) Clone() *Monitor {
	if m.epoch == nil {
		return &Monitor{}
	}
	n := &Monitor{epoch: maps.Clone(m.epoch), hw: maps.Clone(m.hw), peak: maps.Clone(m.peak),
		excused: maps.Clone(m.excused), acked: slices.Clone(m.acked), seen: make(map[engine.TopicPartition]*seenLog, len(m.seen))}
	for tp, s := range m.seen {
		c := *s
		c.recs = slices.Clone(s.recs)
		n.seen[tp] = &c
	}
	return n
}

// WriteKey writes to w what the Monitor holds the cluster to: the
// acknowledged records (acked-not-lost) and, by partition, the HW a
// consumer saw, its epoch and the records below it (committed-not-lost,
// clean-election-keeps-committed). Two Monitors with the same key report
// the same violations of those properties on every observation; the HW
// history behind hw-monotone and epoch-monotone is left out.
func (m *Monitor) WriteKey(w io.Writer) {
	k := statekey.New(w)
	put := k.Int
	heldKey := func(h held) {
		k.String(h.tp.Topic)
		put(int64(h.tp.Partition))
		put(h.offset)
		k.Bytes(h.key)
		k.Bytes(h.value)
	}
	// The order of acknowledgements is not kept: the same records
	// acknowledged in another order are held the same.
	acked := slices.Clone(m.acked)
	slices.SortFunc(acked, func(a, b held) int {
		if c := a.tp.Compare(b.tp); c != 0 {
			return c
		}
		if c := cmp.Compare(a.offset, b.offset); c != 0 {
			return c
		}
		return strings.Compare(string(a.value), string(b.value))
	})
	put(int64(len(acked)))
	for _, h := range acked {
		heldKey(h)
	}
	tps := m.seenTPs()
	put(int64(len(tps)))
	for _, tp := range tps {
		s := m.seen[tp]
		k.String(tp.Topic)
		put(int64(tp.Partition))
		put(s.hw)
		put(int64(s.epoch))
		put(int64(len(s.recs)))
		for _, h := range s.recs {
			heldKey(h)
		}
	}
}
