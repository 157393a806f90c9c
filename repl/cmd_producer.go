package repl

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/producer"
)

var producerCommand = &Command{
	Name:    "producer",
	Summary: "named producers with an accumulator: batching, linger, futures, idempotence",
	Detail: `A producer partitions records, collects them per partition in its
accumulator and sends one batch per partition when batch.size bytes are
reached, when linger.ms has passed (clock advance), or on flush. Every send
returns a future that settles when its batch is acknowledged.`,
	Chapter: 4,
	Group:   "Producers",
	Sub: []*Command{
		{
			Name:    "create",
			Args:    "NAME [batch.size=N] [linger.ms=N] [buffer.memory=N] [acks=0|1|all] [idempotent]",
			Summary: "create a named producer (creating an existing name fences the older one)",
			Detail: `Defaults: batch.size=16384 (estimated bytes per partition: 39 + key +
value per record), linger.ms=0, buffer.memory=1048576, acks=1. An
idempotent producer gets a producer id and epoch, numbers its batches
with sequences and needs acks=all (acks=1 is upgraded). Creating a
producer with a name that exists bumps its epoch and fences the old one.`,
			Positional: []Param{{Name: "NAME"}},
			Keys: []Param{
				{Name: "batch.size"}, {Name: "linger.ms", Values: choices("0", "10", "100", "1000")},
				{Name: "buffer.memory"}, {Name: "acks", Values: choices("0", "1", "all")},
			},
			Flags: []Param{{Name: "idempotent"}},
			Run:   runProducerCreate,
		},
		{
			Name:       "send",
			Args:       "NAME TOPIC [key=K] [value=V | tombstone] [partition=N]",
			Summary:    "queue one record; it is sent when its partition's batch is full, lingers long enough, or is flushed",
			Positional: []Param{{Name: "NAME", Values: liveProducers}, {Name: "TOPIC", Values: liveTopics}},
			Keys:       []Param{{Name: "key"}, {Name: "value"}, {Name: "partition", Values: choices("0", "1", "2")}},
			Flags:      []Param{{Name: "tombstone"}},
			Run:        runProducerSend,
		},
		{
			Name:       "flush",
			Args:       "NAME",
			Summary:    "send every buffered partition now, one batch each",
			Positional: []Param{{Name: "NAME", Values: liveProducers}},
			Run:        runProducerFlush,
		},
		{
			Name:    "retry",
			Args:    "NAME",
			Summary: "resend the last batch exactly as sent (same producer id, epoch, sequence)",
			Detail: `For an idempotent producer the partition recognises the retry as a
duplicate of its last batch and answers with the original offsets:
nothing is written twice. A plain producer's retry is appended again, a
duplicate a consumer will read.`,
			Positional: []Param{{Name: "NAME", Values: liveProducers}},
			Run:        runProducerRetry,
		},
		{
			Name:    "list",
			Summary: "every producer with its settings, buffered records and pending futures",
			Run:     runProducerList,
		},
	},
}

func (s *Session) producerNamed(name string) (*producer.Producer, error) {
	p, err := s.cluster.Producer(name)
	if err != nil {
		return nil, err
	}
	if p.Closed() {
		return nil, kerr.State("producer %s is closed", name)
	}
	return p, nil
}

// producerCreated is the result of producer create.
type producerCreated struct {
	Name       string `json:"name"`
	Acks       string `json:"acks"`
	BatchSize  int64  `json:"batch_size"`
	LingerMs   int64  `json:"linger_ms"`
	BufferMax  int64  `json:"buffer_memory"`
	Idempotent bool   `json:"idempotent"`
	PID        *int64 `json:"producer_id"`
	Epoch      *int32 `json:"producer_epoch"`
}

func (p producerCreated) writeText(w io.Writer, _ *style) error {
	fmt.Fprintf(w, "producer %s: acks=%s batch.size=%d linger.ms=%d", p.Name, p.Acks, p.BatchSize, p.LingerMs)
	if p.Idempotent {
		fmt.Fprintf(w, " idempotent producer-id=%d epoch=%d", *p.PID, *p.Epoch)
	}
	_, err := fmt.Fprintln(w)
	return err
}

