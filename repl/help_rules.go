package repl

import (
	"fmt"
	"io"
	"strings"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// ruleHelp is one rule of `help rules`: its knob, both behaviours, the
// Kafka source or KIP it follows and the labs that run it side by side.
type ruleHelp struct {
	Knob      string   `json:"knob"`
	Values    string   `json:"values"`
	Now       string   `json:"now"`
	MiniKafka string   `json:"minikafka"`
	Kafka     string   `json:"kafka"`
	Source    string   `json:"source"`
	Labs      []string `json:"labs"`
}

// ruleHelps are the rules in the order of the knobs (engine.ConfigKeys).
// Every claim about Kafka is checked against its source and cited in
// docs/kafka-mapping.md.
var ruleHelps = []ruleHelp{
	{Knob: "partitioner", Values: "crc32|murmur2",
		MiniKafka: "a keyed record goes to crc32(key) mod partitions; keyless records stick to one partition per topic, which moves to the next after each batch holding one",
		Kafka:     "a keyed record goes to toPositive(murmur2(key)) mod partitions; keyless records stick to a random partition with a leader until batch.size bytes went to it",
		Source:    "Utils.murmur2, BuiltInPartitioner; KIP-480 (2.4), KIP-794 (3.3)",
		Labs:      []string{"04-07"}},
	{Knob: "truncation", Values: "high-watermark|leader-epoch",
		MiniKafka: "a new leader keeps only the HW prefix; another replica cuts its log to the HW it knows when leadership changes or it restarts",
		Kafka:     "a new leader keeps its whole log; a follower asks the leader where its latest leader epoch ends (OffsetsForLeaderEpoch) and cuts there, asking again until the logs agree",
		Source:    "KIP-101 (0.11), KIP-279 (2.0), AbstractFetcherThread.getOffsetTruncationState, LeaderEpochFileCache",
		Labs:      []string{"06-10", "06-12"}},
	{Knob: "follower.hw", Values: "leader|fetch",
		MiniKafka: "every replica knows the leader's HW at once",
		Kafka:     "a follower learns the HW from its fetch responses, one round after the leader; offsets and show print each replica's own HW",
		Source:    "FetchResponse high_watermark, UnifiedLog.updateHighWatermark",
		Labs:      []string{"06-12"}},
	{Knob: "hw.under.min.isr", Values: "advance|hold",
		MiniKafka: "the HW is the minimum LEO of the ISR whatever its size; a pending acks=all fails NOT_ENOUGH_REPLICAS_AFTER_APPEND when the ISR drops below min.insync.replicas",
		Kafka:     "the HW does not advance while the ISR is below min(min.insync.replicas, replication factor); a pending acks=all waits and fails REQUEST_TIMED_OUT after request.timeout.ms; min.insync.replicas is capped at the replication factor",
		Source:    "KAFKA-15583 (3.7), Partition.maybeIncrementLeaderHW, Partition.effectiveMinIsr",
		Labs:      []string{"06-11"}},
	{Knob: "replica.lag.from", Values: "last-fetch|last-caught-up",
		MiniKafka: "a follower leaves the ISR after replica.lag.time.max.ms without a fetch, or when more than replica.lag.max.offsets behind",
		Kafka:     "a follower at the leader's LEO never leaves; another leaves after replica.lag.time.max.ms without being caught up; it joins when it reaches the HW and the epoch's start offset",
		Source:    "Replica.isCaughtUp, Partition.isFollowerInSync (replica.lag.max.messages removed in 0.9)",
		Labs:      []string{"06-13"}},
	{Knob: "errors", Values: "minikafka|kafka",
		MiniKafka: "a pending acks=all fails FENCED_LEADER_EPOCH at a leader change; a stale producer epoch is PRODUCER_FENCED",
		Kafka:     "NOT_LEADER_OR_FOLLOWER at a leader change; INVALID_PRODUCER_EPOCH at a partition (PRODUCER_FENCED only from the transaction coordinator)",
		Source:    "Partition.checkEnoughReplicasReachOffset; ProducerAppendInfo.checkProducerEpoch (2.7, KIP-588)",
		Labs:      []string{"04-08", "06-10"}},
	{Knob: "idempotence.window", Values: "1..5",
		MiniKafka: "1: a partition recognises a retry of the producer's last batch only",
		Kafka:     "5: a retry of any of the last five batches per producer and partition; an older one is OUT_OF_ORDER_SEQUENCE_NUMBER",
		Source:    "ProducerStateEntry.NUM_BATCHES_TO_RETAIN",
		Labs:      []string{"09-05"}},
	{Knob: "controller", Values: "manual|kraft",
		MiniKafka: "a crashed leader's partitions stay offline until promote TP ID or its restart; a crashed follower leaves the ISR by the lag rule",
		Kafka:     "a broker silent for longer than broker.session.timeout.ms is fenced, leaves every ISR, and its partitions elect the first live ISR replica; promote stays as an admin election; a restarted broker comes back outside the ISR",
		Source:    "BrokerHeartbeatManager.hasValidSession, ReplicationControlManager.handleBrokerFenced, PartitionChangeBuilder (KIP-500, KIP-631; ZooKeeper removed in 4.0)",
		Labs:      []string{"06-13"}},
	{Knob: "unclean.leader.election.enable", Values: "false|true",
		MiniKafka: "false (only ISR members lead)",
		Kafka:     "false by default; true lets the KRaft controller elect a replica outside the ISR when no ISR member is alive, and the records it lacks are reported lost",
		Source:    "PartitionChangeBuilder.electAnyLeader; KAFKA-12670 (3.9): at fencing, at a broker's return, or at the periodic check (unclean.leader.election.interval.ms)",
		Labs:      []string{"06-14"}},
	{Knob: "views", Values: "minikafka|kafka",
		MiniKafka: "topic describe, group describe and log dump print the tool's Kafka-like lines (Kafka 2.4 to 2.7's topic lines)",
		Kafka:     "Kafka 4.0's lines: TopicId, Elr and LastKnownElr, rows grouped by member, dump-log without key:/payload: for nulls, isvalid: false",
		Source:    "TopicCommand, ConsumerGroupCommand, DumpLogSegments",
		Labs:      []string{"06-13"}},
}

// rulesHelp is the result of `help rules`. (`help kafka` explains the
// kafka command, the wire listener of chapter 11.)
type rulesHelp struct {
	Active string     `json:"active"`
	Rules  []ruleHelp `json:"rules"`
	Other  []string   `json:"other_knobs"`
}

func newRulesHelp(s *Session) rulesHelp {
	cfg := s.cluster.Config()
	h := rulesHelp{Active: cfg.Rules.Summary(), Other: []string{"broker.session.timeout.ms", "request.timeout.ms"}}
	for _, r := range ruleHelps {
		r.Now, _ = cfg.Get(r.Knob)
		h.Rules = append(h.Rules, r)
	}
	return h
}

func (h rulesHelp) writeText(w io.Writer, st *style) error {
	fmt.Fprintln(w, "Two rule sets: MiniKafka's (rules=minikafka, the default) and Apache Kafka 4.x's with KRaft")
	fmt.Fprintln(w, "(rules=kafka). `cluster open rules=kafka` or `repl --set rules=kafka` chooses one; each rule")
	fmt.Fprintln(w, "is also its own knob (`config set truncation=high-watermark`); `config show` prints the")
	fmt.Fprintln(w, "active set first. Each lab below runs one scenario under both.")
	fmt.Fprintf(w, "\nActive: %s\n", h.Active)
	for _, r := range h.Rules {
		fmt.Fprintf(w, "\n%s\n", st.paint(st.heading, fmt.Sprintf("%s=%s (now %s)", r.Knob, r.Values, r.Now)))
		fmt.Fprintf(w, "  MiniKafka  %s\n", r.MiniKafka)
		fmt.Fprintf(w, "  Kafka      %s\n", r.Kafka)
		fmt.Fprintf(w, "  source     %s\n", r.Source)
		if len(r.Labs) > 0 {
			fmt.Fprintf(w, "  lab        %s\n", strings.Join(r.Labs, ", "))
		}
	}
	fmt.Fprintf(w, "\nKafka's rules also read %s. docs/kafka-mapping.md cites each rule's source.\n", strings.Join(h.Other, " and "))
	return nil
}

// errorHelp is one code of `help errors`.
type errorHelp struct {
	Code        string `json:"code"`
	Kafka       string `json:"kafka"`        // Kafka's name, "" when Kafka has none
	KafkaNumber *int16 `json:"kafka_number"` // null when Kafka has none
	Retriable   bool   `json:"retriable"`
	Meaning     string `json:"meaning"`
}

// errorsHelp is the result of `help errors`.
type errorsHelp struct {
	Codes []errorHelp `json:"codes"`
}

func newErrorsHelp() errorsHelp {
	var h errorsHelp
	for _, info := range kerr.Codes() {
		e := errorHelp{Code: string(info.Code), Retriable: info.Retriable, Meaning: info.Description}
		if k, ok := kerr.Kafka(info.Code); ok {
			n := k.Number
			e.Kafka, e.KafkaNumber = k.Name, &n
		}
		h.Codes = append(h.Codes, e)
	}
	return h
}

func (h errorsHelp) writeText(w io.Writer, _ *style) error {
	fmt.Fprintln(w, "Error codes: MiniKafka's name, Kafka's name and number (Errors.java), what it means.")
	fmt.Fprintln(w, "A hint names Kafka's code where it differs; the JSON/TCP adapter keeps MiniKafka's names.")
	fmt.Fprintln(w)
	var rows [][]string
	for _, e := range h.Codes {
		kafka := "- (MiniKafka's own)"
		switch {
		case e.KafkaNumber != nil && e.Kafka == e.Code:
			kafka = fmt.Sprintf("same (%d)", *e.KafkaNumber)
		case e.KafkaNumber != nil:
			kafka = fmt.Sprintf("%s (%d)", e.Kafka, *e.KafkaNumber)
		case e.Code == string(kerr.InvalidArgument) || e.Code == string(kerr.IllegalState):
			kafka = "- (not a domain error)"
		}
		rows = append(rows, []string{e.Code, kafka, e.Meaning})
	}
	return renderTable(w, []string{"CODE", "KAFKA", "MEANING"}, rows)
}

// helpTopics are the names `help` explains that are not commands.
var helpTopics = map[string]func(s *Session) result{
	"rules":  func(s *Session) result { return newRulesHelp(s) },
	"errors": func(*Session) result { return newErrorsHelp() },
}

// ruleKnobNames lists the rule knobs, for a check that help rules covers
// every one of them.
func ruleKnobNames() []string {
	var out []string
	for _, k := range engine.ConfigKeys() {
		if k.Rule && k.Name != engine.RulesKey {
			out = append(out, k.Name)
		}
	}
	return out
}

// RuleLabs lists the lab IDs `help rules` names, for a check that each
// exists.
func RuleLabs() []string {
	var out []string
	for _, r := range ruleHelps {
		out = append(out, r.Labs...)
	}
	return out
}
