package kafkawire

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// observation is what a kgo client sees of one scenario: where each
// produced record went, what a consumer reads back per partition, the
// offsets ListOffsets reports, and the errors of requests the two models
// agree should fail.
type observation struct {
	Produced   []string
	Consumed   map[int32][]string
	Earliest   map[int32]int64
	Latest     map[int32]int64
	UnknownErr string
	TxnRead    []string
}

// runScenario runs the differential scenario against a cluster at
// bootstrap whose topic "diff" has 3 partitions.
func runScenario(t *testing.T, bootstrap string) observation {
	t.Helper()
	cx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	obs := observation{Consumed: map[int32][]string{}, Earliest: map[int32]int64{}, Latest: map[int32]int64{}}
	p, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.DefaultProduceTopic("diff"),
		kgo.RequiredAcks(kgo.AllISRAcks()), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for i := range 30 {
		r := &kgo.Record{Partition: int32(i % 3), Key: []byte(fmt.Sprintf("k%d", i%5)), Value: []byte(fmt.Sprint(i)),
			Headers: []kgo.RecordHeader{{Key: "h", Value: []byte{byte(i)}}}}
		if err := p.ProduceSync(cx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
		obs.Produced = append(obs.Produced, fmt.Sprintf("%d@%d", r.Partition, r.Offset))
	}
	// A topic that does not exist: both answer UNKNOWN_TOPIC_OR_PARTITION.
	req := kmsg.NewPtrMetadataRequest()
	mt := kmsg.NewMetadataRequestTopic()
	mt.Topic = kmsg.StringPtr("missing")
	req.Topics = append(req.Topics, mt)
	if resp, err := req.RequestWith(cx, p); err != nil {
		t.Fatal(err)
	} else if len(resp.Topics) == 1 {
		obs.UnknownErr = fmt.Sprint(kerr.ErrorForCode(resp.Topics[0].ErrorCode))
	}
	for part := int32(0); part < 3; part++ {
		for _, ts := range []int64{-2, -1} {
			lreq := kmsg.NewPtrListOffsetsRequest()
			lt := kmsg.NewListOffsetsRequestTopic()
			lt.Topic = "diff"
			lp := kmsg.NewListOffsetsRequestTopicPartition()
			lp.Partition, lp.Timestamp = part, ts
			lt.Partitions = append(lt.Partitions, lp)
			lreq.Topics = append(lreq.Topics, lt)
			resp, err := lreq.RequestWith(cx, p)
			if err != nil {
				t.Fatal(err)
			}
			o := resp.Topics[0].Partitions[0].Offset
			if ts == -2 {
				obs.Earliest[part] = o
			} else {
				obs.Latest[part] = o
			}
		}
	}
	c, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.ConsumeTopics("diff"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for n := 0; n < 30; {
		fs := c.PollFetches(cx)
		if cx.Err() != nil {
			t.Fatalf("consumed %d of 30", n)
		}
		for _, r := range fs.Records() {
			obs.Consumed[r.Partition] = append(obs.Consumed[r.Partition],
				fmt.Sprintf("%d %s=%s h=%v", r.Offset, r.Key, r.Value, r.Headers[0].Value))
			n++
		}
	}
	// A transactional producer commits one transaction and aborts one; a
	// read_committed consumer of partition 0 reads what both models agree
	// it must (offsets differ with markers, so only values are compared).
	tx, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.DefaultProduceTopic("diff"),
		kgo.TransactionalID("diff-tx"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	for _, commit := range []bool{true, false} {
		if err := tx.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			v := fmt.Sprintf("tx-%v-%d", commit, i)
			if err := tx.ProduceSync(cx, &kgo.Record{Partition: 0, Value: []byte(v)}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.EndTransaction(cx, kgo.TransactionEndTry(commit)); err != nil {
			t.Fatal(err)
		}
	}
	rc, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{"diff": {0: kgo.NewOffset().At(10)}}),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	for len(obs.TxnRead) < 3 {
		fs := rc.PollFetches(cx)
		if cx.Err() != nil {
			t.Fatalf("read_committed read %v", obs.TxnRead)
		}
		fs.EachError(func(_ string, _ int32, err error) {
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("read_committed fetch: %v", err)
			}
		})
		for _, r := range fs.Records() {
			obs.TxnRead = append(obs.TxnRead, string(r.Value))
		}
	}
	short, stop := context.WithTimeout(cx, 300*time.Millisecond)
	extra := rc.PollFetches(short)
	stop()
	for _, r := range extra.Records() {
		obs.TxnRead = append(obs.TxnRead, string(r.Value))
	}
	slices.Sort(obs.TxnRead)
	return obs
}

// TestDifferentialAgainstKfake runs one kgo scenario against franz-go's
// kfake and against this listener, and compares what the client observes
// where the two models agree: offsets of produced records, records read
// back per partition with keys, values and headers, earliest and latest
// offsets, the error for an unknown topic, and what read_committed reads
// after a committed and an aborted transaction.
func TestDifferentialAgainstKfake(t *testing.T) {
	fake, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(3, "diff"))
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	want := runScenario(t, fake.ListenAddrs()[0])

	tc := startCluster(t, 3)
	tc.createTopic("diff", 3, 3)
	got := runScenario(t, tc.srv.Bootstrap())

	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the listener and kfake differ:\nlistener %+v\nkfake    %+v", got, want)
	}
	if len(got.TxnRead) != 3 || got.UnknownErr == "" {
		t.Fatalf("the scenario observed too little: %+v", got)
	}
}
