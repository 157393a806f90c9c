// Package engine is MiniKafka's cluster: the one API the REPL, the labs and
// the adapters use. A Cluster models a small Kafka cluster in process,
// deterministically, over real files in a data directory (on Config.FS, an
// engine/vfs file system: the disk by default, memory in tests):
//
//	<data>/metadata.json               topics, replicas, leaders, leader epochs (§5.3)
//	<data>/producer-identities.json    idempotent producer ids and epochs (§8.5.1)
//	<data>/offsets.json                committed offsets per group (§11.6, engine/group)
//	<data>/groups.json                 group generations, members, assignments (decision 26, engine/group)
//	<data>/groups.log                  membership changes since groups.json, one line each (engine/group)
//	<data>/transactions.journal        one CRC-framed line per transaction state change (§12.2, engine/txn)
//	<data>/broker-<id>/<topic>-<p>/    one partition log per replica (engine/storage)
//
// # The model
//
// Brokers are ids in one process. Every partition has a replica set
// (engine/replication): a leader, followers, an ISR, a high watermark (HW),
// pending acks=all waiters and broker-side producer state. Producers
// (engine/producer) partition, batch and append through the cluster. Nothing
// runs in the background: followers fetch only when Replicate is called,
// linger flushes and ISR lag run only inside Advance, and every call records
// what it changed as plain-value events (TakeEvents) — the trace a learner
// reads after each command. Same calls, same data directory contents, same
// events: the engine never reads the wall clock (an injected clock.Clock,
// a manual clock in the tool), starts no goroutine and iterates maps in
// sorted order.
//
// Waiting is a value: an acks=all append returns a pending Ack, a producer
// send a pending Future. They are single-threaded promises with small ids,
// settled by a later step (a fetch round, a promotion, a close) and with
// synchronous continuations. The continuations are plain data
// (replication.Listener: a kind, an owner id, a reference) that the
// cluster's dispatcher runs, never closures, so a snapshot of the cluster
// (Snapshot, Restore) copies them and a restored cluster owns its waiters.
//
// # MiniKafka is not Kafka
//
// The defaults follow the MiniKafka specification, which deliberately differs
// from Apache Kafka in ways a learner should know:
//
//   - promotion keeps only the committed prefix: the new leader truncates to
//     the HW, and replicas above it are marked diverged and truncate before
//     they fetch again (Kafka reconciles with leader epochs, KIP-101/279);
//   - keyed records are placed by crc32 (Kafka: murmur2);
//   - an idempotent producer's duplicates are recognised for its last batch
//     only (Kafka remembers five);
//   - batches are MKB1 frames, not record batch v2;
//   - the ISR also has an offset-lag limit (replica.lag.max.offsets), a
//     deterministic teaching knob; promotion is manual.
//
// # Describing
//
// The cluster is the only door: callers never hold a live log, replica set
// or coordinator. They read plain values copied out of the cluster —
// PartitionState, Brokers, DescribeLog, LogIndex, LogBatches, DescribeGroup,
// DescribeTransaction — which changing cannot alias into its state, and
// describing never changes anything nor emits an event. Package
// engine/invariant checks the cluster's properties through them alone.
//
// # Advance
//
// Advance(ms) moves the manual clock, then runs what is due in a fixed
// order: each open producer's due linger flushes (producers in creation
// order, partitions sorted), then the ISR refresh of every partition in
// topic-partition order, then consumer-group session expiry (DueOrder lists
// the steps).
//
// # Two kinds of crash
//
// Cluster.Crash is a process crash: producers lose what they buffered and
// pending handles are cancelled, but every byte the logs handed to the OS
// survives (the page cache outlives the process; every acknowledged append
// was written to its segment file before it was acknowledged), so only the
// clean-shutdown marker is missing and recovery rescans the active segments.
//
// Cluster.CrashBroker is a machine failure of one broker: its logs lose the
// bytes appended since their last flush (unless keepUnflushed), its replicas
// stop fetching and serving, and partitions it led go offline
// (LEADER_NOT_AVAILABLE) until an in-sync replica is promoted or the broker
// restarts. A crashed follower stays in the ISR until replica.lag.time.max.ms
// passes on the clock. RestartBroker reopens its logs with real recovery; a
// replica above the HW truncates to it, and a partition the broker led starts
// a new epoch, led by an in-sync replica that kept what the restarted leader
// lost, if there is one.
//
// # Lifecycle
//
// A cluster is running, closing, closed or failed. Close flushes producers,
// fails acks=all waiters that can no longer complete (REQUEST_TIMED_OUT,
// decision 25: close never hangs) and closes the logs with a clean-shutdown
// marker. RunFlushCycle fsyncs every log; if it fails (FailNextFlush injects
// a one-shot failure) the error becomes terminal and every guarded call
// returns it.
//
// # Snapshots
//
// Cluster.Snapshot copies the whole state between two calls into an
// immutable Snapshot: the data directory's files in a vfs.Mem (a clone in
// O(files) for a cluster in memory, a copy of the directory for one on the
// disk) and everything in memory, copied by each package's clone methods
// (replication.Copier keeps an object reachable twice one object in the
// copy; what never changes once made is shared). Restore gives an
// independent running cluster on a fresh clone of those files, RestoreOn
// one on a directory of any file system; each behaves as the original
// would from the snapshot on: the same calls give the same events,
// descriptions and file bytes. Producers, Consumers, Producer, Consumer,
// Ack, Future and Completion find a restored cluster's producers,
// consumers and pending handles again. Snapshot refuses what it cannot copy
// faithfully: a cluster attached to an adapter (Attach), a clock that is
// not manual, a file system with injected faults in force.
package engine
