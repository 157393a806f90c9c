package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
)

// kv appends one single-record batch per "key=value@ts" spec ("-" key =
// null key, "<nil>" value = tombstone), rolling where spec is "|".
func kv(t *testing.T, l *Log, specs ...string) {
	t.Helper()
	for _, sp := range specs {
		if sp == "|" {
			if err := l.Roll(); err != nil {
				t.Fatal(err)
			}
			continue
		}
		var ts int64
		kvs, tsText, _ := strings.Cut(sp, "@")
		fmt.Sscan(tsText, &ts)
		k, v, _ := strings.Cut(kvs, "=")
		r := rec(k, v, ts)
		if k == "-" {
			r.Key = nil
		}
		if v == "<nil>" {
			r.Value = nil
		}
		mustAppend(t, l, record.NewBatch([]record.Record{r}))
	}
}

// K1 and the Ch.3 experiment: latest per key, offsets preserved.
func TestK1LatestKeyOffsetsPreserved(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "events-0")
	l, _ := mustOpen(t, dir, opts(1<<20, 1))
	kv(t, l, "a=1@0", "b=x@1", "|", "a=2@2", "-=event@3", "|", "active=keep@4")
	res, err := l.Compact(10, 1000, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.RecordsBefore != 4 || res.RecordsAfter != 3 {
		t.Fatalf("compaction: %d -> %d, want 4 -> 3", res.RecordsBefore, res.RecordsAfter)
	}
	wantEqual(t, "sources", res.SourceSegments, []int64{0, 2})
	wantEqual(t, "records", offsetValues(fetchAll(t, l)), []string{"1:b=x", "2:a=2", "3:-=event", "4:active=keep"})
	if l.LEO() != 5 {
		t.Fatalf("LEO %d", l.LEO())
	}
	wantEqual(t, "bases", bases(l), []int64{0, 4})
	// No temporary directories are left behind.
	entries, _ := os.ReadDir(filepath.Dir(dir))
	for _, e := range entries {
		if e.Name() != "events-0" {
			t.Fatalf("left behind %s", e.Name())
		}
	}
}

// K2: a recent tombstone is kept.
func TestK2RecentTombstoneKept(t *testing.T) {
	t.Parallel()
	l, _ := mustOpen(t, t.TempDir(), opts(1<<20, 1))
	kv(t, l, "a=1@0", "a=<nil>@100", "|", "active=x@101")
	res, err := l.Compact(500, 1000, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "records", offsetValues(fetchAll(t, l)), []string{"1:a=<nil>", "2:active=x"})
	if res.TombstonesDropped != 0 {
		t.Fatalf("%+v", res)
	}
}

// K3: an expired tombstone is dropped; at exactly the retention age it is
// still kept.
func TestK3ExpiredTombstoneDropped(t *testing.T) {
	t.Parallel()
	l, _ := mustOpen(t, t.TempDir(), opts(1<<20, 1))
	kv(t, l, "a=1@0", "a=<nil>@100", "|", "active=x@2000")
	res, err := l.Compact(2000, 1000, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "records", offsetValues(fetchAll(t, l)), []string{"2:active=x"})
	if res.TombstonesDropped != 1 || res.RecordsAfter != 0 {
		t.Fatalf("%+v", res)
	}
	if s := l.Segments()[0]; s.SizeBytes != 0 || s.NextOffset != s.Base {
		t.Fatalf("empty compacted segment %+v", s)
	}

	l, _ = mustOpen(t, t.TempDir(), opts(1<<20, 1))
	kv(t, l, "a=1@0", "a=<nil>@100", "|", "active=x@2000")
	l.Compact(1100, 1000, nil)
	wantEqual(t, "records at the limit", offsetValues(fetchAll(t, l)), []string{"1:a=<nil>", "2:active=x"})
}

// K4: the active segment is never cleaned, but counts for the latest map.
func TestK4ActiveNeverCleaned(t *testing.T) {
	t.Parallel()
	l, _ := mustOpen(t, t.TempDir(), opts(1<<20, 1))
	kv(t, l, "a=old@0", "|", "a=active-new@1", "a=active-newer@2")
	if _, err := l.Compact(10, 1000, nil); err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "records", offsetValues(fetchAll(t, l)), []string{"1:a=active-new", "2:a=active-newer"})
}

func kLog(t *testing.T, dir string) *Log {
	l, _ := mustOpen(t, dir, opts(100, 1))
	kv(t, l, "k=one@0", "k=two@1", "k=three@2")
	wantEqual(t, "bases", bases(l), []int64{0, 1, 2})
	return l
}

// K5: a failing beforeSwap hook leaves the original log in place.
func TestK5SwapFailureRollsBack(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "k-0")
	l := kLog(t, dir)
	before := offsetValues(fetchAll(t, l))
	injected := errors.New("injected before swap")
	_, err := l.Compact(10, 1000, func() error { return injected })
	if !errors.Is(err, injected) {
		t.Fatalf("error %v", err)
	}
	wantEqual(t, "records", offsetValues(fetchAll(t, l)), before)
	wantEqual(t, "bases", bases(l), []int64{0, 1, 2})
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Fatalf("left behind %v", entries)
	}
}

