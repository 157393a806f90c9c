package producer

import (
	"fmt"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/replication"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// RecordMetadata is where one sent record went.
type RecordMetadata struct {
	Topic     string
	Partition int32
	// Offset and BaseOffset (of its batch) are meaningful only when
	// OffsetKnown; acks=0 reports no offsets.
	Offset, BaseOffset int64
	OffsetKnown        bool
	TimestampMs        int64
}

// Future is the pending result of one send: a deterministic promise that the
// batch's flush and acknowledgement settle. Every future of a failed batch
// fails with the same error; a crash cancels them.
type Future struct {
	replication.Promise[RecordMetadata]
	TP       topic.Partition
	Producer string
}

// BatchFlushed: a producer turned a partition's pending records into one batch
// and appended it.
type BatchFlushed struct {
	Producer     string
	TP           topic.Partition
	Records      int
	BaseSequence int32 // -1 for a non-idempotent producer
	Reason       string
	AckID        int64 // 0 when the append failed at once
	Retry        bool
	// back is how many batches back a retry reached (RetryBack; 0 or 1
	// for the last batch). Unexported, so the event's JSON is the same as
	// before RetryBack existed.
	back int
}

// Kind returns "batch_flushed".
func (BatchFlushed) Kind() string { return "batch_flushed" }

// String describes the event on one line.
func (e BatchFlushed) String() string {
	what := "flushed"
	switch {
	case e.Retry && e.back > 1:
		what = fmt.Sprintf("resent the batch it sent %d batches ago to", e.back)
	case e.Retry:
		what = "resent its last batch to"
	}
	s := fmt.Sprintf("producer %s %s %s: %s", e.Producer, what, e.TP, plural(e.Records, "record", "records"))
	if e.BaseSequence >= 0 {
		s += fmt.Sprintf(", base sequence %d", e.BaseSequence)
	}
	if e.Reason != "" {
		s += " (" + e.Reason + ")"
	}
	if e.AckID > 0 {
		s += fmt.Sprintf(" as ack #%d", e.AckID)
	}
	return s
}

// FuturesSettled: a batch's record futures completed, failed or were
// cancelled.
type FuturesSettled struct {
	Producer string
	TP       topic.Partition
	IDs      []int64
	State    replication.HandleState
	// Offsets of the records when done with known offsets.
	Offsets []int64
	Code    kerr.Code
	Message string
}

// Kind returns "futures_settled".
func (FuturesSettled) Kind() string { return "futures_settled" }

// String describes the event on one line.
func (e FuturesSettled) String() string {
	ids := make([]string, len(e.IDs))
	for i, id := range e.IDs {
		ids[i] = fmt.Sprintf("#%d", id)
	}
	futures, offsets := "futures", "offsets"
	if len(ids) == 1 {
		futures, offsets = "future", "offset"
	}
	s := fmt.Sprintf("producer %s %s %s %s", e.Producer, futures, strings.Join(ids, ","), e.State)
	switch {
	case e.State == replication.Done && len(e.Offsets) > 0:
		at := make([]string, len(e.Offsets))
		for i, o := range e.Offsets {
			at[i] = fmt.Sprintf("%s@%d", e.TP, o)
		}
		s += ": " + strings.Join(at, " ")
	case e.State == replication.Done:
		s += fmt.Sprintf(": %s, %s unknown (acks=0)", e.TP, offsets)
	case e.State == replication.Failed:
		s += fmt.Sprintf(": %s: %s", e.Code, e.Message)
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
