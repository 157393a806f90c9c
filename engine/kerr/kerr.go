// Package kerr holds MiniKafka's typed errors: a stable upper-snake code (the
// spec's error catalogue, §2 of minikafka-semantics.md), a free-text message, and
// whether a client may retry.
//
// Every error the engine returns to a caller is a *Error or wraps one, so that
// callers branch on codes and never on message text:
//
//	if errors.Is(err, kerr.NotEnoughReplicas) { ... }
//	code := kerr.CodeOf(err) // "NOT_ENOUGH_REPLICAS"
//
// Two codes are not domain errors in the spec's sense: InvalidArgument (the
// reference's "argument error") and IllegalState (its "state error"). They
// exist so that every failure a learner sees has a code too.
package kerr

import (
	"errors"
	"fmt"
)

// Code is a stable error code such as "NOT_ENOUGH_REPLICAS". A Code is itself an
// error so that errors.Is(err, kerr.NotEnoughReplicas) works on any *Error.
type Code string

// Error returns the code itself.
func (c Code) Error() string { return string(c) }

// The domain codes of the spec's catalogue (§2.1), Kafka's names where Kafka has
// one, plus the codes this project adds for per-broker failure and adapters.
const (
	OffsetOutOfRange             Code = "OFFSET_OUT_OF_RANGE"
	InvalidRecord                Code = "INVALID_RECORD"
	CorruptBatch                 Code = "CORRUPT_BATCH"
	CorruptIndex                 Code = "CORRUPT_INDEX"
	StorageError                 Code = "STORAGE_ERROR"
	TopicAlreadyExists           Code = "TOPIC_ALREADY_EXISTS"
	UnknownTopic                 Code = "UNKNOWN_TOPIC"
	UnknownPartition             Code = "UNKNOWN_PARTITION"
	ProducerBufferFull           Code = "PRODUCER_BUFFER_FULL"
	RebalanceInProgress          Code = "REBALANCE_IN_PROGRESS"
	IllegalGeneration            Code = "ILLEGAL_GENERATION"
	NotPartitionOwner            Code = "NOT_PARTITION_OWNER"
	UnknownMember                Code = "UNKNOWN_MEMBER"
	NotEnoughReplicas            Code = "NOT_ENOUGH_REPLICAS"
	NotEnoughReplicasAfterAppend Code = "NOT_ENOUGH_REPLICAS_AFTER_APPEND"
	NotInSyncReplica             Code = "NOT_IN_SYNC_REPLICA"
	FencedLeaderEpoch            Code = "FENCED_LEADER_EPOCH"
	ProducerFenced               Code = "PRODUCER_FENCED"
	OutOfOrderSequence           Code = "OUT_OF_ORDER_SEQUENCE"
	InvalidRequest               Code = "INVALID_REQUEST"
	FrameTooLarge                Code = "FRAME_TOO_LARGE"

	// ConcurrentTransactions: Kafka's CONCURRENT_TRANSACTIONS (error 51), a
	// retriable refusal while an earlier operation on the same transactional
	// id is unfinished: here, a transactional send to a partition that holds
	// an earlier instance's batches still waiting for their marker.
	ConcurrentTransactions Code = "CONCURRENT_TRANSACTIONS"
	// LeaderNotAvailable: the partition's leader is on a crashed broker; produce
	// and fetch are refused until a promotion (per-broker failure, decisions.md).
	LeaderNotAvailable Code = "LEADER_NOT_AVAILABLE"
	// BrokerNotAvailable: the operation needs a broker that is crashed.
	BrokerNotAvailable Code = "BROKER_NOT_AVAILABLE"
	// RequestTimedOut: a waiting request gave up (the JSON/TCP adapter's
	// acks=all, and under Kafka's HW rule an acks=all waiter after
	// request.timeout.ms).
	RequestTimedOut Code = "REQUEST_TIMED_OUT"
	// NotLeaderOrFollower: Kafka's answer to a pending acks=all request whose
	// partition changed leader (errors=kafka).
	NotLeaderOrFollower Code = "NOT_LEADER_OR_FOLLOWER"
	// InvalidProducerEpoch: Kafka's answer, since 2.7, to a batch carrying a
	// stale producer epoch at a partition (errors=kafka); PRODUCER_FENCED is
	// then the transaction coordinator's.
	InvalidProducerEpoch Code = "INVALID_PRODUCER_EPOCH"
	// Internal: an unexpected failure that is not a domain outcome.
	Internal Code = "INTERNAL"

	// InvalidArgument is the reference's "argument error": a bad value passed by
	// the caller. It changes nothing.
	InvalidArgument Code = "INVALID_ARGUMENT"
	// IllegalState is the reference's "state error": the object cannot do this
	// now ("cluster is closed", "transaction t1 is complete_commit").
	IllegalState Code = "ILLEGAL_STATE"
)

