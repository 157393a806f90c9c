package repl

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
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
			Args:    "NAME [batch.size=N] [linger.ms=N] [buffer.memory=N] [acks=0|1|all] [idempotent] [transactional.id=ID]",
			Summary: "create a named producer (creating an existing identity fences the older instance)",
			Detail: `Defaults: batch.size=16384 (estimated bytes per partition: 39 + key +
value per record), linger.ms=0, buffer.memory=1048576, acks=1.
buffer.memory bounds the estimated bytes waiting in the accumulator: a
send that would exceed it fails with PRODUCER_BUFFER_FULL.

An idempotent producer gets a producer id and epoch, numbers its batches
with sequences and needs acks=all (acks=1 is upgraded, acks=0 refused).
Its identity is transactional.id=ID, or NAME without it: creating another
producer with the same identity keeps the producer id, bumps the epoch
and fences every older instance, whose next batch fails with
PRODUCER_FENCED. transactional.id implies idempotent; here it only names
the identity (transactions are the txn commands). So two instances of
one identity can live side by side:
  producer create old idempotent transactional.id=writer
  producer create new idempotent transactional.id=writer
The trace names a producer by its identity (producer writer flushed ...).
Creating a producer with a NAME that exists replaces it in the REPL.`,
			Positional: []Param{{Name: "NAME"}},
			Keys: []Param{
				{Name: "batch.size"}, {Name: "linger.ms", Values: choices("0", "10", "100", "1000")},
				{Name: "buffer.memory"}, {Name: "acks", Values: choices("0", "1", "all")},
				{Name: "transactional.id"},
			},
			Flags: []Param{{Name: "idempotent"}},
			Run:   runProducerCreate,
		},
		{
			Name:    "send",
			Args:    "NAME TOPIC [key=K] [value=V | tombstone] [partition=N] [timestamp=MS]",
			Summary: "queue one record; it is sent when its partition's batch is full, lingers long enough, or is flushed",
			Detail: `Without partition=, a keyed record goes to crc32(key) mod partitions and
a keyless one to the topic's sticky partition, which moves on after each
batch holding keyless records succeeds. timestamp=MS sets the record's
CreateTime (default: the clock). When the send fills the batch
(batch.size) it is sent at once; if that batch fails (PRODUCER_FENCED,
NOT_ENOUGH_REPLICAS, ...) the command fails with the error.`,
			Positional: []Param{{Name: "NAME", Values: liveProducers}, {Name: "TOPIC", Values: liveTopics}},
			Keys: []Param{{Name: "key"}, {Name: "value"}, {Name: "partition", Values: choices("0", "1", "2")},
				{Name: "timestamp"}},
			Flags: []Param{{Name: "tombstone"}},
			Run:   runProducerSend,
		},
		{
			Name:    "flush",
			Args:    "NAME",
			Summary: "send every buffered partition now, one batch each",
			Detail: `A batch that fails at once (PRODUCER_FENCED, NOT_ENOUGH_REPLICAS, ...)
makes the command fail with its error; acks=all batches stay pending
until replication settles them.`,
			Positional: []Param{{Name: "NAME", Values: liveProducers}},
			Run:        runProducerFlush,
		},
		{
			Name:    "retry",
			Args:    "NAME [back=N]",
			Summary: "resend the last batch exactly as sent (same producer id, epoch, sequence)",
			Detail: `Resends the last batch (back=N: the batch sent N batches ago, up to 5),
whether its acknowledgement succeeded, failed
(NOT_ENOUGH_REPLICAS_AFTER_APPEND, a crashed leader) or is still
pending, and says what the broker did with it:

  duplicate  an idempotent producer's batch the partition already stores:
             answered with the original offsets, nothing appended
             (with acks=all, once the HW covers them)
  appended   written anew at new offsets: a plain producer's retry always
             is (a second copy a consumer reads if the first one landed),
             an idempotent one's when the first attempt never reached the log

MiniKafka remembers one batch per producer and partition, so only the
last batch is recognised; Kafka remembers five (idempotence.window=5
under rules=kafka), and an older retry is OUT_OF_ORDER_SEQUENCE either way.`,
			Positional: []Param{{Name: "NAME", Values: liveProducers}},
			Keys:       []Param{{Name: "back", Values: choices("1", "2", "3", "4", "5")}},
			Run:        runProducerRetry,
		},
		{
			Name:    "list",
			Summary: "every producer with its settings, buffered records and pending futures",
			Run:     runProducerList,
		},
	},
}

// namedProducer is a producer the learner created: its REPL name, the
// engine's producer (named by its identity), and what check producer P
// acked, failed and pending count of the records it sent or retried: the
// futures not settled when last looked at, and counts of the ones that
// settled (released, so that a long session does not keep every future).
type namedProducer struct {
	name    string
	p       *engine.Producer
	futures []*engine.Future
	// acked counts the released futures done with a known offset, failed
	// the failed ones (a cancelled future, or one done under acks=0,
	// counts as neither); kept is len(futures) after the last release.
	acked, failed int64
	kept          int
}

