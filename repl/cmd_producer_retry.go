package repl

import (
	"fmt"
	"io"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/producer"
)

// retried is the result of producer retry: what the broker did with the
// resent batch.
type retried struct {
	Producer  string `json:"producer"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Records   int    `json:"records"`
	// Duplicate: the partition recognised the batch (same producer id,
	// epoch and sequence) and appended nothing; the offsets are the
	// original ones.
	Duplicate  bool   `json:"duplicate"`
	Pending    bool   `json:"pending"`
	AckID      int64  `json:"ack_id"`
	Offset     *int64 `json:"offset"`      // the first record's; null with acks=0
	LastOffset *int64 `json:"last_offset"` // the last record's
	// Sequenced batches: who the broker compared.
	ProducerID   *int64 `json:"producer_id"`
	Epoch        *int32 `json:"producer_epoch"`
	BaseSequence *int32 `json:"base_sequence"`
	acks         string
	leaderAt     int64 // where an acks=0 retry landed (-1 when nothing was appended)
}

func (r retried) writeText(w io.Writer, _ *style) error {
	at := fmt.Sprintf("%s-%d@?", r.Topic, r.Partition)
	if r.Offset != nil {
		at = fmt.Sprintf("%s-%d@%d", r.Topic, r.Partition, *r.Offset)
		if *r.LastOffset != *r.Offset {
			at += fmt.Sprintf("..%d", *r.LastOffset)
		}
	}
	who := "the batch"
	if r.ProducerID != nil {
		who = fmt.Sprintf("producer %d epoch %d sequence %d", *r.ProducerID, *r.Epoch, *r.BaseSequence)
	}
	var note string
	original := "the original offset"
	if r.Records > 1 {
		original += "s"
	}
	switch {
	case r.Duplicate && r.Pending:
		note = fmt.Sprintf("retry recognised as a duplicate of %s: nothing appended; ack #%d completes with %s once the HW covers it", who, r.AckID, original)
	case r.Duplicate:
		note = fmt.Sprintf("retry recognised as a duplicate of %s: %s, nothing appended", who, original)
	case r.acks == "0":
		note = fmt.Sprintf("retry appended anew at %d; acks=0: the producer is not told", r.leaderAt)
	case r.ProducerID == nil && r.Pending:
		note = fmt.Sprintf("retry appended anew, pending as ack #%d: a plain producer's retry is a second copy if the first attempt landed", r.AckID)
	case r.ProducerID == nil:
		note = "retry appended anew: a plain producer's retry is a second copy if the first attempt landed"
	case r.Pending:
		note = fmt.Sprintf("retry appended anew, pending as ack #%d: the partition did not hold %s", r.AckID, who)
	default:
		note = fmt.Sprintf("retry appended anew: the partition did not hold %s", who)
	}
	_, err := fmt.Fprintf(w, "%s (%s)\n", at, note)
	return err
}

func runProducerRetry(s *Session, w io.Writer, a *Args) error {
	name := a.Pos(0)
	back := int(a.Int("back", 1, 1, producer.MaxRetryBack))
	if err := a.Err(); err != nil {
		return err
	}
	np, err := s.producerNamed(name)
	if err != nil {
		return err
	}
	var last producer.BatchState
	if recent := np.p.Describe().Recent; back <= len(recent) {
		last = recent[back-1]
	}
	before := int64(-1)
	if last.Records > 0 {
		if st, err := s.cluster.PartitionState(last.TP); err == nil {
			before = st.LEO
		}
	}
	futs, err := np.p.RetryBack(back)
	if err != nil {
		return err
	}
	np.track(futs...)
	if err := failure(futs); err != nil {
		return err
	}
	d := np.p.Describe()
	res := retried{Producer: np.name, Topic: last.TP.Topic, Partition: last.TP.Partition, Records: len(futs), acks: d.Acks.String(), leaderAt: -1}
	if d.Idempotent {
		pid, epoch, seq := d.PID, d.Epoch, last.BaseSequence
		res.ProducerID, res.Epoch, res.BaseSequence = &pid, &epoch, &seq
	}
	after := before
	if st, err := s.cluster.PartitionState(last.TP); err == nil {
		after = st.LEO
	}
	res.Duplicate = after == before
	if !res.Duplicate {
		res.leaderAt = before
	}
	// The resent batch's acknowledgement: its id is in the producer's
	// batch_flushed event; a pending one still knows where the batch is.
	for _, e := range s.collectEvents() {
		if bf, ok := e.(engine.BatchFlushed); ok && bf.Retry && bf.AckID != 0 {
			res.AckID = bf.AckID
		}
	}
	first, lastOff := int64(-1), int64(-1)
	switch futs[0].State() {
	case engine.Pending:
		res.Pending = true
		for _, ack := range s.cluster.PendingAcks() {
			if ack.ID() == res.AckID {
				v := ack.Value()
				first, lastOff = v.BaseOffset, v.NextOffset-1
				res.Duplicate = v.Duplicate
			}
		}
	case engine.Done:
		if v := futs[0].Value(); v.OffsetKnown {
			first, lastOff = v.Offset, futs[len(futs)-1].Value().Offset
		}
	}
	if first >= 0 && res.acks != "0" {
		res.Offset, res.LastOffset = &first, &lastOff
	}
	return s.emit(w, res)
}
