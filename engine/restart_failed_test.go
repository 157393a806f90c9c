package engine_test

import (
	"errors"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/replication"
	"github.com/minikafka-lab/minikafka/engine/storage"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// A broker restart that fails (one replica has a corrupt closed segment)
// changes nothing: the broker stays crashed in every view (Brokers, every
// PartitionState, Replicate, produce to the partition it led), its other
// replicas are not brought back half-way, and no event announces a
// restart. Once the damaged file is replaced, restarting again works.
func TestFailedRestartChangesNothing(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2}, func(c *engine.Config) { c.SegmentBytes = 120 })
	f.topic("t", 2, 2)
	damaged, led := tp("t", 0), tp("t", 1)
	if st := f.state(led); st.Leader != 2 {
		t.Fatalf("t-1 is led by %d; the test wants broker 2 to lead it", st.Leader)
	}
	for _, p := range []engine.TopicPartition{damaged, led} {
		for _, v := range []string{"a", "b", "c"} {
			f.append(p, batchOf(v), engine.Acks1)
		}
	}
	f.replicate(nil)
	l, err := f.c.ReplicaLog(damaged, 2)
	if err != nil {
		t.Fatal(err)
	}
	segment := l.Segments()[0].LogPath
	good, err := f.fs().ReadFile(segment)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.Corrupt(damaged, 2, 0, storage.Flip, 0); err != nil {
		t.Fatal(err)
	}
	if err := f.c.CrashBroker(2, true); err != nil {
		t.Fatal(err)
	}
	f.c.TakeEvents()

	_, err = f.c.RestartBroker(2)
	wantCode(t, err, kerr.StorageError, "corrupt closed segment")
	if evs := f.c.TakeEvents(); len(evs) != 0 {
		t.Fatalf("a failed restart emitted %v", eventKinds(evs))
	}
	wantDown := func(when string) {
		t.Helper()
		brokers, err := f.c.Brokers()
		if err != nil {
			t.Fatal(err)
		}
		if brokers[1].ID != 2 || brokers[1].Up {
			t.Fatalf("%s: Brokers says broker 2 is up", when)
		}
		for _, p := range []engine.TopicPartition{damaged, led} {
			if r := replicaOf(t, f.state(p), 2); r.Up {
				t.Fatalf("%s: %s says broker 2's replica is up", when, p)
			}
		}
		if st := f.state(led); st.Online {
			t.Fatalf("%s: %s is online with its leader down", when, led)
		}
		_, err = f.c.Replicate(&damaged, 2)
		wantCode(t, err, kerr.BrokerNotAvailable, "broker 2 is down")
		if _, err := f.c.Produce("t", 1, rec("x"), engine.Acks1); !errors.Is(err, kerr.LeaderNotAvailable) {
			t.Fatalf("%s: produce to %s: %v, want LEADER_NOT_AVAILABLE", when, led, err)
		}
		if _, err := f.c.ReplicaLog(led, 2); err == nil {
			t.Fatalf("%s: broker 2's log of %s is open", when, led)
		}
	}
	wantDown("after the failed restart")
	// Nothing was half-done: the same failure again.
	_, err = f.c.RestartBroker(2)
	wantCode(t, err, kerr.StorageError, "corrupt closed segment")
	wantDown("after the second failed restart")

	if err := vfs.WriteFile(f.fs(), segment, good, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := f.c.RestartBroker(2)
	if err != nil {
		t.Fatalf("restart after the repair: %v", err)
	}
	if len(rep.Replicas) != 2 {
		t.Fatalf("restart report has %d replicas, want 2", len(rep.Replicas))
	}
	if evs := f.c.TakeEvents(); len(evs) == 0 || evs[0].Kind() != "broker_restarted" {
		t.Fatalf("restart events %v", eventKinds(evs))
	}
	brokers, _ := f.c.Brokers()
	if !brokers[1].Up {
		t.Fatal("broker 2 is not up after the restart")
	}
	for _, p := range []engine.TopicPartition{damaged, led} {
		if st := f.state(p); !st.Online || !replicaOf(t, st, 2).Up {
			t.Fatalf("%s after the restart: online %v, replica 2 up %v", p, st.Online, replicaOf(t, st, 2).Up)
		}
	}
	f.append(damaged, batchOf("d"), engine.Acks1)
	f.replicate(nil)
	wantStrings(t, "broker 2's copy", f.replicaValues(damaged, 2), []string{"a", "b", "c", "d"})
}

// replicaOf finds a broker's replica in a partition state.
func replicaOf(t *testing.T, st engine.PartitionState, broker int32) replication.ReplicaState {
	t.Helper()
	for _, r := range st.Replicas {
		if r.Broker == broker {
			return r
		}
	}
	t.Fatalf("%s has no replica on broker %d", st.TP, broker)
	return replication.ReplicaState{}
}
