// Package invariant checks the properties a MiniKafka cluster keeps, each
// under a stable name, reading the cluster only through its public
// description API (PartitionState, Brokers, Fetch, LogBatches, ListGroups,
// DescribeGroup), never its live logs or replica sets. The engine's
// state-machine tests check them after every random step; a fault-schedule
// explorer names them to say what a schedule broke.
//
// Observe takes an Observation of a running cluster (it changes nothing and
// emits no event); Check checks the properties that hold in every single
// state. A Monitor follows one cluster through a history and also checks
// the temporal ones, given a few hooks: Acknowledged for a write the engine
// promised to keep, SawHW for a high watermark a consumer could see, Events
// for the events the caller took, Reopened after a cluster reopen (with the
// events Open left).
//
// # Properties
//
// Single-state (Check, Observation.Check):
//
//   - hw-le-isr-leo: the HW is at most the LEO of every ISR member (a
//     crashed member counts with its last known LEO).
//   - leader-in-isr: the leader is a member of the ISR (a partition the
//     KRaft controller left without a leader has none to check).
//   - isr-not-diverged: no ISR member is marked diverged (awaiting
//     truncation after a promotion, decision 7).
//   - no-read-above-hw: a read_uncommitted fetch from the log start returns
//     nothing at or above the HW.
//   - logs-agree: below the HW, every running follower that is not
//     diverged holds the same bytes as the leader for every batch both hold
//     (same base offset, same frame). A follower that will reconcile by
//     leader epoch before it fetches (truncation=leader-epoch) is left out,
//     as a diverged one is.
//   - isr-agrees-below-own-hw: every running ISR member that has
//     reconciled holds, below its own HW, exactly the leader's batches. With
//     follower.hw=fetch (rules=kafka) a follower's HW is the one it learned
//     from its fetches: what it counts as committed must be in the leader's
//     log. Kafka before KIP-101 broke it.
//   - read-committed-clean: a read_committed fetch returns nothing at or
//     above the LSO, and no record of an aborted or still open transaction:
//     each transactional record's batch is followed, below the HW, by a
//     COMMIT marker as the first marker of its transactional id.
//   - lso-le-hw: the last stable offset is at most the HW.
//   - committed-le-hw: every committed offset is at most its partition's
//     HW. It holds for offsets consumers commit from positions they reached
//     by reading; explicit offsets (Consumer.CommitOffsets,
//     CommitGroupOffsets, TransactionSendOffsets) are the caller's word, and
//     the engine, like Kafka, does not check them against the HW. A Monitor
//     also excuses the offsets a HW drop left above the HW (below).
//   - assignment-disjoint: no group assigns a partition to two members.
//   - observable: the description API answers (a read that fails, such as
//     a segment damaged with corrupt until recovery cuts it, is reported
//     here rather than hiding the other properties).
//
// Online-only: no-read-above-hw, logs-agree, read-committed-clean and
// lso-le-hw are checked on partitions whose leader is running.
//
// Temporal (Monitor):
//
//   - hw-monotone: within one leader epoch the HW never decreases. A reopen
//     recomputes the HW as the minimum LEO over the replicas (decision 8),
//     so Reopened starts every partition's history afresh.
//   - epoch-monotone: a partition's leader epoch never decreases, reopens
//     included.
//   - acked-not-lost: a record acknowledged to its producer (Ack done) with
//     acks=all while min.insync.replicas was at least 2 (Promised) stays
//     readable at its offset, with its key and value, whenever its
//     partition's leader is running: below the HW through a
//     read_uncommitted fetch, at or above the HW (only after a reopen
//     recomputed the HW) in the leader's log. The promise is the engine's:
//     such a record is on at least two replicas when acknowledged, and it
//     is given up only when the engine itself says more failed than that
//     covers. The Monitor stops holding a record when
//     1. a data_lost event names its partition at or below its offset:
//     every in-sync copy lost it in machine failures (broker crashes that
//     dropped unflushed bytes) and the partition restarted without it;
//     2. a reopen left it at or above the HW the partition opened with
//     (decision 8: the minimum LEO over the replicas, so a replica that
//     lost unflushed bytes pulls the HW down; and as opening keeps the
//     metadata's leader, records only its followers held are given up
//     when that leader lost them);
//     3. retention deleted it (its offset is below the log start; decision
//     10, retention is a log-level tool);
//     4. a compaction of its partition ran and the record has a key (a
//     later record of the same key may supersede it).
//   - committed-not-lost: every record below a HW that SawHW recorded stays
//     readable at its offset, with its key and value, whenever the
//     partition's leader is running. The exceptions are those of
//     acked-not-lost: a data_lost event (records at or above its offset),
//     a reopen (records at or above the HW it opened with), retention (below
//     the log start) and compaction (keyed records).
//   - clean-election-keeps-committed: when a partition's HW is below one a
//     consumer saw because a new leader took over (under follower.hw=fetch
//     a new leader starts from the HW it learned as a follower), every
//     record the consumer could see is still in the new leader's log, at
//     its offset: a clean election loses no committed record (KIP-101). An
//     unclean election, and an ISR member elected after it lost records to
//     a machine failure, report the loss with a data_lost event, which
//     excuses it.
//
// After a HW drop (a data_lost event, a reopen), consumers may hold
// positions above the new HW, and commit them. The Monitor then excuses
// committed offsets on that partition up to the highest HW it had seen
// before the drop; a committed offset above that is still a violation.
package invariant