func ackName(m engine.AckMode) string {
	if m == engine.AcksAll {
		return "all"
	}
	return m.String()
}

func runProducerCreate(s *Session, w io.Writer, a *Args) error {
	opts := producer.DefaultOptions()
	opts.Name = a.Pos(0)
	opts.BatchSize = a.Int("batch.size", opts.BatchSize, 1, math.MaxInt64)
	opts.LingerMs = a.Duration("linger.ms", opts.LingerMs)
	opts.MaxBufferBytes = a.Int("buffer.memory", opts.MaxBufferBytes, 1, math.MaxInt64)
	opts.Acks = parseAcks(a, "acks", "1")
	opts.Idempotent = a.Flag("idempotent")
	if err := a.Err(); err != nil {
		return err
	}
	p, err := s.cluster.NewProducer(opts)
	if err != nil {
		return err
	}
	d := p.Describe()
	res := producerCreated{Name: d.Name, Acks: ackName(d.Acks), BatchSize: d.BatchSize, LingerMs: d.LingerMs, BufferMax: d.BufferMax, Idempotent: d.Idempotent}
	if d.Idempotent {
		pid, epoch := d.PID, d.Epoch
		res.PID, res.Epoch = &pid, &epoch
	}
	return s.emit(w, res)
}

// sent is the result of producer send.
type sent struct {
	Producer  string `json:"producer"`
	FutureID  int64  `json:"future_id"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	State     string `json:"state"`
	Pending   bool   `json:"pending"`
	Offset    *int64 `json:"offset"`
	// Buffered is what waits in the accumulator for this partition now.
	BufferedRecords int   `json:"buffered_records"`
	BufferedBytes   int64 `json:"buffered_bytes"`
	BatchSize       int64 `json:"batch_size"`
	LingerMs        int64 `json:"linger_ms"`
	FirstEnqueueMs  int64 `json:"first_enqueue_ms"`
}

func (r sent) writeText(w io.Writer, _ *style) error {
	tp := fmt.Sprintf("%s-%d", r.Topic, r.Partition)
	var err error
	switch {
	case r.Offset != nil:
		_, err = fmt.Fprintf(w, "%s@%d (future #%d done)\n", tp, *r.Offset, r.FutureID)
	case r.State == "done":
		_, err = fmt.Fprintf(w, "%s@? (future #%d done, acks=0: the offset is unknown)\n", tp, r.FutureID)
	case r.BufferedRecords > 0:
		_, err = fmt.Fprintf(w, "%s (future #%d buffered in %s: %s, %d of %d bytes; linger.ms=%d from %d ms)\n",
			tp, r.FutureID, r.Producer, plural(r.BufferedRecords, "record", "records"), r.BufferedBytes, r.BatchSize, r.LingerMs, r.FirstEnqueueMs)
	default:
		_, err = fmt.Fprintf(w, "%s (future #%d sent, %s)\n", tp, r.FutureID, r.State)
	}
	return err
}

func runProducerSend(s *Session, w io.Writer, a *Args) error {
	name, topicName := a.Pos(0), a.Pos(1)
	r := produceRecord(a)
	part := int32(a.Int("partition", int64(producer.AnyPartition), 0, math.MaxInt32))
	if err := a.Err(); err != nil {
		return err
	}
	p, err := s.producerNamed(name)
	if err != nil {
		return err
	}
	f, err := p.Send(topicName, part, r)
	if err != nil {
		return err
	}
	d := p.Describe()
	res := sent{Producer: d.Name, FutureID: f.ID(), Topic: f.TP.Topic, Partition: f.TP.Partition,
		State: f.State().String(), Pending: f.State() == engine.Pending, BatchSize: d.BatchSize, LingerMs: d.LingerMs, FirstEnqueueMs: -1}
	for _, b := range d.Buffered {
		if b.TP == f.TP {
			res.BufferedRecords, res.BufferedBytes, res.FirstEnqueueMs = b.Records, b.Bytes, b.FirstEnqueueMs
		}
	}
	if f.State() == engine.Done && f.Value().OffsetKnown {
		off := f.Value().Offset
		res.Offset = &off
	}
	return s.emit(w, res)
}

func runProducerFlush(s *Session, w io.Writer, a *Args) error {
	p, err := s.producerNamed(a.Pos(0))
	if err != nil {
		return err
	}
	p.Flush()
	return nil
}

func runProducerRetry(s *Session, w io.Writer, a *Args) error {
	p, err := s.producerNamed(a.Pos(0))
	if err != nil {
		return err
	}
	_, err = p.Retry()
	return err
}

// producerList is the result of producer list.
type producerList struct {
	Producers []producerInfo `json:"producers"`
}

type producerInfo struct {
	Name       string        `json:"name"`
	Acks       string        `json:"acks"`
	BatchSize  int64         `json:"batch_size"`
	LingerMs   int64         `json:"linger_ms"`
	Idempotent bool          `json:"idempotent"`
	PID        int64         `json:"producer_id"`
	Epoch      int32         `json:"producer_epoch"`
	Closed     bool          `json:"closed"`
	Buffered   int           `json:"buffered_records"`
	Pending    []futureInfo  `json:"pending"`
	Sequences  []sequenceRow `json:"sequences"`
}

type futureInfo struct {
	ID        int64  `json:"id"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	State     string `json:"state"`
	Offset    *int64 `json:"offset"`
}

