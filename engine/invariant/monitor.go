package invariant

import (
	"bytes"
	"fmt"
	"math"
	"sort"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/record"
)

// Monitor follows one cluster through a history (reopens included) and
// checks every property after each step: the single-state ones and the
// temporal ones (hw-monotone, epoch-monotone, acked-not-lost,
// committed-not-lost). The caller drives it:
//
//   - after every step, Events with the events it took from the cluster
//     (TakeEvents), then Observe (or Check with an Observation it made);
//   - Acknowledged for each write whose acknowledgement completed under a
//     promise (Promised), SawHW when a consumer could see a partition's HW;
//   - after reopening the cluster, Reopened with the new cluster and the
//     events Open left (in place of Events), before the next Observe.
//
// The zero Monitor is ready to use. It holds copies of what it checks later
// (the keys and values of promised records), never the cluster.
type Monitor struct {
	epoch   map[engine.TopicPartition]int32
	hw      map[engine.TopicPartition]int64 // the last HW seen in the current epoch; absent after a reopen
	peak    map[engine.TopicPartition]int64 // the highest HW seen
	excused map[engine.TopicPartition]int64 // committed offsets up to this are excused (a HW drop)
	acked   []held
	seen    map[engine.TopicPartition]*seenLog
}

// held is a record the Monitor holds the cluster to: its address, key and
// value (copies).
type held struct {
	tp         engine.TopicPartition
	offset     int64
	key, value []byte
}

// seenLog is what a consumer could see of a partition: every record below
// hw, as it was when SawHW read it, and the leader epoch then.
type seenLog struct {
	hw    int64
	epoch int32
	recs  []held // ascending offsets
}

func (m *Monitor) init() {
	if m.epoch == nil {
		m.epoch, m.hw, m.peak = map[engine.TopicPartition]int32{}, map[engine.TopicPartition]int64{}, map[engine.TopicPartition]int64{}
		m.excused, m.seen = map[engine.TopicPartition]int64{}, map[engine.TopicPartition]*seenLog{}
	}
}

func hold(tp engine.TopicPartition, offset int64, r record.Record) held {
	return held{tp: tp, offset: offset, key: clone(r.Key), value: clone(r.Value)}
}

// clone copies b, keeping nil (null) apart from empty.
func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// sameBytes compares two keys or values, null apart from empty.
func sameBytes(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }

// Acknowledged records a write whose acknowledgement completed: the record
// r at offset of tp. The caller records the writes the engine promises to
// keep (Promised); a test may record others to show that a weaker promise
// does not hold (acked-not-lost).
func (m *Monitor) Acknowledged(tp engine.TopicPartition, offset int64, r record.Record) {
	m.init()
	m.acked = append(m.acked, hold(tp, offset, r))
}

// SawHW records that a consumer could see tp's HW now: every record below
// it must stay (committed-not-lost). It reads the records it does not hold
// yet with a read_uncommitted fetch, and changes nothing. A partition whose
// leader is down has no visible HW.
func (m *Monitor) SawHW(c *engine.Cluster, tp engine.TopicPartition) error {
	m.init()
	st, err := c.PartitionState(tp)
	if err != nil || !st.Online {
		return err
	}
	s := m.seen[tp]
	if s == nil {
		s = &seenLog{}
		m.seen[tp] = s
	}
	from := max(s.hw, st.LogStart)
	if from < st.HW {
		recs, err := c.Fetch(tp, from, math.MaxInt32, engine.ReadUncommitted)
		if err != nil {
			return err
		}
		for _, r := range recs {
			s.recs = append(s.recs, hold(tp, r.Offset, r.Record))
		}
	}
	if st.HW >= s.hw {
		// The epoch in which the consumer saw the highest HW: a later
		// epoch with a lower HW (a new leader that learned a lagging HW,
		// follower.hw=fetch) is then checked by
		// clean-election-keeps-committed until the HW is back.
		s.epoch = st.LeaderEpoch
	}
	s.hw = max(s.hw, st.HW)
	return nil
}

// Events takes the events the caller drained from the cluster
// (TakeEvents), to learn what the engine itself reported lost: a data_lost
// event stops the Monitor holding records at or above the new HW, and a
// compaction keyed records of that partition.
func (m *Monitor) Events(evs []engine.Event) {
	m.init()
	for _, ev := range evs {
		switch e := ev.(type) {
		case engine.DataLost:
			m.forget(e.TP, e.To)
		case engine.LogCompacted:
			m.forgetKeyed(e.TP)
		}
	}
}

