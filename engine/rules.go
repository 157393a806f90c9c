package engine

import (
	"strconv"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/producer"
	"github.com/minikafka-lab/minikafka/engine/replication"
)

// RulesKey is the knob that chooses a whole rule set: rules=minikafka (the
// default) or rules=kafka.
const RulesKey = "rules"

// The two rule sets.
const (
	MiniKafkaRuleSet = "minikafka"
	KafkaRuleSet     = "kafka"
)

// Rules are the rules that differ between MiniKafka (the default, the spec's
// semantics) and Apache Kafka 4.x with KRaft. Each field is one rule, set by
// its own knob so that a learner can flip one at a time; rules= sets them
// all. Each rule is one function chosen by its knob, in the package that
// owns the mechanism (see RuleTable).
type Rules struct {
	// Set is the rule set last chosen with rules= ("minikafka" or "kafka");
	// single knobs set afterwards may differ from it (Changed lists them).
	Set string
	// Partitioner: crc32 (MiniKafka) or murmur2 (Kafka's Utils.murmur2 and
	// its sticky partitioner for keyless records).
	Partitioner string
	// Truncation: high-watermark (MiniKafka) or leader-epoch (KIP-101).
	Truncation string
	// FollowerHW: leader (MiniKafka) or fetch (Kafka: a follower learns the
	// HW from fetch responses, one round late).
	FollowerHW string
	// HWUnderMinISR: advance (MiniKafka) or hold (Kafka 3.7+, KAFKA-15583).
	HWUnderMinISR string
	// ReplicaLagFrom: last-fetch (MiniKafka) or last-caught-up (Kafka).
	ReplicaLagFrom string
	// Errors: minikafka or kafka (NOT_LEADER_OR_FOLLOWER,
	// INVALID_PRODUCER_EPOCH).
	Errors string
	// IdempotenceWindow is how many batches per producer id a partition
	// deduplicates: 1 (MiniKafka) or 5 (Kafka).
	IdempotenceWindow int64
	// Controller: manual (MiniKafka: promote by hand) or kraft (heartbeats,
	// fencing after broker.session.timeout.ms, elections).
	Controller string
	// UncleanLeaderElection is unclean.leader.election.enable: whether the
	// KRaft controller may elect a replica outside the ISR.
	UncleanLeaderElection bool
	// Views: minikafka (the tool's Kafka-like views) or kafka (Kafka 4.0's
	// topic describe, consumer-groups and dump-log lines).
	Views string
}

// The values of the knobs that are words.
const (
	ControllerManual = "manual"
	ControllerKRaft  = "kraft"
	ViewsMiniKafka   = "minikafka"
	ViewsKafka       = "kafka"
)

// MiniKafkaRules is rules=minikafka: the spec's rules.
func MiniKafkaRules() Rules {
	return Rules{
		Set:               MiniKafkaRuleSet,
		Partitioner:       producer.CRC32.String(),
		Truncation:        replication.TruncateToHighWatermark.String(),
		FollowerHW:        replication.LeaderHW.String(),
		HWUnderMinISR:     replication.AdvanceUnderMinISR.String(),
		ReplicaLagFrom:    replication.LagFromLastFetch.String(),
		Errors:            replication.MiniKafkaErrors.String(),
		IdempotenceWindow: 1,
		Controller:        ControllerManual,
		Views:             ViewsMiniKafka,
	}
}

// KafkaRules is rules=kafka: Apache Kafka 4.x's rules where the model covers
// the mechanism.
func KafkaRules() Rules {
	return Rules{
		Set:               KafkaRuleSet,
		Partitioner:       producer.Murmur2.String(),
		Truncation:        replication.TruncateByLeaderEpoch.String(),
		FollowerHW:        replication.FetchedHW.String(),
		HWUnderMinISR:     replication.HoldUnderMinISR.String(),
		ReplicaLagFrom:    replication.LagFromLastCaughtUp.String(),
		Errors:            replication.KafkaErrors.String(),
		IdempotenceWindow: replication.MaxDedupeWindow,
		Controller:        ControllerKRaft,
		Views:             ViewsKafka,
	}
}

