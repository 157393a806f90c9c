package kafkawire

import (
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	kafkaerr "github.com/twmb/franz-go/pkg/kerr"
)

// TestConcurrentTransactionsOnProduceIsNotEnoughReplicas: a transactional
// Produce the engine refuses with CONCURRENT_TRANSACTIONS while a partition
// holds an earlier instance's batches without their marker (decision 44)
// answers NOT_ENOUGH_REPLICAS, as a Kafka leader translates a
// CONCURRENT_TRANSACTIONS from transaction verification, and a Kafka client
// retries it.
func TestConcurrentTransactionsOnProduceIsNotEnoughReplicas(t *testing.T) {
	code := kafkaCode(kerr.New(kerr.ConcurrentTransactions, "t-0 holds batches of an earlier instance"))
	if code != kafkaerr.NotEnoughReplicas.Code {
		t.Fatalf("code %d, want NOT_ENOUGH_REPLICAS (%d)", code, kafkaerr.NotEnoughReplicas.Code)
	}
	if e := kafkaerr.ErrorForCode(code); !kafkaerr.IsRetriable(e) {
		t.Fatalf("%v is not retriable for a Kafka client", e)
	}
}

// TestKafkaRuleCodesOnTheWire: the codes errors=kafka produces reach a
// Kafka client under their own numbers (NOT_LEADER_OR_FOLLOWER 6,
// INVALID_PRODUCER_EPOCH 47), never UNKNOWN_SERVER_ERROR.
func TestKafkaRuleCodesOnTheWire(t *testing.T) {
	for _, c := range []struct {
		code kerr.Code
		want int16
	}{{kerr.NotLeaderOrFollower, 6}, {kerr.InvalidProducerEpoch, 47}} {
		if got := kafkaCode(kerr.New(c.code, "x")); got != c.want {
			t.Errorf("%s: %d, want %d", c.code, got, c.want)
		}
	}
}
