package repl

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
)

var produceCommand = &Command{
	Name:    "produce",
	Args:    "TOPIC [key=K] [value=V | tombstone] [partition=N] [acks=0|1|all] [timestamp=MS] [epoch=N]",
	Summary: "send one record as its own batch and print where it went",
	Detail: `Appends one record to the partition's leader, as a producer with
batch.size=1 would, and prints TOPIC-P@OFFSET. Without partition=, a keyed
record goes to crc32(key) mod partitions and a keyless one to the topic's
sticky partition: the cluster keeps one per topic, starting at 0, and
moves it to the next partition after each keyless produce that succeeds.
Under partitioner=murmur2 (rules=kafka) a keyed record goes where a Kafka
producer puts it, toPositive(murmur2(key)) mod partitions, and a keyless
one to a random partition with a leader, kept until batch.size (16384)
bytes went to it (Kafka's sticky partitioner, KIP-794). acks defaults to 1.

  acks=0    the leader appends, but the producer is never told the offset
  acks=1    acknowledged once the leader has it (followers may not)
  acks=all  pending until every ISR member has it; replicate resolves it
            (under hw.under.min.isr=hold, until the HW covers it, or
            REQUEST_TIMED_OUT after request.timeout.ms)

A missing key= is a null key; key="" is the empty key. value= is required
unless the record is a tombstone (a null value). timestamp=MS sets the
record's CreateTime (default: the clock), e.g. one in the future.

epoch=N makes the request claim leader epoch N, the way a replica's
fetch or a consumer's fetch carries the epoch it learned (KIP-320; Kafka's
produce request itself carries none): a stale epoch is refused with
FENCED_LEADER_EPOCH and nothing is appended. With epoch=, a keyless
record on a topic of several partitions needs partition=.`,
	Chapter:    1,
	Group:      "Topics and records",
	Positional: []Param{{Name: "TOPIC", Values: liveTopics}},
	Keys: []Param{
		{Name: "key"}, {Name: "value"},
		{Name: "partition", Values: choices("0", "1", "2")},
		{Name: "acks", Values: choices("0", "1", "all")},
		{Name: "timestamp"}, {Name: "epoch"},
	},
	Flags: []Param{{Name: "tombstone"}},
	Run:   runProduce,
}

var fetchCommand = &Command{
	Name:    "fetch",
	Args:    "TP [offset=N] [max=N] [isolation=read_uncommitted|read_committed]",
	Summary: "read the visible records of a partition (up to the HW, or the LSO)",
	Detail: `Reads from the partition's leader starting at offset (default: the log
start), at most max records (default 100). Consumers never see beyond the
high watermark, whatever the isolation; read_committed also stops at the
last stable offset and hides aborted transactions and markers. Records
print in the produce syntax: orders-1@0 key=alice value=created.`,
	Chapter:    1,
	Group:      "Topics and records",
	Positional: []Param{{Name: "TP", Values: livePartitions}},
	Keys: []Param{
		{Name: "offset"}, {Name: "max"},
		{Name: "isolation", Values: choices("read_uncommitted", "read_committed")},
	},
	Run: runFetch,
}

// produced is the result of produce.
type produced struct {
	Topic     string  `json:"topic"`
	Partition int32   `json:"partition"`
	Offset    *int64  `json:"offset"`
	Acks      string  `json:"acks"`
	Pending   bool    `json:"pending"`
	AckID     int64   `json:"ack_id"`
	Waiting   []int32 `json:"waiting_for,omitempty"`
	// LeaderOffset is where the leader stored the record, known to the
	// cluster even when the producer is not told (acks=0, or still pending).
	LeaderOffset int64 `json:"leader_offset"`
}

