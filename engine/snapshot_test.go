package engine_test

import (
	"errors"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/producer"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// world is one cluster a scenario runs on: an original, or a copy restored
// from a snapshot. A step may replace the cluster (a reopen, a snapshot
// taken and restored in place).
type world struct {
	c *engine.Cluster
}

// step is one step of a scenario. It finds what it works on by name (a
// producer by name, a consumer by member id), so that the same step runs on
// an original and on its copies, and it returns what the step printed:
// every result and error, then every event it caused.
type step struct {
	name string
	run  func(w *world) string
}

// play runs s on w and returns its transcript.
func play(w *world, s step) string {
	return s.name + ": " + s.run(w) + render(w.c.TakeEvents())
}

// render prints events, one a line, with every field.
func render(evs []engine.Event) string {
	var out string
	for _, e := range evs {
		out += fmt.Sprintf("\n  %s %s %+v", e.Kind(), e, e)
	}
	return out
}

func errText(err error) string {
	if err == nil {
		return "ok"
	}
	return "error " + err.Error()
}

func ackText(a *engine.Ack, err error) string {
	if err != nil {
		return errText(err)
	}
	return fmt.Sprintf("ack #%d %s %+v target=%d captured=%v err=%v", a.ID(), a.State(), a.Value(), a.Target, a.Captured, a.Err())
}

func completionText(h *engine.TxnCompletion, err error) string {
	if err != nil {
		return errText(err)
	}
	ids := make([]int64, len(h.Acks))
	for i, a := range h.Acks {
		ids[i] = a.ID()
	}
	return fmt.Sprintf("completion #%d %s %+v err=%v acks=%v", h.Promise.ID(), h.State(), h.Value(), h.Err(), ids)
}

var snapTPs = []engine.TopicPartition{{Topic: "t", Partition: 0}, {Topic: "t", Partition: 1}, {Topic: "u", Partition: 0}}

// drawStep draws one step of a random scenario: produces with acks
// 0/1/all, producers (send, linger, flush, retry, close), replication,
// broker crashes and restarts, promotions, the clock, consumer groups
// (native and classic), transactions, retention, compaction, damage,
// configuration, the flush cycle, reopening, and a snapshot restored in
// place.
func drawStep(t *rapid.T, i int) step {
	label := func(s string) string { return fmt.Sprintf("%d %s", i, s) }
	drawTP := func() engine.TopicPartition { return rapid.SampledFrom(snapTPs).Draw(t, "tp") }
	drawBroker := func() int32 { return rapid.Int32Range(1, 3).Draw(t, "broker") }
	drawKey := func() []byte {
		if k := rapid.SampledFrom([]string{"a", "", "b", "c"}).Draw(t, "key"); k != "" {
			return []byte(k)
		}
		return nil
	}
	drawAcks := func() engine.AckMode {
		return rapid.SampledFrom([]engine.AckMode{engine.AcksAll, engine.Acks1, engine.AcksAll, engine.Acks0}).Draw(t, "acks")
	}
	drawPart := func() int32 {
		return rapid.SampledFrom([]int32{engine.AnyPartition, engine.AnyPartition, 0}).Draw(t, "partition")
	}
	value := []byte(fmt.Sprintf("v%d", i))
	// Producers, their batches in flight and replication weigh most: the
	// state a snapshot most often catches half-way. (rapid draws the first
	// elements of a list more often: the list starts with what matters
	// most.)
	kinds := []int{3, 0, 5, 7, 13, 11, 2, 8, 4, 1, 6, 3, 14, 10, 9, 12, 15, 16, 17, 18, 19, 20, 4, 2, 0}
	switch kind := rapid.SampledFrom(kinds).Draw(t, "step"); kind {
	case 0, 1:
		topic, part, key, acks := rapid.SampledFrom([]string{"t", "t", "u"}).Draw(t, "topic"), drawPart(), drawKey(), drawAcks()
		return step{label("produce"), func(w *world) string {
			return ackText(w.c.Produce(topic, part, record.Record{Key: key, Value: value, TimestampMs: engine.NoTimestamp}, acks))
		}}
	case 2:
		opts := producer.DefaultOptions()
		opts.Name = rapid.SampledFrom([]string{"p", "q"}).Draw(t, "producer")
		opts.Idempotent = rapid.Bool().Draw(t, "idempotent")
		opts.Acks = drawAcks()
		if opts.Idempotent && opts.Acks == engine.Acks0 {
			opts.Acks = engine.AcksAll
		}
		opts.BatchSize = rapid.SampledFrom([]int64{60, 200, 16384}).Draw(t, "batch.size")
		opts.LingerMs = rapid.SampledFrom([]int64{0, 20, 50}).Draw(t, "linger.ms")
		return step{label("producer create"), func(w *world) string {
			p, err := w.c.NewProducer(opts)
			if err != nil {
				return errText(err)
			}
			return fmt.Sprintf("%+v", p.Describe())
		}}
	case 3, 4:
		name, topic, part, key := rapid.SampledFrom([]string{"p", "p", "p", "q"}).Draw(t, "producer"), rapid.SampledFrom([]string{"t", "u"}).Draw(t, "topic"), drawPart(), drawKey()
		op := rapid.IntRange(0, 9).Draw(t, "producer op")
		return step{label("producer op"), func(w *world) string {
			p, err := w.c.Producer(name)
			if err != nil {
				return errText(err)
			}
			switch op {
			case 0, 1, 2, 3, 4, 5:
				f, err := p.Send(topic, part, record.Record{Key: key, Value: value, TimestampMs: engine.NoTimestamp})
				if err != nil {
					return errText(err)
				}
				return fmt.Sprintf("future #%d %s", f.ID(), f.State())
			case 6, 7:
				p.Flush()
			case 8:
				fs, err := p.Retry()
				if err != nil {
					return errText(err)
				}
				return fmt.Sprintf("%d futures", len(fs))
			default:
				p.Close()
			}
			return fmt.Sprintf("%+v", p.Describe())
		}}
	case 5, 6:
		var target *engine.TopicPartition
		if rapid.Bool().Draw(t, "one partition") {
			tp := drawTP()
			target = &tp
		}
		follower := rapid.SampledFrom([]int32{engine.AllFollowers, engine.AllFollowers, 1, 2, 3}).Draw(t, "follower")
		return step{label("replicate"), func(w *world) string {
			rep, err := w.c.Replicate(target, follower)
			return fmt.Sprintf("%+v %s", rep, errText(err))
		}}
	case 7:
		ms := rapid.SampledFrom([]int64{0, 10, 30, 60, 120}).Draw(t, "ms")
		return step{label("advance"), func(w *world) string { return errText(w.c.Advance(ms)) }}
	case 8:
		b, keep, crash := drawBroker(), rapid.Bool().Draw(t, "keep unflushed"), rapid.Bool().Draw(t, "crash")
		return step{label("broker"), func(w *world) string {
			if crash {
				return errText(w.c.CrashBroker(b, keep))
			}
			rep, err := w.c.RestartBroker(b)
			return fmt.Sprintf("%+v %s", rep, errText(err))
		}}
	case 9:
		tp, b, op := drawTP(), drawBroker(), rapid.IntRange(0, 3).Draw(t, "isr op")
		return step{label("isr"), func(w *world) string {
			switch op {
			case 0:
				return errText(w.c.Promote(tp, b))
			case 1:
				return errText(w.c.Rejoin(tp, b))
			case 2:
				return errText(w.c.RemoveFromISR(tp, b))
			}
			return errText(w.c.RefreshISR(tp))
		}}
	case 10:
		opts := engine.ConsumerOptions{GroupID: rapid.SampledFrom([]string{"g", "h"}).Draw(t, "group"),
			AutoOffsetReset: rapid.SampledFrom([]string{"earliest", "latest"}).Draw(t, "reset"),
			Isolation:       rapid.SampledFrom([]engine.Isolation{engine.ReadUncommitted, engine.ReadCommitted}).Draw(t, "isolation")}
		return step{label("consumer create"), func(w *world) string {
			con, err := w.c.NewConsumer(opts)
			if err != nil {
				return errText(err)
			}
			return con.MemberID()
		}}
	case 11, 12:
		member := rapid.SampledFrom([]string{"member-1", "member-2", "member-3"}).Draw(t, "member")
		op, tp, n := rapid.IntRange(0, 7).Draw(t, "consumer op"), drawTP(), rapid.IntRange(0, 4).Draw(t, "n")
		return step{label("consumer op"), func(w *world) string {
			con, err := w.c.Consumer(member)
			if err != nil {
				return errText(err)
			}
			switch op {
			case 0:
				return errText(con.Subscribe([]string{"t"}))
			case 1:
				return errText(con.Assign([]engine.TopicPartition{tp}))
			case 2, 3:
				recs, err := con.Poll(n)
				return fmt.Sprintf("%+v %s", recs, errText(err))
			case 4:
				return errText(con.Commit())
			case 5:
				return errText(con.Heartbeat())
			case 6:
				return errText(con.RefreshAssignment())
			}
			return errText(con.Seek(tp, int64(n)))
		}}
	case 13, 14:
		id, op, topic, key := rapid.SampledFrom([]string{"x1", "x2"}).Draw(t, "txid"), rapid.IntRange(0, 5).Draw(t, "txn op"), rapid.SampledFrom([]string{"t", "u"}).Draw(t, "topic"), drawKey()
		tp, n := drawTP(), rapid.Int64Range(0, 3).Draw(t, "offset")
		return step{label("txn"), func(w *world) string {
			switch op {
			case 0:
				return errText(w.c.BeginTransaction(id))
			case 1, 2:
				return ackText(w.c.TransactionSend(id, topic, engine.AnyPartition, record.Record{Key: key, Value: value, TimestampMs: engine.NoTimestamp}))
			case 3:
				return errText(w.c.TransactionSendOffsets(id, "g", map[engine.TopicPartition]int64{tp: n}))
			case 4:
				return completionText(w.c.CommitTransaction(id))
			}
			return completionText(w.c.AbortTransaction(id))
		}}
	case 15:
		tp, b, op := drawTP(), rapid.SampledFrom([]int32{engine.AllReplicas, 1, 2, 3}).Draw(t, "broker"), rapid.IntRange(0, 4).Draw(t, "log op")
		return step{label("log tools"), func(w *world) string {
			switch op {
			case 0:
				out, err := w.c.ApplyRetention(tp, b, -1, 200)
				return fmt.Sprintf("%+v %s", out, errText(err))
			case 1:
				out, err := w.c.Compact(tp, b, 0)
				return fmt.Sprintf("%+v %s", out, errText(err))
			case 2:
				return errText(w.c.RunFlushCycle())
			case 3:
				if b == engine.AllReplicas {
					b = 1
				}
				rep, err := w.c.Corrupt(tp, b, -1, engine.CorruptGarbage, 0)
				return fmt.Sprintf("%+v %s", rep, errText(err))
			}
			return errText(w.c.FailNextFlush(kerr.New(kerr.StorageError, "disk full")))
		}}
	case 16:
		op := rapid.IntRange(0, 4).Draw(t, "classic op")
		return step{label("classic group"), func(w *world) string {
			switch op {
			case 0:
				gen, err := w.c.CompleteClassicJoin("k", []engine.ClassicGroupMember{{ID: "c1", Subscriptions: []string{"t"}}, {ID: "c2", Subscriptions: []string{"t"}}})
				return fmt.Sprintf("generation %d %s", gen, errText(err))
			case 1:
				d, err := w.c.DescribeGroup("k")
				if err != nil {
					return errText(err)
				}
				return errText(w.c.CompleteClassicSync("k", d.Generation, map[string][]engine.TopicPartition{"c1": {snapTPs[0]}, "c2": {snapTPs[1]}}))
			case 2:
				d, err := w.c.DescribeGroup("k")
				if err != nil {
					return errText(err)
				}
				return errText(w.c.ClassicGroupHeartbeat("k", "c1", d.Generation))
			case 3:
				return errText(w.c.CommitStandaloneOffsets("s", map[engine.TopicPartition]int64{snapTPs[0]: 1}))
			}
			res, err := w.c.JoinGroup("j", "adapter-1", []string{"u"})
			return fmt.Sprintf("%+v %s", res, errText(err))
		}}
	case 17:
		name := rapid.SampledFrom([]string{"min.insync.replicas", "session.timeout.ms", "replica.lag.time.max.ms"}).Draw(t, "config")
		v := rapid.SampledFrom([]string{"1", "2", "100", "500"}).Draw(t, "value")
		return step{label("config"), func(w *world) string {
			reopen, err := w.c.SetConfig(name, v)
			return fmt.Sprintf("%v %s", reopen, errText(err))
		}}
	case 18:
		id := rapid.SampledFrom([]string{"", "x1"}).Draw(t, "txid")
		return step{label("init producer id"), func(w *world) string {
			pid, err := w.c.InitProducerID(id)
			return fmt.Sprintf("%+v %s", pid, errText(err))
		}}
	case 19:
		crash := rapid.Bool().Draw(t, "crash")
		return step{label("reopen"), func(w *world) string {
			var err error
			if crash {
				err = w.c.Crash()
			} else {
				err = w.c.Close()
			}
			c, rep, oerr := engine.Open(w.c.Config(), w.c.Clock())
			if oerr != nil {
				return errText(err) + " reopen " + errText(oerr)
			}
			w.c = c
			return fmt.Sprintf("%s %+v", errText(err), rep)
		}}
	default:
		return step{label("snapshot in place"), func(w *world) string {
			s, err := w.c.Snapshot()
			if err != nil {
				return errText(err)
			}
			c, err := engine.Restore(s)
			if err != nil {
				return errText(err)
			}
			w.c = c
			return "restored"
		}}
	}
}

// describe renders everything a caller can see of a cluster: its state,
// topics, partitions (leaders, epochs, ISRs, HWs, LSOs, pending acks,
// producer state), brokers, groups, committed offsets, transactions,
// producers, consumers, pending handles, every replica log (segments,
// index entries, batches with a checksum of their bytes), the
// partitioner's choices, the clock and the configuration.
func describe(c *engine.Cluster) string {
	var s strings.Builder
	add := func(v any, err error) { fmt.Fprintf(&s, "%+v|%v\n", v, err) }
	add(c.State(), c.TerminalError())
	add(c.Now(), nil)
	add(c.Config().String(), nil)
	add(c.Topics())
	add(c.PartitionStates())
	add(c.Brokers())
	groups, err := c.ListGroups()
	add(groups, err)
	for _, g := range groups {
		add(c.DescribeGroup(g.GroupID))
		classic, members, err := c.ClassicGroup(g.GroupID)
		add(fmt.Sprint(classic, members), err)
	}
	for _, tp := range snapTPs {
		o, ok, err := c.CommittedOffset("g", tp)
		add(fmt.Sprint(o, ok), err)
		add(c.LastStableOffset(tp))
	}
	add(c.ListTransactions())
	for _, p := range c.Producers() {
		add(p.Describe(), nil)
	}
	for _, con := range c.Consumers() {
		g, j := con.Generation()
		add(fmt.Sprint(con.String(), con.Assignment(), con.Positions(), con.Subscriptions(), g, j, con.Closed(), con.Isolation(), con.AutoOffsetReset()), nil)
	}
	for _, a := range c.PendingAcks() {
		add(ackText(a, nil), nil)
	}
	states, _ := c.PartitionStates()
	for _, st := range states {
		for _, r := range st.Replicas {
			d, err := c.DescribeLog(st.TP, r.Broker)
			add(d, err)
			for _, sg := range d.Segments {
				add(c.LogIndex(st.TP, r.Broker, sg.Base))
			}
			batches, err := c.LogBatches(st.TP, r.Broker, 0, -1, 0)
			for _, b := range batches {
				add(fmt.Sprint(b.Meta, b.Segment, b.Position, crc32.ChecksumIEEE(b.Frame)), nil)
			}
			add(len(batches), err)
		}
	}
	add(c.PartitionFor("t", []byte("k")))
	add(c.PartitionFor("t", nil))
	add(c.PartitionFor("u", nil))
	return s.String()
}

// fileList lists every file and directory under dir with its size and a
// checksum of its bytes, then (on a vfs.Mem) the same after a simulated
// machine crash of a clone: what a crash would keep is state too.
func fileList(fsys vfs.FS, dir string) string {
	var s strings.Builder
	var walk func(fsys vfs.FS, d, rel string)
	walk = func(fsys vfs.FS, d, rel string) {
		es, err := fsys.ReadDir(d)
		if err != nil {
			fmt.Fprintf(&s, "%s: %v\n", rel, err)
			return
		}
		for _, e := range es {
			p, r := filepath.Join(d, e.Name()), filepath.Join(rel, e.Name())
			if e.IsDir() {
				fmt.Fprintf(&s, "%s/\n", r)
				walk(fsys, p, r)
				continue
			}
			data, err := fsys.ReadFile(p)
			fmt.Fprintf(&s, "%s %d %08x %v\n", r, len(data), crc32.ChecksumIEEE(data), err)
		}
	}
	walk(fsys, dir, "")
	if m, ok := fsys.(*vfs.Mem); ok {
		crashed := m.Clone()
		crashed.Crash()
		s.WriteString("after a machine crash:\n")
		walk(crashed, dir, "")
	}
	return s.String()
}

// snapshotConfig is the random scenarios' cluster: 3 brokers in memory,
// small segments, short lags and sessions.
func snapshotConfig(t *rapid.T) engine.Config {
	cfg := engine.DefaultConfig("data")
	cfg.FS = vfs.NewMem()
	cfg.BrokerIDs = []int32{1, 2, 3}
	cfg.SegmentBytes = 300
	cfg.IndexIntervalBytes = 64
	cfg.ReplicaLagTimeMaxMs = 100
	cfg.SessionTimeoutMs = 100
	cfg.MinInsyncReplicas = rapid.IntRange(1, 2).Draw(t, "min.insync.replicas")
	// Either rule set: Kafka's keeps more state per replica (each one's HW,
	// reconciliation, the KRaft controller's heartbeats and fencing).
	if err := cfg.Set(engine.RulesKey, rapid.SampledFrom([]string{engine.MiniKafkaRuleSet, engine.KafkaRuleSet}).Draw(t, "rules")); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// openScenario opens the scenario's cluster with two topics ("t": 2
// partitions, replication factor 3; "u": 1 partition, factor 2) and a
// producer "p" (acks=all, the rest drawn).
func openScenario(t *rapid.T, cfg engine.Config, opts producer.Options) *engine.Cluster {
	c, _, err := engine.Open(cfg, clock.NewManual(0))
	if err != nil {
		t.Fatal(err)
	}
	for _, topic := range []struct {
		name   string
		parts  int
		factor int
	}{{"t", 2, 3}, {"u", 1, 2}} {
		if _, err := c.CreateTopic(topic.name, topic.parts, topic.factor); err != nil {
			t.Fatal(err)
		}
	}
	p, err := c.NewProducer(opts)
	if err != nil {
		t.Fatal(err)
	}
	// Most scenarios start with something under way: batches of p in
	// flight or buffered, a keyless record waiting for acks=all (the
	// sticky partition moves when it is acknowledged), a group member, a
	// transaction open or being committed.
	for i := range rapid.IntRange(0, 3).Draw(t, "prelude sends") {
		if _, err := p.Send("t", engine.AnyPartition, record.Record{Key: []byte{'a' + byte(i)}, Value: []byte("pre"), TimestampMs: engine.NoTimestamp}); err != nil {
			t.Fatal(err)
		}
	}
	if rapid.Bool().Draw(t, "prelude flush") {
		p.Flush()
	}
	if rapid.Bool().Draw(t, "prelude keyless") {
		if _, err := c.Produce("t", engine.AnyPartition, record.Record{Value: []byte("keyless"), TimestampMs: engine.NoTimestamp}, engine.AcksAll); err != nil {
			t.Fatal(err)
		}
	}
	if rapid.Bool().Draw(t, "prelude consumer") {
		con, err := c.NewConsumer(engine.ConsumerOptions{GroupID: "g"})
		if err != nil {
			t.Fatal(err)
		}
		if err := con.Subscribe([]string{"t"}); err != nil {
			t.Fatal(err)
		}
	}
	if rapid.Bool().Draw(t, "prelude transaction") {
		if err := c.BeginTransaction("x1"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.TransactionSend("x1", "t", engine.AnyPartition, record.Record{Key: []byte("a"), Value: []byte("txn"), TimestampMs: engine.NoTimestamp}); err != nil {
			t.Fatal(err)
		}
		if rapid.Bool().Draw(t, "prelude commit") {
			// Its marker waits for the followers: the completion is pending.
			if _, err := c.CommitTransaction("x1"); err != nil {
				t.Fatal(err)
			}
		}
	}
	c.TakeEvents()
	return c
}

// drawProducer draws the options of the scenario's first producer.
func drawProducer(t *rapid.T) producer.Options {
	opts := producer.DefaultOptions()
	opts.Name, opts.Acks = "p", engine.AcksAll
	opts.Idempotent = rapid.Bool().Draw(t, "p idempotent")
	opts.BatchSize = rapid.SampledFrom([]int64{60, 200}).Draw(t, "p batch.size")
	opts.LingerMs = rapid.SampledFrom([]int64{0, 20}).Draw(t, "p linger.ms")
	return opts
}

// same fails the test when two clusters differ in what a caller sees or in
// their files.
func same(t *rapid.T, what string, a, b *engine.Cluster) {
	if da, db := describe(a), describe(b); da != db {
		t.Fatalf("%s: descriptions differ:\n%s", what, firstDiff(da, db))
	}
	if fa, fb := fileList(a.Config().FS, a.DataDir()), fileList(b.Config().FS, b.DataDir()); fa != fb {
		t.Fatalf("%s: files differ:\n%s", what, firstDiff(fa, fb))
	}
}

// firstDiff shows the first line where two texts differ.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) || i < len(lb); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  %s\n  %s", i+1, x, y)
		}
	}
	return "(equal)"
}

