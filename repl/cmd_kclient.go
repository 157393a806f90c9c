package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	kafkaerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

var kclientCommand = &Command{
	Name:    "kclient",
	Summary: "a real Kafka client (franz-go's kgo over TCP) driven from the REPL (chapter 11)",
	Detail: `kclient talks the Kafka protocol over TCP, to this session's listener
(kafka listen) or to any Kafka cluster named with bootstrap=HOST:PORT, so
the same lab steps run against a real Kafka. It is franz-go's kgo client,
the one Go programs use.

Producers are kept between commands (one per acks mode), so their
metadata goes stale as a real client's does: after a leader change the
next produce meets NOT_LEADER_OR_FOLLOWER, refreshes its metadata and
retries. Keyed records are placed by kgo's partitioner (murmur2, as Kafka's
Java client). An acks=all produce that the listener parks prints that it
waits; its result prints later, as an event line, when replicate commits
it.

kclient consume reads partition by partition from the start (or from=N)
up to the HW (read_committed: the LSO) that ListOffsets reports, then
stops. It sends its Fetch requests one at a time (kgo decodes them, CRC
checks and read_committed's aborted transactions included), so nothing
fetches in the background. Group members (join) take part in the group
protocol (JoinGroup, SyncGroup, heartbeats) but fetch only when polled and
commit only when told, and use the eager range assignor, so every step is
visible.`,
	Chapter: 11,
	Group:   "Kafka protocol",
	Default: "list",
	Sub: []*Command{
		{
			Name:       "produce",
			Args:       "TOPIC [key=K] [value=V | tombstone] [partition=N] [acks=0|1|all] [bootstrap=HOST:PORT]",
			Summary:    "send one record with a kgo producer and print where it went, or that it waits (acks=all)",
			Positional: []Param{{Name: "TOPIC", Values: liveTopics}},
			Keys:       []Param{{Name: "key"}, {Name: "value"}, {Name: "partition"}, {Name: "acks", Values: choices("0", "1", "all")}, {Name: "bootstrap"}},
			Flags:      []Param{{Name: "tombstone"}},
			Outside:    true,
			Run:        runKclientProduce,
		},
		{
			Name:       "consume",
			Args:       "TOPIC [partition=N] [from=beginning|N] [max=N] [isolation=read_uncommitted|read_committed] [bootstrap=HOST:PORT]",
			Summary:    "read a topic's partitions in order up to the HW (or LSO) with a kgo consumer, then stop",
			Positional: []Param{{Name: "TOPIC", Values: liveTopics}},
			Keys: []Param{{Name: "partition"}, {Name: "from"}, {Name: "max"},
				{Name: "isolation", Values: choices("read_uncommitted", "read_committed")}, {Name: "bootstrap"}},
			Outside: true,
			Run:     runKclientConsume,
		},
		{
			Name:       "join",
			Args:       "NAME group=G topic=T[,T...] [bootstrap=HOST:PORT]",
			Summary:    "start a kgo group member NAME and wait until the group has settled",
			Positional: []Param{{Name: "NAME"}},
			Keys:       []Param{{Name: "group"}, {Name: "topic", Values: liveTopics}, {Name: "bootstrap"}},
			Outside:    true,
			Run:        runKclientJoin,
		},
		{
			Name:       "poll",
			Args:       "NAME",
			Summary:    "let member NAME fetch its partitions up to their HW and print what it got",
			Positional: []Param{{Name: "NAME", Values: kmemberNames}},
			Outside:    true,
			Run:        runKclientPoll,
		},
		{
			Name:       "commit",
			Args:       "NAME",
			Summary:    "commit what member NAME has polled (OffsetCommit)",
			Positional: []Param{{Name: "NAME", Values: kmemberNames}},
			Outside:    true,
			Run:        runKclientCommit,
		},
		{
			Name:       "leave",
			Args:       "NAME",
			Summary:    "close member NAME (LeaveGroup) and wait until its group has settled",
			Positional: []Param{{Name: "NAME", Values: kmemberNames}},
			Outside:    true,
			Run:        runKclientLeave,
		},
		{
			Name:    "list",
			Summary: "list the group members kclient runs",
			Outside: true,
			Run:     runKclientList,
		},
	},
}

func kmemberNames(s *Session) []string {
	if s.kc == nil {
		return nil
	}
	return s.kc.sortedMemberNames()
}

// textLines is a result printed as lines.
type textLines struct {
	Lines []string `json:"lines"`
}

