package group

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/topic"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

func openStore(t *testing.T, path string) *OffsetStore {
	t.Helper()
	s, err := OpenOffsetStore(vfs.OS, path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// §11.6: the exact file format.
func TestOffsetsFileFormat(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), OffsetsFileName)
	s := openStore(t, path)
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("open created the file: %v", err)
	}
	if err := s.Commit("g", Offsets{{Topic: "orders", Partition: 0}: 5}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != `{"groups":{"g":[{"offset":5,"partition":0,"topic":"orders"}]},"version":1}` {
		t.Fatalf("file %s", got)
	}
	err := s.CommitMany(map[string]Offsets{
		"b": {{Topic: "z", Partition: 10}: 1, {Topic: "z", Partition: 2}: 2, {Topic: "a", Partition: 3}: 3},
		"a": {},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"groups":{"a":[],"b":[{"offset":3,"partition":3,"topic":"a"},{"offset":2,"partition":2,"topic":"z"},` +
		`{"offset":1,"partition":10,"topic":"z"}],"g":[{"offset":5,"partition":0,"topic":"orders"}]},"version":1}`
	if got := readFile(t, path); got != want {
		t.Fatalf("file\n%s\nwant\n%s", got, want)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), "offsets.tmp")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("offsets.tmp left behind: %v", err)
	}
}

func TestOffsetsEmptyFlush(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), OffsetsFileName)
	if err := openStore(t, path).Flush(); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != `{"groups":{},"version":1}` {
		t.Fatalf("file %s", got)
	}
}

func TestOffsetsGroupIDEscaping(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), OffsetsFileName)
	s := openStore(t, path)
	id := "g\"<&>\\\n\u00e9\U0001F600\x7f"
	if err := s.Commit(id, Offsets{{Topic: "t", Partition: 0}: 1}); err != nil {
		t.Fatal(err)
	}
	want := `{"groups":{"g\"<&>\\\n\u00e9\ud83d\ude00\u007f":[{"offset":1,"partition":0,"topic":"t"}]},"version":1}`
	if got := readFile(t, path); got != want {
		t.Fatalf("file\n%s\nwant\n%s", got, want)
	}
	if o, ok := openStore(t, path).Get(id, topic.Partition{Topic: "t", Partition: 0}); !ok || o != 1 {
		t.Fatalf("reopened %d %v", o, ok)
	}
	if err := s.Commit("bad\xff", Offsets{}); !errors.Is(err, kerr.InvalidArgument) {
		t.Fatalf("invalid UTF-8 group: %v", err)
	}
}

// §11.5 restart: offsets survive a reopen; merge overwrites.
func TestOffsetsReopenAndMerge(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), OffsetsFileName)
	s := openStore(t, path)
	tp0, tp1 := topic.Partition{Topic: "orders", Partition: 0}, topic.Partition{Topic: "orders", Partition: 1}
	if err := s.Commit("g", Offsets{tp0: 1, tp1: 4}); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit("g", Offsets{tp0: 2}); err != nil {
		t.Fatal(err)
	}
	r := openStore(t, path)
	if o, _ := r.Get("g", tp0); o != 2 {
		t.Fatalf("tp0 %d", o)
	}
	if o, _ := r.Get("g", tp1); o != 4 {
		t.Fatalf("tp1 %d", o)
	}
	if _, ok := r.Get("h", tp0); ok {
		t.Fatal("unknown group has an offset")
	}
	want := []CommittedOffset{{tp0, 2}, {tp1, 4}}
	if got := r.GroupOffsets("g"); !reflect.DeepEqual(got, want) {
		t.Fatalf("group offsets %v", got)
	}
}

func TestOffsetsNegativeChangesNothing(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), OffsetsFileName)
	s := openStore(t, path)
	tp := topic.Partition{Topic: "t", Partition: 0}
	if err := s.Commit("g", Offsets{tp: 1}); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, path)
	err := s.Commit("g", Offsets{tp: 9, {Topic: "t", Partition: 1}: -1})
	if !errors.Is(err, kerr.InvalidArgument) || kerr.MessageOf(err) != "committed offsets cannot be negative" {
		t.Fatalf("got %v", err)
	}
	if o, _ := s.Get("g", tp); o != 1 || readFile(t, path) != before {
		t.Fatal("a rejected commit changed something")
	}
}

// Decision 20: CommitMany validates every group before applying any.
func TestCommitManyIsAtomic(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), OffsetsFileName)
	s := openStore(t, path)
	tp := topic.Partition{Topic: "t", Partition: 0}
	err := s.CommitMany(map[string]Offsets{"a": {tp: 1}, "b": {tp: 2}, "c": {tp: -3}})
	if !errors.Is(err, kerr.InvalidArgument) {
		t.Fatalf("got %v", err)
	}
	for _, g := range []string{"a", "b", "c"} {
		if _, ok := s.Get(g, tp); ok {
			t.Fatalf("group %s merged despite the error", g)
		}
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("file written despite the error")
	}
	if err := s.CommitMany(map[string]Offsets{"a": {tp: 1}, "b": {tp: 2}}); err != nil {
		t.Fatal(err)
	}
	r := openStore(t, path)
	if a, _ := r.Get("a", tp); a != 1 {
		t.Fatal("a missing")
	}
	if b, _ := r.Get("b", tp); b != 2 {
		t.Fatal("b missing")
	}
}

// A failed write keeps the previous contents in memory as well.
func TestCommitWriteFailureChangesNothing(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "gone")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, filepath.Join(dir, OffsetsFileName))
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	tp := topic.Partition{Topic: "t", Partition: 0}
	if err := s.Commit("g", Offsets{tp: 1}); !errors.Is(err, kerr.StorageError) {
		t.Fatalf("got %v", err)
	}
	if _, ok := s.Get("g", tp); ok {
		t.Fatal("failed commit kept in memory")
	}
}

func TestOffsetsInvalidFiles(t *testing.T) {
	t.Parallel()
	for name, content := range map[string]string{
		"not json":        `{"groups":`,
		"missing groups":  `{"version":1}`,
		"missing version": `{"groups":{}}`,
		"bad version":     `{"groups":{},"version":2}`,
		"missing offset":  `{"groups":{"g":[{"partition":0,"topic":"t"}]},"version":1}`,
		"missing topic":   `{"groups":{"g":[{"offset":1,"partition":0}]},"version":1}`,
		"null offset":     `{"groups":{"g":[{"offset":null,"partition":0,"topic":"t"}]},"version":1}`,
		"string offset":   `{"groups":{"g":[{"offset":"1","partition":0,"topic":"t"}]},"version":1}`,
		"float offset":    `{"groups":{"g":[{"offset":1.5,"partition":0,"topic":"t"}]},"version":1}`,
		"negative offset": `{"groups":{"g":[{"offset":-1,"partition":0,"topic":"t"}]},"version":1}`,
		"null group":      `{"groups":{"g":null},"version":1}`,
		"empty group id":  `{"groups":{"":[]},"version":1}`,
		"trailing data":   `{"groups":{},"version":1}x`,
		"array":           `[]`,
		"empty file":      ``,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), OffsetsFileName)
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := OpenOffsetStore(vfs.OS, path)
			if !errors.Is(err, kerr.StorageError) {
				t.Fatalf("got %v", err)
			}
			if msg := kerr.MessageOf(err); len(msg) < len("invalid offset file "+path) || msg[:len("invalid offset file "+path)] != "invalid offset file "+path {
				t.Fatalf("message %q", msg)
			}
		})
	}
}

func TestOffsetsLenientButValid(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), OffsetsFileName)
	content := " {\"version\":1,\"extra\":true,\"groups\":{\"g\":[{\"topic\":\"t\",\"partition\":0,\"offset\":2}]}}\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, path)
	if o, ok := s.Get("g", topic.Partition{Topic: "t", Partition: 0}); !ok || o != 2 {
		t.Fatalf("got %d %v", o, ok)
	}
}