func (p produced) writeText(w io.Writer, _ *style) error {
	at := fmt.Sprintf("%s-%d@%d", p.Topic, p.Partition, p.LeaderOffset)
	var note string
	switch {
	case p.Acks == "0":
		at = fmt.Sprintf("%s-%d@?", p.Topic, p.Partition)
		note = fmt.Sprintf("acks=0: the producer is not told the offset; the leader stored it at %d", p.LeaderOffset)
	case p.Pending:
		note = "acks=all: " + pendingAs(p.AckID, p.Waiting, p.LeaderOffset+1)
	default:
		note = "acks=" + p.Acks
	}
	_, err := fmt.Fprintf(w, "%s (%s)\n", at, note)
	return err
}

// pendingAs is "pending as ack #2 until ...": a pending acks=all
// acknowledgement and what it waits for (untilReached).
func pendingAs(ackID int64, waiting []int32, target int64) string {
	return fmt.Sprintf("pending as ack #%d %s", ackID, untilReached(waiting, target))
}

// waitingFor lists the brokers a pending acks=all acknowledgement still
// waits for: those of the ISR it captured whose LEO is below its target
// (MiniKafka's rule), or, under Kafka's HW rule (hold), the members of the
// ISR now whose LEO is below it (the HW is their minimum).
func waitingFor(ack *engine.Ack, replicas []engine.ReplicaState, hold bool) []int32 {
	var out []int32
	for _, r := range replicas {
		member := slices.Contains(ack.Captured, r.Broker)
		if hold {
			member = r.InISR
		}
		if member && r.LEO < ack.Target {
			out = append(out, r.Broker)
		}
	}
	return out
}

// hwHold reports whether Kafka's HW rule (hw.under.min.isr=hold) is in force.
func (s *Session) hwHold() bool { return s.cluster.Config().Rules.HWUnderMinISR == "hold" }

// waitingNow is waitingFor with the ack's partition as it stands now
// (nobody when the partition cannot be described).
func (s *Session) waitingNow(ack *engine.Ack) []int32 {
	st, err := s.cluster.PartitionState(ack.TP)
	if err != nil {
		return nil
	}
	return waitingFor(ack, st.Replicas, s.hwHold())
}

// untilReached says what a pending acks=all acknowledgement waits for:
// "until broker 2 reaches LEO 5", "until brokers 2,3 reach LEO 5", or, once
// every broker it captured has the record, "until the HW reaches 5" (an
// acknowledgement also needs the HW to cover the record).
func untilReached(waiting []int32, target int64) string {
	switch len(waiting) {
	case 0:
		return fmt.Sprintf("until the HW reaches %d", target)
	case 1:
		return fmt.Sprintf("until broker %d reaches LEO %d", waiting[0], target)
	}
	return fmt.Sprintf("until brokers %s reach LEO %d", joinIDs(waiting, ","), target)
}

// produceRecord reads key=, value= and tombstone into a record.
func produceRecord(a *Args) record.Record {
	r := record.Record{Key: a.Bytes("key"), TimestampMs: a.Int("timestamp", -1, 0, math.MaxInt64)}
	switch {
	case a.Flag("tombstone") && a.Has("value"):
		a.fail("value= and tombstone exclude each other (a tombstone has a null value)")
	case a.Flag("tombstone"):
	case a.Has("value"):
		r.Value = a.Bytes("value")
	default:
		a.fail("give value=V, or tombstone for a null value")
	}
	return r
}

func runProduce(s *Session, w io.Writer, a *Args) error {
	topicName := a.Pos(0)
	r := produceRecord(a)
	part := int32(a.Int("partition", int64(engine.AnyPartition), 0, math.MaxInt32))
	acks := parseAcks(a, "acks", "1")
	epoch := int32(a.Int("epoch", -1, 0, math.MaxInt32))
	if err := a.Err(); err != nil {
		return err
	}
	var ack *engine.Ack
	var err error
	if a.Has("epoch") {
		ack, err = s.produceWithEpoch(topicName, part, r, acks, epoch)
	} else {
		ack, err = s.cluster.Produce(topicName, part, r, acks)
	}
	if err != nil {
		return err
	}
	v := ack.Value()
	res := produced{Topic: ack.TP.Topic, Partition: ack.TP.Partition, Acks: acks.String(), AckID: ack.ID(), LeaderOffset: v.BaseOffset}
	if acks == engine.Acks0 { // the producer is not told, but the one record is at NextOffset-1
		res.LeaderOffset = v.NextOffset - 1
	}
	switch ack.State() {
	case engine.Pending:
		res.Pending, res.Waiting = true, s.waitingNow(ack)
	case engine.Done:
		if v.OffsetsKnown {
			off := v.BaseOffset
			res.Offset = &off
		}
	default:
		return ack.Err()
	}
	return s.emit(w, res)
}

