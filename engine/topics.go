package engine

import (
	"errors"
	"io/fs"
	"path/filepath"
	"sort"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/replication"
	"github.com/minikafka-lab/minikafka/engine/storage"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// MaxPartitions bounds a topic's partition count: every replica is a real
// directory of files in one process.
const MaxPartitions = 1000

// AssignReplicas is round-robin placement (§5.2): with brokers B (in order)
// and n = |B|, partition p gets [B[(p+r) mod n] for r in 0..rf-1]; its first
// replica is its first leader. partitions must be in 1..MaxPartitions and
// 0 < rf <= n (argument errors).
func AssignReplicas(brokers []int32, partitions, rf int) ([][]int32, error) {
	if partitions <= 0 {
		return nil, kerr.Argument("partitions must be positive (got %d)", partitions)
	}
	if partitions > MaxPartitions {
		return nil, kerr.Argument("partitions must be at most %d (got %d)", MaxPartitions, partitions)
	}
	n := len(brokers)
	if rf <= 0 || rf > n {
		return nil, kerr.Argument("replication factor must be positive and cannot exceed the %d available brokers (got %d)", n, rf)
	}
	out := make([][]int32, partitions)
	for p := range out {
		out[p] = make([]int32, rf)
		for r := range out[p] {
			out[p][r] = brokers[(p+r)%n]
		}
	}
	return out, nil
}

// CreateTopic creates a topic (§5.2): the name is validated
// (topic.ValidateName), must be new (TOPIC_ALREADY_EXISTS), and its replicas
// are placed round-robin over the running brokers in configuration order
// (all brokers when none is crashed, as in the spec). Every replica log is
// created empty, then metadata.json is rewritten. On any failure the logs
// and directories created here are removed and nothing changes.
func (c *Cluster) CreateTopic(name string, partitions, rf int) (TopicMetadata, error) {
	if err := c.guard(); err != nil {
		return TopicMetadata{}, err
	}
	if err := topic.ValidateName(name); err != nil {
		return TopicMetadata{}, err
	}
	if _, ok := c.topics[name]; ok {
		return TopicMetadata{}, kerr.New(kerr.TopicAlreadyExists, "%s", name)
	}
	var live []int32
	for _, b := range c.cfg.BrokerIDs {
		if c.brokers[b].up {
			live = append(live, b)
		}
	}
	assignment, err := AssignReplicas(live, partitions, rf)
	if err != nil {
		return TopicMetadata{}, err
	}
	tm := TopicMetadata{Name: name}
	for p, replicas := range assignment {
		tm.Partitions = append(tm.Partitions, PartitionMetadata{Topic: name, Partition: int32(p), Replicas: replicas, Leader: replicas[0]})
	}

	var created []string // directories created here, removed on failure
	logs := map[TopicPartition]map[int32]*storage.Log{}
	undo := func() {
		for _, m := range logs {
			for _, l := range m {
				l.Crash(true)
			}
		}
		for i := len(created) - 1; i >= 0; i-- {
			c.cfg.fs().RemoveAll(created[i])
		}
	}
	var dirs []string
	newParents := map[string]bool{}
	for _, p := range tm.Partitions {
		for _, b := range p.Replicas {
			dir := c.replicaDir(p.TP(), b)
			parent := filepath.Dir(dir)
			if _, err := c.cfg.fs().Stat(parent); !newParents[parent] && errors.Is(err, fs.ErrNotExist) {
				newParents[parent] = true
				created = append(created, parent)
			}
			// A directory for a topic that is not in the metadata is debris of
			// an interrupted creation: start clean.
			if err := c.cfg.fs().RemoveAll(dir); err != nil {
				undo()
				return TopicMetadata{}, kerr.Wrap(kerr.StorageError, err, "clear %s", dir)
			}
			created = append(created, dir)
			dirs = append(dirs, dir)
		}
	}
	// Every replica log at once: their directories are made durable in
	// one step (storage.CreateAll), not two fsyncs per replica.
	newLogs, err := storage.CreateAll(dirs, c.storageOptions())
	if err != nil {
		undo()
		return TopicMetadata{}, err
	}
	for _, p := range tm.Partitions {
		logs[p.TP()] = map[int32]*storage.Log{}
		for _, b := range p.Replicas {
			logs[p.TP()][b], newLogs = newLogs[0], newLogs[1:]
		}
	}
	all := append(c.metadataList(), tm)
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	if err := saveMetadata(c.cfg.fs(), c.cfg.DataDir, all); err != nil {
		undo()
		return TopicMetadata{}, err
	}
	sets := map[TopicPartition]*replication.ReplicaSet{}
	for _, p := range tm.Partitions {
		rs, err := replication.NewReplicaSet(c.env, p.TP(), p.Replicas, p.Leader, 0, logs[p.TP()])
		if err != nil {
			// Unreachable for fresh, empty logs; restore the old metadata.
			undo()
			saveMetadata(c.cfg.fs(), c.cfg.DataDir, c.metadataList())
			return TopicMetadata{}, err
		}
		sets[p.TP()] = rs
	}
	c.topics[name] = int32(len(tm.Partitions))
	for tp, rs := range sets {
		c.sets[tp] = rs
	}
	return c.topicMetadata(name), nil
}

// partitionMetadata describes a partition from its replica set.
func (c *Cluster) partitionMetadata(tp TopicPartition) PartitionMetadata {
	rs := c.sets[tp]
	return PartitionMetadata{Topic: tp.Topic, Partition: tp.Partition, Replicas: rs.Assignment(),
		Leader: rs.Leader(), LeaderEpoch: rs.LeaderEpoch()}
}

// topicMetadata describes a topic from its partitions' replica sets.
func (c *Cluster) topicMetadata(name string) TopicMetadata {
	tm := TopicMetadata{Name: name, Partitions: make([]PartitionMetadata, c.topics[name])}
	for p := range tm.Partitions {
		tm.Partitions[p] = c.partitionMetadata(TopicPartition{Topic: name, Partition: int32(p)})
	}
	return tm
}

// metadataList returns every topic's metadata sorted by name.
func (c *Cluster) metadataList() []TopicMetadata {
	names := make([]string, 0, len(c.topics))
	for n := range c.topics {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]TopicMetadata, len(names))
	for i, n := range names {
		out[i] = c.topicMetadata(n)
	}
	return out
}