// TestSnapshotRestoreBehavesIdentically runs a random scenario (see
// drawStep) on a cluster in memory, takes a snapshot after step k and
// restores it, then runs the remaining steps on the original and on the
// copy side by side: every step must print the same results and events,
// and after every step both must describe the same (partitions, groups,
// transactions, producers, consumers, pending handles, logs and their
// batches) and hold the same file bytes, durable ones included. Taking
// the snapshot changes nothing in the original. A second copy restored from
// the same snapshot once the original and the first copy have moved on is
// the cluster as it was at step k (neither changed the snapshot, and the
// first copy did not change it), and it too runs the remaining steps to
// the same transcript.
func TestSnapshotRestoreBehavesIdentically(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		cfg, popts := snapshotConfig(t), drawProducer(t)
		n := rapid.IntRange(1, 40).Draw(t, "steps")
		steps := make([]step, n)
		for i := range steps {
			steps[i] = drawStep(t, i)
		}
		k := rapid.IntRange(0, n).Draw(t, "snapshot after")

		// The events of the step before the snapshot are sometimes left
		// in the queue: the snapshot copies them.
		keepEvents := rapid.Bool().Draw(t, "keep the last step's events")

		orig := &world{c: openScenario(t, cfg, popts)}
		for i, s := range steps[:k] {
			if keepEvents && i == k-1 {
				s.run(orig)
				continue
			}
			play(orig, s)
		}
		before, beforeFiles := describe(orig.c), fileList(orig.c.Config().FS, orig.c.DataDir())
		pending := orig.c.PendingAcks()
		snap, err := orig.c.Snapshot()
		if errors.Is(err, kerr.IllegalState) && orig.c.State() != engine.Running {
			t.Skip("nothing to compare once closed")
		}
		if err != nil {
			t.Fatalf("snapshot: %v", err)
		}
		queued := render(orig.c.TakeEvents())
		if !keepEvents && queued != "" {
			t.Fatalf("snapshot emitted %s", queued)
		}
		if after := describe(orig.c); after != before {
			t.Fatalf("snapshot changed the original:\n%s", firstDiff(before, after))
		}
		first, err := engine.Restore(snap)
		if err != nil {
			t.Fatalf("restore: %v", err)
		}
		if q := render(first.TakeEvents()); q != queued {
			t.Fatalf("the copy's event queue:\n%s\nwant\n%s", q, queued)
		}
		copy1 := &world{c: first}
		same(t, "at the snapshot", orig.c, copy1.c)
		for _, a := range pending {
			// Pending handles are found again by id in the copy.
			ca, err := copy1.c.Ack(a.ID())
			if err != nil || ca == a || ca.State() != engine.Pending {
				t.Fatalf("pending ack #%d in the copy: %v, %v", a.ID(), ca, err)
			}
		}
		var transcript []string
		for _, s := range steps[k:] {
			a, b := play(orig, s), play(copy1, s)
			if a != b {
				t.Fatalf("step %q differs:\noriginal %s\ncopy     %s", s.name, a, b)
			}
			transcript = append(transcript, a)
			same(t, "after "+s.name, orig.c, copy1.c)
		}

		second, err := engine.Restore(snap)
		if err != nil {
			t.Fatalf("second restore: %v", err)
		}
		if q := render(second.TakeEvents()); q != queued {
			t.Fatalf("the second copy's event queue:\n%s\nwant\n%s", q, queued)
		}
		if d := describe(second); d != before {
			t.Fatalf("the snapshot changed after the original and a copy moved on:\n%s", firstDiff(before, d))
		}
		if f := fileList(second.Config().FS, second.DataDir()); f != beforeFiles {
			t.Fatalf("the snapshot's files changed:\n%s", firstDiff(beforeFiles, f))
		}
		copy2 := &world{c: second}
		for i, s := range steps[k:] {
			if b := play(copy2, s); b != transcript[i] {
				t.Fatalf("step %q differs in the second copy:\noriginal %s\ncopy     %s", s.name, transcript[i], b)
			}
		}
		same(t, "second copy at the end", orig.c, copy2.c)
	})
}