// produceWithEpoch appends one record as a batch that claims a leader
// epoch (engine.Cluster.AppendBatch): the partition refuses a stale one.
func (s *Session) produceWithEpoch(topicName string, part int32, r record.Record, acks engine.AckMode, epoch int32) (*engine.Ack, error) {
	t, err := s.cluster.Topic(topicName)
	if err != nil {
		return nil, err
	}
	n := int32(len(t.Partitions))
	switch {
	case part != engine.AnyPartition:
		if part >= n {
			return nil, kerr.New(kerr.UnknownPartition, "%s-%d", topicName, part)
		}
	case r.Key != nil:
		if part, err = s.cluster.PartitionFor(topicName, r.Key); err != nil {
			return nil, err
		}
	case n == 1:
		part = 0
	default:
		return nil, kerr.Argument("a keyless record with epoch= needs partition=N (topic %s has %d partitions)", topicName, n)
	}
	if r.TimestampMs < 0 {
		r.TimestampMs = s.nowMs()
	}
	b := record.NewBatch([]record.Record{r})
	b.LeaderEpoch = epoch
	return s.cluster.AppendBatch(engine.TopicPartition{Topic: topicName, Partition: part}, b, acks)
}

// parseAcks reads an acks value: 0, 1, all or -1.
func parseAcks(a *Args, key, def string) engine.AckMode {
	v := a.Choice(key, def, "0", "1", "all", "-1")
	m, err := engine.ParseAcks(v)
	if err != nil {
		a.fail("%s: %v", key, err)
	}
	return m
}

// fetched is the result of fetch.
type fetched struct {
	Topic      string       `json:"topic"`
	Partition  int32        `json:"partition"`
	Isolation  string       `json:"isolation"`
	Records    []jsonRecord `json:"records"`
	NextOffset int64        `json:"next_offset"`
	HW         int64        `json:"high_watermark"`
	LSO        int64        `json:"last_stable_offset"`
	LEO        int64        `json:"log_end_offset"`
	lines      []string
	from       int64 // the offset asked for
}

// jsonRecord is a record in JSON: bytes as base64, null as null.
type jsonRecord struct {
	Offset      int64        `json:"offset"`
	KeyB64      *string      `json:"key_b64"`
	ValueB64    *string      `json:"value_b64"`
	TimestampMs int64        `json:"timestamp_ms"`
	Headers     []jsonHeader `json:"headers"`
}

type jsonHeader struct {
	Key      string  `json:"key"`
	ValueB64 *string `json:"value_b64"`
}

func b64(b []byte) *string {
	if b == nil {
		return nil
	}
	s := base64.StdEncoding.EncodeToString(b)
	return &s
}

func newJSONRecord(offset int64, r record.Record) jsonRecord {
	jr := jsonRecord{Offset: offset, KeyB64: b64(r.Key), ValueB64: b64(r.Value), TimestampMs: r.TimestampMs, Headers: []jsonHeader{}}
	for _, h := range r.Headers {
		jr.Headers = append(jr.Headers, jsonHeader{Key: h.Key, ValueB64: b64(h.Value)})
	}
	return jr
}

