package engine

import "github.com/minikafka-lab/minikafka/engine/storage"

// White-box access for the engine's own tests, which look at a replica's
// storage.Log directly. Outside the engine, logs are read through the
// description API (DescribeLog, LogIndex, LogBatches).

// ReplicaLog returns one broker's live log of a partition (tests only).
func (c *Cluster) ReplicaLog(tp TopicPartition, broker int32) (*storage.Log, error) {
	return c.replicaLog(tp, broker)
}

// LeaderLog returns the partition leader's live log (tests only).
func (c *Cluster) LeaderLog(tp TopicPartition) (*storage.Log, error) { return c.leaderLog(tp) }