// TestSnapshotRestoresAreIndependent restores one snapshot twice and
// changes one copy: the other copy, the snapshot and the original do not
// see it, and each copy's files are its own.
func TestSnapshotRestoresAreIndependent(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2, 3}, func(cfg *engine.Config) { cfg.MinInsyncReplicas = 2 })
	f.topic("orders", 2, 3)
	p := f.producer(func(o *producer.Options) { o.Name = "p"; o.LingerMs = 50; o.Acks = engine.AcksAll })
	f.send(p, "orders", 0, keyed("a", "1"))
	ack := f.append(tp("orders", 1), batchOf("2"), engine.AcksAll)
	if ack.State() != engine.Pending {
		t.Fatalf("ack %s", ack.State())
	}
	snap, err := f.c.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	at := describe(f.c)
	a, err := engine.Restore(snap)
	if err != nil {
		t.Fatal(err)
	}
	b, err := engine.Restore(snap)
	if err != nil {
		t.Fatal(err)
	}
	// Change a: replicate (the ack resolves), flush the producer, produce.
	if _, err := a.Replicate(nil, engine.AllFollowers); err != nil {
		t.Fatal(err)
	}
	ap, err := a.Producer("p")
	if err != nil {
		t.Fatal(err)
	}
	ap.Flush()
	if _, err := a.Produce("orders", 0, keyed("c", "3"), engine.Acks1); err != nil {
		t.Fatal(err)
	}
	if err := a.Advance(10); err != nil {
		t.Fatal(err)
	}
	if describe(a) == at {
		t.Fatal("the copy did not change")
	}
	for name, c := range map[string]*engine.Cluster{"the original": f.c, "the other copy": b} {
		if d := describe(c); d != at {
			t.Fatalf("%s changed with the first copy:\n%s", name, firstDiff(at, d))
		}
	}
	if ack.State() != engine.Pending {
		t.Fatalf("the original's ack settled with the copy's: %s", ack.State())
	}
	ca, err := a.Ack(ack.ID())
	if err == nil {
		t.Fatalf("the copy's ack #%d is still pending: %s", ca.ID(), ca.State())
	}
	cb, err := b.Ack(ack.ID())
	if err != nil || cb.State() != engine.Pending || cb == ack {
		t.Fatalf("the other copy's ack: %v %v", cb, err)
	}
	if fa, fb := fileList(a.Config().FS, "data"), fileList(b.Config().FS, "data"); fa == fb {
		t.Fatal("the copies share their files")
	}
	c, err := engine.Restore(snap)
	if err != nil {
		t.Fatal(err)
	}
	if d := describe(c); d != at {
		t.Fatalf("the snapshot changed:\n%s", firstDiff(at, d))
	}
	if c.Now() != snap.Now() || c.Clock() == f.c.Clock() || c.Config().FS == f.c.Config().FS {
		t.Fatal("a copy must have its own clock and file system")
	}
}

