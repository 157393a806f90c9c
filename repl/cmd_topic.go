package repl

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

var topicCommand = &Command{
	Name:    "topic",
	Summary: "create, list and describe topics",
	Chapter: 1,
	Group:   "Topics and records",
	Sub: []*Command{
		{
			Name:    "create",
			Args:    "NAME [partitions=N] [rf=N]",
			Summary: "create a topic; replicas are placed round-robin over the brokers",
			Detail: `partitions defaults to 1 and rf (the replication factor) to 1, as in
Kafka. Partition p gets the replicas B[(p+r) mod n] for r in 0..rf-1,
B being the brokers in configuration order; the first replica leads.
A name is 1 to 249 characters of [A-Za-z0-9._-].`,
			Positional: []Param{{Name: "NAME"}},
			Keys:       []Param{{Name: "partitions", Values: choices("1", "2", "3", "4")}, {Name: "rf", Values: choices("1", "2", "3")}},
			Run:        runTopicCreate,
		},
		{
			Name:    "list",
			Summary: "the topic names, one per line (kafka-topics --list)",
			Run:     runTopicList,
		},
		{
			Name:    "describe",
			Args:    "[NAME]",
			Summary: "kafka-topics --describe: leader, replicas and ISR of every partition",
			Detail: `Prints Kafka's lines, tab-separated:
Topic: orders	PartitionCount: 2	ReplicationFactor: 2	Configs:
	Topic: orders	Partition: 0	Leader: 1	Replicas: 1,2	Isr: 1,2
Leader is none while the leader's broker is crashed. MiniKafka has no
per-topic configs, so Configs is empty; the ISR is sorted. These are the
lines of Kafka 2.4 to 2.7. Under views=kafka (rules=kafka) the lines are
Kafka 4.0's (TopicCommand): the topic line has TopicId (MiniKafka derives
it from the name; Kafka draws it at random) and Configs lists the settings
that differ from Kafka's defaults, and each partition line ends with Elr:
and LastKnownElr:, empty since MiniKafka models no eligible leader
replicas (KIP-966), with the ISR in Kafka's stored order. Without NAME,
every topic.`,
			Positional: []Param{{Name: "NAME", Optional: true, Values: liveTopics}},
			Run:        runTopicDescribe,
		},
	},
}

var brokerCommand = &Command{
	Name:    "broker",
	Summary: "per-broker failure: list, crash and restart brokers",
	Detail: `A broker crash is a machine failure: the broker's replicas stop
fetching and serving, partitions it led go offline until a promotion or
its restart, and its logs lose the bytes appended since their last flush
(the page cache dies with the machine) unless keep-unflushed is given.`,
	Chapter: 6,
	Group:   "Replication and failure",
	Sub: []*Command{
		{
			Name:    "list",
			Summary: "every broker: up or crashed, what it leads, what it follows, unflushed bytes",
			Run:     runBrokerList,
		},
		{
			Name:       "crash",
			Args:       "ID [keep-unflushed]",
			Summary:    "crash one broker; its unflushed bytes are lost unless keep-unflushed",
			Positional: []Param{{Name: "ID", Values: liveBrokers}},
			Flags:      []Param{{Name: "keep-unflushed"}},
			Detail: `The broker stops. Partitions it led answer LEADER_NOT_AVAILABLE until
promote TP ID picks an in-sync replica or the broker restarts. Under
MiniKafka's manual controller a crashed follower stays in the ISR until
replica.lag.time.max.ms passes without a fetch (clock advance). Kafka
notices a dead broker differently: its KRaft controller fences a broker
that has not heartbeated for broker.session.timeout.ms (9 s), removes it
from every ISR and elects new leaders from the ISR. controller=kraft
(rules=kafka) does that: clock advance past broker.session.timeout.ms,
and each controller decision is printed.`,
			Run: runBrokerCrash,
		},
		{
			Name:       "restart",
			Args:       "ID",
			Summary:    "restart a crashed broker: recover its logs from disk, report truncation, let it catch up",
			Positional: []Param{{Name: "ID", Values: liveBrokers}},
			Detail: `Each of the broker's logs is reopened with real recovery: without a
clean-shutdown marker the active segment is rescanned and a torn tail
cut off. A follower above the HW truncates to it (under
truncation=leader-epoch it keeps its log and asks the leader where it
diverges before its next fetch); it catches up at the next replicate. A
partition it led comes back in a new leader epoch. Under controller=kraft
the broker registers as a new incarnation: the controller fences the old
one first, so it comes back outside every ISR it could leave.`,
			Run: runBrokerRestart,
		},
	},
}

