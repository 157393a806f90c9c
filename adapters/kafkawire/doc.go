// Package kafkawire is MiniKafka's Kafka wire-protocol listener (chapter
// 11): real Kafka clients (kcat, franz-go, the REPL's kclient) produce to
// and consume from the same engine.Cluster the REPL steps through. It owns
// no data: offsets, fencing, visibility, groups and transactions are the
// engine's; the package frames, decodes, translates and encodes.
//
// # Brokers and ports
//
// Every simulated broker has its own listener (Options.Listeners), and
// Metadata advertises the bound addresses, so a client connects to a
// partition's leader as it would in Kafka. A request about a partition the
// broker does not lead is answered NOT_LEADER_OR_FOLLOWER. While a broker
// is crashed its listener closes every connection without an answer.
//
// # Framing
//
// A request is an int32 size and that many bytes: the request header (API
// key, version, correlation id, client id with an int16 length, and tagged
// fields when the API version is flexible) and the body, decoded with
// franz-go's kmsg. A response is an int32 size, the correlation id, one
// empty tag byte for flexible responses except ApiVersions (whose response
// header is always v0), and the body. Requests on one connection are
// answered in order. A size out of range, a header that does not parse, an
// unknown API key, an unsupported version of any API but ApiVersions, or a
// body that does not parse closes the connection, as a Kafka broker does;
// an ApiVersions request at a version not served gets a v0 answer with
// UNSUPPORTED_VERSION and the versions served (versions.go).
//
// # Record batches
//
// Produce carries record batch v2 (batch.go): one whole batch per
// partition, CRC-32C checked, decompressed when compressed (gzip, snappy,
// lz4, zstd), and turned into an unassigned engine batch without losing
// offsets deltas, timestamps, keys, values (null stays null), headers, the
// producer id, epoch and sequence or the transactional flag. Fetch encodes
// the engine's batches back into v2, control batches with Kafka's control
// record.
//
// # Waiting
//
// One goroutine (adapters/host) owns the cluster and the group rounds.
// Requests that must wait are parked there and asked after every job
// whether they can be answered: an acks=all Produce until its
// acknowledgement settles or the request's timeout passes (then
// REQUEST_TIMED_OUT), a Fetch until data is visible past its offset or
// MaxWait passes, a JoinGroup until every member has rejoined or the
// rebalance timeout passes, a SyncGroup until the leader has sent the
// assignment. Under the REPL's manual clock this is what makes an acks=all
// produce from a real client wait until the learner types replicate.
//
// # Event lines
//
// Options.Trace receives one Event per request outcome, on the owning
// goroutine, in order: who sent what, to which broker, with what result.
// Events carry no port, timing or random id; LevelChatter marks the
// protocol's background (ApiVersions, Metadata, heartbeats, empty fetches,
// offset lookups a client makes by itself) so that a REPL can hide it.
package kafkawire
