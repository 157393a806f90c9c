package replication

import (
	"fmt"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// Event is one thing a step changed: the teaching trace that the REPL prints
// after each command. Events are plain values; Kind is a stable snake_case
// name and String a one-line, deterministic description.
type Event interface {
	Kind() string
	String() string
}

// EventLog collects events in the order they happen. A nil *EventLog drops
// everything (handy for standalone use).
type EventLog struct{ events []Event }

// Emit appends an event and returns its position (for Replace).
func (l *EventLog) Emit(e Event) int {
	if l == nil {
		return -1
	}
	l.events = append(l.events, e)
	return len(l.events) - 1
}

// Replace rewrites the event at a position Emit returned, if it has not been
// taken yet: a step may announce what it does before it knows every detail.
func (l *EventLog) Replace(pos int, e Event) {
	if l != nil && pos >= 0 && pos < len(l.events) {
		l.events[pos] = e
	}
}

// Take returns the events collected so far and empties the log.
func (l *EventLog) Take() []Event {
	if l == nil {
		return nil
	}
	out := l.events
	l.events = nil
	return out
}

// Len is the number of events not yet taken.
func (l *EventLog) Len() int {
	if l == nil {
		return 0
	}
	return len(l.events)
}

// HWMoved: the high watermark advanced (it only moves down in DataLost).
type HWMoved struct {
	TP       topic.Partition
	From, To int64
}

// Kind returns "hw_moved".
func (HWMoved) Kind() string { return "hw_moved" }

// String describes the event on one line.
func (e HWMoved) String() string {
	return fmt.Sprintf("%s HW %d -> %d", e.TP, e.From, e.To)
}

// ISRShrank: a broker left the ISR, and why.
type ISRShrank struct {
	TP     topic.Partition
	Broker int32
	Reason string
	ISR    []int32 // after the change
}

// Kind returns "isr_shrank".
func (ISRShrank) Kind() string { return "isr_shrank" }

// String describes the event on one line.
func (e ISRShrank) String() string {
	return fmt.Sprintf("%s ISR shrank: broker %d removed (%s); ISR %s", e.TP, e.Broker, e.Reason, FormatBrokers(e.ISR))
}

// ISRExpanded: a broker joined the ISR.
type ISRExpanded struct {
	TP     topic.Partition
	Broker int32
	Reason string
	ISR    []int32 // after the change
}

// Kind returns "isr_expanded".
func (ISRExpanded) Kind() string { return "isr_expanded" }

// String describes the event on one line.
func (e ISRExpanded) String() string {
	return fmt.Sprintf("%s ISR expanded: broker %d added (%s); ISR %s", e.TP, e.Broker, e.Reason, FormatBrokers(e.ISR))
}

// FollowerFetched: a follower copied the leader's batches [From, To) byte for
// byte.
type FollowerFetched struct {
	TP       topic.Partition
	Broker   int32
	From, To int64 // follower LEO before and after
	Batches  int
	Bytes    int64
}

// Kind returns "follower_fetched".
func (FollowerFetched) Kind() string { return "follower_fetched" }

// String describes the event on one line.
func (e FollowerFetched) String() string {
	return fmt.Sprintf("%s follower %d copied offsets %d..%d (%s, %s), LEO %d -> %d",
		e.TP, e.Broker, e.From, e.To-1, plural(e.Batches, "batch", "batches"), plural(int(e.Bytes), "byte", "bytes"), e.From, e.To)
}

// ReplicaTruncated: a replica's log lost its suffix [To, From).
type ReplicaTruncated struct {
	TP       topic.Partition
	Broker   int32
	From, To int64 // LEO before and after
	Reason   string
}

// Kind returns "replica_truncated".
func (ReplicaTruncated) Kind() string { return "replica_truncated" }

// String describes the event on one line.
func (e ReplicaTruncated) String() string {
	return fmt.Sprintf("%s broker %d truncated LEO %d -> %d (%s)", e.TP, e.Broker, e.From, e.To, e.Reason)
}

// FollowerReset: a follower whose LEO was below the leader's log start
// dropped its log and restarted at the leader's log start (decision 11).
type FollowerReset struct {
	TP       topic.Partition
	Broker   int32
	From, To int64 // follower LEO before; the leader's log start
}

// Kind returns "follower_reset".
func (FollowerReset) Kind() string { return "follower_reset" }

// String describes the event on one line.
func (e FollowerReset) String() string {
	return fmt.Sprintf("%s follower %d reset: LEO %d is below the leader's log start %d, so its log now starts at %d",
		e.TP, e.Broker, e.From, e.To, e.To)
}

// ReplicaDiverged: at a leader change, a replica held offsets above the high
// watermark; they may differ from the new leader's, so it will truncate to
// the high watermark before it fetches again (decision 7).
type ReplicaDiverged struct {
	TP      topic.Partition
	Broker  int32
	LEO, HW int64
	Epoch   int32
}

// Kind returns "replica_diverged".
func (ReplicaDiverged) Kind() string { return "replica_diverged" }

// String describes the event on one line.
func (e ReplicaDiverged) String() string {
	return fmt.Sprintf("%s broker %d marked diverged: LEO %d > HW %d at leader epoch %d; it truncates to HW before its next fetch",
		e.TP, e.Broker, e.LEO, e.HW, e.Epoch)
}

// LeaderEpochChecked: a follower asked the leader where its latest leader
// epoch ends (OffsetsForLeaderEpoch, KIP-101/KIP-279) before fetching.
type LeaderEpochChecked struct {
	TP             topic.Partition
	Broker, Leader int32
	// Requested is the follower's latest epoch; Epoch and EndOffset the
	// leader's answer (UndefinedEpoch, UndefinedEpochOffset when it knows
	// nothing of it).
	Requested int32
	Epoch     int32
	EndOffset int64
}

// Kind returns "offsets_for_leader_epoch".
func (LeaderEpochChecked) Kind() string { return "offsets_for_leader_epoch" }

// String describes the event on one line.
func (e LeaderEpochChecked) String() string {
	if e.EndOffset == UndefinedEpochOffset {
		return fmt.Sprintf("%s broker %d OffsetsForLeaderEpoch(epoch %d) -> leader %d: unknown epoch", e.TP, e.Broker, e.Requested, e.Leader)
	}
	return fmt.Sprintf("%s broker %d OffsetsForLeaderEpoch(epoch %d) -> leader %d: epoch %d ends at offset %d", e.TP, e.Broker, e.Requested, e.Leader, e.Epoch, e.EndOffset)
}

// FollowerHWLearned: under follower.hw=fetch a follower took a new high
// watermark from its fetch response (the leader's HW before this round's
// ISR refresh, capped at the follower's LEO), one round after the leader.
type FollowerHWLearned struct {
	TP       topic.Partition
	Broker   int32
	From, To int64
}

// Kind returns "follower_hw".
func (FollowerHWLearned) Kind() string { return "follower_hw" }

// String describes the event on one line.
func (e FollowerHWLearned) String() string {
	return fmt.Sprintf("%s follower %d HW %d -> %d (from its fetch response)", e.TP, e.Broker, e.From, e.To)
}

// LeaderChanged: a new leader epoch began.
type LeaderChanged struct {
	TP       topic.Partition
	From, To int32
	Epoch    int32
	Reason   string
}

// Kind returns "leader_changed".
func (LeaderChanged) Kind() string { return "leader_changed" }

// String describes the event on one line.
func (e LeaderChanged) String() string {
	return fmt.Sprintf("%s leader %d -> %d, epoch %d (%s)", e.TP, e.From, e.To, e.Epoch, e.Reason)
}

// DataLost: the high watermark moved down because the leader came back from a
// crash without records it had covered (their bytes were not flushed).
type DataLost struct {
	TP       topic.Partition
	Broker   int32
	From, To int64 // HW before and after
	Reason   string
}

// Kind returns "data_lost".
func (DataLost) Kind() string { return "data_lost" }

// String describes the event on one line.
func (e DataLost) String() string {
	return fmt.Sprintf("%s HW lowered %d -> %d: offsets %d..%d are gone (%s)", e.TP, e.From, e.To, e.To, e.From-1, e.Reason)
}

// AckResolved: an append's acknowledgement completed.
type AckResolved struct {
	ID     int64
	TP     topic.Partition
	Source string
	Result ProduceResult
}

// Kind returns "ack_resolved".
func (AckResolved) Kind() string { return "ack_resolved" }

// String describes the event on one line.
func (e AckResolved) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ack #%d%s %s done: ", e.ID, source(e.Source), e.TP)
	if !e.Result.OffsetsKnown {
		b.WriteString("acks=0, offsets unknown")
	} else if e.Result.NextOffset-e.Result.BaseOffset == 1 {
		fmt.Fprintf(&b, "offset %d", e.Result.BaseOffset)
	} else {
		fmt.Fprintf(&b, "offsets %d..%d", e.Result.BaseOffset, e.Result.NextOffset-1)
	}
	if e.Result.Duplicate {
		b.WriteString(" (duplicate of the batch already stored)")
	}
	return b.String()
}

// AckFailed: an append's acknowledgement failed.
type AckFailed struct {
	ID      int64
	TP      topic.Partition
	Source  string
	Code    kerr.Code
	Message string
}

// Kind returns "ack_failed".
func (AckFailed) Kind() string { return "ack_failed" }

// String describes the event on one line.
func (e AckFailed) String() string {
	return fmt.Sprintf("ack #%d%s %s failed: %s: %s", e.ID, source(e.Source), e.TP, e.Code, e.Message)
}

// AckCancelled: an acknowledgement was cancelled by a crash; its outcome is
// unknown.
type AckCancelled struct {
	ID     int64
	TP     topic.Partition
	Source string
}

// Kind returns "ack_cancelled".
func (AckCancelled) Kind() string { return "ack_cancelled" }

// String describes the event on one line.
func (e AckCancelled) String() string {
	return fmt.Sprintf("ack #%d%s %s cancelled", e.ID, source(e.Source), e.TP)
}

// FormatBrokers renders a broker list as "[1 2 3]".
func FormatBrokers(ids []int32) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprint(id)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func source(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