// forget stops holding tp's records at or above offset (a HW dropped to
// it), and excuses committed offsets up to the highest HW seen before.
func (m *Monitor) forget(tp engine.TopicPartition, offset int64) {
	m.acked = dropHeld(m.acked, func(h held) bool { return h.tp == tp && h.offset >= offset })
	if s := m.seen[tp]; s != nil {
		s.recs = dropHeld(s.recs, func(h held) bool { return h.offset >= offset })
		s.hw = min(s.hw, offset)
	}
	if peak, ok := m.peak[tp]; ok && peak > offset {
		m.excused[tp] = max(m.excused[tp], peak)
	}
}

// forgetKeyed stops holding tp's keyed records: compaction may have
// removed them in favour of a later record with the same key.
func (m *Monitor) forgetKeyed(tp engine.TopicPartition) {
	keyed := func(h held) bool { return h.tp == tp && h.key != nil }
	m.acked = dropHeld(m.acked, keyed)
	if s := m.seen[tp]; s != nil {
		s.recs = dropHeld(s.recs, keyed)
	}
}

func dropHeld(hs []held, drop func(held) bool) []held {
	keep := hs[:0]
	for _, h := range hs {
		if !drop(h) {
			keep = append(keep, h)
		}
	}
	return keep
}

// Reopened tells the Monitor that the cluster was closed (or crashed) and
// opened again as c; openEvents are the events Open left (the first
// TakeEvents after it), which Reopened reads in place of Events. A reopen
// recomputes each partition's HW as the minimum LEO over its replicas
// (decision 8), which may be below records acknowledged or seen before:
// the Monitor stops holding the records at or above that HW, excuses the
// committed offsets left above it, and starts every partition's HW history
// afresh. The HW a partition opened with is the HW before the first
// hw_moved event of openEvents (transaction recovery may append markers,
// and move the HW, before anyone can look), or its HW now.
func (m *Monitor) Reopened(c *engine.Cluster, openEvents []engine.Event) error {
	m.init()
	states, err := c.PartitionStates()
	if err != nil {
		return err
	}
	opened := map[engine.TopicPartition]int64{}
	for _, ev := range openEvents {
		if e, ok := ev.(engine.HWMoved); ok {
			if _, seen := opened[e.TP]; !seen {
				opened[e.TP] = e.From
			}
		}
	}
	m.Events(openEvents)
	for _, st := range states {
		hw, ok := opened[st.TP]
		if !ok {
			hw = st.HW
		}
		m.forget(st.TP, hw)
		delete(m.hw, st.TP)
	}
	return nil
}

// Observe observes c and checks every property (Check).
func (m *Monitor) Observe(c *engine.Cluster) []Violation { return m.Check(Observe(c)) }

// Check checks o, the next observation of the monitored cluster: the
// single-state properties (committed offsets with the Monitor's excuses)
// and the temporal ones; then it remembers o's HWs, epochs and broker
// states. An observation of a cluster that is not running checks nothing.
func (m *Monitor) Check(o Observation) []Violation {
	m.init()
	if o.State != engine.Running {
		return nil
	}
	var out []Violation
	for i := range o.Partitions {
		p := &o.Partitions[i]
		out = append(out, p.check()...)
		out = append(out, m.checkHistory(p)...)
	}
	out = append(out, o.checkCommitted(m.excused)...)
	out = append(out, o.checkAssignments()...)
	out = append(out, o.Problems...)
	out = append(out, m.checkHeld(o, AckedNotLost, m.acked, 0)...)
	for _, tp := range m.seenTPs() {
		s := m.seen[tp]
		property := CommittedNotLost
		if p := o.partition(tp); p != nil && p.LeaderEpoch != s.epoch && p.HW < s.hw {
			// The HW dropped with a new leader: under follower.hw=fetch the
			// new leader starts from the HW it learned as a follower.
			// Records above it must still be in its log.
			property = CleanElectionKeepsCommitted
		}
		out = append(out, m.checkHeld(o, property, s.recs, s.hw)...)
	}
	return out
}

func (m *Monitor) seenTPs() []engine.TopicPartition {
	out := make([]engine.TopicPartition, 0, len(m.seen))
	for tp := range m.seen {
		out = append(out, tp)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Less(out[j]) })
	return out
}

