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

// opts builds options with a segment threshold and an index interval.
func opts(segmentBytes, interval int64) Options {
	return Options{SegmentBytes: segmentBytes, IndexIntervalBytes: interval}
}

func mustOpen(t testing.TB, dir string, o Options) (*Log, RecoveryReport) {
	t.Helper()
	l, rep, err := Open(dir, o, 0)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() { l.Crash(true) })
	return l, rep
}

// rec is a record with an optional key (nil = null) and a value.
func rec(key, value string, ts int64) record.Record {
	r := record.Record{Value: []byte(value), TimestampMs: ts}
	if key != "" {
		r.Key = []byte(key)
	}
	return r
}

// values builds a keyless batch of values with timestamp ts.
func values(ts int64, vs ...string) *record.Batch {
	rs := make([]record.Record, len(vs))
	for i, v := range vs {
		rs[i] = rec("", v, ts)
	}
	return record.NewBatch(rs)
}

func mustAppend(t testing.TB, l *Log, b *record.Batch) AppendInfo {
	t.Helper()
	_, info, err := l.Append(b)
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	return info
}

func fetchAll(t testing.TB, l *Log) []LogRecord {
	t.Helper()
	recs, err := l.Fetch(l.LogStartOffset(), 1<<30, -1)
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	return recs
}

// offsetValues renders records as "offset:key=value" strings ("-" for a
// null key, "<nil>" for a null value).
func offsetValues(recs []LogRecord) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		k := "-"
		if r.Key != nil {
			k = string(r.Key)
		}
		v := "<nil>"
		if r.Value != nil {
			v = string(r.Value)
		}
		out[i] = fmt.Sprintf("%d:%s=%s", r.Offset, k, v)
	}
	return out
}

func valuesOf(recs []LogRecord) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = string(r.Value)
	}
	return out
}

func bases(l *Log) []int64 {
	var out []int64
	for _, s := range l.Segments() {
		out = append(out, s.Base)
	}
	return out
}

func wantCode(t testing.TB, err error, code kerr.Code, contains string) {
	t.Helper()
	if !errors.Is(err, code) {
		t.Fatalf("error %v, want code %s", err, code)
	}
	if contains != "" && !strings.Contains(err.Error(), contains) {
		t.Fatalf("error %q does not mention %q", err, contains)
	}
}

func wantEqual[T comparable](t testing.TB, what string, got, want []T) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

func fileSize(t testing.TB, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

func segPath(dir string, base int64) string { return filepath.Join(dir, SegmentFileName(base)) }
func idxPath(dir string, base int64) string { return filepath.Join(dir, IndexFileName(base)) }

// flipByte xors one byte of a file.
func flipByte(t testing.TB, path string, pos int64, mask byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[pos] ^= mask
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendToFile(t testing.TB, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	f.Close()
}