func (t textLines) writeText(w io.Writer, _ *style) error {
	for _, l := range t.Lines {
		fmt.Fprintln(w, l)
	}
	return nil
}

// kerrOf turns a kgo error into a REPL error with Kafka's code name.
func kerrOf(what string, err error) error {
	return kerr.State("%s: %v", what, err)
}

// produceWait is one produce's outcome, handed over between kgo's callback
// and the command.
type produceWait struct {
	mu      sync.Mutex
	done    bool
	line    string
	err     error
	claimed bool // the command has returned: report the outcome later
}

func runKclientProduce(s *Session, w io.Writer, a *Args) error {
	topicName := a.Pos(0)
	key := a.Bytes("key")
	value := a.Bytes("value")
	if a.Flag("tombstone") {
		if a.Has("value") {
			return a.usage("value and tombstone exclude each other")
		}
		value = nil
	} else if !a.Has("value") {
		value = []byte{}
	}
	acks := a.Choice("acks", "all", "0", "1", "all")
	partition := int32(-1)
	if a.Has("partition") {
		partition = int32(a.Int("partition", 0, 0, 1<<31-1))
	}
	if err := a.Err(); err != nil {
		return err
	}
	bootstrap, err := s.bootstrap(a)
	if err != nil {
		return err
	}
	kc := s.kclientState()
	mode := acks
	if partition >= 0 {
		mode += "|manual"
	}
	var sent0 *atomic.Int64
	if k := s.kafka; k != nil && k.ownAddr(bootstrap) {
		sent0 = &k.sentNoAnswer
	}
	cl, err := kc.producer(bootstrap, mode, sent0)
	if err != nil {
		return err
	}
	r := &kgo.Record{Topic: topicName, Key: key, Value: value}
	if partition >= 0 {
		r.Partition = partition
	}
	pw := &produceWait{}
	listener := s.kafka // read here: kgo's goroutine must not read the session
	kc.pending.Add(1)
	ctx, cancel := s.ctxFor()
	what := fmt.Sprintf("produce %s", topicName)
	cl.Produce(ctx, r, func(r *kgo.Record, err error) {
		defer cancel()
		defer kc.finished()
		line := ""
		if err != nil {
			line = fmt.Sprintf("kclient: %s failed: %v", what, err)
		} else if acks == "0" {
			line = fmt.Sprintf("kclient: %s: sent to %s-%d (acks=0: no offset)", what, r.Topic, r.Partition)
		} else {
			line = fmt.Sprintf("kclient: %s-%d@%d (acks=%s)", r.Topic, r.Partition, r.Offset, acks)
		}
		pw.mu.Lock()
		pw.done, pw.line, pw.err = true, line, err
		claimed := pw.claimed
		pw.mu.Unlock()
		if claimed {
			s.kreport(listener, line)
		}
	})
	s.settleKafka()
	pw.mu.Lock()
	defer pw.mu.Unlock()
	if pw.done {
		if pw.err != nil {
			return kerrOf(what, pw.err)
		}
		return s.emit(w, textLines{Lines: []string{pw.line}})
	}
	pw.claimed = true
	return s.emit(w, textLines{Lines: []string{fmt.Sprintf("kclient: %s: waiting for the acknowledgement (acks=%s)", what, acks)}})
}

// topicLeaders asks the cluster (Metadata) for a topic's partitions and
// their leaders.
func topicLeaders(ctx context.Context, cl *kgo.Client, topicName string) (map[int32]int32, error) {
	req := kmsg.NewPtrMetadataRequest()
	t := kmsg.NewMetadataRequestTopic()
	t.Topic = kmsg.StringPtr(topicName)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	if len(resp.Topics) != 1 {
		return nil, fmt.Errorf("no metadata for %s", topicName)
	}
	if code := resp.Topics[0].ErrorCode; code != 0 {
		return nil, fmt.Errorf("%s: error code %d", topicName, code)
	}
	out := map[int32]int32{}
	for _, p := range resp.Topics[0].Partitions {
		out[p.Partition] = p.Leader
	}
	return out, nil
}

