package group

import (
	"errors"
	"io/fs"
	"maps"
	"slices"
	"unicode/utf8"

	"github.com/minikafka-lab/minikafka/engine/atomicfile"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/topic"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// OffsetsFileName is the offset store's file in the data directory (§4).
const OffsetsFileName = "offsets.json"

// Offsets maps a topic-partition to a committed offset: the next offset the
// group resumes from.
type Offsets map[topic.Partition]int64

// CommittedOffset is one committed offset, for sorted plain-value views.
type CommittedOffset struct {
	Partition topic.Partition
	Offset    int64
}

// OffsetStore holds every group's committed offsets in memory and persists
// the whole map to offsets.json on every change (§11.5). The file is replaced
// atomically: offsets.tmp is written and fsynced, renamed over offsets.json,
// and the directory is fsynced. If writing fails, the store keeps its
// previous contents in memory as well.
type OffsetStore struct {
	fsys   vfs.FS
	path   string
	groups map[string]Offsets
}

// OpenOffsetStore loads path from fsys. A missing file is an empty store
// (nothing is written until the first commit or flush); a file that is not
// valid offsets.json (§11.6) is STORAGE_ERROR "invalid offset file {path}".
func OpenOffsetStore(fsys vfs.FS, path string) (*OffsetStore, error) {
	data, err := fsys.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &OffsetStore{fsys: fsys, path: path, groups: map[string]Offsets{}}, nil
	}
	if err != nil {
		return nil, kerr.Wrap(kerr.StorageError, err, "cannot read offset file %s", path)
	}
	groups, err := decodeOffsets(data)
	if err != nil {
		return nil, kerr.Wrap(kerr.StorageError, err, "invalid offset file %s", path)
	}
	return &OffsetStore{fsys: fsys, path: path, groups: groups}, nil
}

// Path returns the file the store writes.
func (s *OffsetStore) Path() string { return s.path }

// Get returns the committed offset of (group, tp), and false when there is
// none.
func (s *OffsetStore) Get(group string, tp topic.Partition) (int64, bool) {
	o, ok := s.groups[group][tp]
	return o, ok
}

// Commit merges offsets into group's committed offsets, overwriting existing
// entries, and writes the file. An empty group id, an id that is not valid
// UTF-8 or any negative offset is an argument error and nothing changes.
func (s *OffsetStore) Commit(group string, offsets Offsets) error {
	return s.CommitMany(map[string]Offsets{group: offsets})
}

// CommitMany commits several groups at once (a transaction's staged offsets).
// Every group and offset is validated first; only then are all of them merged
// and the file written once, so a bad entry anywhere changes nothing
// (decision 20).
func (s *OffsetStore) CommitMany(groups map[string]Offsets) error {
	for _, g := range slices.Sorted(maps.Keys(groups)) {
		if err := validateCommit(g, groups[g]); err != nil {
			return err
		}
	}
	next := make(map[string]Offsets, len(s.groups)+len(groups))
	for g, offs := range s.groups {
		next[g] = offs
	}
	for g, offs := range groups {
		merged := maps.Clone(next[g])
		if merged == nil {
			merged = Offsets{}
		}
		maps.Copy(merged, offs)
		next[g] = merged
	}
	if err := s.write(next); err != nil {
		return err
	}
	s.groups = next
	return nil
}

func validateCommit(group string, offsets Offsets) error {
	if group == "" {
		return kerr.Argument("group id cannot be empty")
	}
	if !validID(group) {
		return kerr.Argument("group id %q is not valid UTF-8", group)
	}
	for tp, o := range offsets {
		if o < 0 {
			return kerr.Argument("committed offsets cannot be negative")
		}
		if tp.Partition < 0 || !validID(tp.Topic) || tp.Topic == "" {
			return kerr.Argument("invalid topic-partition %q", tp.String())
		}
	}
	return nil
}

// Flush rewrites the file from memory. The cluster calls it on close and in
// the flush cycle; it always writes, even an empty store.
func (s *OffsetStore) Flush() error { return s.write(s.groups) }

// Groups returns the ids of groups with committed offsets, sorted.
func (s *OffsetStore) Groups() []string { return slices.Sorted(maps.Keys(s.groups)) }

// HasGroup reports whether group has ever committed (possibly nothing).
func (s *OffsetStore) HasGroup(group string) bool {
	_, ok := s.groups[group]
	return ok
}

// GroupOffsets returns group's committed offsets sorted by topic-partition.
func (s *OffsetStore) GroupOffsets(group string) []CommittedOffset {
	offs := s.groups[group]
	out := make([]CommittedOffset, 0, len(offs))
	for _, tp := range sortedPartitions(offs) {
		out = append(out, CommittedOffset{Partition: tp, Offset: offs[tp]})
	}
	return out
}

func sortedPartitions(offs Offsets) []topic.Partition {
	out := slices.Collect(maps.Keys(offs))
	topic.Sort(out)
	return out
}

func (s *OffsetStore) write(groups map[string]Offsets) error {
	data := encodeOffsets(groups)
	if err := replaceFile(s.fsys, s.path, data); err != nil {
		return kerr.Wrap(kerr.StorageError, err, "cannot write offset file %s", s.path)
	}
	return nil
}

// replaceFile atomically replaces path with data: write a sibling with the
// extension swapped to .tmp, fsync it, rename it over path, fsync the
// directory.
func replaceFile(fsys vfs.FS, path string, data []byte) error {
	return atomicfile.Replace(fsys, path, data, true)
}

// validID reports whether an id can be stored: non-empty is checked by the
// caller; here only that it is valid UTF-8, so JSON can carry it unchanged.
func validID(s string) bool { return utf8.ValidString(s) }