// Info describes a code: whether a client may retry it and what it means.
type Info struct {
	Code        Code
	Retriable   bool
	Domain      bool // false for InvalidArgument and IllegalState
	Description string
}

var catalogue = []Info{
	{OffsetOutOfRange, false, true, "The requested offset is outside the range the log retains."},
	{InvalidRecord, false, true, "The record or batch breaks an invariant of the log format."},
	{CorruptBatch, false, true, "A stored or received batch failed validation (magic, length, CRC or layout)."},
	{CorruptIndex, false, true, "An offset index file is damaged."},
	{StorageError, false, true, "A file in the data directory cannot be read, written or trusted."},
	{TopicAlreadyExists, false, true, "A topic with this name already exists."},
	{UnknownTopic, true, true, "This topic does not exist."},
	{UnknownPartition, true, true, "This partition does not exist."},
	{ProducerBufferFull, true, true, "The producer's accumulator would exceed buffer.memory."},
	{RebalanceInProgress, true, true, "The group is rebalancing (or empty); rejoin before committing."},
	{IllegalGeneration, false, true, "The generation id does not match the group's current generation."},
	{NotPartitionOwner, false, true, "The member does not own this partition in the current generation."},
	{UnknownMember, false, true, "The member (or group) is not known to the coordinator."},
	{NotEnoughReplicas, true, true, "The ISR is smaller than min.insync.replicas, so an acks=all write was refused before appending."},
	{NotEnoughReplicasAfterAppend, true, true, "The write reached the leader's log but the ISR fell below min.insync.replicas before it was acknowledged; its outcome is unknown, so retry idempotently."},
	{NotInSyncReplica, false, true, "Only a member of the ISR can be promoted to leader."},
	{FencedLeaderEpoch, false, true, "The request carried a leader epoch that is no longer current."},
	{ProducerFenced, false, true, "A newer instance of this producer (a higher epoch) exists."},
	{OutOfOrderSequence, false, true, "The batch's sequence number is not the next one the broker expects."},
	{InvalidRequest, false, true, "The request is malformed."},
	{FrameTooLarge, false, true, "The request frame exceeds the maximum frame size."},
	{ConcurrentTransactions, true, true, "An earlier instance of this transaction id still has batches without a marker in the partition; retry once their marker is written."},
	{LeaderNotAvailable, true, true, "The partition's leader is on a crashed broker; promote an in-sync replica or restart the broker."},
	{BrokerNotAvailable, true, true, "The broker is crashed."},
	{RequestTimedOut, true, true, "The request waited too long for replication."},
	{NotLeaderOrFollower, true, true, "The broker no longer leads the partition; the client refreshes its metadata and retries."},
	{InvalidProducerEpoch, false, true, "The batch carries a producer epoch older than the one the partition knows."},
	{Internal, false, true, "An unexpected internal error."},
	{InvalidArgument, false, false, "An argument is not valid."},
	{IllegalState, false, false, "The operation is not allowed in the current state."},
}

// KafkaCode is an error as Apache Kafka's protocol names and numbers it
// (clients/src/main/java/org/apache/kafka/common/protocol/Errors.java).
type KafkaCode struct {
	Name   string
	Number int16
}

// kafkaCodes maps every code with a Kafka counterpart to it. A code missing
// here is MiniKafka's own (NOT_PARTITION_OWNER, CORRUPT_INDEX, ...).
var kafkaCodes = map[Code]KafkaCode{
	OffsetOutOfRange:             {"OFFSET_OUT_OF_RANGE", 1},
	CorruptBatch:                 {"CORRUPT_MESSAGE", 2},
	UnknownTopic:                 {"UNKNOWN_TOPIC_OR_PARTITION", 3},
	UnknownPartition:             {"UNKNOWN_TOPIC_OR_PARTITION", 3},
	LeaderNotAvailable:           {"LEADER_NOT_AVAILABLE", 5},
	NotLeaderOrFollower:          {"NOT_LEADER_OR_FOLLOWER", 6},
	RequestTimedOut:              {"REQUEST_TIMED_OUT", 7},
	BrokerNotAvailable:           {"BROKER_NOT_AVAILABLE", 8},
	NotEnoughReplicas:            {"NOT_ENOUGH_REPLICAS", 19},
	NotEnoughReplicasAfterAppend: {"NOT_ENOUGH_REPLICAS_AFTER_APPEND", 20},
	IllegalGeneration:            {"ILLEGAL_GENERATION", 22},
	UnknownMember:                {"UNKNOWN_MEMBER_ID", 25},
	RebalanceInProgress:          {"REBALANCE_IN_PROGRESS", 27},
	TopicAlreadyExists:           {"TOPIC_ALREADY_EXISTS", 36},
	ConcurrentTransactions:       {"CONCURRENT_TRANSACTIONS", 51},
	InvalidRequest:               {"INVALID_REQUEST", 42},
	OutOfOrderSequence:           {"OUT_OF_ORDER_SEQUENCE_NUMBER", 45},
	InvalidProducerEpoch:         {"INVALID_PRODUCER_EPOCH", 47},
	StorageError:                 {"KAFKA_STORAGE_ERROR", 56},
	FencedLeaderEpoch:            {"FENCED_LEADER_EPOCH", 74},
	InvalidRecord:                {"INVALID_RECORD", 87},
	ProducerFenced:               {"PRODUCER_FENCED", 90},
	Internal:                     {"UNKNOWN_SERVER_ERROR", -1},
}