// listOffset asks the partition's leader for an offset: -1 its HW (or LSO
// when committed), -2 its log start.
func listOffset(ctx context.Context, cl *kgo.Client, topicName string, p int32, ts int64, committed bool) (int64, error) {
	req := kmsg.NewPtrListOffsetsRequest()
	if committed {
		req.IsolationLevel = 1
	}
	t := kmsg.NewListOffsetsRequestTopic()
	t.Topic = topicName
	rp := kmsg.NewListOffsetsRequestTopicPartition()
	rp.Partition, rp.Timestamp = p, ts
	t.Partitions = append(t.Partitions, rp)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return 0, err
	}
	if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		return 0, errors.New("no ListOffsets answer")
	}
	rpp := resp.Topics[0].Partitions[0]
	if rpp.ErrorCode != 0 {
		return 0, fmt.Errorf("ListOffsets error code %d", rpp.ErrorCode)
	}
	return rpp.Offset, nil
}

func runKclientConsume(s *Session, w io.Writer, a *Args) error {
	topicName := a.Pos(0)
	only := int32(-1)
	if a.Has("partition") {
		only = int32(a.Int("partition", 0, 0, 1<<31-1))
	}
	from := a.String("from", "beginning")
	var fromOffset int64 = -1
	if from != "beginning" {
		n, err := strconv.ParseInt(from, 10, 64)
		if err != nil || n < 0 {
			return a.usage("from must be beginning or an offset, got %q", from)
		}
		fromOffset = n
	}
	maxRecords := int(a.Int("max", 1000, 0, 1_000_000))
	iso := a.Choice("isolation", "read_uncommitted", "read_uncommitted", "read_committed")
	if err := a.Err(); err != nil {
		return err
	}
	bootstrap, err := s.bootstrap(a)
	if err != nil {
		return err
	}
	kc := s.kclientState()
	ctx, cancel := s.ctxFor()
	defer cancel()
	meta, err := kgo.NewClient(kc.baseOpts(bootstrap, "kgo")...)
	if err != nil {
		return kerr.Argument("%v", err)
	}
	defer meta.Close()
	leaders, err := topicLeaders(ctx, meta, topicName)
	if err != nil {
		return kerrOf("consume "+topicName, err)
	}
	parts := make([]int32, 0, len(leaders))
	for p := range leaders {
		parts = append(parts, p)
	}
	slices.Sort(parts)
	if only >= 0 {
		if !slices.Contains(parts, only) {
			return kerr.New(kerr.UnknownPartition, "%s-%d", topicName, only)
		}
		parts = []int32{only}
	}
	var lines []string
	total := 0
	for _, p := range parts {
		if total >= maxRecords {
			break
		}
		end, err := listOffset(ctx, meta, topicName, p, -1, iso == "read_committed")
		if err != nil {
			return kerrOf(fmt.Sprintf("consume %s-%d", topicName, p), err)
		}
		start := fromOffset
		if start < 0 {
			if start, err = listOffset(ctx, meta, topicName, p, -2, false); err != nil {
				return kerrOf(fmt.Sprintf("consume %s-%d", topicName, p), err)
			}
		}
		got, _, err := fetchRange(ctx, meta, leaders[p], topicName, p, start, end, maxRecords-total, iso == "read_committed")
		if err != nil {
			return kerrOf(fmt.Sprintf("consume %s-%d", topicName, p), err)
		}
		for _, r := range got {
			lines = append(lines, formatRecordLine(r))
		}
		total += len(got)
		lines = append(lines, fmt.Sprintf("(%s-%d: %s, stopped at the %s %d)", topicName, p, pluralRecords(len(got)), endName(iso), end))
	}
	s.settleKafka()
	return s.emit(w, textLines{Lines: lines})
}

func endName(iso string) string {
	if iso == "read_committed" {
		return "LSO"
	}
	return "HW"
}

func pluralRecords(n int) string {
	if n == 1 {
		return "1 record"
	}
	return fmt.Sprintf("%d records", n)
}