func (f fetched) writeText(w io.Writer, _ *style) error {
	for _, l := range f.lines {
		fmt.Fprintln(w, l)
	}
	end, bound := f.HW, "HW"
	if f.Isolation == "read_committed" {
		end, bound = f.LSO, "LSO"
	}
	summary := fmt.Sprintf("(%s; next offset %d; %s %d", plural(len(f.Records), "record", "records"), f.NextOffset, bound, end)
	// The hidden range starts where this fetch could have read: the HW (or
	// LSO), or the offset asked for when that is above it.
	if hidden := max(end, f.from); f.LEO > hidden {
		summary += fmt.Sprintf("; %s above the %s, not visible yet", offsetRange(hidden, f.LEO-1), bound)
	}
	_, err := fmt.Fprintln(w, summary+")")
	return err
}

// offsetsText names offsets lo..hi: "offset 3" or "offsets 3..5".
func offsetsText(lo, hi int64) string {
	if lo == hi {
		return fmt.Sprintf("offset %d", lo)
	}
	return fmt.Sprintf("offsets %d..%d", lo, hi)
}

// offsetRange names offsets lo..hi as the subject of a sentence: "offset 3
// is" or "offsets 3..5 are".
func offsetRange(lo, hi int64) string {
	if lo == hi {
		return offsetsText(lo, hi) + " is"
	}
	return offsetsText(lo, hi) + " are"
}

// recordLine renders a record in the produce syntax, so that it can be
// pasted back: orders-1@0 key=alice value=created.
func recordLine(tp string, offset int64, r record.Record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s@%d", tp, offset)
	if r.Key != nil {
		b.WriteString(" key=" + showBytes(r.Key))
	}
	if r.Value == nil {
		b.WriteString(" tombstone")
	} else {
		b.WriteString(" value=" + showBytes(r.Value))
	}
	for _, h := range r.Headers {
		if h.Value == nil {
			fmt.Fprintf(&b, " header:%s=null", h.Key)
		} else {
			fmt.Fprintf(&b, " header:%s=%s", h.Key, showBytes(h.Value))
		}
	}
	return b.String()
}

// showBytes renders bytes as a value word: printable UTF-8 text as is
// (quoted when needed), anything else as hex:.
func showBytes(b []byte) string {
	if utf8.Valid(b) && !strings.ContainsFunc(string(b), func(r rune) bool { return !unicode.IsPrint(r) && r != ' ' }) {
		if q := Quote(string(b)); !strings.HasPrefix(q, "hex:") && !strings.HasPrefix(q, "b64:") {
			return q
		}
		return forceQuote(string(b))
	}
	return "hex:" + hex.EncodeToString(b)
}

func runFetch(s *Session, w io.Writer, a *Args) error {
	tp := a.TP(0)
	iso := a.Choice("isolation", "read_uncommitted", "read_uncommitted", "read_committed")
	max := a.Int("max", 100, 0, math.MaxInt32)
	if err := a.Err(); err != nil {
		return err
	}
	st, err := s.cluster.PartitionState(tp)
	if err != nil {
		return err
	}
	offset := a.Int("offset", st.LogStart, math.MinInt64, math.MaxInt64)
	if err := a.Err(); err != nil {
		return err
	}
	level, err := engine.ParseIsolation(iso)
	if err != nil {
		return err
	}
	// The next offset is where a consumer would go on: past the records,
	// and past the transaction markers the read stepped over.
	recs, next, err := s.cluster.FetchNext(tp, offset, int(max), level)
	if err != nil {
		return err
	}
	res := fetched{Topic: tp.Topic, Partition: tp.Partition, Isolation: iso, Records: []jsonRecord{},
		NextOffset: next, HW: st.HW, LSO: st.LSO, LEO: st.LEO, from: offset}
	for _, r := range recs {
		res.Records = append(res.Records, newJSONRecord(r.Offset, r.Record))
		res.lines = append(res.lines, recordLine(tp.String(), r.Offset, r.Record))
	}
	return s.emit(w, res)
}
