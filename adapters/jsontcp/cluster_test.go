package jsontcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// openCluster opens a cluster on a manual clock in a temp dir; brokers are
// ids 1..n.
func openCluster(t *testing.T, brokers int, configure func(*engine.Config)) *engine.Cluster {
	t.Helper()
	cfg := engine.DefaultConfig(t.TempDir())
	cfg.BrokerIDs = nil
	for id := 1; id <= brokers; id++ {
		cfg.BrokerIDs = append(cfg.BrokerIDs, int32(id))
	}
	if configure != nil {
		configure(&cfg)
	}
	c, _, err := engine.Open(cfg, clock.NewManual(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// serveCluster serves c over loopback; the test must reach c only through
// s.Direct while the server runs.
func serveCluster(t *testing.T, c *engine.Cluster, opts Options) (*Server, *ClusterBackend) {
	t.Helper()
	b := NewClusterBackend(c)
	return startServer(t, b, opts), b
}

func direct(t *testing.T, s *Server, fn func() error) {
	t.Helper()
	if err := s.Direct(func(Backend) error { return fn() }); err != nil {
		t.Fatal(err)
	}
}

// Chapter 10's experiment over a real loopback socket against the engine.
func TestClusterChapter10OverLoopback(t *testing.T) {
	s, _ := serveCluster(t, openCluster(t, 1, nil), Options{})
	c := dialRaw(t, s)
	for _, step := range chapter10 {
		if got := c.call(step.req); got != step.resp {
			t.Fatalf("%s\n got %s\nwant %s", step.req, got, step.resp)
		}
	}
}

// N1: binary-safe produce and fetch.
func TestClusterN1BinaryRoundTrip(t *testing.T) {
	s, _ := serveCluster(t, openCluster(t, 1, nil), Options{})
	c := dialRaw(t, s)
	c.call(createEvents)
	req := fmt.Sprintf(`{"operation":"produce","topic":"events","key_b64":%q,"value_b64":%q,"acks":"1"}`, b64("\x00key"), b64("\xffvalue"))
	if got := c.call(req); got != `{"ok":true,"partition":0,"offset":0}` {
		t.Fatal(got)
	}
	want := fmt.Sprintf(`{"ok":true,"records":[{"offset":0,"key_b64":%q,"value_b64":%q}]}`, b64("\x00key"), b64("\xffvalue"))
	if got := c.call(`{"operation":"fetch","topic":"events","partition":0,"offset":0,"max_records":10}`); got != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
}

// N2: a typed domain error.
func TestClusterN2UnknownTopic(t *testing.T) {
	s, _ := serveCluster(t, openCluster(t, 1, nil), Options{})
	if got := dialRaw(t, s).call(`{"operation":"metadata","topic":"missing"}`); got != `{"ok":false,"code":"UNKNOWN_TOPIC","message":"missing"}` {
		t.Fatal(got)
	}
}

// N3: a topic created directly, produced over TCP, read directly; and the
// reverse.
func TestClusterN3DirectTCPParity(t *testing.T) {
	c := openCluster(t, 1, nil)
	s, _ := serveCluster(t, c, Options{})
	direct(t, s, func() error { _, err := c.CreateTopic("events", 1, 1); return err })
	conn := dialRaw(t, s)
	if got := conn.call(`{"operation":"produce","topic":"events","value_b64":"` + b64("adapter") + `","acks":"1"}`); got != `{"ok":true,"partition":0,"offset":0}` {
		t.Fatal(got)
	}
	direct(t, s, func() error {
		recs, err := c.Fetch(topic.Partition{Topic: "events"}, 0, 10, engine.ReadUncommitted)
		if err != nil || len(recs) != 1 || string(recs[0].Value) != "adapter" || recs[0].Key != nil {
			return fmt.Errorf("direct fetch: %+v, %v", recs, err)
		}
		// The reverse: produced directly, read over TCP.
		_, err = c.Produce("events", 0, record.Record{Key: []byte("k"), Value: []byte{}, TimestampMs: engine.NoTimestamp}, engine.Acks1)
		return err
	})
	want := fmt.Sprintf(`{"ok":true,"records":[{"offset":0,"key_b64":null,"value_b64":%q},{"offset":1,"key_b64":"aw==","value_b64":""}]}`, b64("adapter"))
	if got := conn.call(fetchEvents); got != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
}

// The same operations done directly on one cluster and over TCP on another
// leave identical state: metadata, records (with timestamps and headers),
// high watermarks and log end offsets.
func TestClusterDirectAndTCPGiveIdenticalState(t *testing.T) {
	type op struct {
		topic     string
		partition int32 // -1: partitioner
		key       []byte
		value     []byte
	}
	ops := []op{
		{"orders", -1, []byte("alice"), []byte("created")},
		{"orders", -1, []byte("bob"), []byte("paid")},
		{"orders", -1, nil, []byte("keyless")},
		{"orders", -1, nil, nil},
		{"orders", 1, []byte("alice"), nil},
		{"orders", 0, []byte{}, []byte{}},
		{"audit", -1, nil, []byte{0, 1, 2, 255}},
		{"orders", -1, nil, []byte("keyless again")},
	}
	viaDirect := openCluster(t, 3, nil)
	viaTCP := openCluster(t, 3, nil)
	for _, name := range []string{"orders", "audit"} {
		if _, err := viaDirect.CreateTopic(name, 2, 3); err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range ops {
		if _, err := viaDirect.Produce(o.topic, o.partition, record.Record{Key: o.key, Value: o.value, TimestampMs: engine.NoTimestamp}, engine.Acks1); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := viaDirect.Replicate(nil, engine.AllFollowers); err != nil {
		t.Fatal(err)
	}
	viaDirect.RunDue()

	s, _ := serveCluster(t, viaTCP, Options{ReplicateEvery: -1})
	conn := dialRaw(t, s)
	for _, name := range []string{"orders", "audit"} {
		if got := conn.call(`{"operation":"create_topic","topic":"` + name + `","partitions":2,"replication_factor":3}`); !strings.HasPrefix(got, `{"ok":true`) {
			t.Fatal(got)
		}
	}
	for _, o := range ops {
		req := `{"operation":"produce","topic":"` + o.topic + `"`
		if o.partition >= 0 {
			req += fmt.Sprintf(`,"partition":%d`, o.partition)
		}
		if o.key != nil {
			req += `,"key_b64":"` + b64(string(o.key)) + `"`
		}
		if o.value != nil {
			req += `,"value_b64":"` + b64(string(o.value)) + `"`
		}
		if got := conn.call(req + "}"); !strings.HasPrefix(got, `{"ok":true`) {
			t.Fatal(got)
		}
	}
	direct(t, s, func() error {
		if _, err := viaTCP.Replicate(nil, engine.AllFollowers); err != nil {
			return err
		}
		viaTCP.RunDue()
		return nil
	})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := snapshot(t, viaTCP), snapshot(t, viaDirect); got != want {
		t.Fatalf("state differs:\nTCP:    %s\ndirect: %s", got, want)
	}
}

// snapshot renders everything observable about a cluster's topics.
func snapshot(t *testing.T, c *engine.Cluster) string {
	t.Helper()
	var out strings.Builder
	topics, err := c.Topics()
	if err != nil {
		t.Fatal(err)
	}
	for _, tm := range topics {
		fmt.Fprintf(&out, "%+v\n", tm)
		for _, p := range tm.Partitions {
			tp := p.TP()
			hw, _ := c.HighWatermark(tp)
			st, err := c.PartitionState(tp)
			if err != nil {
				t.Fatal(err)
			}
			recs, err := c.Fetch(tp, 0, 1000, engine.ReadUncommitted)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&out, "%s hw=%d leo=%d records=%+v\n", tp, hw, st.LEO, recs)
		}
	}
	return out.String()
}

// acks=all over TCP: the server's pump replicates so it completes; with no
// pump it fails with REQUEST_TIMED_OUT and the record is in the leader log,
// committed by the next replication.
func TestClusterAcksAllOverTCP(t *testing.T) {
	minISR2 := func(cfg *engine.Config) { cfg.MinInsyncReplicas = 2 }
	t.Run("pumped", func(t *testing.T) {
		s, _ := serveCluster(t, openCluster(t, 3, minISR2), Options{ReplicateEvery: 2 * time.Millisecond})
		conn := dialRaw(t, s)
		conn.call(`{"operation":"create_topic","topic":"r","partitions":1,"replication_factor":3}`)
		for i := range 3 {
			want := fmt.Sprintf(`{"ok":true,"partition":0,"offset":%d}`, i)
			if got := conn.call(`{"operation":"produce","topic":"r","value_b64":"AA==","acks":"all"}`); got != want {
				t.Fatalf("got %s, want %s", got, want)
			}
		}
	})
	t.Run("timed out", func(t *testing.T) {
		c := openCluster(t, 3, minISR2)
		s, _ := serveCluster(t, c, Options{ReplicateEvery: -1, RequestTimeout: 100 * time.Millisecond})
		conn := dialRaw(t, s)
		conn.call(`{"operation":"create_topic","topic":"r","partitions":1,"replication_factor":3}`)
		got := conn.call(`{"operation":"produce","topic":"r","value_b64":"AA==","acks":"-1"}`)
		if !strings.HasPrefix(got, `{"ok":false,"code":"REQUEST_TIMED_OUT"`) {
			t.Fatal(got)
		}
		if got := conn.call(`{"operation":"fetch","topic":"r","partition":0,"offset":0}`); got != `{"ok":true,"records":[]}` {
			t.Fatalf("not committed yet: %s", got)
		}
		direct(t, s, func() error {
			for range 2 {
				if _, err := c.Replicate(nil, engine.AllFollowers); err != nil {
					return err
				}
			}
			return nil
		})
		if got := conn.call(`{"operation":"fetch","topic":"r","partition":0,"offset":0}`); got != `{"ok":true,"records":[{"offset":0,"key_b64":null,"value_b64":"AA=="}]}` {
			t.Fatalf("committed after replication: %s", got)
		}
	})
	t.Run("not enough replicas", func(t *testing.T) {
		c := openCluster(t, 3, func(cfg *engine.Config) { cfg.MinInsyncReplicas = 3 })
		s, _ := serveCluster(t, c, Options{ReplicateEvery: -1})
		conn := dialRaw(t, s)
		conn.call(`{"operation":"create_topic","topic":"r","partitions":1,"replication_factor":2}`)
		if got := conn.call(`{"operation":"produce","topic":"r","value_b64":"AA==","acks":"all"}`); !strings.HasPrefix(got, `{"ok":false,"code":"NOT_ENOUGH_REPLICAS"`) {
			t.Fatal(got)
		}
	})
}

// Decisions 24 and 31: after close every operation, the group ones included,
// answers the state error without dropping the connection; a terminal error
// keeps its domain code.
func TestClusterLifecycleOverTCP(t *testing.T) {
	t.Run("closed", func(t *testing.T) {
		c := openCluster(t, 1, nil)
		s, _ := serveCluster(t, c, Options{})
		conn := dialRaw(t, s)
		conn.call(createEvents)
		if got := conn.call(`{"operation":"join_group","group_id":"g","member_id":"m1","topics":["events"]}`); got != `{"ok":true,"generation":1,"assignment":[{"topic":"events","partition":0}]}` {
			t.Fatal(got)
		}
		direct(t, s, c.Close)
		const closed = `{"ok":false,"code":"ILLEGAL_STATE","message":"cluster is closed"}`
		for _, req := range []string{
			`{"operation":"metadata","topic":"events"}`,
			createEvents,
			produceHello,
			fetchEvents,
			`{"operation":"join_group","group_id":"g","member_id":"m2","topics":["events"]}`,
			`{"operation":"heartbeat","group_id":"g","member_id":"m1","generation":1}`,
			`{"operation":"commit_offsets","group_id":"g","member_id":"m1","generation":1,"offsets":[{"topic":"events","partition":0,"offset":0}]}`,
		} {
			if got := conn.call(req); got != closed {
				t.Errorf("%s after close: %s", req, got)
			}
		}
	})
	t.Run("failed", func(t *testing.T) {
		c := openCluster(t, 1, nil)
		s, _ := serveCluster(t, c, Options{})
		direct(t, s, func() error {
			if err := c.FailNextFlush(kerr.New(kerr.StorageError, "boom")); err != nil {
				return err
			}
			if err := c.RunFlushCycle(); !errors.Is(err, kerr.StorageError) {
				return fmt.Errorf("flush cycle: %v", err)
			}
			return nil
		})
		conn := dialRaw(t, s)
		if got := conn.call(createEvents); got != `{"ok":false,"code":"STORAGE_ERROR","message":"boom"}` {
			t.Fatal(got)
		}
	})
}

// The group operations translate to the coordinator with its fencing intact.
func TestClusterGroupOperations(t *testing.T) {
	c := openCluster(t, 1, nil)
	s, _ := serveCluster(t, c, Options{})
	conn := dialRaw(t, s)
	conn.call(`{"operation":"create_topic","topic":"orders","partitions":2,"replication_factor":1}`)
	steps := []struct{ req, resp string }{
		{`{"operation":"join_group","group_id":"g","member_id":"m1","topics":["orders"]}`, `{"ok":true,"generation":1,"assignment":[{"topic":"orders","partition":0},{"topic":"orders","partition":1}]}`},
		{`{"operation":"join_group","group_id":"g","member_id":"m2","topics":["orders"]}`, `{"ok":true,"generation":2,"assignment":[{"topic":"orders","partition":1}]}`},
		{`{"operation":"heartbeat","group_id":"g","member_id":"m1","generation":1}`, `{"ok":false,"code":"ILLEGAL_GENERATION","message":"generation 1 does not match 2"}`},
		{`{"operation":"heartbeat","group_id":"g","member_id":"m1","generation":2}`, `{"ok":true}`},
		{`{"operation":"commit_offsets","group_id":"g","member_id":"m2","generation":2,"offsets":[{"topic":"orders","partition":0,"offset":3}]}`, `{"ok":false,"code":"NOT_PARTITION_OWNER","message":"m2"}`},
		{`{"operation":"commit_offsets","group_id":"g","member_id":"m2","generation":2,"offsets":[{"topic":"orders","partition":1,"offset":3}]}`, `{"ok":true}`},
		{`{"operation":"heartbeat","group_id":"nope","member_id":"m1","generation":1}`, `{"ok":false,"code":"UNKNOWN_MEMBER","message":"unknown group nope"}`},
	}
	for _, st := range steps {
		if got := conn.call(st.req); got != st.resp {
			t.Errorf("%s\n got %s\nwant %s", st.req, got, st.resp)
		}
	}
	if got := conn.call(`{"operation":"join_group","group_id":"g","member_id":"m3","topics":["nope"]}`); !strings.HasPrefix(got, `{"ok":false,"code":"INVALID_REQUEST"`) {
		t.Errorf("unknown subscribed topic: %s", got)
	}
	// The commit landed in the cluster's own offset store (parity).
	direct(t, s, func() error {
		o, ok, err := c.CommittedOffset("g", topic.Partition{Topic: "orders", Partition: 1})
		if err != nil || !ok || o != 3 {
			return fmt.Errorf("committed offset %d %v %v, want 3", o, ok, err)
		}
		return nil
	})
}

// Bad input against the engine: typed errors, nothing appended.
func TestClusterBadInputChangesNothing(t *testing.T) {
	c := openCluster(t, 1, nil)
	s, _ := serveCluster(t, c, Options{})
	conn := dialRaw(t, s)
	conn.call(`{"operation":"create_topic","topic":"events","partitions":2,"replication_factor":1}`)
	for _, x := range []struct{ req, code string }{
		{`{"operation":"create_topic","topic":"bad name","partitions":1,"replication_factor":1}`, "INVALID_REQUEST"},
		{`{"operation":"create_topic","topic":"x","partitions":1,"replication_factor":2}`, "INVALID_REQUEST"},
		{`{"operation":"produce","topic":"events","value_b64":"***"}`, "INVALID_REQUEST"},
		{`{"operation":"produce","topic":"events","partition":-1,"value_b64":"AA=="}`, "UNKNOWN_PARTITION"},
		{`{"operation":"produce","topic":"nope","partition":-1,"value_b64":"AA=="}`, "UNKNOWN_TOPIC"},
		{`{"operation":"produce","topic":"events","partition":2,"value_b64":"AA=="}`, "UNKNOWN_PARTITION"},
		{`{"operation":"fetch","topic":"events","partition":0,"offset":1}`, "OFFSET_OUT_OF_RANGE"},
		{`{"operation":"fetch","topic":"events","partition":0,"offset":0,"max_records":-5}`, "INVALID_REQUEST"},
	} {
		if got := conn.call(x.req); !strings.HasPrefix(got, `{"ok":false,"code":"`+x.code+`"`) {
			t.Errorf("%s: %s, want %s", x.req, got, x.code)
		}
	}
	direct(t, s, func() error {
		topics, err := c.Topics()
		if err != nil || len(topics) != 1 {
			return fmt.Errorf("topics %+v %v", topics, err)
		}
		for p := range int32(2) {
			st, err := c.PartitionState(topic.Partition{Topic: "events", Partition: p})
			if err != nil || st.LEO != 0 {
				return fmt.Errorf("partition %d appended to: %v", p, err)
			}
		}
		return nil
	})
}

// Load against the engine: 50 connections × 2,000 keyless records through the
// sticky partitioner, all present exactly once and in per-connection order.
func TestClusterLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	c := openCluster(t, 1, nil)
	s, _ := serveCluster(t, c, Options{})
	if got := dialRaw(t, s).call(`{"operation":"create_topic","topic":"load","partitions":4,"replication_factor":1}`); !strings.HasPrefix(got, `{"ok":true`) {
		t.Fatal(got)
	}
	runLoad(t, s.Addr().String(), "load", 4, 50, 2000)
}

// The Client against the engine, as the REPL's remote command would use it.
func TestClusterClient(t *testing.T) {
	s, _ := serveCluster(t, openCluster(t, 1, nil), Options{})
	cl, err := dialContext(s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	if _, err := cl.Do(ctx, createEvents); err != nil {
		t.Fatal(err)
	}
	got, err := cl.Do(ctx, `{"operation":"metadata","topic":"events"}`)
	if err != nil || got != `{"ok":true,"topic":"events","partitions":[{"partition":0,"leader_id":1,"leader_epoch":0,"replicas":[1]}]}` {
		t.Fatalf("%s %v", got, err)
	}
	if err := CheckResponse(got); err != nil {
		t.Fatal(err)
	}
	got, err = cl.Do(ctx, `{"operation":"fetch","topic":"events","partition":9,"offset":0}`)
	if err != nil || !errors.Is(CheckResponse(got), kerr.UnknownPartition) {
		t.Fatalf("%s %v", got, err)
	}
}

// Dispatch on a cluster the caller owns (the REPL's own cluster): the
// chapter 10 experiment without a socket, the event trace kept for the caller.
func TestClusterDispatchKeepsEventsWhenAsked(t *testing.T) {
	c := openCluster(t, 1, nil)
	b := &ClusterBackend{Cluster: c, KeepEvents: true}
	for _, step := range chapter10 {
		if got := strings.TrimSuffix(string(Dispatch(b, []byte(step.req))), "\n"); got != step.resp {
			t.Fatalf("%s\n got %s\nwant %s", step.req, got, step.resp)
		}
	}
	if len(c.TakeEvents()) == 0 {
		t.Fatal("the produce's events were drained")
	}
	if err := NewClusterBackend(c).Pump(); err != nil {
		t.Fatal(err)
	}
	if n := len(c.TakeEvents()); n != 0 {
		t.Fatalf("a server backend left %d events", n)
	}
}

// TestServerAttachesItsCluster: while the server serves a cluster, the
// cluster refuses snapshots (the server's parked produces would be missing
// from a copy); once it closes, they work.
func TestServerAttachesItsCluster(t *testing.T) {
	c := openCluster(t, 1, nil)
	s, _ := serveCluster(t, c, Options{})
	var snapErr error
	if err := s.Direct(func(Backend) error { _, snapErr = c.Snapshot(); return nil }); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(snapErr, kerr.IllegalState) {
		t.Fatalf("snapshot while serving: %v", snapErr)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Snapshot(); err != nil {
		t.Fatalf("snapshot after the server closed: %v", err)
	}
}
