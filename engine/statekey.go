package engine

import (
	"io"

	"github.com/minikafka-lab/minikafka/engine/statekey"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// WriteStateKey writes to w what a state explorer needs, beyond the
// description API (PartitionStates, LeaderEpochs, PendingAcks, Brokers),
// to tell two clusters apart that could behave differently: the clock,
// the controller's timers (each broker's last heartbeat, which is a
// crashed broker's crash time, and the next unclean-election check), each
// replica set's hidden state (replication.ReplicaSet.WriteStateKey) and
// the data directory's files as a vfs.Mem digest (current and durable
// bytes: what a restart recovers and a machine crash keeps). It changes
// nothing. A cluster on another file system writes no files.
func (c *Cluster) WriteStateKey(w io.Writer) {
	k := statekey.New(w)
	k.Int(c.clock.NowMs())
	k.Int(c.uncleanCheckDueMs)
	for _, id := range c.sortedBrokers() {
		k.Int(int64(id))
		k.Int(c.brokers[id].lastHeartbeatMs)
	}
	for _, tp := range c.sortedTPs() {
		c.sets[tp].WriteStateKey(w)
	}
	if m, ok := c.cfg.fs().(*vfs.Mem); ok {
		m.Digest(w)
	}
}