// Kafka returns the Kafka error that corresponds to a code, and false for a
// code Kafka does not have.
func Kafka(c Code) (KafkaCode, bool) {
	k, ok := kafkaCodes[c]
	return k, ok
}

var byCode = func() map[Code]Info {
	m := make(map[Code]Info, len(catalogue))
	for _, i := range catalogue {
		m[i.Code] = i
	}
	return m
}()

// Lookup returns what is known about a code.
func Lookup(c Code) (Info, bool) {
	i, ok := byCode[c]
	return i, ok
}

// Codes lists every known code in catalogue order.
func Codes() []Info { return append([]Info(nil), catalogue...) }

// Error is a MiniKafka error: a code and a message, plus the structured fields
// some codes carry.
type Error struct {
	Code    Code
	Message string

	// OffsetOutOfRange carries the requested offset and the retained range.
	Requested, Start, End int64
	// OutOfOrderSequence carries the expected and actual base sequence.
	Expected, Actual int64

	cause error
}

// Error renders "CODE: message".
func (e *Error) Error() string {
	if e.Message == "" {
		return string(e.Code)
	}
	return string(e.Code) + ": " + e.Message
}

// Is reports whether target is this error's code, so errors.Is(err, kerr.X) works.
func (e *Error) Is(target error) bool {
	c, ok := target.(Code)
	return ok && c == e.Code
}

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.cause }

// Retriable reports whether a client may retry the failed operation.
func (e *Error) Retriable() bool { return byCode[e.Code].Retriable }

// New builds an error with a formatted message.
func New(c Code, format string, args ...any) *Error {
	return &Error{Code: c, Message: fmt.Sprintf(format, args...)}
}

// Wrap builds an error with a code whose cause is err (kept for errors.Is/As).
// The message is the given text followed by the cause's text.
func Wrap(c Code, err error, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if err != nil {
		if msg == "" {
			msg = err.Error()
		} else {
			msg += ": " + err.Error()
		}
	}
	return &Error{Code: c, Message: msg, cause: err}
}

// Argument builds an InvalidArgument error.
func Argument(format string, args ...any) *Error { return New(InvalidArgument, format, args...) }

// State builds an IllegalState error.
func State(format string, args ...any) *Error { return New(IllegalState, format, args...) }

// OutOfRange builds the spec's OFFSET_OUT_OF_RANGE error:
// "offset 3 outside retained range [5, 9]".
func OutOfRange(requested, start, end int64) *Error {
	return &Error{
		Code:      OffsetOutOfRange,
		Message:   fmt.Sprintf("offset %d outside retained range [%d, %d]", requested, start, end),
		Requested: requested, Start: start, End: end,
	}
}

// OutOfOrder builds the spec's OUT_OF_ORDER_SEQUENCE error.
func OutOfOrder(expected, actual int64) *Error {
	return &Error{
		Code:     OutOfOrderSequence,
		Message:  fmt.Sprintf("expected sequence %d, got %d", expected, actual),
		Expected: expected, Actual: actual,
	}
}

// As returns the *Error in err's chain, if there is one.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// CodeOf returns the code of the first *Error in err's chain, or "" when there
// is none (a plain Go error is not a MiniKafka outcome).
func CodeOf(err error) Code {
	if e, ok := As(err); ok {
		return e.Code
	}
	return ""
}

// MessageOf returns the message of the first *Error in err's chain, or
// err.Error() for other errors.
func MessageOf(err error) string {
	if e, ok := As(err); ok {
		return e.Message
	}
	if err == nil {
		return ""
	}
	return err.Error()
}

// IsDomain reports whether err carries a domain code (not an argument or
// state error, and not a plain Go error).
func IsDomain(err error) bool {
	e, ok := As(err)
	if !ok {
		return false
	}
	return byCode[e.Code].Domain
}