// fetchRange reads tp from its leader with the client's own Fetch requests
// (kgo sends them, kgo.ProcessFetchPartition decodes them: CRC checks,
// decompression, read_committed's aborted transactions), one at a time and
// without waiting on the broker (MaxWait 0), from offset from until end or
// max records. Nothing fetches in the background, so the event lines of a
// command are the same every run. It returns the records and the next
// offset.
func fetchRange(ctx context.Context, cl *kgo.Client, leader int32, topicName string, p int32, from, end int64, max int, committed bool) ([]*kgo.Record, int64, error) {
	var out []*kgo.Record
	iso := kgo.ReadUncommitted()
	if committed {
		iso = kgo.ReadCommitted()
	}
	next := from
	for next < end && len(out) < max {
		req := kmsg.NewPtrFetchRequest()
		req.ReplicaID, req.MaxWaitMillis, req.MinBytes, req.MaxBytes = -1, 0, 0, 1<<20
		req.SessionEpoch = -1
		if committed {
			req.IsolationLevel = 1
		}
		rt := kmsg.NewFetchRequestTopic()
		rt.Topic = topicName
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes = p, next, 1<<20
		rp.CurrentLeaderEpoch, rp.LogStartOffset, rp.LastFetchedEpoch = -1, -1, -1
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		raw, err := cl.Broker(int(leader)).Request(ctx, req)
		if err != nil {
			return out, next, err
		}
		resp := raw.(*kmsg.FetchResponse)
		if resp.ErrorCode != 0 {
			return out, next, kafkaErr(resp.ErrorCode)
		}
		if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
			return out, next, errors.New("the fetch answer names no partition")
		}
		part := &resp.Topics[0].Partitions[0]
		if part.ErrorCode != 0 {
			return out, next, kafkaErr(part.ErrorCode)
		}
		fp, after := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{
			Offset: next, IsolationLevel: iso, Topic: topicName, Partition: p,
		}, part, decompressor(), nil)
		if fp.Err != nil {
			return out, next, fp.Err
		}
		for _, r := range fp.Records {
			if r.Offset >= end || len(out) >= max {
				return out, r.Offset, nil
			}
			out = append(out, r)
		}
		if after <= next {
			break // nothing more below the end
		}
		next = after
	}
	return out, next, nil
}

// decompressor is franz-go's decompressor, built at the first fetch
// rather than when the program starts (minikafka version pays nothing).
var decompressor = sync.OnceValue(func() kgo.Decompressor { return kgo.DefaultDecompressor() })

// kafkaErr names a Kafka error code.
func kafkaErr(code int16) error {
	if err := kafkaerr.ErrorForCode(code); err != nil {
		return err
	}
	return fmt.Errorf("error code %d", code)
}

// kclientHeartbeat is how often a kclient member heartbeats. A member
// learns that its group is rebalancing (another member joined or left)
// only from a heartbeat's answer, so this is how long a join or a leave
// waits for the others, half of it on average. At trace=all every
// heartbeat is a line: fifty a second per member.
const kclientHeartbeat = 20 * time.Millisecond

// groupSettled waits until every kclient member of group has been given its
// partitions in the generation the engine's group is Stable at.
func (s *Session) groupSettled(group string) error {
	deadline := time.Now().Add(settleLimit)
	wake := s.settleWake()
	for time.Now().Before(deadline) {
		var gen int32
		stable := false
		_ = s.owned(func() error {
			if s.cluster == nil {
				return nil
			}
			d, err := s.cluster.DescribeGroup(group)
			if err == nil {
				gen, stable = d.Generation, d.State.KafkaName() == "Stable" || len(d.Members) == 0
			}
			return nil
		})
		all := stable
		for _, m := range s.kc.membersOf(group) {
			// The member has taken its partitions of this generation:
			// kgo knows the generation from JoinGroup, before SyncGroup
			// answers and its partitions are handed over.
			m.mu.Lock()
			settled := m.assigns > 0 && m.assignedGen == gen
			m.mu.Unlock()
			all = all && settled
		}
		if s.kafka == nil {
			// An outside cluster: no engine to ask; members assigned once.
			all = true
			for _, m := range s.kc.membersOf(group) {
				m.mu.Lock()
				all = all && m.assigns > 0
				m.mu.Unlock()
			}
		}
		if all {
			s.settleKafka()
			return nil
		}
		wake.wait(settleIdle)
	}
	return kerr.New(kerr.RequestTimedOut, "group %s did not settle within %v", group, settleLimit)
}

