package replication

import (
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/storage"
)

// Read returns the records with offset <= o < HW from the leader's log, at
// most maxRecords (§5.4, §9.3: nothing consumer-facing reads beyond the HW).
// maxRecords < 0 is an argument error and 0 returns no records (decision 1);
// offset outside [log start, LEO] is OFFSET_OUT_OF_RANGE, while
// HW < offset <= LEO simply returns nothing. A crashed leader is
// LEADER_NOT_AVAILABLE.
func (rs *ReplicaSet) Read(offset int64, maxRecords int) ([]storage.LogRecord, error) {
	if maxRecords < 0 {
		return nil, kerr.Argument("max records cannot be negative (got %d)", maxRecords)
	}
	l, err := rs.LeaderLog()
	if err != nil {
		return nil, err
	}
	return l.Fetch(offset, maxRecords, rs.hw)
}
