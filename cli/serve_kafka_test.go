package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestServeKafkaProduceConsume runs `minikafka serve --kafka 127.0.0.1:0`:
// each broker prints its own port; a kgo client creates a topic, produces
// with acks=all (the replication pump commits it) and reads it back.
func TestServeKafkaProduceConsume(t *testing.T) {
	stop, cancel := context.WithCancel(context.Background())
	defer cancel()
	saved := serveSignalContext
	serveSignalContext = func() (context.Context, context.CancelFunc) { return stop, func() {} }
	t.Cleanup(func() { serveSignalContext = saved })
	out, errOut := &syncBuffer{}, &syncBuffer{}
	env := &Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: errOut, Getenv: func(string) string { return "" }}
	status := make(chan int, 1)
	go func() { status <- Main(env, []string{"serve", "--kafka", "127.0.0.1:0", "--brokers", "1,2,3"}) }()
	var addrs []string
	deadline := time.Now().Add(10 * time.Second)
	for len(addrs) < 3 {
		addrs = addrs[:0]
		for _, line := range strings.Split(out.String(), "\n") {
			if _, rest, ok := strings.Cut(line, " listening on "); ok {
				addrs = append(addrs, strings.TrimSuffix(rest, " (Kafka protocol)"))
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not print three brokers:\n%s%s", out, errOut)
		}
		time.Sleep(5 * time.Millisecond)
	}
	ctx, cctx := context.WithTimeout(context.Background(), 30*time.Second)
	defer cctx()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs[0]), kgo.RequiredAcks(kgo.AllISRAcks()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(ctx, 2, 3, nil, "events"); err != nil {
		t.Fatal(err)
	}
	brokers, err := adm.ListBrokers(ctx)
	if err != nil || len(brokers) != 3 {
		t.Fatalf("metadata lists %d brokers (%v)", len(brokers), err)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "events", Key: []byte("k"), Value: []byte("v")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	cons, err := kgo.NewClient(kgo.SeedBrokers(addrs[1]), kgo.ConsumeTopics("events"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	recs := cons.PollFetches(ctx).Records()
	if len(recs) != 1 || string(recs[0].Value) != "v" {
		t.Fatalf("consumed %v", recs)
	}
	cancel()
	if code := <-status; code != 0 {
		t.Fatalf("serve exited %d:\n%s", code, errOut)
	}
}

// TestKafkaListenersSpreadPorts: brokers get consecutive ports, or the
// ports given; a remote address needs --allow-remote.
func TestKafkaListenersSpreadPorts(t *testing.T) {
	ls, err := KafkaListeners([]int32{3, 1, 2}, "127.0.0.1:9092", "", false)
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, l := range ls {
		got += l.Addr + " "
	}
	if got != "127.0.0.1:9092 127.0.0.1:9093 127.0.0.1:9094 " || ls[0].Broker != 1 {
		t.Fatalf("listeners %v", ls)
	}
	if ls, err = KafkaListeners([]int32{1, 2}, "localhost:0", "19092,19192", false); err != nil || ls[1].Addr != "localhost:19192" {
		t.Fatalf("explicit ports: %v %v", ls, err)
	}
	if _, err := KafkaListeners([]int32{1}, "0.0.0.0:9092", "", false); err == nil {
		t.Fatal("a wildcard address was accepted without --allow-remote")
	}
	if _, err := KafkaListeners([]int32{1}, "0.0.0.0:9092", "", true); err != nil {
		t.Fatal(err)
	}
	if _, err := KafkaListeners([]int32{1, 2}, "127.0.0.1:0", "1", false); err == nil {
		t.Fatal("too few ports accepted")
	}
}
