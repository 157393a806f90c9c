package dumplog

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/storage"
)

// update rewrites fixtures/segments and the golden files of this package:
//
//	go test ./repl/dumplog -update
var update = flag.Bool("update", false, "rewrite fixtures/segments and testdata/*.golden")

// fixtureRoot is fixtures/segments of the repository.
const fixtureRoot = "../../fixtures/segments"

// fixture is one directory under fixtures/segments: a partition log built
// with the storage engine, then damaged on purpose.
type fixture struct {
	name   string
	build  func(t *testing.T, l *storage.Log)
	damage func(t *testing.T, dir string)
}

func r(key, value string, ts int64, headers ...record.Header) record.Record {
	rec := record.Record{TimestampMs: ts, Headers: headers}
	if key != "" {
		rec.Key = []byte(key)
	}
	if value != "<nil>" {
		rec.Value = []byte(value)
	}
	return rec
}

func appendAll(t *testing.T, l *storage.Log, batches ...*record.Batch) {
	t.Helper()
	for _, b := range batches {
		if _, _, err := l.Append(b); err != nil {
			t.Fatal(err)
		}
	}
}

// sampleLog writes the batches every fixture starts from: plain values,
// keys with headers, a binary key and a tombstone, an idempotent batch, and
// a transaction with its commit marker.
func sampleLog(t *testing.T, l *storage.Log) {
	appendAll(t, l,
		record.NewBatch([]record.Record{r("", "value-0", 1000), r("", "value-1", 1001)}),
		record.NewBatch([]record.Record{r("alice", "likes kafka", 1002, record.Header{Key: "source", Value: []byte("web")}, record.Header{Key: "trace"})}),
		record.NewBatch([]record.Record{r("\x00\xff", "", 1003), r("alice", "<nil>", 1004)}),
	)
	idem := record.NewBatch([]record.Record{r("bob", "1", 1005), r("bob", "2", 1006)})
	idem.ProducerID, idem.ProducerEpoch, idem.BaseSequence = 7, 0, 0
	txn := record.NewBatch([]record.Record{r("carol", "in a transaction", 1007)})
	txn.ProducerID, txn.ProducerEpoch, txn.BaseSequence = 8, 1, 0
	txn.Transactional, txn.TransactionalID = true, "tx-1"
	marker := record.NewControlBatch("tx-1", record.Commit)
	marker.ProducerID, marker.ProducerEpoch = 8, 1
	l.SetLeaderEpoch(2)
	appendAll(t, l, idem, txn, marker)
}

var fixtures = []fixture{
	{name: "clean", build: sampleLog},
	{name: "torn-tail", build: sampleLog, damage: func(t *testing.T, dir string) {
		// A write that stopped after 15 bytes of a frame.
		appendFile(t, filepath.Join(dir, storage.SegmentFileName(0)), []byte("MKB1\x00\x00\x00\x20partial"))
	}},
	{name: "flipped-byte", build: sampleLog, damage: func(t *testing.T, dir string) {
		// One bit flipped in the last batch's payload: CRC mismatch.
		path := filepath.Join(dir, storage.SegmentFileName(0))
		data := readFile(t, path)
		data[len(data)-3] ^= 0x01
		writeFile(t, path, data)
	}},
	{name: "corrupt-closed", build: func(t *testing.T, l *storage.Log) {
		sampleLog(t, l)
		if err := l.Roll(); err != nil {
			t.Fatal(err)
		}
		appendAll(t, l, record.NewBatch([]record.Record{r("", "after the roll", 2000)}))
	}, damage: func(t *testing.T, dir string) {
		// A flipped byte in history: the partition must not open.
		path := filepath.Join(dir, storage.SegmentFileName(0))
		data := readFile(t, path)
		data[100] ^= 0x10
		writeFile(t, path, data)
	}},
	{name: "truncated-index", build: sampleLog, damage: func(t *testing.T, dir string) {
		path := filepath.Join(dir, storage.IndexFileName(0))
		data := readFile(t, path)
		writeFile(t, path, data[:len(data)-5])
	}},
}

// buildFixture writes one fixture into dir (which must be empty).
func buildFixture(t *testing.T, f fixture, dir string) {
	l, _, err := storage.Open(dir, storage.Options{IndexIntervalBytes: 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.build(t, l)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	// The marker belongs to one run of the engine, not to a fixture.
	os.Remove(filepath.Join(dir, storage.MarkerFileName))
	if f.damage != nil {
		f.damage(t, dir)
	}
}

// TestFixturesUpToDate rebuilds every fixture and compares it with
// fixtures/segments byte for byte; -update rewrites them.
func TestFixturesUpToDate(t *testing.T) {
	for _, f := range fixtures {
		dir := t.TempDir()
		buildFixture(t, f, dir)
		want := filepath.Join(fixtureRoot, f.name)
		if *update {
			os.RemoveAll(want)
			if err := os.MkdirAll(want, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		names := dirNames(t, dir)
		for _, name := range names {
			data := readFile(t, filepath.Join(dir, name))
			if *update {
				writeFile(t, filepath.Join(want, name), data)
				continue
			}
			if have, err := os.ReadFile(filepath.Join(want, name)); err != nil || !bytes.Equal(have, data) {
				t.Errorf("%s/%s is stale (run go test ./repl/dumplog -update): %v", f.name, name, err)
			}
		}
		if !*update {
			if got := dirNames(t, want); !slices.Equal(got, names) {
				t.Errorf("%s holds %v, want %v", f.name, got, names)
			}
		}
	}
}

func dirNames(t *testing.T, dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t *testing.T, path string, data []byte) {
	writeFile(t, path, append(readFile(t, path), data...))
}