// topicCreated is the result of topic create.
type topicCreated struct {
	Topic      string      `json:"topic"`
	Partitions []partition `json:"partitions"`
}

type partition struct {
	Partition   int32   `json:"partition"`
	Leader      int32   `json:"leader"`
	LeaderEpoch int32   `json:"leader_epoch"`
	Replicas    []int32 `json:"replicas"`
}

func (t topicCreated) writeText(w io.Writer, _ *style) error {
	_, err := fmt.Fprintf(w, "Created topic %s.\n", t.Topic)
	return err
}

func runTopicCreate(s *Session, w io.Writer, a *Args) error {
	name := a.Pos(0)
	parts := a.Int("partitions", 1, 1, math.MaxInt32)
	rf := a.Int("rf", 1, 1, math.MaxInt32)
	if err := a.Err(); err != nil {
		return err
	}
	md, err := s.cluster.CreateTopic(name, int(parts), int(rf))
	if err != nil {
		return err
	}
	res := topicCreated{Topic: md.Name}
	for _, p := range md.Partitions {
		res.Partitions = append(res.Partitions, partition{Partition: p.Partition, Leader: p.Leader, LeaderEpoch: p.LeaderEpoch, Replicas: p.Replicas})
	}
	return s.emit(w, res)
}

type topicNames struct {
	Topics []string `json:"topics"`
}

func (t topicNames) writeText(w io.Writer, _ *style) error {
	if len(t.Topics) == 0 {
		fmt.Fprintln(w, "(no topics)")
	}
	for _, n := range t.Topics {
		fmt.Fprintln(w, n)
	}
	return nil
}

func runTopicList(s *Session, w io.Writer, a *Args) error {
	res := topicNames{Topics: []string{}}
	ts, err := s.cluster.Topics()
	if err != nil {
		return err
	}
	for _, t := range ts {
		res.Topics = append(res.Topics, t.Name)
	}
	return s.emit(w, res)
}

// topicDescription is the result of topic describe.
type topicDescription struct {
	Topics []describedTopic `json:"topics"`
	kafka  bool             // views=kafka
}

// writeKafka prints Kafka 4.0's kafka-topics --describe lines
// (TopicCommand.TopicDescription and PartitionDescription.printDescription):
// TopicId on the topic line, Elr and LastKnownElr on every partition line.
// Trailing spaces (after an empty Configs:, Elr: or LastKnownElr:) are
// dropped, as labs compare lines without them.
func (d topicDescription) writeKafka(w io.Writer) error {
	for _, t := range d.Topics {
		fmt.Fprintf(w, "%s\n", strings.TrimRight(fmt.Sprintf("Topic: %s\tTopicId: %s\tPartitionCount: %d\tReplicationFactor: %d\tConfigs: %s",
			t.Topic, t.TopicID, t.PartitionCount, t.ReplicationFactor, t.Configs), " "))
		for _, p := range t.Partitions {
			leader := "none"
			if p.Leader != nil {
				leader = fmt.Sprint(*p.Leader)
			}
			fmt.Fprintf(w, "\tTopic: %s\tPartition: %d\tLeader: %s\tReplicas: %s\tIsr: %s\tElr: \tLastKnownElr:\n",
				t.Topic, p.Partition, leader, joinIDs(p.Replicas, ","), joinIDs(p.ISR, ","))
		}
	}
	return nil
}

