package engine_test

import (
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// The small read accessors the REPL's offsets and check commands use.
func TestOffsetAccessors(t *testing.T) {
	t.Parallel()
	f := open(t, two, nil)
	f.topic("t", 1, 2)
	p0 := tp("t", 0)
	f.append(p0, batchOf("a", "b"), engine.Acks1)
	a1 := f.append(p0, batchOf("c"), engine.AcksAll)
	a2 := f.append(p0, batchOf("d"), engine.AcksAll)
	if hw, err := f.c.HighWatermark(p0); err != nil || hw != 0 {
		t.Fatalf("HW %d %v", hw, err)
	}
	pending := f.c.PendingAcks()
	if len(pending) != 2 || pending[0] != a1 || pending[1] != a2 || a1.ID() >= a2.ID() {
		t.Fatalf("pending %v", pending)
	}
	f.replicate(nil)
	if hw, _ := f.c.HighWatermark(p0); hw != 4 {
		t.Fatalf("HW %d", hw)
	}
	if lso, _ := f.c.LastStableOffset(p0); lso != 4 {
		t.Fatalf("LSO %d", lso)
	}
	if ls, err := f.c.LogStartOffset(p0); err != nil || ls != 0 {
		t.Fatalf("log start %d %v", ls, err)
	}
	_, err := f.c.HighWatermark(tp("t", 5))
	wantCode(t, err, kerr.UnknownPartition, "t-5")
	f.c.CrashBroker(1, true)
	_, err = f.c.LogStartOffset(p0)
	wantCode(t, err, kerr.LeaderNotAvailable, "")
	_, err = f.c.LeaderLog(p0)
	wantCode(t, err, kerr.LeaderNotAvailable, "")
	if _, err := f.c.HighWatermark(p0); err != nil {
		t.Fatal("the HW is known while the leader is down")
	}
}

func TestParsers(t *testing.T) {
	t.Parallel()
	if iso, err := engine.ParseIsolation("read_committed"); err != nil || iso != engine.ReadCommitted || iso.String() != "read_committed" {
		t.Fatal("read_committed")
	}
	if iso, err := engine.ParseIsolation("read_uncommitted"); err != nil || iso.String() != "read_uncommitted" {
		t.Fatal("read_uncommitted")
	}
	_, err := engine.ParseIsolation("dirty")
	wantCode(t, err, kerr.InvalidArgument, "isolation")
	if a, err := engine.ParseAcks("-1"); err != nil || a != engine.AcksAll {
		t.Fatal("acks -1")
	}
	if p, err := engine.ParseTopicPartition("my-topic-3"); err != nil || p.Topic != "my-topic" || p.Partition != 3 {
		t.Fatalf("%v %v", p, err)
	}
	for _, s := range []engine.LifecycleState{engine.Running, engine.Closing, engine.Closed, engine.FailedState} {
		if s.String() == "unknown" {
			t.Fatal(s)
		}
	}
}
