package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/atomicfile"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/storage"
	"github.com/minikafka-lab/minikafka/engine/topic"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// MetadataFile is the cluster metadata's file name, MetadataTempFile the
// temporary file of its atomic replace.
const (
	MetadataFile     = "metadata.json"
	MetadataTempFile = "metadata.tmp"
)

// The file's shape (§5.3). Struct fields are declared in sorted order and
// maps marshal with sorted keys, so the output has sorted keys everywhere.
type metaPartitionJSON struct {
	LeaderEpoch *int32  `json:"leader_epoch"`
	LeaderID    *int32  `json:"leader_id"`
	Replicas    []int32 `json:"replicas"`
}

type metaTopicJSON struct {
	Partitions map[string]metaPartitionJSON `json:"partitions"`
}

type metaFileJSON struct {
	Topics  map[string]metaTopicJSON `json:"topics"`
	Version *int                     `json:"version"`
}

// EncodeMetadata renders topics as metadata.json: compact JSON with sorted
// keys at every level, partition numbers as string keys, version 1.
func EncodeMetadata(topics []TopicMetadata) []byte {
	f := metaFileJSON{Topics: map[string]metaTopicJSON{}}
	one := 1
	f.Version = &one
	for _, t := range topics {
		parts := map[string]metaPartitionJSON{}
		for _, p := range t.Partitions {
			epoch, leader := p.LeaderEpoch, p.Leader
			parts[strconv.Itoa(int(p.Partition))] = metaPartitionJSON{
				LeaderEpoch: &epoch, LeaderID: &leader, Replicas: append([]int32{}, p.Replicas...),
			}
		}
		f.Topics[t.Name] = metaTopicJSON{Partitions: parts}
	}
	data, err := json.Marshal(f)
	if err != nil {
		panic(fmt.Sprintf("metadata cannot be encoded: %v", err)) // plain ints and strings always encode
	}
	return data
}

// DecodeMetadata parses metadata.json strictly: version 1; every topic name
// valid; partitions numbered 0..n-1; every partition with a non-empty list of
// distinct, non-negative replicas, a leader among them and a non-negative
// epoch. Topics come back sorted by name, partitions in numeric order. Any
// problem is an error (the caller wraps it in STORAGE_ERROR).
func DecodeMetadata(data []byte) ([]TopicMetadata, error) {
	var f metaFileJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data")
	}
	if f.Version == nil || *f.Version != 1 {
		return nil, errors.New("missing or unsupported version")
	}
	if f.Topics == nil {
		return nil, errors.New("missing topics")
	}
	names := make([]string, 0, len(f.Topics))
	for n := range f.Topics {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []TopicMetadata
	for _, name := range names {
		if err := topic.ValidateName(name); err != nil {
			return nil, err
		}
		t := f.Topics[name]
		if len(t.Partitions) == 0 {
			return nil, fmt.Errorf("topic %s has no partitions", name)
		}
		tm := TopicMetadata{Name: name, Partitions: make([]PartitionMetadata, len(t.Partitions))}
		seen := make([]bool, len(t.Partitions))
		for key, p := range t.Partitions {
			n, err := strconv.Atoi(key)
			if err != nil || n < 0 || n >= len(t.Partitions) || strconv.Itoa(n) != key || seen[n] {
				return nil, fmt.Errorf("topic %s: partitions must be numbered 0..%d, got %q", name, len(t.Partitions)-1, key)
			}
			seen[n] = true
			if p.LeaderEpoch == nil || p.LeaderID == nil || len(p.Replicas) == 0 {
				return nil, fmt.Errorf("%s-%d: missing leader_epoch, leader_id or replicas", name, n)
			}
			if *p.LeaderEpoch < 0 {
				return nil, fmt.Errorf("%s-%d: negative leader epoch", name, n)
			}
			leaderFound := false
			dup := map[int32]bool{}
			for _, b := range p.Replicas {
				if b < 0 || dup[b] {
					return nil, fmt.Errorf("%s-%d: invalid replica list %v", name, n, p.Replicas)
				}
				dup[b] = true
				leaderFound = leaderFound || b == *p.LeaderID
			}
			if !leaderFound {
				return nil, fmt.Errorf("%s-%d: leader %d is not a replica", name, n, *p.LeaderID)
			}
			tm.Partitions[n] = PartitionMetadata{Topic: name, Partition: int32(n), Replicas: p.Replicas,
				Leader: *p.LeaderID, LeaderEpoch: *p.LeaderEpoch}
		}
		out = append(out, tm)
	}
	return out, nil
}

