package engine

import (
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
)

// Transactions is what the read path needs from a transaction layer: the
// last stable offset of a partition and whether read_committed hides a data
// batch. Until transactions exist the cluster uses a layer without any: the
// LSO is the HW and nothing is hidden, which makes read_committed exactly the
// HW bound with control batches skipped.
type Transactions interface {
	// LastStableOffset is the exclusive end of read_committed reads; the
	// cluster clamps it to the HW (decision 18).
	LastStableOffset(tp TopicPartition, hw int64) int64
	// HideCommitted reports whether read_committed must skip this data batch
	// (an open or aborted transaction's batch).
	HideCommitted(tp TopicPartition, batch record.Meta) bool
}

type noTransactions struct{}

func (noTransactions) LastStableOffset(_ TopicPartition, hw int64) int64 { return hw }
func (noTransactions) HideCommitted(TopicPartition, record.Meta) bool    { return false }

// lso is the partition's last stable offset, never above the HW.
func (c *Cluster) lso(tp TopicPartition, hw int64) int64 {
	if l := c.txns.LastStableOffset(tp, hw); l < hw {
		return l
	}
	return hw
}

// Fetch reads records of a partition from its leader (§5.4), starting at
// offset, at most maxRecords. It never reads at or beyond the high watermark
// (read_uncommitted) or the last stable offset (read_committed, which also
// skips control batches and hidden transactional batches). maxRecords 0
// returns no records and a negative value is an argument error (decision 1);
// an offset outside [log start, LEO] is OFFSET_OUT_OF_RANGE, while an offset
// between the HW and the LEO returns nothing. A partition whose leader is
// down is LEADER_NOT_AVAILABLE.
func (c *Cluster) Fetch(tp TopicPartition, offset int64, maxRecords int, iso Isolation) ([]StoredRecord, error) {
	if err := c.guard(); err != nil {
		return nil, err
	}
	if iso != ReadUncommitted && iso != ReadCommitted {
		return nil, kerr.Argument("unknown isolation level %d", iso)
	}
	if maxRecords < 0 {
		return nil, kerr.Argument("max records cannot be negative (got %d)", maxRecords)
	}
	if iso == ReadCommitted {
		// The consumers' read: below the LSO, without markers or hidden
		// transactional batches.
		out, _, err := c.consumerFetch(tp, offset, maxRecords, iso)
		if err != nil {
			return nil, err
		}
		return out, nil
	}
	rs, err := c.replicaSet(tp)
	if err != nil {
		return nil, err
	}
	recs, err := rs.Read(offset, maxRecords)
	if err != nil {
		return nil, err
	}
	out := make([]StoredRecord, len(recs))
	for i, r := range recs {
		out[i] = StoredRecord{Topic: tp.Topic, Partition: tp.Partition, Offset: r.Offset, Record: r.Record}
	}
	return out, nil
}

// FetchNext reads like Fetch, and also returns the offset a consumer
// fetches next: past the records returned, and past the transaction
// markers (and, read_committed, the batches of aborted transactions) the
// read stepped over, as a consumer's position moves. A read that starts
// on a COMMIT marker returns no record and the offset after the marker.
func (c *Cluster) FetchNext(tp TopicPartition, offset int64, maxRecords int, iso Isolation) ([]StoredRecord, int64, error) {
	if iso != ReadUncommitted && iso != ReadCommitted {
		return nil, offset, kerr.Argument("unknown isolation level %d", iso)
	}
	if maxRecords < 0 {
		return nil, offset, kerr.Argument("max records cannot be negative (got %d)", maxRecords)
	}
	return c.consumerFetch(tp, offset, maxRecords, iso)
}

// HighWatermark is the partition's visible end (the reference's
// visible_end).
func (c *Cluster) HighWatermark(tp TopicPartition) (int64, error) {
	if err := c.guard(); err != nil {
		return 0, err
	}
	rs, err := c.replicaSet(tp)
	if err != nil {
		return 0, err
	}
	return rs.HighWatermark(), nil
}

// LastStableOffset is the end of read_committed reads (the HW until
// transactions exist).
func (c *Cluster) LastStableOffset(tp TopicPartition) (int64, error) {
	hw, err := c.HighWatermark(tp)
	if err != nil {
		return 0, err
	}
	return c.lso(tp, hw), nil
}

// LogStartOffset is the leader log's start offset (LEADER_NOT_AVAILABLE
// while the leader is down).
func (c *Cluster) LogStartOffset(tp TopicPartition) (int64, error) {
	if err := c.guard(); err != nil {
		return 0, err
	}
	rs, err := c.replicaSet(tp)
	if err != nil {
		return 0, err
	}
	l, err := rs.LeaderLog()
	if err != nil {
		return 0, err
	}
	return l.LogStartOffset(), nil
}