// checkHistory checks hw-monotone and epoch-monotone for one partition and
// remembers its epoch and HW.
func (m *Monitor) checkHistory(p *PartitionObservation) []Violation {
	var out []Violation
	tp := p.TP
	if e, ok := m.epoch[tp]; ok && p.LeaderEpoch < e {
		out = append(out, violation(EpochMonotone, tp, -1, "the leader epoch went down from %d to %d", e, p.LeaderEpoch))
	}
	if hw, ok := m.hw[tp]; ok && m.epoch[tp] == p.LeaderEpoch && p.HW < hw {
		out = append(out, violation(HWMonotone, tp, -1, "the HW went down from %d to %d in leader epoch %d", hw, p.HW, p.LeaderEpoch))
	}
	m.epoch[tp], m.hw[tp] = p.LeaderEpoch, p.HW
	m.peak[tp] = max(m.peak[tp], p.HW)
	return out
}

// checkHeld checks that each held record is still readable at its offset
// with its key and value, on partitions whose leader is running and above
// their log start. Below the HW it must be in the read_uncommitted fetch;
// at or above it (acked-not-lost after a reopen) in the leader's log. For
// committed-not-lost, seenHW is the HW the consumer saw, which the
// partition's HW must not have dropped below. It reports the first lost
// record of each partition, with how many are lost.
func (m *Monitor) checkHeld(o Observation, property string, hs []held, seenHW int64) []Violation {
	var out []Violation
	lost := map[engine.TopicPartition]int{}
	first := map[engine.TopicPartition]string{}
	var order []engine.TopicPartition
	for _, h := range hs {
		p := o.partition(h.tp)
		if p == nil || !p.Online || h.offset < p.LogStart {
			continue
		}
		why := ""
		switch {
		case h.offset < p.HW:
			why = p.lostReadable(h)
		case property == CleanElectionKeepsCommitted:
			why = p.lostFromLeader(h)
		case property == CommittedNotLost:
			why = fmt.Sprintf("offset %d was below the HW %d a consumer saw; the HW is now %d", h.offset, seenHW, p.HW)
		default:
			why = p.lostFromLeader(h)
		}
		if why == "" {
			continue
		}
		if lost[h.tp] == 0 {
			order = append(order, h.tp)
			first[h.tp] = why
		}
		lost[h.tp]++
	}
	for _, tp := range order {
		what := "an acknowledged record is lost"
		switch property {
		case CommittedNotLost:
			what = "a record below a HW a consumer saw is lost"
		case CleanElectionKeepsCommitted:
			what = fmt.Sprintf("a clean election lost a committed record (a consumer saw HW %d)", seenHW)
		}
		if n := lost[tp]; n > 1 {
			what = fmt.Sprintf("%d records lost, the first", n)
		}
		out = append(out, violation(property, tp, -1, "%s: %s", what, first[tp]))
	}
	return out
}

// lostReadable says how h differs from what a read_uncommitted fetch
// returns at its offset ("" when it is there, unchanged).
func (p *PartitionObservation) lostReadable(h held) string {
	i := sort.Search(len(p.Readable), func(i int) bool { return p.Readable[i].Offset >= h.offset })
	if i == len(p.Readable) || p.Readable[i].Offset != h.offset {
		return fmt.Sprintf("offset %d (value %q) is not readable below the HW %d", h.offset, h.value, p.HW)
	}
	return differs(h, p.Readable[i].Record)
}

// lostFromLeader says how h differs from the leader log's record at its
// offset ("" when it is there, unchanged).
func (p *PartitionObservation) lostFromLeader(h held) string {
	batches := p.Logs[p.Leader]
	if i := batchHolding(batches, h.offset); i >= 0 {
		recs, err := batches[i].Records()
		if err != nil {
			return fmt.Sprintf("offset %d cannot be decoded in the leader's log: %v", h.offset, err)
		}
		for _, r := range recs {
			if r.Offset == h.offset {
				return differs(h, r.Record)
			}
		}
	}
	return fmt.Sprintf("offset %d (value %q) is not in the leader's log (LEO %d, HW %d)", h.offset, h.value, p.LEO, p.HW)
}

// differs compares a held record with the one found at its offset.
func differs(h held, r record.Record) string {
	if sameBytes(h.key, r.Key) && sameBytes(h.value, r.Value) {
		return ""
	}
	return fmt.Sprintf("offset %d holds key %q value %q, not key %q value %q", h.offset, r.Key, r.Value, h.key, h.value)
}
