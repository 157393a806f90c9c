package kafkawire

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/txn"
	kafkaerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The transaction APIs translate to the engine's coordinator
// (engine.Cluster InitProducerID, EnsureTransaction,
// AppendTransactionalBatch in produce.go, TransactionSendOffsets,
// CommitTransaction, AbortTransaction): the transactional id is the
// transaction's id and the identity's name, so the engine fences older
// producer epochs and decides what read_committed readers see.

// txnStateCode is the code for an engine state error about transaction
// id: CONCURRENT_TRANSACTIONS while it is being committed or aborted (the
// client retries), INVALID_TXN_STATE otherwise.
func txnStateCode(c *engine.Cluster, id string, err error) int16 {
	if !errors.Is(err, kerr.IllegalState) {
		return txnCode(err)
	}
	if d, derr := c.DescribeTransaction(id); derr == nil &&
		(d.State == txn.PrepareCommit || d.State == txn.PrepareAbort || d.State == txn.Ongoing) {
		return kafkaerr.ConcurrentTransactions.Code
	}
	return kafkaerr.InvalidTxnState.Code
}

func (st *state) initProducerID(c *engine.Cluster, cn conn, r *kmsg.InitProducerIDRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.InitProducerIDResponse)
	resp.ProducerID, resp.ProducerEpoch = -1, -1
	id := ""
	if r.TransactionalID != nil {
		id = *r.TransactionalID
	}
	ev := Event{Client: cn.clientID, Broker: cn.broker, API: "InitProducerId", Version: r.Version, Level: LevelData}
	if id != "" && st.notCoordinator(c, cn.broker, id) {
		resp.ErrorCode = kafkaerr.NotCoordinator.Code
		ev.Error, ev.Result, ev.Level = codeName(resp.ErrorCode), "transactional id "+id, LevelChatter
		st.trace(ev)
		return resp
	}
	ident, err := c.InitProducerID(id)
	if err != nil {
		resp.ErrorCode = txnStateCode(c, id, err)
		ev.Error = codeName(resp.ErrorCode)
		ev.Result = "transactional id " + id + ": " + kerr.MessageOf(err)
		st.trace(ev)
		return resp
	}
	resp.ProducerID, resp.ProducerEpoch = ident.PID, int16(ident.Epoch)
	ev.Result = fmt.Sprintf("producer id %d, epoch %d", ident.PID, ident.Epoch)
	if id != "" {
		ev.Result = fmt.Sprintf("transactional id %s: %s", id, ev.Result)
	} else {
		// Any broker answers an idempotent producer, and clients pick
		// one at random: which one is chatter.
		ev.Level = LevelChatter
	}
	st.trace(ev)
	return resp
}

func (st *state) addPartitionsToTxn(c *engine.Cluster, cn conn, r *kmsg.AddPartitionsToTxnRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.AddPartitionsToTxnResponse)
	code := int16(0)
	unknown := map[engine.TopicPartition]bool{}
	var names []string
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			tp := engine.TopicPartition{Topic: t.Topic, Partition: p}
			names = append(names, tp.String())
			if _, err := c.PartitionMetadata(tp); err != nil {
				unknown[tp] = true
			}
		}
	}
	switch {
	case st.notCoordinator(c, cn.broker, r.TransactionalID):
		code = kafkaerr.NotCoordinator.Code
	case len(unknown) > 0:
		code = kafkaerr.OperationNotAttempted.Code
	default:
		if err := c.EnsureTransaction(r.TransactionalID, r.ProducerID, int32(r.ProducerEpoch)); err != nil {
			code = txnStateCode(c, r.TransactionalID, err)
		}
	}
	for _, t := range r.Topics {
		rt := kmsg.NewAddPartitionsToTxnResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewAddPartitionsToTxnResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p, code
			if unknown[engine.TopicPartition{Topic: t.Topic, Partition: p}] {
				rp.ErrorCode = kafkaerr.UnknownTopicOrPartition.Code
			}
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	st.txnEvent(cn, "AddPartitionsToTxn", r.Version, fmt.Sprintf("%s: %s", r.TransactionalID, strings.Join(names, " ")), code)
	return resp
}

func (st *state) txnEvent(cn conn, api string, version int16, result string, code int16) {
	ev := Event{Client: cn.clientID, Broker: cn.broker, API: api, Version: version, Result: result, Level: LevelData}
	if code != 0 {
		ev.Error = codeName(code)
		if code == kafkaerr.NotCoordinator.Code || code == kafkaerr.ConcurrentTransactions.Code {
			ev.Level = LevelChatter // retried by the client, as often as its backoff says
		}
	}
	st.trace(ev)
}