// kafkaTopicConfigs is the Configs field Kafka 4.0 would print for a topic
// on these brokers: the settings whose value is not Kafka's default (a
// broker's static config counts as set), in name order (Kafka's order is a
// hash map's). MiniKafka's brokers always run with segment.bytes=1048576
// (Kafka's default is 1 GiB).
func kafkaTopicConfigs(cfg engine.Config) string {
	var out []string
	if cfg.IndexIntervalBytes != 4096 {
		out = append(out, fmt.Sprintf("index.interval.bytes=%d", cfg.IndexIntervalBytes))
	}
	if cfg.MinInsyncReplicas != 1 {
		out = append(out, fmt.Sprintf("min.insync.replicas=%d", cfg.MinInsyncReplicas))
	}
	if cfg.SegmentBytes != 1<<30 {
		out = append(out, fmt.Sprintf("segment.bytes=%d", cfg.SegmentBytes))
	}
	if cfg.Rules.UncleanLeaderElection {
		out = append(out, "unclean.leader.election.enable=true")
	}
	return strings.Join(out, ",")
}

type describedTopic struct {
	Topic             string               `json:"topic"`
	TopicID           string               `json:"topic_id,omitempty"` // views=kafka
	Configs           string               `json:"configs,omitempty"`  // views=kafka
	PartitionCount    int                  `json:"partition_count"`
	ReplicationFactor int                  `json:"replication_factor"`
	Partitions        []describedPartition `json:"partitions"`
}

type describedPartition struct {
	Partition   int32   `json:"partition"`
	Leader      *int32  `json:"leader"` // null while offline
	LeaderEpoch int32   `json:"leader_epoch"`
	Replicas    []int32 `json:"replicas"`
	ISR         []int32 `json:"isr"`
}

// writeText prints kafka-topics --describe lines. Kafka ends the topic line
// with "Configs: " and nothing after it; the trailing space is dropped here.
func (d topicDescription) writeText(w io.Writer, _ *style) error {
	if d.kafka {
		return d.writeKafka(w)
	}
	for _, t := range d.Topics {
		fmt.Fprintf(w, "Topic: %s\tPartitionCount: %d\tReplicationFactor: %d\tConfigs:\n", t.Topic, t.PartitionCount, t.ReplicationFactor)
		for _, p := range t.Partitions {
			leader := "none"
			if p.Leader != nil {
				leader = fmt.Sprint(*p.Leader)
			}
			fmt.Fprintf(w, "\tTopic: %s\tPartition: %d\tLeader: %s\tReplicas: %s\tIsr: %s\n",
				t.Topic, p.Partition, leader, joinIDs(p.Replicas, ","), joinIDs(p.ISR, ","))
		}
	}
	return nil
}

func runTopicDescribe(s *Session, w io.Writer, a *Args) error {
	var topics []engine.TopicMetadata
	if name := a.Pos(0); name != "" {
		t, err := s.cluster.Topic(name)
		if err != nil {
			return err
		}
		topics = append(topics, t)
	} else {
		ts, err := s.cluster.Topics()
		if err != nil {
			return err
		}
		topics = ts
	}
	cfg := s.cluster.Config()
	res := topicDescription{Topics: []describedTopic{}, kafka: cfg.Rules.Views == engine.ViewsKafka}
	for _, t := range topics {
		dt := describedTopic{Topic: t.Name, PartitionCount: len(t.Partitions)}
		if res.kafka {
			dt.TopicID, dt.Configs = topic.ID(t.Name), kafkaTopicConfigs(cfg)
		}
		for _, p := range t.Partitions {
			dt.ReplicationFactor = max(dt.ReplicationFactor, len(p.Replicas))
			st, err := s.cluster.PartitionState(p.TP())
			if err != nil {
				return err
			}
			dp := describedPartition{Partition: p.Partition, LeaderEpoch: st.LeaderEpoch, Replicas: p.Replicas, ISR: st.ISR}
			if res.kafka {
				dp.ISR = st.ISRStored
			}
			if st.Online {
				l := st.Leader
				dp.Leader = &l
			}
			dt.Partitions = append(dt.Partitions, dp)
		}
		res.Topics = append(res.Topics, dt)
	}
	return s.emit(w, res)
}

