package replication

import (
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/storage"
)

// readChunkBytes is the byte budget of each leader read on the filtered path.
const readChunkBytes = 1 << 20

// Read returns the records with offset <= o < min(end, HW) from the leader's
// log, at most maxRecords (§5.4, §9.3: nothing consumer-facing reads beyond
// the HW). end < 0 means the HW. maxRecords < 0 is an argument error and 0
// returns no records (decision 1); offset outside [log start, LEO] is
// OFFSET_OUT_OF_RANGE, while HW < offset <= LEO simply returns nothing. A
// crashed leader is LEADER_NOT_AVAILABLE.
//
// hide, when not nil, is asked about every data batch and may hide it (the
// read_committed path hides aborted or open transactions); control batches
// never yield records.
func (rs *ReplicaSet) Read(offset int64, maxRecords int, end int64, hide func(record.Meta) bool) ([]storage.LogRecord, error) {
	if maxRecords < 0 {
		return nil, kerr.Argument("max records cannot be negative (got %d)", maxRecords)
	}
	l, err := rs.LeaderLog()
	if err != nil {
		return nil, err
	}
	bound := rs.hw
	if end >= 0 && end < bound {
		bound = end
	}
	if hide == nil {
		return l.Fetch(offset, maxRecords, bound)
	}
	batches, err := l.ReadBatches(offset, readChunkBytes, bound)
	if err != nil || maxRecords == 0 {
		return nil, err
	}
	var out []storage.LogRecord
	for len(batches) > 0 {
		for _, b := range batches {
			if b.Meta.IsControl() || hide(b.Meta) {
				continue
			}
			batch, err := record.DecodeLimit(b.Frame, l.Options().MaxBatchBytes)
			if err != nil {
				return nil, err
			}
			for i, r := range batch.Records {
				o := batch.BaseOffset + int64(batch.OffsetDeltas[i])
				if o < offset {
					continue
				}
				if o >= bound {
					return out, nil
				}
				out = append(out, storage.LogRecord{Offset: o, Record: r})
				if len(out) == maxRecords {
					return out, nil
				}
			}
		}
		next := batches[len(batches)-1].Meta.NextOffset()
		if next >= bound {
			break
		}
		if batches, err = l.ReadBatches(next, readChunkBytes, bound); err != nil {
			return nil, err
		}
	}
	return out, nil
}
