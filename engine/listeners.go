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

// listeners is the cluster seen as its promises' dispatcher (a
// replication.Dispatcher): one per cluster, for free (a conversion, no
// allocation), and a copy of the cluster is its own.
type listeners Cluster

// Dispatch runs l: it finds l's owner in the cluster by id. A kind the
// cluster does not know is a bug in its wiring, and panics.
func (ls *listeners) Dispatch(l replication.Listener) {
	c := (*Cluster)(ls)
	switch l.Kind {
	case replication.ListenKeyless:
		c.keylessSettled(l)
	case replication.ListenBatch:
		c.batchSettled(l)
	case replication.ListenMarker:
		c.markerSettled(l)
	default:
		panic(fmt.Sprintf("engine: no handler for listener kind %d", l.Kind))
	}
}

// dispatcher is the cluster's dispatcher.
func (c *Cluster) dispatcher() replication.Dispatcher { return (*listeners)(c) }

// producerEnv is what the cluster lends the producer numbered n (its place
// in c.producers, from 1): the number is the owner its listeners carry.
func (c *Cluster) producerEnv(n int64) producer.Env {
	return producer.Env{Cluster: producerPort{c}, Clock: c.clock, IDs: c.ids, Events: c.events, Settings: c.psettings, Dispatch: c.dispatcher(), Number: n}
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
	ack.Listen(c.dispatcher(), replication.Listener{Kind: replication.ListenKeyless, Ref: ack.ID()})
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
