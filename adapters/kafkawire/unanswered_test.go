package kafkawire

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestUnansweredCountsAcks0ProducesOnceServed checks Options.Unanswered:
// an acks=0 produce is counted once the listener has served it (its record
// is in the log by then), an answered request (acks=1, Metadata) is not.
func TestUnansweredCountsAcks0ProducesOnceServed(t *testing.T) {
	var served atomic.Int64
	tc := startCluster(t, 1, withoutPump(), func(_ *testCluster, _ *engine.Config, o *Options) { o.Unanswered = &served })
	tc.createTopic("t", 1, 1)
	cx := ctx(t, 10*time.Second)

	acks1 := tc.client(kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
	if err := acks1.ProduceSync(cx, &kgo.Record{Topic: "t", Value: []byte("a")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if n := served.Load(); n != 0 {
		t.Fatalf("after an acks=1 produce: Unanswered = %d, want 0", n)
	}

	acks0 := tc.client(kgo.RequiredAcks(kgo.NoAck()), kgo.DisableIdempotentWrite())
	for i := range 3 {
		if err := acks0.ProduceSync(cx, &kgo.Record{Topic: "t", Value: []byte("b")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
		// The client is done once it has written the request; the count
		// says when the listener has served it.
		deadline := time.Now().Add(5 * time.Second)
		for served.Load() < int64(i+1) && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if n := served.Load(); n != int64(i+1) {
			t.Fatalf("after %d acks=0 produces: Unanswered = %d", i+1, n)
		}
		var hw int64
		tc.do(func(c *engine.Cluster) error {
			var err error
			hw, err = c.HighWatermark(engine.TopicPartition{Topic: "t", Partition: 0})
			return err
		})
		if hw != int64(i+2) { // one replica: the HW is the LEO
			t.Fatalf("Unanswered counted produce %d before it was served: HW %d, want %d", i+1, hw, i+2)
		}
	}
}
