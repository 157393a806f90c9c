package engine

import (
	"fmt"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/producer"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/txn"
)

// ProducerIdentity is an idempotent producer's id and epoch.
type ProducerIdentity = producer.Identity

// InitProducerID gives a producer that builds its own batches (a Kafka
// client speaking the wire protocol) its producer id and epoch, as Kafka's
// InitProducerId does. Identities come from the same store as NewProducer's
// (producer-identities.json), so fencing is the engine's: the new epoch is
// registered on every partition, and batches of an older epoch are
// PRODUCER_FENCED from then on.
//
// Without a transactional id the producer gets a fresh id under a new name
// ("client-N"). With one, the transactional id is the name: the same id
// keeps its producer id and gets the next epoch. If that transaction is
// still ONGOING it is fenced and aborted first (its abort markers are
// appended with acks=all) and the call returns a state error saying so;
// while a transaction of the id is being committed or aborted the call is a
// state error too. The caller retries (Kafka answers CONCURRENT_TRANSACTIONS).
func (c *Cluster) InitProducerID(transactionalID string) (ProducerIdentity, error) {
	if err := c.checkCoordination(); err != nil {
		return ProducerIdentity{}, err
	}
	name := transactionalID
	if name == "" {
		for n := c.identities.Len() + 1; ; n++ {
			name = fmt.Sprintf("client-%d", n)
			if _, taken := c.identities.Get(name); !taken {
				break
			}
		}
	} else {
		if err := txn.CheckID(name); err != nil {
			return ProducerIdentity{}, err
		}
		switch st, ok := c.txnState(name); {
		case ok && st == txn.Ongoing:
			if _, err := c.allocateIdentity(name); err != nil {
				return ProducerIdentity{}, err
			}
			if _, err := c.AbortTransaction(name); err != nil {
				return ProducerIdentity{}, err
			}
			return ProducerIdentity{}, kerr.State("transaction %s was ongoing: its producer is fenced and the transaction is being aborted", name)
		case ok && st.Unstable():
			return ProducerIdentity{}, kerr.State("transaction %s is %s", name, st)
		}
	}
	return c.allocateIdentity(name)
}

// allocateIdentity allocates name's next identity and registers its epoch
// on every partition (the identity half of NewProducer).
func (c *Cluster) allocateIdentity(name string) (ProducerIdentity, error) {
	next, err := c.identities.Next(name)
	if err != nil {
		return ProducerIdentity{}, err
	}
	for _, tp := range c.sortedTPs() {
		if err := c.sets[tp].CheckProducerEpoch(next.PID, next.Epoch); err != nil {
			return ProducerIdentity{}, err
		}
	}
	id, err := c.identities.Allocate(name)
	if err != nil {
		return ProducerIdentity{}, err
	}
	for _, tp := range c.sortedTPs() {
		if err := c.sets[tp].RegisterProducerEpoch(id.PID, id.Epoch); err != nil {
			return ProducerIdentity{}, err // unreachable: checked above
		}
	}
	return id, nil
}

// CheckTransactionalProducer checks that pid and epoch are transactional
// id's current identity (InitProducerID): an older epoch is PRODUCER_FENCED,
// an unknown id or another producer id an argument error.
func (c *Cluster) CheckTransactionalProducer(id string, pid int64, epoch int32) error {
	if err := c.checkCoordination(); err != nil {
		return err
	}
	cur, ok := c.identities.Get(id)
	switch {
	case !ok || cur.PID != pid:
		return kerr.Argument("producer id %d is not the producer of transactional id %q", pid, id)
	case epoch < cur.Epoch:
		return kerr.New(kerr.ProducerFenced, "producer %d epoch %d is fenced by %d", pid, epoch, cur.Epoch)
	case epoch > cur.Epoch:
		return kerr.Argument("producer %d epoch %d is newer than the coordinator's %d", pid, epoch, cur.Epoch)
	}
	return nil
}

// EnsureTransaction makes sure transaction id is ONGOING for its current
// producer (Kafka's AddPartitionsToTxn and AddOffsetsToTxn start a
// transaction implicitly): the producer is checked, then a transaction that
// is not unstable begins. One being committed or aborted is a state error.
func (c *Cluster) EnsureTransaction(id string, pid int64, epoch int32) error {
	if err := c.CheckTransactionalProducer(id, pid, epoch); err != nil {
		return err
	}
	st, ok := c.txnState(id)
	switch {
	case ok && st == txn.Ongoing:
		return nil
	case ok && st.Unstable():
		return kerr.State("transaction %s is %s", id, st)
	}
	return c.BeginTransaction(id)
}

// AppendTransactionalBatch appends a batch a client built inside transaction
// id (a Kafka producer's transactional Produce): the batch carries the
// producer's id, epoch and sequence, which the partition's producer state
// checks as for any idempotent batch; it is marked transactional with id,
// appended with acks=all, and the partition joins the transaction as
// TransactionSend does. The transaction must be ONGOING (a state error
// otherwise); other acks are an argument error. Like TransactionSend it
// answers CONCURRENT_TRANSACTIONS while the partition holds an earlier
// instance's batches whose marker a crash lost (decision 44).
func (c *Cluster) AppendTransactionalBatch(id string, tp TopicPartition, b *record.Batch, acks AckMode) (*Ack, error) {
	defer c.drainDiskFailures()
	if err := c.checkCoordination(); err != nil {
		return nil, err
	}
	if err := txn.CheckID(id); err != nil {
		return nil, err
	}
	if acks != AcksAll {
		return nil, kerr.Argument("a transactional batch needs acks=all")
	}
	if b == nil || b.Control != record.NoControl {
		return nil, kerr.Argument("a transactional batch must be a data batch")
	}
	if st, ok := c.txnState(id); !ok || st != txn.Ongoing {
		if !ok {
			return nil, kerr.State("transaction %s has not begun", id)
		}
		return nil, kerr.State("transaction %s is %s", id, st)
	}
	rs, err := c.replicaSet(tp)
	if err != nil {
		return nil, err
	}
	run, err := c.coord.txns.checkRun(tp, id)
	if err != nil {
		return nil, err
	}
	tb := *b
	tb.Transactional, tb.TransactionalID = true, id
	ack, err := rs.Append(&tb, acks, "txn "+id)
	if err != nil {
		return nil, err
	}
	base := ack.Target - tb.LogicalCount()
	c.coord.txns.indexed(tp, record.Meta{BaseOffset: base, LastOffsetDelta: tb.LastOffsetDelta, Transactional: true, TransactionalID: id})
	if err := c.coord.txns.m.RecordSend(id, tp, run.first(base), run.starts); err != nil {
		return ack, err
	}
	return ack, nil
}
