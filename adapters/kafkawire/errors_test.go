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
