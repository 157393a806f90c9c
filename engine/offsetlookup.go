package engine

import (
	"errors"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/storage"
)

// errStopLookup ends a batch scan early.
var errStopLookup = errors.New("stop scan")

// TimestampOffset is the answer to a timestamp lookup: the first offset
// whose record timestamp is at or after the target, that record's timestamp
// and the leader epoch of its batch. Found is false when no readable record
// qualifies (Kafka answers offset -1, timestamp -1).
type TimestampOffset struct {
	Offset      int64
	TimestampMs int64
	LeaderEpoch int32
	Found       bool
}

// OffsetForTimestamp finds the first offset of tp whose record timestamp is
// >= timestampMs among the records a reader may see: below the high
// watermark, or below the last stable offset for read_committed (Kafka's
// ListOffsets with a timestamp). Markers are never an answer. There is no
// time index: the lookup walks batch headers from the log start, skipping
// every batch whose largest timestamp is below the target, and decodes only
// the batch that holds the answer. A negative timestamp is an argument error
// (the special values -1 and -2 are HighWatermark/LastStableOffset and
// LogStartOffset).
func (c *Cluster) OffsetForTimestamp(tp TopicPartition, timestampMs int64, iso Isolation) (TimestampOffset, error) {
	if err := c.guard(); err != nil {
		return TimestampOffset{}, err
	}
	if timestampMs < 0 {
		return TimestampOffset{}, kerr.Argument("timestamp cannot be negative (got %d)", timestampMs)
	}
	rs, err := c.replicaSet(tp)
	if err != nil {
		return TimestampOffset{}, err
	}
	l, err := rs.LeaderLog()
	if err != nil {
		return TimestampOffset{}, err
	}
	end := rs.HighWatermark()
	if iso == ReadCommitted {
		end = c.lso(tp, end)
	}
	var out TimestampOffset
	err = l.Batches(l.LogStartOffset(), func(rb storage.RawBatch) error {
		if rb.Meta.BaseOffset >= end {
			return errStopLookup
		}
		if rb.Meta.IsControl() || rb.Meta.MaxTimestamp < timestampMs {
			return nil
		}
		b, err := record.DecodeLimit(rb.Frame, l.Options().MaxBatchBytes)
		if err != nil {
			return err
		}
		for i, r := range b.Records {
			o := b.BaseOffset + int64(b.OffsetDeltas[i])
			if o >= end {
				return errStopLookup
			}
			if r.TimestampMs >= timestampMs {
				out = TimestampOffset{Offset: o, TimestampMs: r.TimestampMs, LeaderEpoch: b.LeaderEpoch, Found: true}
				return errStopLookup
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStopLookup) {
		return TimestampOffset{}, err
	}
	return out, nil
}

// EndOffsetForLeaderEpoch answers Kafka's OffsetForLeaderEpoch for tp from
// its leader's log: for the current leader epoch, (epoch, LEO); for an older
// one, the largest epoch <= the requested one that has batches in the log
// (or the requested epoch itself when it is older than every epoch there)
// and the start offset of the first batch of a later epoch; for an epoch
// above every known one, (-1, -1). The epochs are read from the batch
// headers (MiniKafka keeps no leader-epoch checkpoint file), so the cost is
// a walk of the leader log's batch headers. LEADER_NOT_AVAILABLE while the
// leader is down.
func (c *Cluster) EndOffsetForLeaderEpoch(tp TopicPartition, epoch int32) (leaderEpoch int32, endOffset int64, err error) {
	if err := c.guard(); err != nil {
		return 0, 0, err
	}
	rs, err := c.replicaSet(tp)
	if err != nil {
		return 0, 0, err
	}
	l, err := rs.LeaderLog()
	if err != nil {
		return 0, 0, err
	}
	current := rs.LeaderEpoch()
	switch {
	case epoch < 0 || epoch > current:
		return record.NoLeaderEpoch, -1, nil
	case epoch == current:
		return current, l.LEO(), nil
	}
	floor, higherStart, found := int32(record.NoLeaderEpoch), int64(-1), false
	err = l.Batches(l.LogStartOffset(), func(rb storage.RawBatch) error {
		e := rb.Meta.LeaderEpoch
		if e > epoch {
			higherStart, found = rb.Meta.BaseOffset, true
			return errStopLookup
		}
		floor = e
		return nil
	})
	if err != nil && !errors.Is(err, errStopLookup) {
		return 0, 0, err
	}
	if !found {
		// No batch of a later epoch: the current epoch (later than the
		// requested one) starts at the LEO.
		higherStart = l.LEO()
	}
	if floor == record.NoLeaderEpoch {
		return epoch, higherStart, nil
	}
	return floor, higherStart, nil
}
