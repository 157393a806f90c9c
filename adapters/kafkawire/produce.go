package kafkawire

import (
	"errors"
	"fmt"
	"time"

	"github.com/minikafka-lab/minikafka/adapters/host"
	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	kafkaerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// pendingProduce is one partition of a Produce waiting for acks=all.
type pendingProduce struct {
	part  *kmsg.ProduceResponseTopicPartition
	ack   *engine.Ack
	tp    engine.TopicPartition
	count int
}

// produce appends each partition's batch on this broker, which must lead
// the partition (NOT_LEADER_OR_FOLLOWER otherwise), through the engine:
// AppendBatch for plain and idempotent batches (the engine checks the
// producer's epoch and sequence), AppendTransactionalBatch inside a
// transaction. acks=0 gets no response at all; acks=1 is answered at once;
// acks=-1 waits, parked, until every partition's acknowledgement settles
// (the HW covers the batch), or answers REQUEST_TIMED_OUT for those still
// pending after the request's timeout. The record stays in the leader's
// log either way, as in Kafka.
func (st *state) produce(c *engine.Cluster, cn conn, r *kmsg.ProduceRequest, done func(reply)) {
	resp := r.ResponseKind().(*kmsg.ProduceResponse)
	var acks engine.AckMode
	switch r.Acks {
	case 0:
		acks = engine.Acks0
	case 1:
		acks = engine.Acks1
	case -1:
		acks = engine.AcksAll
	default:
		for _, t := range r.Topics {
			rt := kmsg.NewProduceResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rp := kmsg.NewProduceResponseTopicPartition()
				rp.Partition, rp.ErrorCode = p.Partition, kafkaerr.InvalidRequiredAcks.Code
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		done(reply{resp: resp})
		return
	}
	txnID := ""
	if r.TransactionID != nil {
		txnID = *r.TransactionID
	}
	var pending []pendingProduce
	for _, t := range r.Topics {
		rt := kmsg.NewProduceResponseTopic()
		rt.Topic = t.Topic
		rt.Partitions = make([]kmsg.ProduceResponseTopicPartition, len(t.Partitions))
		for i, p := range t.Partitions {
			rp := &rt.Partitions[i]
			*rp = kmsg.NewProduceResponseTopicPartition()
			rp.Partition = p.Partition
			tp := engine.TopicPartition{Topic: t.Topic, Partition: p.Partition}
			ack, n, err := st.appendPartition(c, cn.broker, tp, p.Records, acks, txnID)
			if err != nil {
				rp.ErrorCode = produceCode(err)
				msg := err.Error()
				rp.ErrorMessage = &msg
				st.trace(Event{Client: cn.clientID, Broker: cn.broker, API: "Produce", Version: r.Version,
					Result: fmt.Sprintf("%s%s", tp, countSuffix(n)), Error: codeName(rp.ErrorCode), Level: LevelData})
				continue
			}
			if ls, err := c.LogStartOffset(tp); err == nil {
				rp.LogStartOffset = ls
			}
			if ack.State() == engine.Pending {
				pending = append(pending, pendingProduce{part: rp, ack: ack, tp: tp, count: n})
				st.trace(Event{Client: cn.clientID, Broker: cn.broker, API: "Produce", Version: r.Version,
					Result: fmt.Sprintf("%s%s: in the leader log at %s, waiting for the ISR (acks=all)", tp, countSuffix(n),
						offsetRange(ack.Target-int64(n), ack.Target-1)), Level: LevelData})
				continue
			}
			st.settleProduce(cn, r.Version, rp, ack, tp, n, acks)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	if acks == engine.Acks0 {
		done(reply{none: true})
		return
	}
	if len(pending) == 0 {
		done(reply{resp: resp})
		return
	}
	timeout := time.Duration(max(r.TimeoutMillis, 0)) * time.Millisecond
	st.park(host.Waiter[*state]{
		Ready: func(*state) bool {
			for _, p := range pending {
				if p.ack.State() == engine.Pending {
					return false
				}
			}
			for _, p := range pending {
				st.settleProduce(cn, r.Version, p.part, p.ack, p.tp, p.count, acks)
			}
			done(reply{resp: resp})
			return true
		},
		Deadline: time.Now().Add(timeout),
		Expire: func(*state) {
			for _, p := range pending {
				if p.ack.State() != engine.Pending {
					st.settleProduce(cn, r.Version, p.part, p.ack, p.tp, p.count, acks)
					continue
				}
				p.part.ErrorCode = kafkaerr.RequestTimedOut.Code
				p.part.BaseOffset = -1
				st.trace(Event{Client: cn.clientID, Broker: cn.broker, API: "Produce", Version: r.Version,
					Result: fmt.Sprintf("%s%s: not acknowledged within the request timeout; the batch stays in the leader log", p.tp, countSuffix(p.count)),
					Error:  "REQUEST_TIMED_OUT", Level: LevelData})
			}
			done(reply{resp: resp})
		},
	})
}

// settleProduce fills a partition's answer from its settled ack.
func (st *state) settleProduce(cn conn, version int16, rp *kmsg.ProduceResponseTopicPartition, ack *engine.Ack, tp engine.TopicPartition, n int, acks engine.AckMode) {
	ev := Event{Client: cn.clientID, Broker: cn.broker, API: "Produce", Version: version, Level: LevelData}
	switch ack.State() {
	case engine.Done:
		v := ack.Value()
		rp.BaseOffset = v.BaseOffset
		what := "appended at " + offsetRange(v.BaseOffset, v.NextOffset-1)
		switch {
		case acks == engine.Acks0:
			what = "appended (acks=0: no answer)"
		case v.Duplicate:
			what = "duplicate of the batch at " + offsetRange(v.BaseOffset, v.NextOffset-1) + ": not appended again"
		case acks == engine.AcksAll:
			what = "acknowledged at " + offsetRange(v.BaseOffset, v.NextOffset-1) + " (acks=all)"
		}
		ev.Result = fmt.Sprintf("%s%s: %s", tp, countSuffix(n), what)
	default:
		err := ack.Err()
		if err == nil {
			err = errors.New("the acknowledgement was cancelled")
		}
		rp.ErrorCode = produceCode(err)
		if errors.Is(err, kerr.FencedLeaderEpoch) {
			// The leader changed while the batch waited: a Kafka leader
			// that becomes a follower answers its delayed produces
			// NOT_LEADER_OR_FOLLOWER, and the client retries on the new
			// leader.
			rp.ErrorCode = kafkaerr.NotLeaderForPartition.Code
		}
		rp.BaseOffset = -1
		ev.Result = fmt.Sprintf("%s%s", tp, countSuffix(n))
		ev.Error = codeName(rp.ErrorCode)
	}
	st.trace(ev)
}

func countSuffix(n int) string {
	if n <= 0 {
		return ""
	}
	return " (" + plural(n, "record") + ")"
}

// appendPartition decodes one partition's records and appends them. It
// returns the ack and the number of records.
func (st *state) appendPartition(c *engine.Cluster, broker int32, tp engine.TopicPartition, data []byte, acks engine.AckMode, txnID string) (*engine.Ack, int, error) {
	if _, ok, err := leads(c, broker, tp); err != nil {
		return nil, 0, err
	} else if !ok {
		return nil, 0, errNotLeader
	}
	pb, err := decodeProduceBatch(data, st.s.opts.MaxRequestBytes)
	if err != nil {
		return nil, 0, err
	}
	b := pb.batch
	n := len(b.Records)
	if b.Transactional != (txnID != "") {
		return nil, n, fmt.Errorf("%w: the batch's transactional flag does not match the request's transactional id", errInvalid)
	}
	var ack *engine.Ack
	if txnID != "" {
		b.Transactional = false // the engine marks it with the id
		ack, err = c.AppendTransactionalBatch(txnID, tp, b, acks)
	} else {
		ack, err = c.AppendBatch(tp, b, acks)
	}
	return ack, n, err
}

// errNotLeader: this broker does not lead the partition.
var errNotLeader = errors.New("this broker is not the partition's leader")

// produceCode maps a produce failure to its Kafka code.
func produceCode(err error) int16 {
	switch {
	case errors.Is(err, errNotLeader):
		return kafkaerr.NotLeaderForPartition.Code
	case errors.Is(err, errCorrupt):
		return kafkaerr.CorruptMessage.Code
	case errors.Is(err, errInvalid):
		return kafkaerr.InvalidRecord.Code
	case errors.Is(err, errCompression):
		return kafkaerr.UnsupportedCompressionType.Code
	}
	if errorsIsState(err) {
		return kafkaerr.InvalidTxnState.Code
	}
	return kafkaCode(err)
}