// brokerList is the result of broker list.
type brokerList struct {
	Brokers []brokerInfo `json:"brokers"`
}

type brokerInfo struct {
	Broker         int32    `json:"broker"`
	Up             bool     `json:"up"`
	Fenced         bool     `json:"fenced,omitempty"` // by the KRaft controller
	LeaderOf       []string `json:"leader_of"`
	ReplicaOf      []string `json:"replica_of"`
	UnflushedBytes int64    `json:"unflushed_bytes"`
	// Offline says why the broker is down when its log directory failed.
	Offline string `json:"log_dir_failure,omitempty"`
}

func (b brokerList) writeText(w io.Writer, _ *style) error {
	var rows [][]string
	for _, x := range b.Brokers {
		state := "up"
		switch {
		case !x.Up && x.Offline != "":
			state = "offline"
		case x.Fenced:
			state = "crashed, fenced"
		case !x.Up:
			state = "crashed"
		}
		rows = append(rows, []string{fmt.Sprint(x.Broker), state, strings.Join(x.LeaderOf, ","), strings.Join(x.ReplicaOf, ","), fmt.Sprint(x.UnflushedBytes)})
	}
	if err := renderTable(w, []string{"BROKER", "STATE", "LEADER-OF", "REPLICA-OF", "UNFLUSHED-BYTES"}, rows); err != nil {
		return err
	}
	for _, x := range b.Brokers {
		if x.Offline != "" {
			fmt.Fprintf(w, "broker %d offline: %s (free the disk, then broker restart %d)\n", x.Broker, x.Offline, x.Broker)
		}
	}
	return nil
}

func runBrokerList(s *Session, w io.Writer, a *Args) error {
	bs, err := s.cluster.Brokers()
	if err != nil {
		return err
	}
	res := brokerList{Brokers: []brokerInfo{}}
	for _, b := range bs {
		res.Brokers = append(res.Brokers, brokerInfo{Broker: b.ID, Up: b.Up, Fenced: b.Fenced, LeaderOf: tpNames(b.LeaderOf), ReplicaOf: tpNames(b.ReplicaOf), UnflushedBytes: b.UnflushedBytes, Offline: b.LogDirFailure})
	}
	return s.emit(w, res)
}

func tpNames(tps []engine.TopicPartition) []string {
	out := []string{}
	for _, tp := range tps {
		out = append(out, tp.String())
	}
	return out
}

func runBrokerCrash(s *Session, w io.Writer, a *Args) error {
	id := a.PosBroker(0)
	if err := a.Err(); err != nil {
		return err
	}
	known := s.readLastKnown(id)
	if err := s.cluster.CrashBroker(id, a.Flag("keep-unflushed")); err != nil {
		return err
	}
	if s.lastKnown == nil {
		s.lastKnown = map[replicaKey]storedLog{}
	}
	for k, l := range known {
		s.lastKnown[k] = l
	}
	return nil
}

// brokerRestarted is the result of broker restart: what recovery did to
// each of the broker's logs.
type brokerRestarted struct {
	Broker   int32             `json:"broker"`
	Replicas []replicaRecovery `json:"recovered"`
}

func (b brokerRestarted) writeText(w io.Writer, _ *style) error {
	for _, x := range b.Replicas {
		fmt.Fprintln(w, x.line)
	}
	return nil
}

func runBrokerRestart(s *Session, w io.Writer, a *Args) error {
	id := a.PosBroker(0)
	if err := a.Err(); err != nil {
		return err
	}
	rep, err := s.cluster.RestartBroker(id)
	if err != nil {
		return err
	}
	for k := range s.lastKnown {
		if k.broker == id {
			delete(s.lastKnown, k)
		}
	}
	var report engine.OpenReport
	for _, r := range rep.Replicas {
		report.Replicas = append(report.Replicas, engine.ReplicaRecovery{TP: r.TP, Broker: id, Report: r.Recovery})
	}
	return s.emit(w, brokerRestarted{Broker: id, Replicas: newClusterOpened(s, "restart", report).Replicas})
}
