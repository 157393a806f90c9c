// Package txn is MiniKafka's transaction coordinator (§12 of the spec): the
// transaction state machine, its CRC-framed journal (transactions.journal),
// the per-partition transaction index that decides read_committed visibility
// from the log's own control markers, and the last stable offset.
//
// # Visibility comes from the log
//
// A transactional data batch for id T at offset o in a partition is
// committed iff the first control marker for T in that partition at an
// offset above o is COMMIT; it is aborted if that marker is ABORT, and open
// while there is none (decision 14, as Kafka does). So reusing an id never
// changes what older batches mean: their markers are already in the log.
// The Index is fed the metas of a partition's batches in offset order and
// answers these questions without reading records.
//
// # Instances and runs
//
// Batches carry no instance, so a run (an id's batches up to its marker)
// whose marker a crash lost would be closed by the next marker of the same
// id, whichever instance writes it. An instance therefore owns, in each
// partition, only the run that starts at the first offset it wrote there
// (Manager.Owns, decision 44). Any other open run of its id is an orphan
// of an earlier instance: it gets its own marker (OrphanOutcome), the
// instance's commit or abort does not mark it (Manager.Need), and the
// cluster refuses the instance's sends to that partition until it is
// closed. The Manager remembers, per id and partition, the run the last
// finished instance left there (rebuilt from the journal at Open), so that
// marker carries that instance's outcome.
//
// # Two-phase completion
//
// The package never touches a log. The cluster drives commit and abort:
// PrepareCommit/PrepareAbort journal PREPARE_* and return the partitions that
// need markers; the cluster appends them (acks=all) and, once every marker is
// acknowledged, calls CompleteCommit/CompleteAbort. A failed marker leaves the
// transaction in PREPARE_*, and the same outcome may be retried (decision 16).
//
// # Last stable offset
//
// LSO(tp) = min(HW, the first offset on tp of every unstable transaction the
// coordinator knows, the first offset of every run in tp's index that is open
// or whose marker the HW has not passed yet) — decision 18 plus Kafka's rule
// that a transaction stays unstable until its marker is replicated.
package txn