// TestSnapshotOnDisk snapshots a cluster on the real file system and
// restores it in memory and into a new directory on the disk: all three
// run the same steps to the same transcripts, descriptions and files (the
// data directory's path apart).
func TestSnapshotOnDisk(t *testing.T) {
	t.Parallel()
	f := openOnDisk(t, []int32{1, 2, 3}, func(cfg *engine.Config) { cfg.SegmentBytes = 200; cfg.MinInsyncReplicas = 2 })
	f.topic("orders", 2, 3)
	for i := range 12 {
		f.append(tp("orders", int32(i%2)), batchOf(fmt.Sprint("v", i)), engine.Acks1)
	}
	if _, err := f.c.Replicate(nil, engine.AllFollowers); err != nil {
		t.Fatal(err)
	}
	pending := f.append(tp("orders", 0), batchOf("pending"), engine.AcksAll)
	if err := f.c.BeginTransaction("x"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.TransactionSend("x", "orders", 1, keyed("t", "in txn")); err != nil {
		t.Fatal(err)
	}
	f.c.TakeEvents()
	snap, err := f.c.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	mem, err := engine.Restore(snap)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := mem.Config().FS.(*vfs.Mem); !ok || mem.DataDir() != f.c.DataDir() {
		t.Fatalf("restore in memory: %T %s", mem.Config().FS, mem.DataDir())
	}
	diskDir := filepath.Join(t.TempDir(), "restored")
	disk, err := engine.RestoreOn(snap, vfs.OS, diskDir)
	if err != nil {
		t.Fatal(err)
	}
	defer disk.Close()
	if _, err := engine.RestoreOn(snap, vfs.OS, diskDir); !errors.Is(err, kerr.InvalidArgument) {
		t.Fatalf("restore into a directory that is not empty: %v", err)
	}
	clusters := []*engine.Cluster{f.c, mem, disk}
	norm := func(c *engine.Cluster, s string) string { return strings.ReplaceAll(s, c.DataDir(), "DATA") }
	view := func(c *engine.Cluster) string {
		return norm(c, describe(c)) + diskFiles(c)
	}
	steps := []func(c *engine.Cluster) string{
		func(c *engine.Cluster) string {
			a, err := c.Ack(pending.ID())
			return ackText(a, err)
		},
		func(c *engine.Cluster) string {
			r, err := c.Replicate(nil, engine.AllFollowers)
			return fmt.Sprintf("%+v %v", r, err)
		},
		func(c *engine.Cluster) string { return completionText(c.CommitTransaction("x")) },
		func(c *engine.Cluster) string {
			r, err := c.Replicate(nil, engine.AllFollowers)
			return fmt.Sprintf("%+v %v", r, err)
		},
		func(c *engine.Cluster) string { return errText(c.CrashBroker(2, false)) },
		func(c *engine.Cluster) string {
			return ackText(c.Produce("orders", 1, keyed("after", "crash"), engine.AcksAll))
		},
		func(c *engine.Cluster) string { return errText(c.RunFlushCycle()) },
		func(c *engine.Cluster) string { r, err := c.RestartBroker(2); return fmt.Sprintf("%+v %v", r, err) },
		func(c *engine.Cluster) string {
			r, err := c.Compact(tp("orders", 0), engine.AllReplicas, 0)
			return fmt.Sprintf("%+v %v", r, err)
		},
	}
	for ci, c := range clusters[1:] {
		if a, b := view(clusters[0]), view(c); a != b {
			t.Fatalf("copy %d differs at the snapshot:\n%s", ci+1, firstDiff(a, b))
		}
	}
	want := make([]string, len(steps))
	for ci, c := range clusters {
		for i, s := range steps {
			out := norm(c, s(c))
			for _, e := range c.TakeEvents() {
				out += norm(c, "\n  "+e.String())
			}
			if ci == 0 {
				want[i] = out
			} else if out != want[i] {
				t.Fatalf("copy %d, step %d:\n%s\nwant\n%s", ci, i, out, want[i])
			}
		}
	}
	for ci, c := range clusters[1:] {
		if a, b := view(clusters[0]), view(c); a != b {
			t.Fatalf("copy %d differs at the end:\n%s", ci+1, firstDiff(a, b))
		}
	}
}

// diskFiles lists a cluster's files wherever they are, relative to its
// data directory, without the crash view (a disk has none).
func diskFiles(c *engine.Cluster) string {
	fsys := c.Config().FS
	if fsys == nil {
		fsys = vfs.OS
	}
	if m, ok := fsys.(*vfs.Mem); ok {
		fsys = vfsOnly{m}
	}
	return fileList(fsys, c.DataDir())
}

// vfsOnly hides a Mem's type, so fileList lists it as any file system.
type vfsOnly struct{ vfs.FS }

// TestSnapshotRefuses: a cluster attached to an adapter, on a clock that
// is not manual, or on a file system with injected faults is not copied.
func TestSnapshotRefuses(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	detach := f.c.Attach("a test adapter")
	if _, err := f.c.Snapshot(); !errors.Is(err, kerr.IllegalState) || !strings.Contains(err.Error(), "a test adapter") {
		t.Fatalf("attached: %v", err)
	}
	detach()
	detach()
	if _, err := f.c.Snapshot(); err != nil {
		t.Fatalf("detached: %v", err)
	}
	inj := f.cfg.FS.(*vfs.Mem).Inject(vfs.Fault{Op: vfs.OpWrite, Nth: 5})
	if _, err := f.c.Snapshot(); !errors.Is(err, kerr.IllegalState) {
		t.Fatalf("faults in force: %v", err)
	}
	inj.Clear()
	if _, err := f.c.Snapshot(); err != nil {
		t.Fatal(err)
	}
	cfg := engine.DefaultConfig("sys")
	cfg.FS = vfs.NewMem()
	c, _, err := engine.Open(cfg, clock.System{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Snapshot(); !errors.Is(err, kerr.IllegalState) {
		t.Fatalf("system clock: %v", err)
	}
}

// TestSnapshotRestoresConcurrently restores one snapshot from several
// goroutines at once (an explorer searching in parallel) and runs the same
// steps on each copy: every copy prints the same transcript as a copy
// restored alone. Restoring only reads the snapshot.
func TestSnapshotRestoresConcurrently(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1, 2, 3}, func(cfg *engine.Config) { cfg.MinInsyncReplicas = 2; cfg.SegmentBytes = 200 })
	f.topic("orders", 2, 3)
	p := f.producer(func(o *producer.Options) { o.Name = "p"; o.Acks = engine.AcksAll; o.Idempotent = true })
	for i := range 5 {
		f.send(p, "orders", engine.AnyPartition, keyed(fmt.Sprint("k", i), "v"))
	}
	p.Flush()
	f.c.TakeEvents()
	snap, err := f.c.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	run := func() (string, error) {
		c, err := engine.Restore(snap)
		if err != nil {
			return "", err
		}
		var out strings.Builder
		for i := range 5 {
			rep, err := c.Replicate(nil, engine.AllFollowers)
			fmt.Fprintf(&out, "%+v %v%s\n", rep, err, render(c.TakeEvents()))
			ack, err := c.Produce("orders", int32(i%2), keyed("x", fmt.Sprint(i)), engine.AcksAll)
			fmt.Fprintf(&out, "%s%s\n", ackText(ack, err), render(c.TakeEvents()))
		}
		return out.String() + describe(c) + fileList(c.Config().FS, c.DataDir()), nil
	}
	want, err := run()
	if err != nil {
		t.Fatal(err)
	}
	const n = 4
	got := make([]string, n)
	errs := make([]error, n)
	done := make(chan int)
	for i := range n {
		go func() {
			got[i], errs[i] = run()
			done <- i
		}()
	}
	for range n {
		<-done
	}
	for i := range n {
		if errs[i] != nil || got[i] != want {
			t.Fatalf("copy %d (%v):\n%s", i, errs[i], firstDiff(want, got[i]))
		}
	}
}

// TestSnapshotChainsAreFreed restores a snapshot of a restored cluster, 300
// times over (an undo history, a search that keeps going from the newest
// state), producing in between: every snapshot and every cluster left
// behind is freed, so a copy keeps no reference to the cluster it was
// taken from, and the live heap grows with the records written, not with
// the number of copies.
func TestSnapshotChainsAreFreed(t *testing.T) {
	f := open(t, []int32{1, 2, 3}, nil)
	f.topic("orders", 6, 3)
	c := f.c
	const n = 300
	var freed atomic.Int64
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	var start uint64
	for i := range n {
		if i == 10 {
			start = heap()
		}
		s, err := c.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		runtime.SetFinalizer(s, func(*engine.Snapshot) { freed.Add(1) })
		next, err := engine.Restore(s)
		if err != nil {
			t.Fatal(err)
		}
		// Every snapshot is taken with an ack pending (the last step's
		// keyless produce, whose listener names the cluster's dispatcher):
		// the copy of a pending promise must not keep the original's, nor
		// its cluster.
		if _, err := next.Replicate(nil, engine.AllFollowers); err != nil {
			t.Fatal(err)
		}
		if _, err := next.Produce("orders", engine.AnyPartition, rec(fmt.Sprint("v", i)), engine.AcksAll); err != nil {
			t.Fatal(err)
		}
		next.TakeEvents()
		c = next
	}
	for deadline := time.Now().Add(5 * time.Second); freed.Load() < n-1 && time.Now().Before(deadline); {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if got := freed.Load(); got < n-1 {
		t.Fatalf("%d of %d snapshots were freed: something keeps them", got, n)
	}
	// 290 records of a few dozen bytes, three replicas each: a generous
	// bound that a leak of one cluster copy per step (tens of KB) breaks.
	if grown := int64(heap()) - int64(start); grown > 1<<20 {
		t.Fatalf("the heap grew by %d KB over %d copies", grown>>10, n-10)
	}
	runtime.KeepAlive(c)
}
