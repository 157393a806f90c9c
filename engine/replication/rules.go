package replication

import (
	"strings"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// Rules are the replication rules that differ between MiniKafka and Apache
// Kafka 4.x. Each field is one rule, chosen by one knob (engine.Config);
// the zero value is MiniKafka's rule set. A replica set reads them through
// Settings, so `config set` changes them at once.
type Rules struct {
	// Truncation decides where a replica's log is cut back when leadership
	// changes or a replica restarts (truncation=, see truncation.go).
	Truncation Truncation
	// FollowerHW decides what a follower knows of the high watermark
	// (follower.hw=).
	FollowerHW FollowerHW
	// HighWatermark decides how the leader advances the HW and settles
	// acks=all waiters (hw.under.min.isr=).
	HighWatermark HWRule
	// ISRLag decides when a follower leaves and joins the ISR
	// (replica.lag.from=).
	ISRLag ISRLag
	// Errors chooses the codes of the failures where Kafka's differ
	// (errors=).
	Errors ErrorNames
	// DedupeWindow is how many batches per producer id a partition
	// remembers for duplicate detection (idempotence.window=; 0 means 1).
	DedupeWindow int
	// RequestTimeoutMs is request.timeout.ms: under HoldUnderMinISR a
	// pending acks=all waiter fails with REQUEST_TIMED_OUT after this long.
	RequestTimeoutMs int64
	// KeepISR is set under the KRaft controller (controller=kraft): an
	// election keeps the ISR (minus fenced brokers) instead of restarting it
	// from the new leader, as MiniKafka's promote does.
	KeepISR bool
}

// Truncation is the truncation rule (truncation=).
type Truncation uint8

// The two truncation rules.
const (
	// TruncateToHighWatermark is MiniKafka's rule (and Kafka's before 0.11):
	// a new leader keeps only the HW prefix, and another replica cuts its
	// log back to the HW it knows before it fetches again.
	TruncateToHighWatermark Truncation = iota
	// TruncateByLeaderEpoch is Kafka's since 0.11 (KIP-101, KIP-279): the new
	// leader keeps its whole log, and a follower asks the leader where its
	// last leader epoch ends (OffsetsForLeaderEpoch) and cuts there, asking
	// again until the logs agree.
	TruncateByLeaderEpoch
)

// FollowerHW is the follower high-watermark rule (follower.hw=).
type FollowerHW uint8

// The two follower high-watermark rules.
const (
	// LeaderHW is MiniKafka's: every replica knows the leader's HW at once.
	LeaderHW FollowerHW = iota
	// FetchedHW is Kafka's: a follower learns the HW from its fetch
	// responses, so it is one round behind the leader's.
	FetchedHW
)

// HWRule is the high-watermark rule under min.insync.replicas
// (hw.under.min.isr=).
type HWRule uint8

// The two high-watermark rules.
const (
	// AdvanceUnderMinISR is MiniKafka's (and Kafka's before 3.7): the HW is
	// the minimum LEO of the ISR whatever its size; a pending acks=all
	// waiter fails with NOT_ENOUGH_REPLICAS_AFTER_APPEND as soon as the ISR
	// is below min.insync.replicas.
	AdvanceUnderMinISR HWRule = iota
	// HoldUnderMinISR is Kafka's since 3.7 (KAFKA-15583): the HW does not
	// advance while the ISR is below min(min.insync.replicas, replication
	// factor); a pending acks=all waiter completes once the HW covers it,
	// or fails with REQUEST_TIMED_OUT after request.timeout.ms. The
	// effective min.insync.replicas is capped at the replication factor.
	HoldUnderMinISR
)

// ISRLag is the ISR membership rule (replica.lag.from=).
type ISRLag uint8

// The two ISR membership rules.
const (
	// LagFromLastFetch is MiniKafka's: a follower leaves the ISR when it
	// has not fetched for replica.lag.time.max.ms or is more than
	// replica.lag.max.offsets behind.
	LagFromLastFetch ISRLag = iota
	// LagFromLastCaughtUp is Kafka's (Replica.isCaughtUp): a follower at the
	// leader's LEO is always in sync; another leaves when it has not been
	// caught up for replica.lag.time.max.ms. It joins when its LEO reaches
	// the HW and the current leader epoch's start offset.
	LagFromLastCaughtUp
)

// ErrorNames chooses between MiniKafka's and Kafka's error codes where they
// differ (errors=).
type ErrorNames uint8

// The two error-code rules.
const (
	// MiniKafkaErrors: pending acks=all fail with FENCED_LEADER_EPOCH at a
	// leader change, and a stale producer epoch is PRODUCER_FENCED.
	MiniKafkaErrors ErrorNames = iota
	// KafkaErrors: NOT_LEADER_OR_FOLLOWER at a leader change
	// (Partition.checkEnoughReplicasReachOffset), and INVALID_PRODUCER_EPOCH
	// at a partition (ProducerAppendInfo, since 2.7).
	KafkaErrors
)

var (
	truncationNames = []string{"high-watermark", "leader-epoch"}
	followerHWNames = []string{"leader", "fetch"}
	hwRuleNames     = []string{"advance", "hold"}
	isrLagNames     = []string{"last-fetch", "last-caught-up"}
	errorNames      = []string{"minikafka", "kafka"}
)

func parseChoice(knob string, names []string, s string) (uint8, error) {
	for i, n := range names {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return uint8(i), nil
		}
	}
	return 0, kerr.Argument("%s must be %s (got %q)", knob, strings.Join(names, " or "), s)
}

