package kafkawire

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/twmb/franz-go/pkg/kgo"
)

// testCluster is a cluster served by a listener on loopback, with a real
// clock and a replication pump, as `minikafka serve --kafka` runs it.
type testCluster struct {
	t      testing.TB
	c      *engine.Cluster
	srv    *Server
	mu     sync.Mutex
	events []Event
	noPump bool
}

type clusterOpt func(*testCluster, *engine.Config, *Options)

func withoutPump() clusterOpt {
	return func(tc *testCluster, _ *engine.Config, o *Options) { tc.noPump = true; o.PumpEvery = 0 }
}

// startCluster opens a cluster of brokers 1..n and serves it.
func startCluster(t testing.TB, n int, opts ...clusterOpt) *testCluster {
	t.Helper()
	tc := &testCluster{t: t}
	cfg := engine.DefaultConfig(t.TempDir())
	cfg.BrokerIDs = nil
	var o Options
	for i := 1; i <= n; i++ {
		cfg.BrokerIDs = append(cfg.BrokerIDs, int32(i))
		o.Listeners = append(o.Listeners, Listener{Broker: int32(i), Addr: "127.0.0.1:0"})
	}
	o.PumpEvery = 5 * time.Millisecond
	for _, opt := range opts {
		opt(tc, &cfg, &o)
	}
	c, _, err := engine.Open(cfg, clock.System{})
	if err != nil {
		t.Fatal(err)
	}
	tc.c = c
	o.Cluster = func() *engine.Cluster { return c }
	o.Pump = func(c *engine.Cluster) error {
		_, err := c.Replicate(nil, engine.AllFollowers)
		c.RunDue()
		return err
	}
	o.Trace = func(e Event) {
		tc.mu.Lock()
		tc.events = append(tc.events, e)
		tc.mu.Unlock()
	}
	o.Logf = func(format string, args ...any) { t.Logf(format, args...) }
	srv, err := Listen(o)
	if err != nil {
		t.Fatal(err)
	}
	tc.srv = srv
	t.Cleanup(func() {
		_ = srv.Close()
		_ = c.Close()
	})
	return tc
}

// do runs fn on the goroutine that owns the cluster.
func (tc *testCluster) do(fn func(c *engine.Cluster) error) {
	tc.t.Helper()
	if err := tc.srv.Direct(func() error { return fn(tc.c) }); err != nil {
		tc.t.Fatal(err)
	}
}

func (tc *testCluster) createTopic(name string, partitions, rf int) {
	tc.t.Helper()
	tc.do(func(c *engine.Cluster) error { _, err := c.CreateTopic(name, partitions, rf); return err })
}

// client returns a kgo client for the cluster, closed at cleanup.
func (tc *testCluster) client(opts ...kgo.Opt) *kgo.Client {
	tc.t.Helper()
	base := []kgo.Opt{
		kgo.SeedBrokers(tc.srv.Bootstrap()),
		kgo.RetryBackoffFn(func(int) time.Duration { return 20 * time.Millisecond }),
		kgo.MetadataMinAge(10 * time.Millisecond),
	}
	cl, err := kgo.NewClient(append(base, opts...)...)
	if err != nil {
		tc.t.Fatal(err)
	}
	tc.t.Cleanup(cl.Close)
	return cl
}

// ctx is a test context bounded in time.
func ctx(t *testing.T, d time.Duration) context.Context {
	c, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return c
}

// consumeAll polls cl until n records arrive or the context ends.
func consumeAll(t *testing.T, cx context.Context, cl *kgo.Client, n int) []*kgo.Record {
	t.Helper()
	var out []*kgo.Record
	for len(out) < n {
		fs := cl.PollFetches(cx)
		if cx.Err() != nil {
			t.Fatalf("consumed %d of %d records before the deadline", len(out), n)
		}
		fs.EachError(func(topic string, p int32, err error) {
			t.Logf("fetch error %s-%d: %v", topic, p, err)
		})
		out = append(out, fs.Records()...)
	}
	return out
}
