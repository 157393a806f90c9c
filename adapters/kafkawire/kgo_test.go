package kafkawire

import (
	"fmt"
	"testing"
	"time"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestKgoKeyedProduceAcksAllConsumeInOrder: a kgo producer sends keyed
// records with acks=all through a 3-broker cluster (rf 3); every record
// comes back exactly once, in order within its partition, with its key,
// value, headers and timestamp, and each key stays on one partition.
func TestKgoKeyedProduceAcksAllConsumeInOrder(t *testing.T) {
	tc := startCluster(t, 3)
	tc.createTopic("orders", 3, 3)
	p := tc.client(kgo.RequiredAcks(kgo.AllISRAcks()), kgo.DefaultProduceTopic("orders"))
	cx := ctx(t, 30*time.Second)
	const n = 300
	ts := time.UnixMilli(1_700_000_000_000)
	for i := range n {
		r := &kgo.Record{
			Key:       []byte(fmt.Sprintf("key-%d", i%7)),
			Value:     []byte(fmt.Sprintf("v%d", i)),
			Headers:   []kgo.RecordHeader{{Key: "i", Value: []byte(fmt.Sprint(i))}},
			Timestamp: ts.Add(time.Duration(i) * time.Millisecond),
		}
		p.Produce(cx, r, func(_ *kgo.Record, err error) {
			if err != nil {
				t.Errorf("produce %d: %v", i, err)
			}
		})
	}
	if err := p.Flush(cx); err != nil {
		t.Fatal(err)
	}
	// acks=all: every acknowledged record is below the HW of every replica set.
	tc.do(func(c *engine.Cluster) error {
		total := int64(0)
		for part := int32(0); part < 3; part++ {
			hw, err := c.HighWatermark(engine.TopicPartition{Topic: "orders", Partition: part})
			if err != nil {
				return err
			}
			total += hw
		}
		if total != n {
			t.Errorf("HWs add up to %d, want %d", total, n)
		}
		return nil
	})
	cons := tc.client(kgo.ConsumeTopics("orders"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	recs := consumeAll(t, cx, cons, n)
	if len(recs) != n {
		t.Fatalf("got %d records, want %d", len(recs), n)
	}
	seen := map[string]bool{}
	keyPart := map[string]int32{}
	lastIndex := map[int32]int{}
	nextOffset := map[int32]int64{}
	for _, r := range recs {
		v := string(r.Value)
		if seen[v] {
			t.Fatalf("record %s consumed twice", v)
		}
		seen[v] = true
		var i int
		fmt.Sscanf(v, "v%d", &i)
		if got := string(r.Headers[0].Value); got != fmt.Sprint(i) {
			t.Errorf("record %s: header %q", v, got)
		}
		if want := ts.Add(time.Duration(i) * time.Millisecond); !r.Timestamp.Equal(want) {
			t.Errorf("record %s: timestamp %v, want %v", v, r.Timestamp, want)
		}
		if p, ok := keyPart[string(r.Key)]; ok && p != r.Partition {
			t.Errorf("key %s on partitions %d and %d", r.Key, p, r.Partition)
		}
		keyPart[string(r.Key)] = r.Partition
		if last, ok := lastIndex[r.Partition]; ok && i <= last {
			t.Errorf("partition %d: record %d after %d", r.Partition, i, last)
		}
		lastIndex[r.Partition] = i
		if r.Offset != nextOffset[r.Partition] {
			t.Errorf("partition %d: offset %d, want %d", r.Partition, r.Offset, nextOffset[r.Partition])
		}
		nextOffset[r.Partition] = r.Offset + 1
	}
}

// TestKgoGroupConsumeCommitRebalance: two kgo group consumers share a
// topic; the second one's join rebalances the group (the engine's group
// shows both members and the leader's assignment); each consumer commits;
// after both leave, the committed offsets are in the engine's offset store
// and a third consumer of the group starts from them.
func TestKgoGroupConsumeCommitRebalance(t *testing.T) {
	tc := startCluster(t, 3)
	tc.createTopic("events", 4, 2)
	cx := ctx(t, 60*time.Second)
	p := tc.client(kgo.DefaultProduceTopic("events"))
	const n = 40
	for i := range n {
		if err := p.ProduceSync(cx, &kgo.Record{Key: []byte(fmt.Sprint(i)), Value: []byte(fmt.Sprint(i))}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	group := []kgo.Opt{kgo.ConsumerGroup("g1"), kgo.ConsumeTopics("events"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.HeartbeatInterval(100 * time.Millisecond),
		kgo.DisableAutoCommit()}
	a := tc.client(append(group, kgo.ClientID("a"))...)
	got := consumeAll(t, cx, a, n)
	if err := a.CommitUncommittedOffsets(cx); err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("a got %d records", len(got))
	}
	b := tc.client(append(group, kgo.ClientID("b"))...)
	// Wait until the engine's group has both members with partitions.
	deadline := time.Now().Add(20 * time.Second)
	for {
		go a.PollFetches(ctx(t, 200*time.Millisecond))
		b.PollFetches(ctx(t, 200*time.Millisecond))
		var d engine.GroupDescription
		tc.do(func(c *engine.Cluster) error {
			var err error
			d, err = c.DescribeGroup("g1")
			return err
		})
		assigned := 0
		for _, m := range d.Members {
			if len(m.Assignment) > 0 {
				assigned++
			}
		}
		if len(d.Members) == 2 && assigned == 2 && d.State.KafkaName() == "Stable" {
			total := len(d.Members[0].Assignment) + len(d.Members[1].Assignment)
			if total != 4 {
				t.Fatalf("assignment covers %d partitions: %+v", total, d.Members)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("group never rebalanced to two members: %+v", d)
		}
	}
	// New records are consumed by whichever member owns their partition.
	for i := n; i < n+20; i++ {
		if err := p.ProduceSync(cx, &kgo.Record{Key: []byte(fmt.Sprint(i)), Value: []byte(fmt.Sprint(i))}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]int{}
	for time.Now().Before(deadline) && len(seen) < 20 {
		for _, cl := range []*kgo.Client{a, b} {
			fs := cl.PollFetches(ctx(t, 100*time.Millisecond))
			for _, r := range fs.Records() {
				seen[string(r.Value)]++
			}
			_ = cl.CommitUncommittedOffsets(cx)
		}
	}
	if len(seen) != 20 {
		t.Fatalf("after the rebalance, %d of 20 new records consumed", len(seen))
	}
	a.Close()
	b.Close()
	var committed int64
	tc.do(func(c *engine.Cluster) error {
		d, err := c.DescribeGroup("g1")
		if err != nil {
			return err
		}
		if len(d.Members) != 0 {
			t.Errorf("members left behind: %+v", d.Members)
		}
		for _, p := range d.Partitions {
			committed += p.CurrentOffset
		}
		return nil
	})
	if committed != n+20 {
		t.Fatalf("committed offsets add up to %d, want %d", committed, n+20)
	}
	c := tc.client(append(group, kgo.ClientID("c"))...)
	fs := c.PollFetches(ctx(t, 500*time.Millisecond))
	if len(fs.Records()) != 0 {
		t.Fatalf("a new member re-read %d committed records", len(fs.Records()))
	}
}

// TestKgoIdempotentRetryAcrossLeaderChange: an idempotent kgo producer's
// acks=all batch waits on broker 1; broker 2 copies it and is promoted
// before the acknowledgement, so broker 1 answers NOT_LEADER_OR_FOLLOWER;
// the client refreshes its metadata and retries the same batch (same
// producer id and sequence) on broker 2. Every record is in the log
// exactly once.
func TestKgoIdempotentRetryAcrossLeaderChange(t *testing.T) {
	tc := startCluster(t, 3, withoutPump())
	tc.createTopic("pay", 1, 3)
	tp := engine.TopicPartition{Topic: "pay", Partition: 0}
	p := tc.client(kgo.DefaultProduceTopic("pay"), kgo.RequiredAcks(kgo.AllISRAcks()))
	cx := ctx(t, 30*time.Second)
	results := make(chan error, 1)
	p.Produce(cx, &kgo.Record{Value: []byte("x")}, func(_ *kgo.Record, err error) { results <- err })
	// Wait until the batch is in broker 1's log, then let broker 2 copy it
	// and promote broker 2 before the acknowledgement.
	waitFor(t, func() bool {
		var leo int64
		tc.do(func(c *engine.Cluster) error {
			st, err := c.PartitionState(tp)
			leo = st.LEO
			return err
		})
		return leo == 1
	})
	tc.do(func(c *engine.Cluster) error {
		if _, err := c.Replicate(&tp, 2); err != nil {
			return err
		}
		return c.Promote(tp, 2)
	})
	// Replicate until the producer has its answer.
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
				_ = tc.srv.Direct(func() error { _, err := tc.c.Replicate(nil, engine.AllFollowers); return err })
			}
		}
	}()
	defer close(stop)
	if err := <-results; err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := p.ProduceSync(cx, &kgo.Record{Value: []byte(fmt.Sprint(i))}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	var values []string
	tc.do(func(c *engine.Cluster) error {
		recs, err := c.Fetch(tp, 0, 100, engine.ReadUncommitted)
		for _, r := range recs {
			values = append(values, string(r.Value))
		}
		return err
	})
	if fmt.Sprint(values) != "[x 0 1 2 3 4]" {
		t.Fatalf("log holds %v", values)
	}
	sawNotLeader := false
	tc.mu.Lock()
	for _, e := range tc.events {
		if e.API == "Produce" && e.Broker == 1 && e.Error == "NOT_LEADER_OR_FOLLOWER" {
			sawNotLeader = true
		}
	}
	tc.mu.Unlock()
	if !sawNotLeader {
		t.Error("broker 1 never answered NOT_LEADER_OR_FOLLOWER")
	}
}

// waitFor polls cond for up to 10 seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestKgoTransactionsReadCommitted: a kgo transactional producer commits
// one transaction and aborts another across two partitions; a
// read_committed consumer sees only the committed records, a
// read_uncommitted one sees both; the engine's transaction is complete.
func TestKgoTransactionsReadCommitted(t *testing.T) {
	tc := startCluster(t, 3)
	tc.createTopic("tx", 2, 3)
	cx := ctx(t, 60*time.Second)
	p := tc.client(kgo.TransactionalID("t1"), kgo.DefaultProduceTopic("tx"))
	run := func(prefix string, commit bool) {
		t.Helper()
		if err := p.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		for i := range 6 {
			r := &kgo.Record{Value: []byte(fmt.Sprintf("%s%d", prefix, i)), Partition: int32(i % 2)}
			if err := p.ProduceSync(cx, r).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.EndTransaction(cx, kgo.TransactionEndTry(commit)); err != nil {
			t.Fatal(err)
		}
	}
	run("c", true)
	run("a", false)
	run("d", true)
	count := func(iso kgo.IsolationLevel, want int) map[string]bool {
		cons := tc.client(kgo.ConsumeTopics("tx"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(iso))
		got := map[string]bool{}
		for _, r := range consumeAll(t, cx, cons, want) {
			if got[string(r.Value)] {
				t.Fatalf("%s twice", r.Value)
			}
			got[string(r.Value)] = true
		}
		// Nothing more arrives.
		if extra := cons.PollFetches(ctx(t, 300*time.Millisecond)).Records(); len(extra) > 0 {
			t.Fatalf("%d records beyond the %d expected", len(extra), want)
		}
		return got
	}
	committed := count(kgo.ReadCommitted(), 12)
	for v := range committed {
		if v[0] == 'a' {
			t.Fatalf("read_committed saw aborted record %s", v)
		}
	}
	all := count(kgo.ReadUncommitted(), 18)
	if len(all) != 18 {
		t.Fatalf("read_uncommitted saw %d records", len(all))
	}
	tc.do(func(c *engine.Cluster) error {
		d, err := c.DescribeTransaction("t1")
		if err != nil {
			return err
		}
		if d.State.String() != "COMPLETE_COMMIT" && d.State.String() != "complete_commit" {
			t.Errorf("transaction state %v", d.State)
		}
		return nil
	})
}
