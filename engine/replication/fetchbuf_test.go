package replication

import (
	"bytes"
	"runtime"
	"testing"
)

// The follower fetch reads the leader's frames into the cluster's shared
// fetch buffer (storage ReadBatchesInto) and copies them at once, so a fetch
// step does not allocate a read buffer: with 32 KiB batches, a warm step
// allocates far less than the bytes it copies (a fresh buffer per read
// costs at least the batch). The followers' logs match the leader's bytes.
func TestFollowerFetchReusesTheReadBuffer(t *testing.T) {
	rs := newBenchSet(t, t.TempDir())
	rs.env.Events = &EventLog{}
	batch := benchBatch(32, 1000)
	step := func() {
		if _, err := rs.Append(batch, Acks1, "test"); err != nil {
			t.Fatal(err)
		}
		if _, err := rs.FetchFollowers(); err != nil {
			t.Fatal(err)
		}
		rs.env.Events.Take()
	}
	for range 8 {
		step()
	}
	const rounds = 64
	var total uint64
	var before, after runtime.MemStats
	for range rounds {
		if _, err := rs.Append(batch, Acks1, "test"); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&before)
		if _, err := rs.FetchFollowers(); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		total += after.TotalAlloc - before.TotalAlloc
		rs.env.Events.Take()
	}
	frame := uint64(batch.EncodedSize())
	if perStep := total / rounds; perStep >= frame/2 {
		t.Fatalf("a fetch step for two followers allocated %d bytes on average, want well under one %d-byte batch", perStep, frame)
	}
	leader, err := rs.replicas[1].log.ReadBatches(0, 1<<30, -1)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []int32{2, 3} {
		got, err := rs.replicas[b].log.ReadBatches(0, 1<<30, -1)
		if err != nil || len(got) != len(leader) {
			t.Fatalf("follower %d: %d batches (%v), leader %d", b, len(got), err, len(leader))
		}
		for i := range got {
			if !bytes.Equal(got[i].Frame, leader[i].Frame) {
				t.Fatalf("follower %d batch %d differs from the leader's", b, i)
			}
		}
	}
}
