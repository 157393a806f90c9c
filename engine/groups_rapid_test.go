package engine_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/invariant"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// coordModel drives consumers, groups and transactions on a 2-broker
// cluster. Transactional values are "x<instance>-<n>", plain ones "p<n>";
// instance numbers count every begin, so the model knows which instance a
// record belongs to even when ids are reused.
type coordModel struct {
	c       *engine.Cluster
	clk     *clock.Manual
	tps     []engine.TopicPartition
	next    int
	inst    map[string]int // txn id → its current instance
	lastID  map[int]string // instance → txn id
	current int
	cons    []*engine.Consumer
	// finished records, for instances replaced by a later begin, whether
	// they had committed.
	finished map[int]bool
	// mon checks the invariants; it excuses committed offsets a HW drop
	// left above the HW (a DataLost event, a reopen: decision 8).
	mon invariant.Monitor
}

// committedInstance reports whether the instance's transaction completed
// with a commit (only the current instance of an id can still change).
func (m *coordModel) committedInstance(inst int) bool {
	id := m.lastID[inst]
	if m.inst[id] != inst {
		return m.finished[inst]
	}
	d, err := m.c.DescribeTransaction(id)
	return err == nil && d.State == engine.TransactionCompleteCommit
}

// begin starts a new instance of id, if the cluster lets it.
func (m *coordModel) begin(id string) {
	old, had := m.inst[id]
	wasCommitted := had && m.committedInstance(old)
	if err := m.c.BeginTransaction(id); err == nil {
		if had {
			m.finished[old] = wasCommitted
		}
		m.current++
		m.inst[id], m.lastID[m.current] = m.current, id
	}
}

// send writes "x<instance>-<n>" to p in id's current instance.
func (m *coordModel) send(id string, p engine.TopicPartition) (*engine.Ack, error) {
	m.next++
	return m.c.TransactionSend(id, p.Topic, p.Partition, rec(fmt.Sprintf("x%d-%d", m.inst[id], m.next)))
}