type sequenceRow struct {
	Topic        string `json:"topic"`
	Partition    int32  `json:"partition"`
	Next         int32  `json:"next_sequence"`
	Acknowledged int32  `json:"acknowledged_sequence"`
	InFlight     int    `json:"in_flight"`
}

func (l producerList) writeText(w io.Writer, _ *style) error {
	if len(l.Producers) == 0 {
		_, err := fmt.Fprintln(w, "(no producers; producer create NAME makes one)")
		return err
	}
	var rows [][]string
	for _, p := range l.Producers {
		id, state := "-", "open"
		if p.Idempotent {
			id = fmt.Sprintf("%d/%d", p.PID, p.Epoch)
		}
		if p.Closed {
			state = "closed"
		}
		rows = append(rows, []string{p.Name, p.Acks, fmt.Sprint(p.BatchSize), fmt.Sprint(p.LingerMs), id, fmt.Sprint(p.Buffered), fmt.Sprint(len(p.Pending)), state})
	}
	if err := renderTable(w, []string{"NAME", "ACKS", "BATCH.SIZE", "LINGER.MS", "PID/EPOCH", "BUFFERED", "PENDING", "STATE"}, rows); err != nil {
		return err
	}
	for _, p := range l.Producers {
		var ids []string
		for _, f := range p.Pending {
			ids = append(ids, fmt.Sprintf("#%d %s-%d %s", f.ID, f.Topic, f.Partition, f.State))
		}
		if len(ids) > 0 {
			fmt.Fprintf(w, "pending futures of %s: %s\n", p.Name, strings.Join(ids, ", "))
		}
		for _, sq := range p.Sequences {
			fmt.Fprintf(w, "sequence of %s on %s-%d: next %d, acknowledged %d, %d in flight\n", p.Name, sq.Topic, sq.Partition, sq.Next, sq.Acknowledged, sq.InFlight)
		}
	}
	return nil
}

func runProducerList(s *Session, w io.Writer, a *Args) error {
	res := producerList{Producers: []producerInfo{}}
	for _, p := range s.cluster.Producers() {
		d := p.Describe()
		info := producerInfo{Name: d.Name, Acks: ackName(d.Acks), BatchSize: d.BatchSize, LingerMs: d.LingerMs,
			Idempotent: d.Idempotent, PID: d.PID, Epoch: d.Epoch, Closed: d.Closed, Pending: []futureInfo{}, Sequences: []sequenceRow{}}
		for _, b := range d.Buffered {
			info.Buffered += b.Records
		}
		for _, f := range d.Pending {
			info.Pending = append(info.Pending, futureInfo{ID: f.ID, Topic: f.TP.Topic, Partition: f.TP.Partition, State: f.State.String()})
		}
		for _, sq := range d.Sequences {
			info.Sequences = append(info.Sequences, sequenceRow{Topic: sq.TP.Topic, Partition: sq.TP.Partition, Next: sq.Next, Acknowledged: sq.Acknowledged, InFlight: sq.InFlight})
		}
		res.Producers = append(res.Producers, info)
	}
	return s.emit(w, res)
}
