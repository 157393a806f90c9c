package engine_test

import (
	"errors"
	"strings"
	"syscall"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// A produce with acks=1 whose segment write fails with ENOSPC returns
// STORAGE_ERROR and acknowledges nothing: no offset is handed out, the HW
// and LEO stay, a fetch shows nothing new. The broker's log directory has
// failed, so the broker goes offline (log_dir_failed, as Kafka stops a
// broker whose only log directory failed) and the next produce finds the
// leader down. Once the disk has room again, `broker restart` brings it
// back, the next produce gets the offset the failed one would have had,
// and a reopen holds exactly what was acknowledged.
func TestProduceSegmentWriteFailureIsNotAcknowledged(t *testing.T) {
	t.Parallel()
	mem := vfs.NewMem()
	f := open(t, []int32{1}, func(c *engine.Config) { c.FS, c.DataDir = mem, "data" })
	f.topic("orders", 1, 1)
	p := tp("orders", 0)
	if _, err := f.c.Produce("orders", 0, rec("a"), engine.Acks1); err != nil {
		t.Fatal(err)
	}
	f.c.TakeEvents()
	fault := mem.Inject(vfs.Fault{Op: vfs.OpWrite, Under: "data/broker-1/orders-0", Err: syscall.ENOSPC, Persistent: true})
	ack, err := f.c.Produce("orders", 0, rec("refused"), engine.Acks1)
	wantCode(t, err, kerr.StorageError, "write segment")
	if !errors.Is(err, syscall.ENOSPC) || ack != nil {
		t.Fatalf("produce on a full disk: ack %v, error %v", ack, err)
	}
	if evs := f.c.TakeEvents(); len(evs) != 1 || evs[0].Kind() != "log_dir_failed" {
		t.Fatalf("a refused produce announced %v, want the failed log directory", eventKinds(evs))
	}
	if ack, err := f.c.Produce("orders", 0, rec("refused"), engine.Acks1); ack != nil {
		t.Fatalf("produce to the offline leader was acknowledged: %v", ack.State())
	} else {
		wantCode(t, err, kerr.LeaderNotAvailable, "down")
	}
	if st := f.state(p); st.HW != 1 || st.Online {
		t.Fatalf("after the refused produce: HW %d, online %v", st.HW, st.Online)
	}
	bs, err := f.c.Brokers()
	if err != nil || bs[0].Up || !strings.Contains(bs[0].LogDirFailure, "no space left on device") {
		t.Fatalf("broker list after the failure: %+v %v", bs, err)
	}

	fault.Clear()
	if _, err := f.c.RestartBroker(1); err != nil {
		t.Fatalf("restart after the disk recovered: %v", err)
	}
	wantStrings(t, "fetch", f.values(p, engine.ReadUncommitted), []string{"a"})
	ack, err = f.c.Produce("orders", 0, rec("b"), engine.Acks1)
	if err != nil {
		t.Fatal(err)
	}
	if ack.State() != engine.Done || ack.Value().BaseOffset != 1 {
		t.Fatalf("produce after the fault: %v at offset %d, want done at 1", ack.State(), ack.Value().BaseOffset)
	}
	if bs, _ := f.c.Brokers(); !bs[0].Up || bs[0].LogDirFailure != "" {
		t.Fatalf("broker list after the restart: %+v", bs)
	}
	f.restart()
	wantStrings(t, "after reopen", f.values(p, engine.ReadUncommitted), []string{"a", "b"})
}

// A follower whose segment write fails copies nothing: the replicate
// reports STORAGE_ERROR for it, its broker goes offline (its log directory
// failed), the HW does not move and an acks=all produce stays pending; once
// the follower's disk works again, `broker restart` and the next replicate
// complete it.
func TestFollowerSegmentWriteFailureHoldsTheHW(t *testing.T) {
	t.Parallel()
	mem := vfs.NewMem()
	f := open(t, []int32{1, 2}, func(c *engine.Config) { c.FS, c.DataDir = mem, "data" })
	f.topic("orders", 1, 2)
	p := tp("orders", 0)
	ack, err := f.c.Produce("orders", 0, rec("a"), engine.AcksAll)
	if err != nil {
		t.Fatal(err)
	}
	fault := mem.Inject(vfs.Fault{Op: vfs.OpWrite, Under: "data/broker-2", Err: syscall.EIO, Tear: 5})
	_, err = f.c.Replicate(&p, engine.AllFollowers)
	wantCode(t, err, kerr.StorageError, "write segment")
	if ack.State() != engine.Pending || f.hw(p) != 0 {
		t.Fatalf("after the failed copy: ack %v, HW %d", ack.State(), f.hw(p))
	}
	if fault.Fired() != 1 {
		t.Fatalf("the fault fired %d times", fault.Fired())
	}
	if st := f.state(p); st.Replicas[1].Up || !st.Online {
		t.Fatalf("after the failed copy: follower up %v, partition online %v", st.Replicas[1].Up, st.Online)
	}
	if _, err := f.c.RestartBroker(2); err != nil {
		t.Fatal(err)
	}
	f.replicate(&p)
	if ack.State() != engine.Done || f.hw(p) != 1 {
		t.Fatalf("after the disk recovered: ack %v, HW %d", ack.State(), f.hw(p))
	}
	wantStrings(t, "follower", f.replicaValues(p, 2), []string{"a"})
}
