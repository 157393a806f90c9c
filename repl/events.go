package repl

import (
	"fmt"
	"io"

	"github.com/minikafka-lab/minikafka/engine"
)

// event is one thing that changed, as the learner sees it: an indented text
// line and a JSON object. resolved is set for a pending handle that completed
// with an offset.
type event struct {
	Kind     string
	Text     string
	JSON     any
	Resolved []resolvedHandle
}

// resolvedHandle is one entry of the JSON "resolved" list.
type resolvedHandle struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Offset    *int64 `json:"offset"`
}

// maxBacklog bounds the events kept for the next command while the
// session serves JSON/TCP and nobody types: the oldest are dropped.
const maxBacklog = 1000

// takeEvents drains what the engine reported since the last command,
// events kept in the backlog first.
func (s *Session) takeEvents() []event {
	var out []event
	if s.backlogDropped > 0 {
		n := s.backlogDropped
		out = append(out, event{Kind: "events_dropped",
			Text: fmt.Sprintf("(%s of served requests not shown)", plural(n, "earlier event", "earlier events")),
			JSON: object{{"kind", "events_dropped"}, {"count", n}}})
	}
	all := s.backlog
	if s.cluster != nil {
		all = append(all, s.cluster.TakeEvents()...)
	}
	s.backlog, s.backlogDropped = nil, 0
	s.noteEvents(all)
	for _, e := range all {
		out = append(out, convertEvent(e))
	}
	for _, line := range s.takeKclientLines() {
		out = append(out, convertEvent(kafkaEvent{kind: "kclient", Line: line}))
	}
	return out
}

// eventCount is the number of events not printed yet, counting the ones
// dropped from the backlog: the difference of two counts is what happened
// in between. It keeps every event: they belong to the command running,
// which prints them all (a replicate round of thousands of events shows
// its whole report).
func (s *Session) eventCount() int {
	s.collectEvents()
	return len(s.backlog) + s.backlogDropped
}

// collectEvents moves the cluster's pending events to the backlog, all of
// them, and returns the backlog: what the running command caused so far.
func (s *Session) collectEvents() []engine.Event {
	if s.cluster != nil {
		s.backlog = append(s.backlog, s.cluster.TakeEvents()...)
	}
	return s.backlog
}

// peekEvents is collectEvents for what happens while nobody types (the
// requests this session serves): the backlog keeps the newest maxBacklog
// events, and the next command says how many earlier ones it dropped.
func (s *Session) peekEvents() []engine.Event {
	s.collectEvents()
	if n := len(s.backlog) - maxBacklog; n > 0 {
		s.backlog = append(s.backlog[:0], s.backlog[n:]...)
		s.backlogDropped += n
	}
	return s.backlog
}

// convertEvent turns an engine event into what the learner sees: its
// one-line description, and a JSON object {"kind": ..., fields...}. An
// acknowledgement or a record future that completed with offsets is also a
// resolved handle.
func convertEvent(e engine.Event) event {
	obj := object{{"kind", e.Kind()}}
	if fields, ok := plainJSON(e).(object); ok {
		obj = append(obj, fields...)
	}
	ev := event{Kind: e.Kind(), Text: e.String(), JSON: obj}
	switch e := e.(type) {
	case engine.AckResolved:
		var off *int64
		if e.Result.OffsetsKnown {
			o := e.Result.BaseOffset
			off = &o
		}
		ev.Resolved = []resolvedHandle{{Topic: e.TP.Topic, Partition: e.TP.Partition, Offset: off}}
	case engine.FuturesSettled:
		if e.State == engine.Done {
			for i := range e.IDs {
				var off *int64
				if i < len(e.Offsets) {
					o := e.Offsets[i]
					off = &o
				}
				ev.Resolved = append(ev.Resolved, resolvedHandle{Topic: e.TP.Topic, Partition: e.TP.Partition, Offset: off})
			}
		}
	}
	return ev
}

// writeEvents prints each event as an indented line.
func (s *Session) writeEvents(w io.Writer, events []event) {
	for _, e := range events {
		fmt.Fprintf(w, "  %s\n", s.st.paint(s.st.event, s.relativePaths(e.Text)))
	}
}

func eventsJSON(events []event) []any {
	out := make([]any, 0, len(events))
	for _, e := range events {
		out = append(out, e.JSON)
	}
	return out
}

func resolvedJSON(events []event) []resolvedHandle {
	var out []resolvedHandle
	for _, e := range events {
		out = append(out, e.Resolved...)
	}
	return out
}
