// Package producer is MiniKafka's producer (§8): a partitioner, an
// accumulator, record futures, and idempotent identities.
//
// Send chooses a partition — crc32(key) mod partitions for keyed records
// (Kafka uses murmur2), the topic's sticky partition for null keys (per topic
// as in Kafka's KIP-480, moving on after a successful batch) — and queues the
// record in the accumulator, which estimates 39+|key|+|value| bytes per
// record. A partition's records become one batch when they reach batch.size,
// when RunDueFlushes finds linger.ms elapsed on the cluster's clock (the
// cluster's Advance calls it), or on Flush and Close. There is no sender
// thread: nothing flushes unless one of these is called.
//
// Every send returns a Future, a deterministic promise: it settles when its
// batch's acknowledgement does (at once for acks 0 and 1, after replication
// for acks=all). Every future of a failed batch fails with the same error;
// acks=0 futures complete without offsets.
//
// An idempotent producer has a producer id and epoch from
// producer-identities.json (IdentityStore). Its batches carry a base sequence
// per partition, which advances only when a batch is acknowledged. Retry
// resends the last batch exactly as sent (same id, epoch and sequence): the
// partition recognises it as a duplicate of its last batch and answers with
// the original offsets — MiniKafka's dedupe window is one batch (Kafka's is
// five), so an older retry is OUT_OF_ORDER_SEQUENCE. Creating a producer
// with a name that exists bumps the epoch and fences the older instance.
package producer
