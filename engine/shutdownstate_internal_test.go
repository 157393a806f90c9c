package engine

import (
	"testing"

	"github.com/minikafka-lab/minikafka/engine/replication"
	"github.com/minikafka-lab/minikafka/engine/txn"
)

// FuzzShutdownState: any bytes decode without panicking; what decodes is
// for the log and window asked for, and consumed to the last byte.
func FuzzShutdownState(f *testing.F) {
	st := &derivedState{producers: replication.NewProducerStateManager(), idx: txn.NewIndex(), window: 1}
	valid := []byte{shutdownStateVersion, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 1}
	valid = st.producers.AppendSnapshot(valid)
	valid = st.idx.AppendSnapshot(valid)
	f.Add(valid)
	f.Add(valid[:len(valid)-1])
	f.Fuzz(func(t *testing.T, b []byte) {
		producers, idx, err := decodeShutdownState(b, 0, 5, 1, nil)
		if err != nil {
			return
		}
		if producers.Window() != 1 || idx.NextOffset() > 5 {
			t.Fatalf("decoded a state for another log: window %d, next %d", producers.Window(), idx.NextOffset())
		}
	})
}
