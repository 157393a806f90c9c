package kafkawire

import (
	"errors"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	kafkaerr "github.com/twmb/franz-go/pkg/kerr"
)

// kafkaCode maps an engine error to the Kafka error code a broker would put
// in the response. The engine's codes carry Kafka's names where Kafka has
// one; the others map to the Kafka code with the same meaning. A producer
// epoch fenced at a partition is INVALID_PRODUCER_EPOCH, as a Kafka
// partition leader answers it (PRODUCER_FENCED is the transaction
// coordinator's word, see txnCode).
func kafkaCode(err error) int16 {
	if err == nil {
		return 0
	}
	var e *kerr.Error
	if !errors.As(err, &e) {
		return kafkaerr.UnknownServerError.Code
	}
	switch e.Code {
	case kerr.OffsetOutOfRange:
		return kafkaerr.OffsetOutOfRange.Code
	case kerr.CorruptBatch:
		return kafkaerr.CorruptMessage.Code
	case kerr.InvalidRecord:
		return kafkaerr.InvalidRecord.Code
	case kerr.UnknownTopic, kerr.UnknownPartition:
		return kafkaerr.UnknownTopicOrPartition.Code
	case kerr.LeaderNotAvailable:
		return kafkaerr.LeaderNotAvailable.Code
	case kerr.BrokerNotAvailable:
		return kafkaerr.BrokerNotAvailable.Code
	case kerr.NotEnoughReplicas:
		return kafkaerr.NotEnoughReplicas.Code
	case kerr.NotEnoughReplicasAfterAppend:
		return kafkaerr.NotEnoughReplicasAfterAppend.Code
	case kerr.FencedLeaderEpoch:
		return kafkaerr.FencedLeaderEpoch.Code
	case kerr.ProducerFenced:
		return kafkaerr.InvalidProducerEpoch.Code
	case kerr.OutOfOrderSequence:
		return kafkaerr.OutOfOrderSequenceNumber.Code
	case kerr.RequestTimedOut:
		return kafkaerr.RequestTimedOut.Code
	case kerr.NotLeaderOrFollower:
		// errors=kafka: a pending acks=all write whose leader changed.
		return kafkaerr.NotLeaderForPartition.Code
	case kerr.InvalidProducerEpoch:
		// errors=kafka: a stale producer epoch at a partition.
		return kafkaerr.InvalidProducerEpoch.Code
	case kerr.ConcurrentTransactions:
		// A transactional Produce the engine refuses because the partition
		// holds an earlier instance's batches without their marker
		// (decision 44). A Kafka leader that gets CONCURRENT_TRANSACTIONS
		// while verifying a transactional Produce answers
		// NOT_ENOUGH_REPLICAS instead, so that every client retries
		// (ReplicaManager.postVerificationCallback, 3.9 and 4.0-SNAPSHOT).
		return kafkaerr.NotEnoughReplicas.Code
	case kerr.StorageError:
		return kafkaerr.KafkaStorageError.Code
	case kerr.TopicAlreadyExists:
		return kafkaerr.TopicAlreadyExists.Code
	case kerr.RebalanceInProgress:
		return kafkaerr.RebalanceInProgress.Code
	case kerr.IllegalGeneration, kerr.NotPartitionOwner:
		return kafkaerr.IllegalGeneration.Code
	case kerr.UnknownMember:
		return kafkaerr.UnknownMemberID.Code
	case kerr.InvalidArgument, kerr.InvalidRequest:
		return kafkaerr.InvalidRequest.Code
	}
	return kafkaerr.UnknownServerError.Code
}

// txnCode maps an engine error from a transaction coordinator call: a
// fenced producer is PRODUCER_FENCED, a transaction in the wrong state
// INVALID_TXN_STATE (busy completing: see the handlers, which answer
// CONCURRENT_TRANSACTIONS), an argument error INVALID_PRODUCER_ID_MAPPING
// (the id or epoch is not the transactional id's).
func txnCode(err error) int16 {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, kerr.ProducerFenced):
		return kafkaerr.ProducerFenced.Code
	case errors.Is(err, kerr.IllegalState):
		return kafkaerr.InvalidTxnState.Code
	case errors.Is(err, kerr.InvalidArgument):
		return kafkaerr.InvalidProducerIDMapping.Code
	}
	return kafkaCode(err)
}

// codeName is the Kafka name of a code, for event lines.
func codeName(code int16) string {
	switch code {
	case 0:
		return "NONE"
	case kafkaerr.NotLeaderForPartition.Code:
		return "NOT_LEADER_OR_FOLLOWER" // its name since Kafka 2.6 (KIP-392)
	}
	if e := kafkaerr.ErrorForCode(code); e != nil {
		var ke *kafkaerr.Error
		if errors.As(e, &ke) {
			return ke.Message
		}
	}
	return "UNKNOWN"
}

// errorsIsState reports an engine state error.
func errorsIsState(err error) bool { return errors.Is(err, kerr.IllegalState) }
