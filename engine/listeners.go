package engine

import (
	"fmt"

	"github.com/minikafka-lab/minikafka/engine/producer"
	"github.com/minikafka-lab/minikafka/engine/replication"
)

// Continuations on the cluster's promises are plain data
// (replication.Listener): each names its owner by id, and the cluster's
// Dispatcher finds the owner when the promise settles. A copy of the
// cluster (Snapshot, Restore) copies the listeners with the promises and
// registers its own handlers, so the copy's waiters call the copy, never
// the original. The handlers run synchronously at the moment the promise
// settles, in registration order, as closures did: event order is
// unchanged.

// listen creates the cluster's dispatcher and registers a handler for every
// listener kind.
func (c *Cluster) listen() {
	c.dispatch = &replication.Dispatcher{}
	c.dispatch.Handle(replication.ListenKeyless, c.keylessSettled)
	c.dispatch.Handle(replication.ListenBatch, c.batchSettled)
	c.dispatch.Handle(replication.ListenMarker, c.markerSettled)
}

// producerEnv is what the cluster lends the producer numbered n (its place
// in c.producers, from 1): the number is the owner its listeners carry.
func (c *Cluster) producerEnv(n int64) producer.Env {
	return producer.Env{Cluster: producerPort{c}, Clock: c.clock, IDs: c.ids, Events: c.events, Settings: c.psettings, Dispatch: c.dispatch, Number: n}
}

// keylessWait is a keyless Produce waiting for its acknowledgement: once it
// is done, the sticky partition of the ack's topic moves on (decision 3).
type keylessWait struct {
	ack   *Ack
	count int32 // the topic's partition count when the record was produced
}

// awaitKeyless moves the topic's sticky partition once ack is done: now if
// it has settled, else when it does.
func (c *Cluster) awaitKeyless(ack *Ack, count int32) {
	if ack.Settled() {
		c.keylessDone(keylessWait{ack: ack, count: count})
		return
	}
	if c.keyless == nil {
		c.keyless = map[int64]keylessWait{}
	}
	c.keyless[ack.ID()] = keylessWait{ack: ack, count: count}
	ack.Listen(c.dispatch, replication.Listener{Kind: replication.ListenKeyless, Ref: ack.ID()})
}

func (c *Cluster) keylessSettled(l replication.Listener) {
	w, ok := c.keyless[l.Ref]
	if !ok {
		return
	}
	delete(c.keyless, l.Ref)
	c.keylessDone(w)
}

func (c *Cluster) keylessDone(w keylessWait) {
	if w.ack.State() == Done {
		c.partitioner.OnBatchClosed(w.ack.TP.Topic, w.count, w.ack.TP.Partition)
	}
}

// batchSettled hands a producer batch's settled acknowledgement to its
// producer.
func (c *Cluster) batchSettled(l replication.Listener) {
	if l.Owner < 1 || l.Owner > int64(len(c.producers)) {
		panic(fmt.Sprintf("engine: a batch listener names producer %d of %d", l.Owner, len(c.producers)))
	}
	c.producers[l.Owner-1].AckSettled(l.Ref)
}