// membersOf lists the members of group, by name.
func (k *kclients) membersOf(group string) []*kmember {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []*kmember
	for _, m := range k.members {
		if m.group == group {
			out = append(out, m)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// groupLines describes every member of group: id, generation, partitions.
func (s *Session) groupLines(group string) []string {
	var lines []string
	for _, m := range s.kc.membersOf(group) {
		id, gen := m.client.GroupMetadata()
		m.mu.Lock()
		owned := strings.Join(m.owned, " ")
		m.mu.Unlock()
		lines = append(lines, fmt.Sprintf("kclient %s: member %s of group %s, generation %d, assigned [%s]", m.name, id, group, gen, owned))
	}
	return lines
}

func runKclientJoin(s *Session, w io.Writer, a *Args) error {
	name := a.Pos(0)
	group := a.String("group", "")
	topics := strings.Split(a.String("topic", ""), ",")
	if err := a.Err(); err != nil {
		return err
	}
	if group == "" || topics[0] == "" {
		return a.usage("group=G and topic=T are required")
	}
	bootstrap, err := s.bootstrap(a)
	if err != nil {
		return err
	}
	kc := s.kclientState()
	kc.mu.Lock()
	_, taken := kc.members[name]
	kc.mu.Unlock()
	if taken {
		return kerr.State("kclient %s already runs (kclient leave %s first)", name, name)
	}
	m := &kmember{name: name, group: group, topics: topics, pos: map[string]int64{}, committed: map[string]int64{}}
	track := func(add bool) func(context.Context, *kgo.Client, map[string][]int32) {
		return func(_ context.Context, cl *kgo.Client, ps map[string][]int32) {
			m.mu.Lock()
			defer m.mu.Unlock()
			for t, parts := range ps {
				for _, p := range parts {
					tp := engine.TopicPartition{Topic: t, Partition: p}.String()
					m.owned = slices.DeleteFunc(m.owned, func(x string) bool { return x == tp })
					if add {
						m.owned = append(m.owned, tp)
					} else {
						// A later owner starts from the group's commit.
						delete(m.pos, tp)
						delete(m.committed, tp)
					}
				}
			}
			sort.Strings(m.owned)
			if add {
				cl.PauseFetchTopics(m.topics...)
				m.assigns++
				_, m.assignedGen = cl.GroupMetadata()
			}
			kc.wake.poke()
		}
	}
	opts := append(kc.baseOpts(bootstrap, name),
		kgo.ConsumerGroup(group), kgo.ConsumeTopics(topics...),
		kgo.Balancers(kgo.RangeBalancer()),
		kgo.HeartbeatInterval(kclientHeartbeat),
		kgo.DisableAutoCommit(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.OnPartitionsAssigned(track(true)),
		kgo.OnPartitionsRevoked(track(false)),
		kgo.OnPartitionsLost(track(false)))
	cl, err := kc.newClient(false, nil, opts...)
	if err != nil {
		return kerr.Argument("%v", err)
	}
	cl.PauseFetchTopics(topics...)
	m.client = cl
	kc.mu.Lock()
	kc.members[name] = m
	kc.mu.Unlock()
	if err := s.groupSettled(group); err != nil {
		return err
	}
	return s.emit(w, textLines{Lines: s.groupLines(group)})
}

func (s *Session) member(a *Args) (*kmember, error) {
	name := a.Pos(0)
	if s.kc != nil {
		s.kc.mu.Lock()
		m := s.kc.members[name]
		s.kc.mu.Unlock()
		if m != nil {
			return m, nil
		}
	}
	return nil, kerr.Argument("no kclient member %q (kclient join %s group=G topic=T starts one)", name, name)
}

func runKclientPoll(s *Session, w io.Writer, a *Args) error {
	m, err := s.member(a)
	if err != nil {
		return err
	}
	ctx, cancel := s.ctxFor()
	defer cancel()
	m.mu.Lock()
	owned := slices.Clone(m.owned)
	m.mu.Unlock()
	leaders := map[string]map[int32]int32{}
	var recs []*kgo.Record
	for _, name := range owned {
		tp, err := engine.ParseTopicPartition(name)
		if err != nil {
			return err
		}
		if leaders[tp.Topic] == nil {
			if leaders[tp.Topic], err = topicLeaders(ctx, m.client, tp.Topic); err != nil {
				return kerrOf("poll "+m.name, err)
			}
		}
		pos, err := m.position(ctx, tp)
		if err != nil {
			return kerrOf("poll "+m.name, err)
		}
		end, err := listOffset(ctx, m.client, tp.Topic, tp.Partition, -1, false)
		if err != nil {
			return kerrOf("poll "+m.name, err)
		}
		got, next, err := fetchRange(ctx, m.client, leaders[tp.Topic][tp.Partition], tp.Topic, tp.Partition, pos, end, 10_000, false)
		if err != nil {
			return kerrOf("poll "+m.name, err)
		}
		recs = append(recs, got...)
		m.mu.Lock()
		m.pos[name] = next
		m.mu.Unlock()
	}
	s.settleKafka()
	lines := make([]string, 0, len(recs)+1)
	for _, r := range recs {
		lines = append(lines, formatRecordLine(r))
	}
	lines = append(lines, fmt.Sprintf("(kclient %s: %s from [%s])", m.name, pluralRecords(len(recs)), strings.Join(owned, " ")))
	return s.emit(w, textLines{Lines: lines})
}

// position is where member m reads tp next: where its last poll stopped,
// else the group's committed offset (OffsetFetch), else the log start.
func (m *kmember) position(ctx context.Context, tp engine.TopicPartition) (int64, error) {
	m.mu.Lock()
	pos, ok := m.pos[tp.String()]
	m.mu.Unlock()
	if ok {
		return pos, nil
	}
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Group = m.group
	rt := kmsg.NewOffsetFetchRequestTopic()
	rt.Topic, rt.Partitions = tp.Topic, []int32{tp.Partition}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, m.client)
	if err != nil {
		return 0, err
	}
	if resp.ErrorCode != 0 {
		return 0, kafkaErr(resp.ErrorCode)
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if p.Partition == tp.Partition && p.ErrorCode == 0 && p.Offset >= 0 {
				return p.Offset, nil
			}
		}
	}
	return listOffset(ctx, m.client, tp.Topic, tp.Partition, -2, false)
}

func runKclientCommit(s *Session, w io.Writer, a *Args) error {
	m, err := s.member(a)
	if err != nil {
		return err
	}
	ctx, cancel := s.ctxFor()
	defer cancel()
	offsets := map[string]map[int32]kgo.EpochOffset{}
	var parts []string
	m.mu.Lock()
	for _, name := range m.owned {
		pos, ok := m.pos[name]
		if !ok || m.committed[name] == pos {
			continue
		}
		tp, err := engine.ParseTopicPartition(name)
		if err != nil {
			m.mu.Unlock()
			return err
		}
		if offsets[tp.Topic] == nil {
			offsets[tp.Topic] = map[int32]kgo.EpochOffset{}
		}
		offsets[tp.Topic][tp.Partition] = kgo.EpochOffset{Epoch: -1, Offset: pos}
		parts = append(parts, fmt.Sprintf("%s=%d", name, pos))
	}
	m.mu.Unlock()
	if len(parts) == 0 {
		return s.emit(w, textLines{Lines: []string{fmt.Sprintf("kclient %s: nothing new to commit", m.name)}})
	}
	var commitErr error
	m.client.CommitOffsetsSync(ctx, offsets, func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
		if err != nil {
			commitErr = err
			return
		}
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				if p.ErrorCode != 0 && commitErr == nil {
					commitErr = kafkaErr(p.ErrorCode)
				}
			}
		}
	})
	s.settleKafka()
	if commitErr != nil {
		return kerrOf("commit "+m.name, commitErr)
	}
	m.mu.Lock()
	for t, ps := range offsets {
		for p, o := range ps {
			m.committed[engine.TopicPartition{Topic: t, Partition: p}.String()] = o.Offset
		}
	}
	m.mu.Unlock()
	sort.Strings(parts)
	return s.emit(w, textLines{Lines: []string{fmt.Sprintf("kclient %s: committed %s", m.name, strings.Join(parts, " "))}})
}