// Topics describes every topic, sorted by name.
func (c *Cluster) Topics() ([]TopicMetadata, error) {
	if err := c.guard(); err != nil {
		return nil, err
	}
	return c.metadataList(), nil
}

// Topic describes one topic (UNKNOWN_TOPIC).
func (c *Cluster) Topic(name string) (TopicMetadata, error) {
	if err := c.guard(); err != nil {
		return TopicMetadata{}, err
	}
	if _, ok := c.topics[name]; !ok {
		return TopicMetadata{}, kerr.New(kerr.UnknownTopic, "%s", name)
	}
	return c.topicMetadata(name), nil
}

// PartitionMetadata describes one partition (UNKNOWN_TOPIC,
// UNKNOWN_PARTITION).
func (c *Cluster) PartitionMetadata(tp TopicPartition) (PartitionMetadata, error) {
	if err := c.guard(); err != nil {
		return PartitionMetadata{}, err
	}
	if _, err := c.replicaSet(tp); err != nil {
		return PartitionMetadata{}, err
	}
	return c.partitionMetadata(tp), nil
}

// replicaSet finds a partition's replica set (UNKNOWN_TOPIC,
// UNKNOWN_PARTITION "{topic}-{p}"). It does not check the lifecycle.
func (c *Cluster) replicaSet(tp TopicPartition) (*replication.ReplicaSet, error) {
	if _, ok := c.topics[tp.Topic]; !ok {
		return nil, kerr.New(kerr.UnknownTopic, "%s", tp.Topic)
	}
	rs := c.sets[tp]
	if rs == nil {
		return nil, kerr.New(kerr.UnknownPartition, "%s", tp)
	}
	return rs, nil
}

// syncMetadata saves metadata.json after a leader change: every
// partition's leader and epoch as its replica set has them. A failed save
// leaves memory and disk disagreeing, so it becomes the cluster's terminal
// error.
func (c *Cluster) syncMetadata() error {
	if err := saveMetadata(c.cfg.fs(), c.cfg.DataDir, c.metadataList()); err != nil {
		return c.fail(err)
	}
	return nil
}
