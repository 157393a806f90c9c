package engine

import (
	"errors"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/producer"
	"github.com/minikafka-lab/minikafka/engine/replication"
	"github.com/minikafka-lab/minikafka/engine/storage"
	"github.com/minikafka-lab/minikafka/engine/txn"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// LifecycleState is where a cluster stands (§15.2–§15.3).
type LifecycleState uint8

// The lifecycle states: running → closing → closed, or running → failed
// (a terminal error; close and crash still work).
const (
	Running LifecycleState = iota
	Closing
	Closed
	FailedState
)

// String returns "running", "closing", "closed" or "failed".
func (s LifecycleState) String() string {
	switch s {
	case Running:
		return "running"
	case Closing:
		return "closing"
	case Closed:
		return "closed"
	case FailedState:
		return "failed"
	}
	return "unknown"
}

type brokerInfo struct {
	up bool
	// dirFailure says why the broker is down when its log directory
	// failed (logdir.go); "" otherwise.
	dirFailure string
	// lastHeartbeatMs is when the broker last heartbeated: running brokers
	// heartbeat on every clock step, so it is the crash time of a crashed
	// one. fenced is set when the KRaft controller fenced it.
	lastHeartbeatMs int64
	fenced          bool
}

// Cluster is a deterministic, in-process MiniKafka cluster over a data
// directory: brokers, topics, one replica set per partition, producers, and
// the lifecycle. It is the only API the REPL, the labs and the adapters use.
//
// A Cluster is not safe for concurrent use: like etcd's RawNode it is a
// single-threaded state machine. Adapters with goroutines serialize their
// calls.
type Cluster struct {
	cfg       Config
	clock     clock.Clock
	settings  *replication.Settings
	psettings *producer.Settings // the partitioner rule, shared with producers
	env       *replication.Env
	events    *replication.EventLog
	ids       *replication.IDSource

	state    LifecycleState
	terminal error // set by a failed flush cycle; every guarded call returns it
	failNext error // one-shot flush failure injector

	topics  map[string]int32 // topic -> partition count; the replica sets hold the rest
	sets    map[TopicPartition]*replication.ReplicaSet
	brokers map[int32]*brokerInfo
	// uncleanCheckDueMs is when the KRaft controller next looks for
	// leaderless partitions to elect uncleanly
	// (QuorumController.maybeScheduleNextElectUncleanLeaders).
	uncleanCheckDueMs int64

	identities  *producer.IdentityStore
	producers   []*producer.Producer
	partitioner *producer.Partitioner
	// keyless maps the id of each pending ack of a keyless Produce to what
	// moves the sticky partition once it is done (listeners.go).
	keyless map[int64]keylessWait
	txns    Transactions
	coord   *coordination // consumer groups, offsets and transactions (groups.go)
	// diskFailures are log directory failures not applied yet (logdir.go).
	diskFailures []diskFailure
	// unlock releases the data directory's lock (vfs.Lock); Close and
	// Crash call it once everything is closed.
	unlock func() error

	// derived is what each partition's leader log yields when replayed
	// (shutdownstate.go), for the clean-shutdown markers; openedIndexes
	// holds the transaction indexes read from them until openCoordination
	// takes them. Both are made on first use; copies (Snapshot) start
	// without: their first close replays the leader logs.
	derived       map[TopicPartition]*derivedState
	openedIndexes map[TopicPartition]*txn.Index

	// attached names what keeps state about the cluster outside it
	// (Attach), with attachIDs their detach ids; Snapshot refuses while
	// any is. Never copied.
	attached  []string
	attachIDs []int64
	attachSeq int64

	// readBuf is what consumer fetches read leader batches into
	// (consumerFetch): the frames live only for one fetch, whose records
	// are copied out. Never copied by a snapshot.
	readBuf storage.ReadBuffer
}

// ReplicaRecovery is one replica's recovery at open or restart.
type ReplicaRecovery struct {
	TP     TopicPartition
	Broker int32
	Report storage.RecoveryReport
}

// OpenReport lists what recovery did to every replica log, in topic,
// partition and assignment order.
type OpenReport struct {
	Replicas     []ReplicaRecovery
	Coordination CoordinationReport // offsets, groups and the transaction journal (groups.go)
}

// Truncations returns the recoveries that repaired a torn tail.
func (r OpenReport) Truncations() []ReplicaRecovery {
	var out []ReplicaRecovery
	for _, rr := range r.Replicas {
		if rr.Report.Truncation != nil {
			out = append(out, rr)
		}
	}
	return out
}

// Open opens (or creates) the cluster in cfg.DataDir (§5.1): it loads
// metadata.json, opens every replica log with recovery, loads the producer
// identities, and builds one replica set per partition (§9.1: the ISR is the
// leader plus every replica whose LEO equals the leader's, the HW the minimum
// LEO); then it loads offsets.json and groups.json and recovers the
// transaction journal, writing the markers unfinished transactions need
// (§12.5, decision 15; OpenReport.Coordination says what it did). clk is the
// cluster's clock; nil means a manual clock at 0.
//
// The events it leaves for TakeEvents follow the same order, causes first:
// each torn tail that storage recovery cut, then what the replica sets made
// of the logs (a new leader epoch, a diverged follower), then transaction
// recovery.
//
// If anything fails, the logs opened so far are closed and nothing is left
// running.
func Open(cfg Config, clk clock.Clock) (*Cluster, OpenReport, error) {
	var report OpenReport
	if err := cfg.Validate(); err != nil {
		return nil, report, err
	}
	cfg = cfg.clone()
	if clk == nil {
		clk = clock.NewManual(0)
	}
	if err := vfs.MkdirAllSynced(cfg.fs(), cfg.DataDir, 0o755); err != nil {
		return nil, report, kerr.Wrap(kerr.StorageError, err, "create data directory")
	}
	// One cluster per data directory, across processes and within one
	// (as Kafka locks each log directory): the lock is held until Close or
	// Crash.
	unlock, err := vfs.Lock(cfg.fs(), cfg.DataDir)
	if err != nil {
		switch {
		case errors.Is(err, vfs.ErrLocked):
			return nil, report, kerr.Wrap(kerr.IllegalState, err, "%s", kerr.MessageOf(err))
		case vfs.IsReadOnly(err):
			return nil, report, kerr.Wrap(kerr.StorageError, err,
				"data directory %s cannot be written (a read-only file system, or no permission): MiniKafka keeps its lock, its logs and recovery's repairs there; make it writable, or copy it somewhere writable", cfg.DataDir)
		}
		return nil, report, kerr.Wrap(kerr.StorageError, err, "lock data directory %s", cfg.DataDir)
	}
	opened := false
	defer func() {
		if !opened {
			_ = unlock()
		}
	}()
	topics, err := loadMetadata(cfg.fs(), cfg.DataDir)
	if err != nil {
		return nil, report, err
	}
	c := &Cluster{
		cfg: cfg, clock: clk,
		settings:  &replication.Settings{},
		psettings: &producer.Settings{},
		events:    &replication.EventLog{},
		ids:       &replication.IDSource{},
		topics:    map[string]int32{},
		sets:      map[TopicPartition]*replication.ReplicaSet{},
		brokers:   map[int32]*brokerInfo{},
		txns:      noTransactions{},
	}
	c.applySettings()
	c.env = &replication.Env{Clock: clk, Events: c.events, IDs: c.ids, Settings: c.settings, DiskFailed: c.noteDiskFailure, Dispatch: c.dispatcher()}
	c.partitioner = producer.NewPartitionerWith(c.psettings)
	c.partitioner.Available = c.availablePartitions
	for _, b := range cfg.BrokerIDs {
		c.brokers[b] = &brokerInfo{up: true}
	}
	c.uncleanCheckDueMs = clk.NowMs() + cfg.UncleanLeaderElectionIntervalMs

	// Step 2: open every replica log with the partition's metadata epoch.
	logs := map[TopicPartition]map[int32]*storage.Log{}
	closeAll := func() {
		for _, m := range logs {
			for _, l := range m {
				l.Close()
			}
		}
	}
	// Each broker directory's clean-shutdown file (written by the last
	// Close) is read and deleted once, before any log in it opens.
	markers := map[int32]*storage.DirMarkers{}
	for _, t := range topics {
		for _, p := range t.Partitions {
			m := map[int32]*storage.Log{}
			logs[p.TP()] = m
			for _, b := range p.Replicas {
				if markers[b] == nil {
					if markers[b], err = storage.TakeDirMarkers(cfg.fs(), filepath.Join(cfg.DataDir, brokerDirName(b))); err != nil {
						closeAll()
						return nil, report, err
					}
				}
				l, rep, err := storage.OpenWith(c.replicaDir(p.TP(), b), c.storageOptions(), p.LeaderEpoch, markers[b])
				if err != nil {
					closeAll()
					return nil, report, err
				}
				m[b] = l
				report.Replicas = append(report.Replicas, ReplicaRecovery{TP: p.TP(), Broker: b, Report: rep})
				if rep.Truncation != nil {
					// Announced now, before what it causes in the replica
					// sets below (a new epoch, a diverged follower).
					c.events.Emit(RecoveryTruncated{TP: p.TP(), Broker: b, Truncation: *rep.Truncation})
				}
				if c.brokers[b] == nil {
					c.brokers[b] = &brokerInfo{up: true}
				}
			}
		}
	}
	// Step 3: producer identities, then one replica set per partition. The
	// offset store, the groups and the transaction journal come last
	// (openCoordination): transaction recovery needs the replica sets.
	if c.identities, err = producer.OpenIdentityStore(cfg.fs(), cfg.DataDir); err != nil {
		closeAll()
		return nil, report, err
	}
	newEpochs := false
	for _, t := range topics {
		c.topics[t.Name] = int32(len(t.Partitions))
		for _, p := range t.Partitions {
			// After a clean shutdown the producer state comes from the
			// leader log's marker, not from replaying the log.
			producers := c.openedState(p.TP(), logs[p.TP()], p.Leader)
			rs, err := replication.NewReplicaSetFrom(c.env, p.TP(), p.Replicas, p.Leader, p.LeaderEpoch, logs[p.TP()], producers)
			if err != nil {
				closeAll()
				return nil, report, err
			}
			c.sets[p.TP()] = rs
			if rs.LeaderEpoch() != p.LeaderEpoch {
				// The leader lost records a follower holds: it starts a new
				// epoch (replication.NewReplicaSet), saved below.
				newEpochs = true
			}
		}
	}
	if newEpochs {
		if err := saveMetadata(cfg.fs(), cfg.DataDir, c.metadataList()); err != nil {
			closeAll()
			return nil, report, err
		}
	}
	if err := c.openCoordination(&report); err != nil {
		closeAll()
		return nil, report, err
	}
	c.state = Running
	c.unlock, opened = unlock, true
	c.drainDiskFailures() // recovery markers that a disk refused
	return c, report, nil
}

func (c *Cluster) applySettings() {
	*c.settings = replication.Settings{
		MinInsyncReplicas: c.cfg.MinInsyncReplicas,
		Lag:               replication.LagConfig{MaxOffsets: c.cfg.ReplicaLagMaxOffsets, MaxTimeMs: c.cfg.ReplicaLagTimeMaxMs},
		FetchMaxBytes:     c.cfg.ReplicaFetchMaxBytes,
		Rules:             c.cfg.replicationRules(),
	}
	*c.psettings = c.cfg.producerSettings()
}

func (c *Cluster) storageOptions() storage.Options {
	o := storage.DefaultOptions()
	o.SegmentBytes = c.cfg.SegmentBytes
	o.IndexIntervalBytes = c.cfg.IndexIntervalBytes
	o.FS = c.cfg.fs()
	return o
}

func brokerDirName(b int32) string { return "broker-" + strconv.Itoa(int(b)) }

func (c *Cluster) replicaDir(tp TopicPartition, b int32) string {
	return filepath.Join(c.cfg.DataDir, brokerDirName(b), tp.String())
}

// guard returns the stored terminal error, or "cluster is closed" unless the
// cluster is running.
func (c *Cluster) guard() error {
	if c.terminal != nil {
		return c.terminal
	}
	if c.state != Running {
		return kerr.State("cluster is closed")
	}
	return nil
}

// guardFlush is guard for producer flushes, which Close runs while the
// cluster is closing.
func (c *Cluster) guardFlush() error {
	if c.terminal == nil && c.state == Closing {
		return nil
	}
	return c.guard()
}

// State reports running, closing, closed or failed.
func (c *Cluster) State() LifecycleState { return c.state }

// TerminalError is the error that failed the cluster, or nil.
func (c *Cluster) TerminalError() error { return c.terminal }

// Config returns the cluster's configuration.
func (c *Cluster) Config() Config { return c.cfg.clone() }

// DataDir is the cluster's data directory.
func (c *Cluster) DataDir() string { return c.cfg.DataDir }

// FS is the file system the cluster's data directory is on (Config.FS; the
// disk when none was given): the door for tools that read or damage its
// files, so that they work on a cluster in memory too.
func (c *Cluster) FS() vfs.FS { return c.cfg.fs() }

// Now is the cluster clock's time in milliseconds.
func (c *Cluster) Now() int64 { return c.clock.NowMs() }

// Clock returns the cluster's clock.
func (c *Cluster) Clock() clock.Clock { return c.clock }

// TakeEvents drains the event queue: everything the calls since the last
// TakeEvents changed, in order.
func (c *Cluster) TakeEvents() []Event { return c.events.Take() }

// SetConfig changes one knob by its Kafka name. Knobs the cluster reads live
// (min.insync.replicas, the replica lag and fetch knobs, session.timeout.ms,
// the rules) apply at once; the others (segment.bytes, index.interval.bytes)
// are stored in Config() and take effect when the cluster is opened again,
// which needsReopen reports.
func (c *Cluster) SetConfig(name, value string) (needsReopen bool, err error) {
	if err := c.guard(); err != nil {
		return false, err
	}
	f, err := findField(name)
	if err != nil {
		return false, err
	}
	next := c.cfg.clone()
	if err := next.Set(name, value); err != nil {
		return false, err
	}
	c.cfg = next
	if f.key.NeedsReopen {
		return true, nil
	}
	c.applySettings()
	return false, nil
}

// FailNextFlush arms a one-shot failure: the next RunFlushCycle fails with
// err, which becomes the cluster's terminal error (§15.3).
func (c *Cluster) FailNextFlush(err error) error {
	if err == nil {
		return kerr.Argument("an injected failure needs an error")
	}
	c.failNext = err
	return nil
}

// RunFlushCycle fires an armed failure injector, then fsyncs every running
// replica log (and, with consumer groups, flushes the offset store). If any
// step fails, the error becomes the terminal error: the state becomes failed
// and every guarded call returns that error from then on; Close and Crash
// still work.
func (c *Cluster) RunFlushCycle() error {
	if err := c.guard(); err != nil {
		return err
	}
	err := c.failNext
	c.failNext = nil
	if err == nil {
		err = c.flushLogs()
	}
	if err == nil {
		err = c.flushCoordination()
	}
	if err != nil {
		c.terminal = err
		c.state = FailedState
	}
	return err
}

func (c *Cluster) flushLogs() error {
	for _, l := range c.runningLogs() {
		if err := l.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// runningLogs lists the logs of every running replica, partitions in topic,
// partition order and replicas in assignment order.
func (c *Cluster) runningLogs() []*storage.Log {
	var out []*storage.Log
	for _, tp := range c.sortedTPs() {
		rs := c.sets[tp]
		for _, b := range rs.Assignment() {
			if l := rs.Replica(b).Log(); l != nil {
				out = append(out, l)
			}
		}
	}
	return out
}

// fail makes err the terminal error (a broken invariant between memory and
// disk, such as metadata that could not be saved after a promotion).
func (c *Cluster) fail(err error) error {
	if c.terminal == nil {
		c.terminal = err
		c.state = FailedState
	}
	return err
}

// Close shuts the cluster down gracefully (§15.2, decision 25). It is
// idempotent and never hangs:
//
//  1. the state becomes closing;
//  2. every producer closes, flushing its pending records (their appends
//     happen now; acks=all batches may stay pending);
//  3. every acks=all waiter still pending fails with REQUEST_TIMED_OUT: the
//     batch stays in the leader log, but nothing will replicate it now;
//  4. every consumer closes (group members leave their groups), the offset
//     store is flushed and the transaction journal closed;
//  5. every running replica log is flushed and closed with a clean-shutdown
//     marker (storage.ShutdownAll: each changed file fsynced once, all logs
//     together, the markers in one file per broker directory);
//  6. the state becomes closed.
//
// A failed cluster can still be closed; its terminal error stays.
func (c *Cluster) Close() error {
	defer c.drainDiskFailures()
	if c.state == Closed || c.state == Closing {
		return nil
	}
	c.state = Closing
	for _, p := range c.producers {
		p.Close()
	}
	for _, tp := range c.sortedTPs() {
		c.sets[tp].FailPending(kerr.New(kerr.RequestTimedOut,
			"cluster closed before %s's ISR acknowledged the write; the batch stays in the leader log, unacknowledged", tp))
	}
	errs := []error{c.closeCoordination()}
	c.saveShutdownStates()
	// One step for every log's files, one clean-shutdown file per broker
	// directory (storage.ShutdownAll): on the disk a few syncfs calls
	// rather than several fsyncs and a marker file per replica log.
	errs = append(errs, storage.ShutdownAll(c.runningLogs())...)
	c.state = Closed
	errs = append(errs, c.release())
	return errors.Join(errs...)
}

// Crash stops the cluster as a process crash would (§15.2). It is idempotent:
//
//  1. every producer crashes: its pending futures are cancelled (neither done
//     nor failed) and its accumulator is dropped;
//  2. every pending acks=all waiter is cancelled;
//  3. consumers stop without leaving their groups: they expire after
//     session.timeout.ms, even across a restart (decision 26);
//  4. every running replica log closes without fsync and without a
//     clean-shutdown marker; bytes already handed to the OS stay
//     (storage Crash(true)), unlike a broker crash, which models a machine
//     failure;
//  5. the state becomes closed.
func (c *Cluster) Crash() error {
	if c.state == Closed {
		return nil
	}
	for _, p := range c.producers {
		p.Crash()
	}
	for _, tp := range c.sortedTPs() {
		c.sets[tp].CancelPending()
	}
	errs := []error{c.crashCoordination()}
	for _, l := range c.runningLogs() {
		errs = append(errs, l.Crash(true))
	}
	c.state = Closed
	errs = append(errs, c.release())
	return errors.Join(errs...)
}

// sortedTPs lists every partition in topic, partition order.
func (c *Cluster) sortedTPs() []TopicPartition {
	out := make([]TopicPartition, 0, len(c.sets))
	for tp := range c.sets {
		out = append(out, tp)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Less(out[j]) })
	return out
}

// sortedBrokers lists every known broker id, ascending.
func (c *Cluster) sortedBrokers() []int32 {
	out := make([]int32, 0, len(c.brokers))
	for id := range c.brokers {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// release gives the data directory's lock back (once).
func (c *Cluster) release() error {
	if c.unlock == nil {
		return nil
	}
	err := c.unlock()
	c.unlock = nil
	if err != nil {
		return kerr.Wrap(kerr.StorageError, err, "release the lock of %s", c.cfg.DataDir)
	}
	return nil
}
