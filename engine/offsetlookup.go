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