// track adds the futures of records just sent or retried. Now and then
// (when the list has doubled since) it releases the settled ones into the
// counts: a future's state never changes once settled.
func (np *namedProducer) track(fs ...*engine.Future) {
	np.futures = append(np.futures, fs...)
	if len(np.futures) < 2*np.kept+64 {
		return
	}
	keep := np.futures[:0]
	for _, f := range np.futures {
		switch st := f.State(); {
		case st == engine.Pending:
			keep = append(keep, f)
		case st == engine.Done && f.Value().OffsetKnown:
			np.acked++
		case st == engine.Failed:
			np.failed++
		}
	}
	clear(np.futures[len(keep):])
	np.futures, np.kept = keep, len(keep)
}

// count is check producer P acked, failed or pending: the released
// futures' count and the kept futures in that state.
func (np *namedProducer) count(what string) int64 {
	n := int64(0)
	switch what {
	case "acked":
		n = np.acked
	case "failed":
		n = np.failed
	}
	for _, f := range np.futures {
		switch st := f.State(); {
		case what == "acked" && st == engine.Done && f.Value().OffsetKnown,
			what == "failed" && st == engine.Failed,
			what == "pending" && st == engine.Pending:
			n++
		}
	}
	return n
}

// producerEntry finds the newest producer created under name.
func (s *Session) producerEntry(name string) (*namedProducer, error) {
	for i := len(s.producers) - 1; i >= 0; i-- {
		if s.producers[i].name == name {
			return s.producers[i], nil
		}
	}
	return nil, &hintedError{err: kerr.Argument("unknown producer %q", name),
		hint: fmt.Sprintf("`producer list` shows the producers; `producer create %s` makes one", Quote(name))}
}

// producerNamed finds an open producer.
func (s *Session) producerNamed(name string) (*namedProducer, error) {
	np, err := s.producerEntry(name)
	if err != nil {
		return nil, err
	}
	if np.p.Closed() {
		return nil, kerr.State("producer %s is closed", name)
	}
	return np, nil
}

// failure returns the error of the first future in fs that failed.
func failure(fs []*engine.Future) error {
	for _, f := range fs {
		if f.State() == engine.Failed {
			return f.Err()
		}
	}
	return nil
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
	// TransactionalID is the identity when it is not the name.
	TransactionalID *string `json:"transactional_id"`
}

func (p producerCreated) writeText(w io.Writer, _ *style) error {
	fmt.Fprintf(w, "producer %s: acks=%s batch.size=%d linger.ms=%d", p.Name, p.Acks, p.BatchSize, p.LingerMs)
	if p.BufferMax != engine.DefaultProducerOptions().MaxBufferBytes {
		fmt.Fprintf(w, " buffer.memory=%d", p.BufferMax)
	}
	if p.Idempotent {
		fmt.Fprintf(w, " idempotent producer-id=%d epoch=%d", *p.PID, *p.Epoch)
	}
	if p.TransactionalID != nil {
		fmt.Fprintf(w, " transactional.id=%s", Quote(*p.TransactionalID))
	}
	_, err := fmt.Fprintln(w)
	return err
}

func runProducerCreate(s *Session, w io.Writer, a *Args) error {
	opts := engine.DefaultProducerOptions()
	opts.Name = a.Pos(0)
	opts.BatchSize = a.Int("batch.size", opts.BatchSize, 1, math.MaxInt64)
	opts.LingerMs = a.Duration("linger.ms", opts.LingerMs)
	opts.MaxBufferBytes = a.Int("buffer.memory", opts.MaxBufferBytes, 1, math.MaxInt64)
	opts.Acks = parseAcks(a, "acks", "1")
	opts.Idempotent = a.Flag("idempotent")
	var txnID *string
	if a.Has("transactional.id") {
		id := a.String("transactional.id", "")
		if id == "" {
			a.fail("transactional.id= needs an identity name")
		}
		opts.Name, opts.Idempotent, txnID = id, true, &id
	}
	if err := a.Err(); err != nil {
		return err
	}
	p, err := s.cluster.NewProducer(opts)
	if err != nil {
		return err
	}
	s.producers = append(s.producers, &namedProducer{name: a.Pos(0), p: p})
	d := p.Describe()
	res := producerCreated{Name: a.Pos(0), Acks: d.Acks.String(), BatchSize: d.BatchSize, LingerMs: d.LingerMs, BufferMax: d.BufferMax,
		Idempotent: d.Idempotent, TransactionalID: txnID}
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
	part := int32(a.Int("partition", int64(engine.AnyPartition), 0, math.MaxInt32))
	if err := a.Err(); err != nil {
		return err
	}
	np, err := s.producerNamed(name)
	if err != nil {
		return err
	}
	p := np.p
	f, err := p.Send(topicName, part, r)
	if err != nil {
		return err
	}
	np.track(f)
	if err := failure([]*engine.Future{f}); err != nil {
		return err
	}
	d := p.Describe()
	res := sent{Producer: np.name, FutureID: f.ID(), Topic: f.TP().Topic, Partition: f.TP().Partition,
		State: f.State().String(), Pending: f.State() == engine.Pending, BatchSize: d.BatchSize, LingerMs: d.LingerMs, FirstEnqueueMs: -1}
	for _, b := range d.Buffered {
		if b.TP == f.TP() {
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
	np, err := s.producerNamed(a.Pos(0))
	if err != nil {
		return err
	}
	pending := np.p.PendingFutures()
	np.p.Flush()
	return failure(pending)
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
	for _, np := range s.producers {
		d := np.p.Describe()
		info := producerInfo{Name: np.name, Acks: d.Acks.String(), BatchSize: d.BatchSize, LingerMs: d.LingerMs,
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