// loadMetadata reads dir/metadata.json; a missing file means no topics,
// unless replica directories beside it hold records (then the file was
// lost, and opening an empty cluster would hide them, and a later topic
// create would overwrite them): STORAGE_ERROR naming them and what to do.
// An unreadable or invalid file is STORAGE_ERROR "invalid metadata file
// {path}".
func loadMetadata(fsys vfs.FS, dir string) ([]TopicMetadata, error) {
	path := filepath.Join(dir, MetadataFile)
	data, err := fsys.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, orphanReplicas(fsys, dir)
	}
	if err != nil {
		return nil, kerr.Wrap(kerr.StorageError, err, "read %s", path)
	}
	topics, err := DecodeMetadata(data)
	if err != nil {
		return nil, kerr.Wrap(kerr.StorageError, err, "invalid metadata file %s", path)
	}
	return topics, nil
}

// saveMetadata replaces dir/metadata.json atomically: write metadata.tmp,
// fsync it, rename it over metadata.json, fsync the directory.
func saveMetadata(fsys vfs.FS, dir string, topics []TopicMetadata) error {
	path := filepath.Join(dir, MetadataFile)
	if err := atomicfile.Replace(fsys, path, EncodeMetadata(topics), true); err != nil {
		return kerr.Wrap(kerr.StorageError, err, "write %s", path)
	}
	return nil
}

// orphanReplicas refuses a data directory without metadata.json whose
// broker-N/TOPIC-P directories hold segment bytes.
func orphanReplicas(fsys vfs.FS, dir string) error {
	brokers, err := fsys.ReadDir(dir)
	if err != nil {
		return kerr.Wrap(kerr.StorageError, err, "list %s", dir)
	}
	var found []string
	for _, b := range brokers {
		if !b.IsDir() || !strings.HasPrefix(b.Name(), "broker-") {
			continue
		}
		replicas, err := fsys.ReadDir(filepath.Join(dir, b.Name()))
		if err != nil {
			return kerr.Wrap(kerr.StorageError, err, "list %s", filepath.Join(dir, b.Name()))
		}
		for _, r := range replicas {
			if r.IsDir() && holdsRecords(fsys, filepath.Join(dir, b.Name(), r.Name())) {
				found = append(found, filepath.Join(b.Name(), r.Name()))
			}
		}
	}
	if len(found) == 0 {
		return nil
	}
	more := ""
	if len(found) > 3 {
		more = fmt.Sprintf(" and %d more", len(found)-3)
		found = found[:3]
	}
	return kerr.New(kerr.StorageError,
		"%s is missing, but replica directories beside it hold records (%s%s): restore %s (from a backup), or move the broker-* directories away to start an empty cluster in %s",
		filepath.Join(dir, MetadataFile), strings.Join(found, ", "), more, MetadataFile, dir)
}

// holdsRecords reports whether a replica directory has a non-empty
// segment file.
func holdsRecords(fsys vfs.FS, dir string) bool {
	files, err := fsys.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, f := range files {
		if !strings.HasSuffix(f.Name(), storage.LogFileSuffix) {
			continue
		}
		if info, err := f.Info(); err == nil && info.Size() > 0 {
			return true
		}
	}
	return false
}
