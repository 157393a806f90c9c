package storage

import (
	"testing"

	"github.com/minikafka-lab/minikafka/engine/record"
)

// Decision 28: time retention treats a closed segment without records (max
// timestamp -1) as expired, however recent the clock. Two ways to get one:
// a segment holding only a transaction marker, and compaction removing
// every record of the closed segments (each key was written again in the
// active segment).
func TestTimeRetentionDeletesRecordlessClosedSegmentDecision28(t *testing.T) {
	t.Parallel()
	t.Run("marker only", func(t *testing.T) {
		l, _ := mustOpen(t, t.TempDir(), opts(80, 1))
		mustAppend(t, l, record.NewControlBatch("tx", record.Commit))
		mustAppend(t, l, values(1000, "fresh"))
		mustAppend(t, l, values(1000, "active"))
		segs := l.Segments()
		if len(segs) != 3 || segs[0].MaxTimestamp != -1 || segs[1].MaxTimestamp != 1000 {
			t.Fatalf("segments %+v: want a marker-only segment, then two with records", segs)
		}
		// Nothing with a timestamp is expired: 1000 >= 1000 - 100.
		deleted, err := l.ApplyRetention(1000, 100, -1)
		if err != nil {
			t.Fatal(err)
		}
		wantEqual(t, "deleted", deleted, []int64{0})
		wantEqual(t, "bases", bases(l), []int64{1, 2})
	})
	t.Run("emptied by compaction", func(t *testing.T) {
		l, _ := mustOpen(t, t.TempDir(), opts(80, 1))
		mustAppend(t, l, record.NewBatch([]record.Record{rec("k", "old", 1000)}))
		mustAppend(t, l, record.NewBatch([]record.Record{rec("j", "old", 1000)}))
		// Both keys again, in the active segment: compaction keeps nothing
		// of the closed ones.
		mustAppend(t, l, record.NewBatch([]record.Record{rec("k", "new", 1000), rec("j", "new", 1000)}))
		res, err := l.Compact(1000, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.RecordsBefore != 2 || res.RecordsAfter != 0 {
			t.Fatalf("compaction %+v: want both closed records removed", res)
		}
		segs := l.Segments()
		if len(segs) != 2 || segs[0].MaxTimestamp != -1 || segs[0].Active {
			t.Fatalf("segments %+v: want one record-less closed segment and the active one", segs)
		}
		deleted, err := l.ApplyRetention(1000, 100, -1)
		if err != nil {
			t.Fatal(err)
		}
		wantEqual(t, "deleted", deleted, []int64{segs[0].Base})
		if l.LogStartOffset() != segs[1].Base {
			t.Fatalf("log start %d, want %d", l.LogStartOffset(), segs[1].Base)
		}
	})
}
