// Package replication is MiniKafka's replica set (§9, §10): one per
// partition, holding the leader, the leader epoch, the ISR, the high
// watermark (HW), the pending acks=all waiters and the broker-side producer
// state.
//
// # Follower fetch
//
// Followers fetch only when asked (FetchFollowers, FetchFollower). A step
// copies the leader's stored batch bytes — read with storage ReadBatchesInto,
// validated, appended with AppendRaw, never re-encoded — within
// replica.fetch.max.bytes (the first batch always). Before copying, a
// follower that is diverged (decision 7) or ahead of the leader (decision 12)
// truncates to the HW, and one below the leader's log start restarts its log
// there (decision 11). Then the ISR is refreshed.
//
// # ISR and HW
//
// A follower is in sync when it is not diverged, not ahead of the leader, at
// most replica.lag.max.offsets behind, has fetched within
// replica.lag.time.max.ms and holds the committed prefix (LEO >= HW). The HW
// is the minimum LEO of the ISR and never decreases within a leader epoch.
// acks=all waits until every replica of the ISR captured at append time has
// the batch and the HW covers it, and fails with
// NOT_ENOUGH_REPLICAS_AFTER_APPEND when the ISR falls below
// min.insync.replicas first; a pre-append check refuses with
// NOT_ENOUGH_REPLICAS.
//
// # MiniKafka is not Kafka
//
// Promotion is HW-based, not KIP-101 epoch reconciliation: the promoted
// replica truncates to the HW, the epoch increases, the ISR restarts from the
// new leader, pending waiters fail with FENCED_LEADER_EPOCH, and every other
// replica above the HW is marked diverged so it can never rejoin with
// different bytes at the same offsets. Producer state remembers one batch per
// producer id (Kafka: five). An exact duplicate with acks=all is acknowledged
// only once the HW covers it (decision 5). Producer state is rebuilt from the
// leader's log at open, at creation and at every leader change, so an epoch
// registered but never used in a batch is forgotten then (decision 6, a
// documented limitation: the fenced instance could write again after a
// restart or a promotion until the new one writes).
//
// # Crashed brokers
//
// CrashReplica models a machine failure: the log loses its unflushed bytes
// unless told to keep them, the replica stops fetching, and the leader keeps
// its last known LEO, so a crashed follower stays in the ISR until the lag
// rules remove it. A crashed leader takes the partition offline
// (LEADER_NOT_AVAILABLE) and fails its waiters. RestartReplica brings a
// replica back on its recovered log: above the HW it truncates; a follower
// below the HW leaves the ISR; a leader resumes in a new epoch.
//
// Everything here is deterministic and single-threaded; events report every
// change.
package replication
