package kafkawire

import (
	"fmt"
	"strings"
)

// Level says how interesting an Event is to a learner watching the REPL.
type Level int

// The levels: LevelData events change or read the cluster's data or a
// group (produce, fetch with records, offsets, group rounds, transactions,
// and every error); LevelChatter events are the protocol's background
// (ApiVersions, Metadata, heartbeats, fetches that returned nothing).
const (
	LevelData Level = iota
	LevelChatter
)

// Event is one request's outcome, for the REPL's event lines: who sent
// what, to which broker, with what result. It holds no port, timing or
// generated id that would differ between runs, except the member ids a
// client is given (named after its client id, numbered in join order).
type Event struct {
	Client  string // the request's client id
	Broker  int32  // the broker whose listener received it
	API     string // Kafka's name: Produce, Fetch, JoinGroup, ...
	Version int16
	Result  string // what happened, in a few words
	Error   string // Kafka's error name when the request (or a part) failed
	Level   Level
}

// String renders the event line, e.g.
//
//	kafka: kgo → broker 1: Produce events-0 (1 record): appended at offset 0
func (e Event) String() string {
	client := e.Client
	if client == "" {
		client = "(no client id)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "kafka: %s → broker %d: %s", client, e.Broker, e.API)
	if e.Result != "" {
		b.WriteString(" ")
		b.WriteString(e.Result)
	}
	if e.Error != "" {
		b.WriteString(" [")
		b.WriteString(e.Error)
		b.WriteString("]")
	}
	return b.String()
}

// plural is "1 record" or "n records".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// offsetRange is "offset 5" or "offsets 5-7".
func offsetRange(first, last int64) string {
	if first == last {
		return fmt.Sprintf("offset %d", first)
	}
	return fmt.Sprintf("offsets %d-%d", first, last)
}