// ruleSet returns the named rule set.
func ruleSet(name string) (Rules, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case MiniKafkaRuleSet:
		return MiniKafkaRules(), nil
	case KafkaRuleSet:
		return KafkaRules(), nil
	}
	return Rules{}, kerr.Argument("rules must be minikafka or kafka (got %q)", name)
}

// Changed lists the rule knobs whose value differs from the rule set last
// chosen, as "name=value", in ConfigKeys order.
func (r Rules) Changed() []string {
	base, err := ruleSet(r.Set)
	if err != nil {
		return nil
	}
	var out []string
	for _, f := range configFields {
		if !f.key.Rule || f.key.Name == RulesKey {
			continue
		}
		a, b := Config{Rules: r}, Config{Rules: base}
		if f.get(&a) != f.get(&b) {
			out = append(out, f.key.Name+"="+f.get(&a))
		}
	}
	return out
}

// Summary is the active rule set as `config show` prints it first:
// "rules=kafka", or "rules=kafka with truncation=high-watermark" when single
// rules were changed after it.
func (r Rules) Summary() string {
	s := RulesKey + "=" + r.Set
	if ch := r.Changed(); len(ch) > 0 {
		s += " with " + strings.Join(ch, " ")
	}
	return s
}

// choiceField is a rule knob taking one of a few words; values[0] is
// MiniKafka's.
func choiceField(name, doc string, values []string, get func(*Rules) *string) configField {
	key := ConfigKey{Name: name, Default: values[0], Doc: doc, Values: values, Rule: true}
	check := func(v string) error {
		for _, x := range values {
			if v == x {
				return nil
			}
		}
		return kerr.Argument("%s must be %s (got %q)", name, strings.Join(values, " or "), v)
	}
	return configField{
		key: key,
		get: func(c *Config) string { return *get(&c.Rules) },
		set: func(c *Config, value string) error {
			v := strings.ToLower(strings.TrimSpace(value))
			if err := check(v); err != nil {
				return err
			}
			*get(&c.Rules) = v
			return nil
		},
		check: func(c *Config) error { return check(*get(&c.Rules)) },
	}
}

// ruleFields are the rule set and the knobs of single rules, in the order
// `help rules` lists them.
func ruleFields() []configField {
	return []configField{
		{
			key: ConfigKey{Name: RulesKey, Default: MiniKafkaRuleSet, Doc: "the rule set: minikafka (the spec's) or kafka (Kafka 4.x with KRaft); sets every rule knob below",
				Values: []string{MiniKafkaRuleSet, KafkaRuleSet}, Rule: true},
			get: func(c *Config) string { return c.Rules.Set },
			set: func(c *Config, value string) error {
				r, err := ruleSet(value)
				if err != nil {
					return err
				}
				c.Rules = r
				return nil
			},
			check: func(c *Config) error { _, err := ruleSet(c.Rules.Set); return err },
		},
		choiceField("partitioner", "keyed records: crc32 mod partitions (MiniKafka) or Kafka's murmur2, with Kafka's sticky partitioner for keyless ones",
			producer.StrategyNames(), func(r *Rules) *string { return &r.Partitioner }),
		choiceField("truncation", "where logs are cut when leadership changes: high-watermark (MiniKafka) or leader-epoch (KIP-101/KIP-279)",
			replication.TruncationNames(), func(r *Rules) *string { return &r.Truncation }),
		choiceField("follower.hw", "what a follower knows of the HW: leader (at once, MiniKafka) or fetch (from its fetch responses, one round late, Kafka)",
			replication.FollowerHWNames(), func(r *Rules) *string { return &r.FollowerHW }),
		choiceField("hw.under.min.isr", "advance (MiniKafka) or hold (Kafka 3.7+: no HW advance while the ISR is below min.insync.replicas; acks=all times out)",
			replication.HWRuleNames(), func(r *Rules) *string { return &r.HWUnderMinISR }),
		choiceField("replica.lag.from", "ISR lag counted from the last-fetch (MiniKafka) or the last time the follower was caught up (Kafka)",
			replication.ISRLagNames(), func(r *Rules) *string { return &r.ReplicaLagFrom }),
		choiceField("errors", "codes where Kafka's differ: minikafka or kafka (NOT_LEADER_OR_FOLLOWER, INVALID_PRODUCER_EPOCH)",
			replication.ErrorNamesList(), func(r *Rules) *string { return &r.Errors }),
		intRuleField("idempotence.window", "batches per producer id a partition deduplicates: 1 (MiniKafka) to 5 (Kafka)", 1, replication.MaxDedupeWindow,
			func(r *Rules) *int64 { return &r.IdempotenceWindow }),
		choiceField("controller", "manual (MiniKafka: promote by hand) or kraft (heartbeats, fencing after broker.session.timeout.ms, elections from the ISR)",
			[]string{ControllerManual, ControllerKRaft}, func(r *Rules) *string { return &r.Controller }),
		boolRuleField("unclean.leader.election.enable", "under controller=kraft, whether a replica outside the ISR may be elected when no ISR member is alive (data loss is reported)",
			func(r *Rules) *bool { return &r.UncleanLeaderElection }),
		choiceField("views", "topic describe, group describe and log dump lines: minikafka or kafka (Kafka 4.0's)",
			[]string{ViewsMiniKafka, ViewsKafka}, func(r *Rules) *string { return &r.Views }),
	}
}