func choiceName(names []string, v uint8) string {
	if int(v) < len(names) {
		return names[v]
	}
	return "invalid"
}

// ParseTruncation reads "high-watermark" or "leader-epoch".
func ParseTruncation(s string) (Truncation, error) {
	v, err := parseChoice("truncation", truncationNames, s)
	return Truncation(v), err
}

// String returns "high-watermark" or "leader-epoch".
func (t Truncation) String() string { return choiceName(truncationNames, uint8(t)) }

// TruncationNames lists the knob's values, MiniKafka's first.
func TruncationNames() []string { return append([]string(nil), truncationNames...) }

// ParseFollowerHW reads "leader" or "fetch".
func ParseFollowerHW(s string) (FollowerHW, error) {
	v, err := parseChoice("follower.hw", followerHWNames, s)
	return FollowerHW(v), err
}

// String returns "leader" or "fetch".
func (f FollowerHW) String() string { return choiceName(followerHWNames, uint8(f)) }

// FollowerHWNames lists the knob's values, MiniKafka's first.
func FollowerHWNames() []string { return append([]string(nil), followerHWNames...) }

// ParseHWRule reads "advance" or "hold".
func ParseHWRule(s string) (HWRule, error) {
	v, err := parseChoice("hw.under.min.isr", hwRuleNames, s)
	return HWRule(v), err
}

// String returns "advance" or "hold".
func (h HWRule) String() string { return choiceName(hwRuleNames, uint8(h)) }

// HWRuleNames lists the knob's values, MiniKafka's first.
func HWRuleNames() []string { return append([]string(nil), hwRuleNames...) }

// ParseISRLag reads "last-fetch" or "last-caught-up".
func ParseISRLag(s string) (ISRLag, error) {
	v, err := parseChoice("replica.lag.from", isrLagNames, s)
	return ISRLag(v), err
}

// String returns "last-fetch" or "last-caught-up".
func (l ISRLag) String() string { return choiceName(isrLagNames, uint8(l)) }

// ISRLagNames lists the knob's values, MiniKafka's first.
func ISRLagNames() []string { return append([]string(nil), isrLagNames...) }

// ParseErrorNames reads "minikafka" or "kafka".
func ParseErrorNames(s string) (ErrorNames, error) {
	v, err := parseChoice("errors", errorNames, s)
	return ErrorNames(v), err
}

// String returns "minikafka" or "kafka".
func (e ErrorNames) String() string { return choiceName(errorNames, uint8(e)) }

// ErrorNamesList lists the knob's values, MiniKafka's first.
func ErrorNamesList() []string { return append([]string(nil), errorNames...) }

// MaxDedupeWindow is Kafka's ProducerStateEntry.NUM_BATCHES_TO_RETAIN: the
// most batches per producer id a partition remembers.
const MaxDedupeWindow = 5

// rules returns the replica set's rules.
func (rs *ReplicaSet) rules() *Rules { return &rs.env.Settings.Rules }

// leaderChangeError is what a pending acks=all waiter fails with when the
// leadership moves: FENCED_LEADER_EPOCH (MiniKafka) or
// NOT_LEADER_OR_FOLLOWER (Kafka, Partition.checkEnoughReplicasReachOffset).
func (rs *ReplicaSet) leaderChangeError(old int32) error {
	if rs.rules().Errors == KafkaErrors {
		return kerr.New(kerr.NotLeaderOrFollower, "leader changed before acknowledgement: broker %d no longer leads %s (now broker %d, epoch %d)",
			old, rs.tp, rs.leader, rs.epoch)
	}
	return kerr.New(kerr.FencedLeaderEpoch, "leader changed before acknowledgement (now broker %d, epoch %d)", rs.leader, rs.epoch)
}

// effectiveMinISR is min.insync.replicas as the HW rule reads it: capped at
// the replication factor under Kafka's rule (Partition.effectiveMinIsr,
// 3.7+), as configured under MiniKafka's.
func (rs *ReplicaSet) effectiveMinISR() int {
	min := rs.env.Settings.MinInsyncReplicas
	if rs.rules().HighWatermark == HoldUnderMinISR && min > len(rs.assignment) {
		return len(rs.assignment)
	}
	return min
}

// knownHW is the high watermark replica r knows: the leader's, or under
// follower.hw=fetch a follower's own, learned from its last fetch response.
func (rs *ReplicaSet) knownHW(r *Replica) int64 {
	if rs.rules().FollowerHW == FetchedHW && r.Broker != rs.leader {
		return r.hw
	}
	return rs.hw
}