// Rollback at every later step of the swap: the original log stays
// readable and appendable, and nothing is left behind.
func TestCompactionRollbackAtEveryStep(t *testing.T) {
	t.Parallel()
	for _, step := range []string{"build", "rename-live", "rename-compacted", "reopen"} {
		t.Run(step, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "k-0")
			l := kLog(t, dir)
			before := offsetValues(fetchAll(t, l))
			injected := fmt.Errorf("injected at %s", step)
			l.faults = func(s string) error {
				if s == step {
					return injected
				}
				return nil
			}
			if _, err := l.Compact(10, 1000, nil); !errors.Is(err, injected) {
				t.Fatalf("error %v", err)
			}
			wantEqual(t, "records", offsetValues(fetchAll(t, l)), before)
			mustAppend(t, l, values(3, "after"))
			entries, _ := os.ReadDir(filepath.Dir(dir))
			if len(entries) != 1 {
				t.Fatalf("left behind %v", entries)
			}
			l.Close()
			l2, _ := mustOpen(t, dir, opts(100, 1))
			wantEqual(t, "reopened", offsetValues(fetchAll(t, l2)), append(before, "3:-=after"))
		})
	}
}

// K6: restart after compaction gives the same records.
func TestK6RestartAfterCompaction(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := kLog(t, dir)
	if _, err := l.Compact(10, 1000, nil); err != nil {
		t.Fatal(err)
	}
	after := offsetValues(fetchAll(t, l))
	wantEqual(t, "records", after, []string{"2:k=three"})
	l.Close()
	l, _ = mustOpen(t, dir, opts(100, 1))
	wantEqual(t, "reopened", offsetValues(fetchAll(t, l)), after)
}

// Control batches pass unchanged, partially surviving batches keep their
// base and last delta, and surviving batches keep their bytes.
func TestCompactionKeepsBatchShape(t *testing.T) {
	t.Parallel()
	l, _ := mustOpen(t, t.TempDir(), opts(1<<20, 1))
	mustAppend(t, l, record.NewBatch([]record.Record{rec("a", "1", 0), rec("b", "1", 0), rec("a", "2", 0)}))
	mustAppend(t, l, record.NewControlBatch("tx", record.Commit))
	mustAppend(t, l, values(0, "keyless"))
	l.Roll()
	kv(t, l, "b=2@0")
	before, _ := l.ReadBatches(0, 1<<20, -1)
	if _, err := l.Compact(10, 1000, nil); err != nil {
		t.Fatal(err)
	}
	after, _ := l.ReadBatches(0, 1<<20, -1)
	if len(after) != 4 {
		t.Fatalf("%d batches", len(after))
	}
	m := after[0].Meta
	if m.BaseOffset != 0 || m.LastOffsetDelta != 2 || m.RecordCount != 1 {
		t.Fatalf("rewritten batch %+v", m)
	}
	b, _ := record.Decode(after[0].Frame)
	wantEqual(t, "deltas", b.OffsetDeltas, []int32{2})
	for i := 1; i < 4; i++ {
		if string(after[i].Frame) != string(before[i].Frame) {
			t.Fatalf("batch %d changed bytes", i)
		}
	}
	wantEqual(t, "records", offsetValues(fetchAll(t, l)), []string{"2:a=2", "4:-=keyless", "5:b=2"})
}

func TestCompactionArguments(t *testing.T) {
	t.Parallel()
	l, _ := mustOpen(t, t.TempDir(), opts(1<<20, 1))
	kv(t, l, "a=1@0")
	_, err := l.Compact(0, -1, nil)
	wantCode(t, err, kerr.InvalidArgument, "delete.retention.ms")
	res, err := l.Compact(0, 0, func() error { t.Fatal("hook called without closed segments"); return nil })
	if err != nil || len(res.SourceSegments) != 0 || res.RecordsBefore != 0 {
		t.Fatalf("%+v %v", res, err)
	}
}

// The temporary directory name is deterministic: derived from the
// directory name, LEO and a counter.
func TestCompactionTokenDeterministic(t *testing.T) {
	t.Parallel()
	var seen [][]string
	for run := 0; run < 2; run++ {
		dir := filepath.Join(t.TempDir(), "t-0")
		l := kLog(t, dir)
		var names []string
		l.Compact(10, 1000, func() error {
			entries, _ := os.ReadDir(filepath.Dir(dir))
			for _, e := range entries {
				names = append(names, e.Name())
			}
			return nil
		})
		seen = append(seen, names)
	}
	if !slices.Equal(seen[0], seen[1]) || len(seen[0]) != 2 || !strings.HasPrefix(seen[0][0], ".t-0.compact-") {
		t.Fatalf("directories %v", seen)
	}
}