func intRuleField(name, doc string, lo, hi int64, get func(*Rules) *int64) configField {
	key := ConfigKey{Name: name, Default: strconv.FormatInt(lo, 10), Doc: doc, Rule: true}
	check := func(v int64) error {
		if v < lo || v > hi {
			return kerr.Argument("%s must be between %d and %d (got %d)", name, lo, hi, v)
		}
		return nil
	}
	return configField{
		key: key,
		get: func(c *Config) string { return strconv.FormatInt(*get(&c.Rules), 10) },
		set: func(c *Config, value string) error {
			v, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil {
				return kerr.Argument("%s must be an integer (got %q)", name, value)
			}
			if err := check(v); err != nil {
				return err
			}
			*get(&c.Rules) = v
			return nil
		},
		check: func(c *Config) error { return check(*get(&c.Rules)) },
	}
}

func boolRuleField(name, doc string, get func(*Rules) *bool) configField {
	key := ConfigKey{Name: name, Default: "false", Doc: doc, Values: []string{"false", "true"}, Rule: true}
	return configField{
		key: key,
		get: func(c *Config) string { return strconv.FormatBool(*get(&c.Rules)) },
		set: func(c *Config, value string) error {
			switch strings.ToLower(strings.TrimSpace(value)) {
			case "true":
				*get(&c.Rules) = true
			case "false":
				*get(&c.Rules) = false
			default:
				return kerr.Argument("%s must be true or false (got %q)", name, value)
			}
			return nil
		},
		check: func(*Config) error { return nil },
	}
}

// replicationRules translates the rule knobs for the replica sets. The
// values were validated when they were set.
func (c Config) replicationRules() replication.Rules {
	r := c.Rules
	trunc, _ := replication.ParseTruncation(r.Truncation)
	fhw, _ := replication.ParseFollowerHW(r.FollowerHW)
	hw, _ := replication.ParseHWRule(r.HWUnderMinISR)
	lag, _ := replication.ParseISRLag(r.ReplicaLagFrom)
	errs, _ := replication.ParseErrorNames(r.Errors)
	return replication.Rules{
		Truncation: trunc, FollowerHW: fhw, HighWatermark: hw, ISRLag: lag, Errors: errs,
		DedupeWindow: int(r.IdempotenceWindow), RequestTimeoutMs: c.RequestTimeoutMs,
		KeepISR: r.Controller == ControllerKRaft,
	}
}

// producerSettings translates the partitioner knob for the producers.
func (c Config) producerSettings() producer.Settings {
	s, _ := producer.ParseStrategy(c.Rules.Partitioner)
	return producer.Settings{Partitioner: s}
}