func (st *state) addOffsetsToTxn(c *engine.Cluster, cn conn, r *kmsg.AddOffsetsToTxnRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.AddOffsetsToTxnResponse)
	if st.notCoordinator(c, cn.broker, r.TransactionalID) {
		resp.ErrorCode = kafkaerr.NotCoordinator.Code
	} else if err := c.EnsureTransaction(r.TransactionalID, r.ProducerID, int32(r.ProducerEpoch)); err != nil {
		resp.ErrorCode = txnStateCode(c, r.TransactionalID, err)
	}
	st.txnEvent(cn, "AddOffsetsToTxn", r.Version, fmt.Sprintf("%s: group %s", r.TransactionalID, r.Group), resp.ErrorCode)
	return resp
}

func (st *state) txnOffsetCommit(c *engine.Cluster, cn conn, r *kmsg.TxnOffsetCommitRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.TxnOffsetCommitResponse)
	code := int16(0)
	offsets := map[engine.TopicPartition]int64{}
	var parts []string
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			tp := engine.TopicPartition{Topic: t.Topic, Partition: p.Partition}
			offsets[tp] = p.Offset
			parts = append(parts, fmt.Sprintf("%s=%d", tp, p.Offset))
		}
	}
	sort.Strings(parts)
	switch {
	case st.notCoordinator(c, cn.broker, r.Group):
		code = kafkaerr.NotCoordinator.Code
	default:
		if err := c.CheckTransactionalProducer(r.TransactionalID, r.ProducerID, int32(r.ProducerEpoch)); err != nil {
			code = txnCode(err)
		} else if err := c.TransactionSendOffsets(r.TransactionalID, r.Group, offsets); err != nil {
			code = txnStateCode(c, r.TransactionalID, err)
		}
	}
	for _, t := range r.Topics {
		rt := kmsg.NewTxnOffsetCommitResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewTxnOffsetCommitResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p.Partition, code
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	st.txnEvent(cn, "TxnOffsetCommit", r.Version, fmt.Sprintf("%s: group %s %s (staged until the commit)", r.TransactionalID, r.Group, strings.Join(parts, " ")), code)
	return resp
}

// endTxn commits or aborts through the engine: the markers are appended
// (acks=all) and the transaction completes when they are acknowledged, as
// Kafka's coordinator writes markers after answering EndTxn. Until then
// the next transaction of the id waits (CONCURRENT_TRANSACTIONS). A retry
// of an end that already completed with the same outcome is answered
// without error.
func (st *state) endTxn(c *engine.Cluster, cn conn, r *kmsg.EndTxnRequest, done func(reply)) {
	resp := r.ResponseKind().(*kmsg.EndTxnResponse)
	outcome, complete := "commit", txn.CompleteCommit
	if !r.Commit {
		outcome, complete = "abort", txn.CompleteAbort
	}
	result := fmt.Sprintf("%s: %s", r.TransactionalID, outcome)
	switch {
	case st.notCoordinator(c, cn.broker, r.TransactionalID):
		resp.ErrorCode = kafkaerr.NotCoordinator.Code
	default:
		if err := c.CheckTransactionalProducer(r.TransactionalID, r.ProducerID, int32(r.ProducerEpoch)); err != nil {
			resp.ErrorCode = txnCode(err)
			break
		}
		if d, err := c.DescribeTransaction(r.TransactionalID); err == nil && d.State == complete {
			result += " (already complete)"
			break
		}
		var h *engine.TxnCompletion
		var err error
		if r.Commit {
			h, err = c.CommitTransaction(r.TransactionalID)
		} else {
			h, err = c.AbortTransaction(r.TransactionalID)
		}
		switch {
		case err != nil:
			resp.ErrorCode = txnStateCode(c, r.TransactionalID, err)
		case h.State() == engine.Failed:
			resp.ErrorCode = kafkaerr.UnknownServerError.Code
			result += ": " + h.Err().Error()
		case h.State() == engine.Pending:
			result += ": markers written, the transaction completes when the ISR has them"
		default:
			result += ": complete"
		}
	}
	st.txnEvent(cn, "EndTxn", r.Version, result, resp.ErrorCode)
	done(reply{resp: resp})
}
