package replication

import (
	"path/filepath"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/storage"
)

func divergenceLog(t *testing.T, name string) *storage.Log {
	t.Helper()
	l, _, err := storage.Open(filepath.Join(t.TempDir(), name), storage.DefaultOptions(), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Crash(true) })
	return l
}

// appendAt appends n one-record batches in leader epoch epoch.
func appendAt(t *testing.T, l *storage.Log, epoch int32, n int) {
	t.Helper()
	l.SetLeaderEpoch(epoch)
	for range n {
		if _, _, err := l.Append(record.NewBatch([]record.Record{{Value: []byte("v")}})); err != nil {
			t.Fatal(err)
		}
	}
}

// copyAll copies every batch of from that to lacks, byte for byte.
func copyAll(t *testing.T, from, to *storage.Log) {
	t.Helper()
	err := from.Batches(to.LEO(), func(b storage.RawBatch) error {
		_, err := to.AppendRaw(b.Frame)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// DivergencePoint (decision 7 at open): where a follower stops agreeing
// with its leader, by base offset, next offset and leader epoch.
func TestDivergencePoint(t *testing.T) {
	leader, follower := divergenceLog(t, "leader"), divergenceLog(t, "follower")
	appendAt(t, leader, 0, 5)
	copyAll(t, leader, follower)
	if at, err := DivergencePoint(leader, follower); err != nil || at != 5 {
		t.Fatalf("copied follower: %d %v, want 5", at, err)
	}
	// A follower behind agrees up to its LEO.
	behind := divergenceLog(t, "behind")
	if at, err := DivergencePoint(leader, behind); err != nil || at != 0 {
		t.Fatalf("empty follower: %d %v, want 0", at, err)
	}
	// The follower keeps an old tail; the leader wrote the same offsets in
	// a later epoch.
	appendAt(t, follower, 0, 3)
	appendAt(t, leader, 1, 3)
	if at, err := DivergencePoint(leader, follower); err != nil || at != 5 {
		t.Fatalf("old tail: %d %v, want 5", at, err)
	}
	// A follower ahead of its leader disagrees from the leader's LEO on
	// (decision 12).
	ahead := divergenceLog(t, "ahead")
	copyAll(t, leader, ahead)
	appendAt(t, ahead, 1, 2)
	if at, err := DivergencePoint(leader, ahead); err != nil || at != 8 {
		t.Fatalf("ahead: %d %v, want 8", at, err)
	}
}
