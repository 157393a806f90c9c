package repl

import (
	"fmt"
	"io"
)

// event is one thing that changed, as the learner sees it: an indented text
// line and a JSON object. resolved is set for a pending handle that completed
// with an offset.
type event struct {
	Text     string
	JSON     any
	Resolved *resolvedHandle
}

// resolvedHandle is one entry of the JSON "resolved" list.
type resolvedHandle struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Offset    *int64 `json:"offset"`
}

// takeEvents drains what the engine reported since the last command.
func (s *Session) takeEvents() []event {
	return nil
}

// writeEvents prints each event as an indented line.
func (s *Session) writeEvents(w io.Writer, events []event) {
	for _, e := range events {
		fmt.Fprintf(w, "  %s\n", s.st.paint(s.st.event, e.Text))
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
		if e.Resolved != nil {
			out = append(out, *e.Resolved)
		}
	}
	return out
}