// TestCoordinationStateMachine: random plain produces (acks 1 or all),
// transactions (begin, send, send offsets, commit, abort, with retries when
// a marker fails; a marker acknowledged by the leader alone and lost when
// it crashes), replication, promotion and rejoin, clock advances
// (session expiry), and consumers (subscribe, refresh, heartbeat, poll with
// either isolation, commit, close). After every step an invariant.Monitor
// checks every property, among them:
//   - read_committed never returns a record of an aborted or unfinished
//     transaction (read-committed-clean, on a fetch and on every consumer
//     poll; the model also checks it against the transaction instances it
//     knows committed);
//   - LSO <= HW on every partition (lso-le-hw);
//   - every committed offset is <= the partition's HW (committed-le-hw);
//   - a generation never assigns one partition to two members
//     (assignment-disjoint).
//
// It runs under either rule set (rules=minikafka or rules=kafka).
func TestCoordinationStateMachine(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(rt *rapid.T) {
		// In memory: the cluster's logic under random calls, not the disk
		// (engine/storage and the REPL's transcripts test the disk).
		var err error
		dir, mem := "data", vfs.NewMem()
		m := &coordModel{clk: clock.NewManual(0), inst: map[string]int{}, lastID: map[int]string{}, finished: map[int]bool{}}
		cfg := engine.DefaultConfig(dir)
		cfg.FS = mem
		cfg.BrokerIDs = []int32{1, 2}
		cfg.SessionTimeoutMs = 50
		cfg.ReplicaLagTimeMaxMs = 1000
		if err := cfg.Set("rules", rapid.SampledFrom([]string{"minikafka", "kafka"}).Draw(rt, "rules")); err != nil {
			rt.Fatal(err)
		}
		if m.c, _, err = engine.Open(cfg, m.clk); err != nil {
			rt.Fatal(err)
		}
		defer m.c.Close()
		if _, err := m.c.CreateTopic("t", 2, 2); err != nil {
			rt.Fatal(err)
		}
		m.tps = []engine.TopicPartition{tp("t", 0), tp("t", 1)}
		ids := rapid.SampledFrom([]string{"a", "b"})
		parts := rapid.SampledFrom(m.tps)
		rt.Repeat(map[string]func(*rapid.T){
			"produce": func(t *rapid.T) {
				acks := rapid.SampledFrom([]engine.AckMode{engine.Acks1, engine.AcksAll}).Draw(t, "acks")
				m.next++
				_, _ = m.c.Produce("t", parts.Draw(t, "tp").Partition, rec(fmt.Sprintf("p%d", m.next)), acks)
			},
			"begin": func(t *rapid.T) { m.begin(ids.Draw(t, "id")) },
			"send": func(t *rapid.T) {
				_, _ = m.send(ids.Draw(t, "id"), parts.Draw(t, "tp"))
			},
			"send_offsets": func(t *rapid.T) {
				p := parts.Draw(t, "tp")
				hw, _ := m.c.HighWatermark(p)
				_ = m.c.TransactionSendOffsets(ids.Draw(t, "id"), "g", map[engine.TopicPartition]int64{p: hw})
			},
			"commit": func(t *rapid.T) { _, _ = m.c.CommitTransaction(ids.Draw(t, "id")) },
			"abort":  func(t *rapid.T) { _, _ = m.c.AbortTransaction(ids.Draw(t, "id")) },
			// An acknowledged marker lost in a crash (decision 44): a
			// transaction writes to a partition, the data is flushed, the
			// follower leaves the ISR, the commit or abort's marker is
			// acknowledged by the leader alone and never flushed, and the
			// leader crashes dropping its unflushed bytes; the id may begin
			// its next instance at once. What follows (a restart, that
			// instance's sends and commit) is left to the other steps.
			"lose marker": func(t *rapid.T) {
				id, p := ids.Draw(t, "id"), parts.Draw(t, "tp")
				m.begin(id)
				if _, err := m.send(id, p); err != nil {
					return
				}
				if err := m.c.RunFlushCycle(); err != nil {
					t.Fatal(err)
				}
				st, err := m.c.PartitionState(p)
				if err != nil || !st.Online {
					return
				}
				_ = m.c.RemoveFromISR(p, 3-st.Leader)
				if rapid.Bool().Draw(t, "commit") {
					_, _ = m.c.CommitTransaction(id)
				} else {
					_, _ = m.c.AbortTransaction(id)
				}
				_ = m.c.CrashBroker(st.Leader, false)
				if rapid.Bool().Draw(t, "begin again") {
					m.begin(id) // the id's next instance, before the restart
				}
			},
			"replicate": func(t *rapid.T) {
				_, _ = m.c.Replicate(nil, engine.AllFollowers)
			},
			"promote": func(t *rapid.T) {
				p := parts.Draw(t, "tp")
				b := rapid.Int32Range(1, 2).Draw(t, "broker")
				if err := m.c.Promote(p, b); err == nil {
					_ = m.c.Rejoin(p, 3-b)
				}
			},
			"advance": func(t *rapid.T) {
				if err := m.c.Advance(int64(rapid.IntRange(0, 30).Draw(t, "ms"))); err != nil {
					t.Fatal(err)
				}
			},
			"subscribe": func(t *rapid.T) {
				if len(m.cons) >= 3 {
					return
				}
				iso := rapid.SampledFrom([]engine.Isolation{engine.ReadUncommitted, engine.ReadCommitted}).Draw(t, "iso")
				con, err := m.c.NewConsumer(engine.ConsumerOptions{GroupID: "g", Isolation: iso})
				if err != nil {
					t.Fatal(err)
				}
				if err := con.Subscribe([]string{"t"}); err != nil {
					t.Fatal(err)
				}
				m.cons = append(m.cons, con)
			},
			"consumer": func(t *rapid.T) {
				if len(m.cons) == 0 {
					return
				}
				con := rapid.SampledFrom(m.cons).Draw(t, "consumer")
				switch rapid.IntRange(0, 4).Draw(t, "op") {
				case 0:
					_ = con.RefreshAssignment()
				case 1:
					_ = con.Heartbeat()
				case 2:
					recs, _ := con.Poll(rapid.IntRange(0, 5).Draw(t, "max"))
					if con.Isolation() == engine.ReadCommitted {
						m.checkCommitted(t, "consumer poll", recs)
						if vs := invariant.CheckReadCommitted(m.c, recs); len(vs) > 0 {
							t.Fatalf("consumer poll:\n%s", violations(vs))
						}
					}
				case 3:
					_ = con.Commit()
				case 4:
					_ = con.Close()
					m.cons = slices.DeleteFunc(m.cons, func(x *engine.Consumer) bool { return x == con })
				}
			},
			"crash broker": func(t *rapid.T) {
				_ = m.c.CrashBroker(rapid.Int32Range(1, 2).Draw(t, "broker"), rapid.Bool().Draw(t, "keep unflushed"))
			},
			"restart broker": func(t *rapid.T) {
				_, _ = m.c.RestartBroker(rapid.Int32Range(1, 2).Draw(t, "broker"))
			},
			"flush": func(t *rapid.T) {
				if err := m.c.RunFlushCycle(); err != nil {
					t.Fatal(err)
				}
			},
			"reopen": func(t *rapid.T) {
				if rapid.Bool().Draw(t, "crash") {
					_ = m.c.Crash()
				} else if err := m.c.Close(); err != nil {
					t.Fatalf("close: %v", err)
				}
				c, _, err := engine.Open(cfg, m.clk)
				if err != nil {
					t.Fatalf("reopen: %v", err)
				}
				m.c, m.cons = c, nil
				if err := m.mon.Reopened(c, c.TakeEvents()); err != nil {
					t.Fatal(err)
				}
			},
			"": func(t *rapid.T) { m.check(t) },
		})
	})
}

func (m *coordModel) checkCommitted(t *rapid.T, what string, recs []engine.StoredRecord) {
	for _, r := range recs {
		v := string(r.Value)
		if !strings.HasPrefix(v, "x") {
			continue
		}
		var inst, n int
		if _, err := fmt.Sscanf(v, "x%d-%d", &inst, &n); err != nil {
			t.Fatalf("%s: bad value %q", what, v)
		}
		if !m.committedInstance(inst) {
			t.Fatalf("%s returned %q at %s@%d: instance %d of %s is not committed", what, v, tp(r.Topic, r.Partition), r.Offset, inst, m.lastID[inst])
		}
	}
}

func (m *coordModel) check(t *rapid.T) {
	m.mon.Events(m.c.TakeEvents())
	o := invariant.Observe(m.c)
	if vs := m.mon.Check(o); len(vs) > 0 {
		t.Fatalf("invariants broken:\n%s", violations(vs))
	}
	for _, p := range o.Partitions {
		m.checkCommitted(t, "read_committed fetch", p.ReadCommitted)
		if err := m.mon.SawHW(m.c, p.TP); err != nil {
			t.Fatal(err)
		}
	}
}
