package storage

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// logModel is what the log must hold: every record by offset, the batch
// boundaries, and what survives a machine failure.
type logModel struct {
	recs       []string // offsetValues rows, in offset order
	boundaries []int64  // batch base offsets and the LEO
	start, leo int64
	flushed    int64 // the LEO at the last flush point
}

func (m *logModel) keep(below int64) {
	m.recs = slices.DeleteFunc(m.recs, func(r string) bool {
		var o int64
		fmt.Sscanf(r, "%d:", &o)
		return o >= below
	})
	m.boundaries = slices.DeleteFunc(m.boundaries, func(b int64) bool { return b > below })
	if !slices.Contains(m.boundaries, below) {
		m.boundaries = append(m.boundaries, below)
	}
	m.leo = below
	m.flushed = min(m.flushed, below)
}

// TestLogStateMachine drives a log with random appends, follower copies,
// rolls, flushes, truncations, retention, crashes and reopens, and checks
// it against a model after every step.
func TestLogStateMachine(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(rt *rapid.T) {
		// In memory: the model tracks flushed lengths itself, and the
		// storage page-cache model is the same on every file system.
		dir := "log"
		o := opts(rapid.Int64Range(80, 600).Draw(rt, "segmentBytes"), rapid.Int64Range(1, 300).Draw(rt, "interval"))
		o.FS = vfs.NewMem()
		l, _, err := Open(dir, o, 0)
		if err != nil {
			rt.Fatal(err)
		}
		defer func() { l.Crash(true) }()
		m := &logModel{boundaries: []int64{0}}
		ts := int64(0)
		reopen := func() {
			var err error
			if l, _, err = Open(dir, o, 0); err != nil {
				rt.Fatalf("reopen: %v", err)
			}
		}
		appendBatch := func(raw bool) {
			n := rapid.IntRange(1, 4).Draw(rt, "records")
			rs := make([]record.Record, n)
			for i := range rs {
				ts++
				rs[i] = rec(fmt.Sprintf("k%d", rapid.IntRange(0, 3).Draw(rt, "key")), fmt.Sprintf("v%d", ts), ts)
			}
			b := record.NewBatch(rs)
			var a *record.Batch
			var info AppendInfo
			var err error
			if raw {
				a, _ = b.Assign(l.LEO(), 5)
				frame, _ := record.Encode(a)
				info, err = l.AppendRaw(frame)
			} else {
				a, info, err = l.Append(b)
			}
			if err != nil {
				rt.Fatal(err)
			}
			if info.Rolled { // a roll flushes the old segment
				m.flushed = a.BaseOffset
			}
			for i, r := range a.Records {
				m.recs = append(m.recs, offsetValues([]LogRecord{{a.BaseOffset + int64(i), r}})...)
			}
			m.leo = a.NextOffset()
			m.boundaries = append(m.boundaries, m.leo)
		}
		rt.Repeat(map[string]func(*rapid.T){
			"append":    func(*rapid.T) { appendBatch(false) },
			"appendRaw": func(*rapid.T) { appendBatch(true) },
			"roll": func(*rapid.T) {
				if err := l.Roll(); err != nil {
					rt.Fatal(err)
				}
				if l.active().size == 0 && len(l.segs) > 1 {
					m.flushed = m.leo
				}
			},
			"flush": func(*rapid.T) {
				if err := l.Flush(); err != nil {
					rt.Fatal(err)
				}
				m.flushed = m.leo
			},
			"truncate": func(*rapid.T) {
				to := rapid.SampledFrom(m.boundaries).Draw(rt, "to")
				if to < m.start || to == m.leo {
					return // to == LEO is a no-op (and flushes nothing)
				}
				if err := l.TruncateTo(to); err != nil {
					rt.Fatalf("truncate to %d: %v", to, err)
				}
				m.keep(to)
				m.flushed = to
			},
			"retention": func(*rapid.T) {
				deleted, err := l.ApplyRetention(ts, rapid.Int64Range(0, 20).Draw(rt, "retentionMs"), -1)
				if err != nil {
					rt.Fatal(err)
				}
				if len(deleted) > 0 {
					m.start = l.LogStartOffset()
					m.recs = slices.DeleteFunc(m.recs, func(r string) bool {
						var o int64
						fmt.Sscanf(r, "%d:", &o)
						return o < m.start
					})
					m.boundaries = slices.DeleteFunc(m.boundaries, func(b int64) bool { return b < m.start })
					m.boundaries = append(m.boundaries, m.start)
					m.flushed = max(m.flushed, m.start)
				}
			},
			"compact": func(*rapid.T) {
				activeBase := l.Segments()[len(l.Segments())-1].Base
				if len(l.Segments()) < 2 {
					return // nothing to compact, nothing flushed
				}
				if _, err := l.Compact(ts, 1000, nil); err != nil {
					rt.Fatal(err)
				}
				latest := map[string]int64{}
				var offs []int64
				for _, r := range m.recs {
					var o int64
					var kv string
					fmt.Sscanf(r, "%d:%s", &o, &kv)
					k, _, _ := strings.Cut(kv, "=")
					latest[k] = o
					offs = append(offs, o)
				}
				kept := m.recs[:0]
				for i, r := range m.recs {
					var kv string
					fmt.Sscanf(r, "%d:%s", new(int64), &kv)
					k, _, _ := strings.Cut(kv, "=")
					if offs[i] >= activeBase || latest[k] == offs[i] {
						kept = append(kept, r)
					}
				}
				m.recs = kept
				// Batch boundaries now come from the surviving batches.
				m.boundaries = []int64{m.start, m.leo}
				l.Batches(-1, func(b RawBatch) error {
					m.boundaries = append(m.boundaries, b.Meta.BaseOffset, b.Meta.NextOffset())
					return nil
				})
				m.flushed = m.leo
			},
			"close": func(*rapid.T) {
				if err := l.Close(); err != nil {
					rt.Fatal(err)
				}
				reopen()
				m.flushed = m.leo
			},
			"crashKeep": func(*rapid.T) {
				l.Crash(true)
				reopen()
				m.flushed = m.leo
			},
			"crashLose": func(*rapid.T) {
				l.Crash(false)
				reopen()
				m.keep(m.flushed)
				if m.leo < m.start {
					rt.Fatalf("lost the log start")
				}
			},
			"": func(*rapid.T) {
				if l.LEO() != m.leo || l.LogStartOffset() != m.start {
					rt.Fatalf("LEO %d start %d, model %d %d", l.LEO(), l.LogStartOffset(), m.leo, m.start)
				}
				recs, err := l.Fetch(l.LogStartOffset(), 1<<30, -1)
				if err != nil {
					rt.Fatal(err)
				}
				got := offsetValues(recs)
				if !slices.Equal(got, m.recs) {
					rt.Fatalf("records %v, model %v", got, m.recs)
				}
				var size int64
				for i, s := range l.Segments() {
					size += s.SizeBytes
					if i > 0 && s.Base < l.Segments()[i-1].NextOffset {
						rt.Fatalf("segments overlap: %+v", l.Segments())
					}
				}
				if size != l.SizeBytes() || l.UnflushedBytes() < 0 || l.UnflushedBytes() > size {
					rt.Fatalf("size %d unflushed %d", l.SizeBytes(), l.UnflushedBytes())
				}
			},
		})
	})
}
