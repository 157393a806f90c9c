package jsontcp

import (
	"slices"
	"sync/atomic"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// fakeBackend is an in-memory Backend for the adapter's own tests: enough
// topic, log and group behaviour to check the translation, and a guard that
// fails loudly if the server ever calls it from two goroutines at once.
type fakeBackend struct {
	busy atomic.Bool

	topics map[string]*fakeTopic
	groups map[string]*fakeGroup

	pending  []*fakeAck
	pumped   int   // Pump calls
	closed   bool  // every operation answers the state error "cluster is closed"
	failWith error // when set, every operation returns it
	panicOn  string
}

type fakeTopic struct {
	rf   int
	logs [][]Record
	next int // round-robin partitioner
}

type fakeGroup struct {
	generation int32
	members    map[string][]string
	assignment map[string][]topic.Partition
}

type fakeAck struct {
	result ProduceResult
	done   bool
}

func (a *fakeAck) Poll() (ProduceResult, bool, error) { return a.result, a.done, nil }

func newFake() *fakeBackend {
	return &fakeBackend{topics: map[string]*fakeTopic{}, groups: map[string]*fakeGroup{}}
}

// enter marks the fake busy; it panics when two goroutines overlap.
func (f *fakeBackend) enter(op string) func() {
	if !f.busy.CompareAndSwap(false, true) {
		panic("fake backend called concurrently")
	}
	if f.panicOn == op {
		f.busy.Store(false)
		panic("injected panic")
	}
	return func() { f.busy.Store(false) }
}

func (f *fakeBackend) guard() error {
	if f.failWith != nil {
		return f.failWith
	}
	if f.closed {
		return kerr.State("cluster is closed")
	}
	return nil
}

func (f *fakeBackend) CreateTopic(name string, partitions, rf int) error {
	defer f.enter("create_topic")()
	if err := f.guard(); err != nil {
		return err
	}
	if err := topic.ValidateName(name); err != nil {
		return err
	}
	if partitions <= 0 || rf <= 0 || rf > 3 {
		return kerr.Argument("bad partitions %d or replication factor %d", partitions, rf)
	}
	if _, ok := f.topics[name]; ok {
		return kerr.New(kerr.TopicAlreadyExists, "%s", name)
	}
	f.topics[name] = &fakeTopic{rf: rf, logs: make([][]Record, partitions)}
	return nil
}

func (f *fakeBackend) topic(name string) (*fakeTopic, error) {
	t, ok := f.topics[name]
	if !ok {
		return nil, kerr.New(kerr.UnknownTopic, "%s", name)
	}
	return t, nil
}

func (f *fakeBackend) Metadata(name string) (TopicMetadata, error) {
	defer f.enter("metadata")()
	if err := f.guard(); err != nil {
		return TopicMetadata{}, err
	}
	t, err := f.topic(name)
	if err != nil {
		return TopicMetadata{}, err
	}
	m := TopicMetadata{Topic: name}
	for p := range t.logs {
		var replicas []int32
		for r := 1; r <= t.rf; r++ {
			replicas = append(replicas, int32(r))
		}
		m.Partitions = append(m.Partitions, PartitionMetadata{Partition: int32(p), LeaderID: 1, Replicas: replicas})
	}
	return m, nil
}

func (f *fakeBackend) Produce(p ProduceRequest) (ProduceResult, PendingAck, error) {
	defer f.enter("produce")()
	if err := f.guard(); err != nil {
		return ProduceResult{}, nil, err
	}
	t, err := f.topic(p.Topic)
	if err != nil {
		return ProduceResult{}, nil, err
	}
	part := p.Partition
	if !p.Explicit {
		part = int32(t.next % len(t.logs))
		t.next++
	}
	if part < 0 || int(part) >= len(t.logs) {
		return ProduceResult{}, nil, kerr.New(kerr.UnknownPartition, "%s-%d", p.Topic, part)
	}
	off := int64(len(t.logs[part]))
	t.logs[part] = append(t.logs[part], Record{Offset: off, Key: p.Key, Value: p.Value})
	res := ProduceResult{Partition: part, Offset: off, OffsetKnown: p.Acks != AcksNone}
	if p.Acks == AcksAll && t.rf > 1 {
		a := &fakeAck{result: res}
		f.pending = append(f.pending, a)
		return ProduceResult{Partition: part}, a, nil
	}
	return res, nil, nil
}

func (f *fakeBackend) Fetch(q FetchRequest) ([]Record, error) {
	defer f.enter("fetch")()
	if err := f.guard(); err != nil {
		return nil, err
	}
	t, err := f.topic(q.Partition.Topic)
	if err != nil {
		return nil, err
	}
	p := q.Partition.Partition
	if p < 0 || int(p) >= len(t.logs) {
		return nil, kerr.New(kerr.UnknownPartition, "%s", q.Partition)
	}
	log := t.logs[p]
	if q.Offset < 0 || q.Offset > int64(len(log)) {
		return nil, kerr.OutOfRange(q.Offset, 0, int64(len(log)))
	}
	end := min(int64(len(log)), q.Offset+int64(q.MaxRecords))
	return slices.Clone(log[q.Offset:end]), nil
}

func (f *fakeBackend) JoinGroup(groupID, memberID string, topics []string) (JoinResult, error) {
	defer f.enter("join_group")()
	if err := f.guard(); err != nil {
		return JoinResult{}, err
	}
	if groupID == "" || memberID == "" {
		return JoinResult{}, kerr.Argument("group id and member id must not be empty")
	}
	for _, name := range topics {
		if _, ok := f.topics[name]; !ok {
			return JoinResult{}, kerr.Argument("unknown subscribed topics: [%s]", name)
		}
	}
	g := f.groups[groupID]
	if g == nil {
		g = &fakeGroup{members: map[string][]string{}}
		f.groups[groupID] = g
	}
	g.members[memberID] = topics
	g.generation++
	// Round-robin over sorted members and the sorted partitions of all topics.
	members := make([]string, 0, len(g.members))
	for m := range g.members {
		members = append(members, m)
	}
	slices.Sort(members)
	var all []topic.Partition
	seen := map[string]bool{}
	for _, m := range members {
		for _, name := range g.members[m] {
			if !seen[name] {
				seen[name] = true
				for p := range f.topics[name].logs {
					all = append(all, topic.Partition{Topic: name, Partition: int32(p)})
				}
			}
		}
	}
	topic.Sort(all)
	g.assignment = map[string][]topic.Partition{}
	for i, tp := range all {
		m := members[i%len(members)]
		g.assignment[m] = append(g.assignment[m], tp)
	}
	return JoinResult{Generation: g.generation, Assignment: g.assignment[memberID]}, nil
}

func (f *fakeBackend) member(groupID, memberID string, generation int32) (*fakeGroup, error) {
	g := f.groups[groupID]
	if g == nil {
		return nil, kerr.New(kerr.UnknownMember, "unknown group %s", groupID)
	}
	if _, ok := g.members[memberID]; !ok {
		return nil, kerr.New(kerr.UnknownMember, "%s", memberID)
	}
	if generation != g.generation {
		return nil, kerr.New(kerr.IllegalGeneration, "generation %d does not match %d", generation, g.generation)
	}
	return g, nil
}

func (f *fakeBackend) Heartbeat(groupID, memberID string, generation int32) error {
	defer f.enter("heartbeat")()
	if err := f.guard(); err != nil {
		return err
	}
	_, err := f.member(groupID, memberID, generation)
	return err
}

func (f *fakeBackend) CommitOffsets(groupID, memberID string, generation int32, offsets []OffsetCommit) error {
	defer f.enter("commit_offsets")()
	if err := f.guard(); err != nil {
		return err
	}
	g, err := f.member(groupID, memberID, generation)
	if err != nil {
		return err
	}
	for _, o := range offsets {
		if !slices.Contains(g.assignment[memberID], o.Partition) {
			return kerr.New(kerr.NotPartitionOwner, "%s", memberID)
		}
	}
	return nil
}

func (f *fakeBackend) Pump() error {
	defer f.enter("pump")()
	if err := f.guard(); err != nil {
		return err
	}
	f.pumped++
	for _, a := range f.pending {
		a.done = true
	}
	f.pending = nil
	return nil
}

// records returns a copy of one partition's log, for direct checks.
func (f *fakeBackend) records(name string, p int) []Record {
	return slices.Clone(f.topics[name].logs[p])
}