func runKclientLeave(s *Session, w io.Writer, a *Args) error {
	m, err := s.member(a)
	if err != nil {
		return err
	}
	s.kc.mu.Lock()
	delete(s.kc.members, m.name)
	s.kc.mu.Unlock()
	s.kc.closeClient(m.client)
	lines := []string{fmt.Sprintf("kclient %s: left group %s", m.name, m.group)}
	if len(s.kc.membersOf(m.group)) > 0 {
		if err := s.groupSettled(m.group); err != nil {
			return err
		}
		lines = append(lines, s.groupLines(m.group)...)
	} else {
		s.settleKafka()
	}
	return s.emit(w, textLines{Lines: lines})
}

func runKclientList(s *Session, w io.Writer, a *Args) error {
	if s.kc == nil || len(s.kc.sortedMemberNames()) == 0 {
		return s.emit(w, textLines{Lines: []string{"no kclient group members (kclient join starts one)"}})
	}
	var lines []string
	groups := map[string]bool{}
	for _, n := range s.kc.sortedMemberNames() {
		s.kc.mu.Lock()
		g := s.kc.members[n].group
		s.kc.mu.Unlock()
		if !groups[g] {
			groups[g] = true
			lines = append(lines, s.groupLines(g)...)
		}
	}
	return s.emit(w, textLines{Lines: lines})
}
