package storage

import (
	"slices"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// ApplyRetention deletes the oldest closed segments that the time and size
// rules select (§7.1) and returns their base offsets, sorted. The active
// segment is never deleted, and the selection is always a prefix of the
// closed segments.
//
// Time rule (retentionMs >= 0): walking the closed segments oldest first,
// select each whose max timestamp < nowMs - retentionMs, and stop at the
// first that is not expired. A segment without records (max timestamp -1)
// counts as expired.
//
// Size rule (retentionBytes > 0): while the log's size minus the selected
// segments is above retentionBytes, select the next closed segment. Sizes
// are log bytes only (decision 2, Kafka's retention.bytes).
//
// retentionMs < 0 and retentionBytes <= 0 mean "no limit" (Go has no
// null; -1 is Kafka's spelling).
func (l *Log) ApplyRetention(nowMs, retentionMs, retentionBytes int64) ([]int64, error) {
	if err := l.usable(); err != nil {
		return nil, err
	}
	l.rewrites++
	closed := l.segs[:len(l.segs)-1]
	n := 0
	if retentionMs >= 0 {
		boundary := nowMs - retentionMs
		for n < len(closed) && closed[n].maxTs < boundary {
			n++
		}
	}
	if retentionBytes > 0 {
		remaining := l.SizeBytes()
		for _, s := range closed[:n] {
			remaining -= s.size
		}
		for n < len(closed) && remaining > retentionBytes {
			remaining -= closed[n].size
			n++
		}
	}
	selected := make([]int64, n)
	for i, s := range closed[:n] {
		selected[i] = s.base
	}
	if n == 0 {
		return selected, nil
	}
	if err := l.DeleteClosedSegments(selected); err != nil {
		return nil, err
	}
	return selected, nil
}

// DeleteClosedSegments deletes the closed segments with these base offsets.
// They must all be closed segments (argument error "retention can delete
// closed segments only: [...]", which covers the active base and unknown
// bases) and form the oldest k closed segments (argument error "retention
// can delete a continuous prefix of closed segments only"); otherwise
// nothing changes. The log start moves to the first surviving segment;
// offsets are never renumbered. The deletion is made durable.
func (l *Log) DeleteClosedSegments(bases []int64) error {
	if err := l.usable(); err != nil {
		return err
	}
	l.rewrites++
	want := slices.Clone(bases)
	slices.Sort(want)
	want = slices.Compact(want)
	closed := l.segs[:len(l.segs)-1]
	var bad []int64
	for _, b := range want {
		if !slices.ContainsFunc(closed, func(s *segment) bool { return s.base == b }) {
			bad = append(bad, b)
		}
	}
	if len(bad) > 0 {
		return kerr.Argument("retention can delete closed segments only: %v", bad)
	}
	for i, b := range want {
		if closed[i].base != b {
			return kerr.Argument("retention can delete a continuous prefix of closed segments only")
		}
	}
	for len(want) > 0 {
		if err := l.segs[0].remove(); err != nil {
			return err
		}
		l.segs = l.segs[1:]
		want = want[1:]
	}
	if err := l.syncDir(l.dir); err != nil {
		return err
	}
	l.markDurable()
	return nil
}
