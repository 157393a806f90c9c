package repl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// Format is the output mode of a session.
type Format string

// The output modes (repl.md "Output modes").
const (
	FormatText Format = "text"
	FormatJSON Format = "json"
)

// ParseFormat reads text or json.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case FormatText, FormatJSON:
		return f, nil
	}
	return "", fmt.Errorf("--format must be text or json, got %q", s)
}

// result is what a command produced: text for people (writeText) and, in
// JSON mode, the value itself encoded as the envelope's "result" object.
type result interface {
	writeText(w io.Writer, st *style) error
}

// emit hands a command's result to the session: written as text now, or kept
// for the JSON envelope.
func (s *Session) emit(w io.Writer, r result) error {
	if s.format == FormatJSON {
		s.res = r
		return nil
	}
	return r.writeText(w, s.st)
}

// InternalError is what Exec returns when a command panicked: a bug, never a
// learner's mistake. Tests treat it as a failure.
type InternalError struct {
	Value any
	Stack string
}

// Error renders "internal error: VALUE".
func (e *InternalError) Error() string { return fmt.Sprintf("internal error: %v", e.Value) }

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}

// envelope is one line of JSON output.
type envelope struct {
	Command string          `json:"command"`
	OK      bool            `json:"ok"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *jsonError      `json:"error,omitempty"`
}

type jsonError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Usage   string `json:"usage,omitempty"`
	Hint    string `json:"hint,omitempty"`
}

// marshal encodes v without HTML escaping (so "<=" stays readable).
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// withExtras splices extra fields into a JSON object: {"a":1} + "events":[..]
// gives {"a":1,"events":[..]}. Fields whose value is nil are left out.
func withExtras(obj []byte, extras []extraField) ([]byte, error) {
	if len(obj) < 2 || obj[0] != '{' || obj[len(obj)-1] != '}' {
		return nil, fmt.Errorf("result is not a JSON object: %.40s", obj)
	}
	out := append([]byte(nil), obj[:len(obj)-1]...)
	first := len(bytes.TrimSpace(obj[1:len(obj)-1])) == 0
	for _, e := range extras {
		if e.value == nil {
			continue
		}
		v, err := marshal(e.value)
		if err != nil {
			return nil, err
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(out, '"')
		out = append(out, e.name...)
		out = append(out, '"', ':')
		out = append(out, v...)
	}
	return append(out, '}'), nil
}

type extraField struct {
	name  string
	value any
}

// errorParts splits an error into the code, message, usage and hint a
// learner sees.
func errorParts(err error) (code, msg, usage, hint string) {
	var ue *UsageError
	if errors.As(err, &ue) {
		return string(kerr.InvalidArgument), ue.Msg, ue.Usage, ""
	}
	var ce *CheckError
	if errors.As(err, &ce) {
		return CheckFailed, ce.Message(), "", ""
	}
	var ie *InternalError
	if errors.As(err, &ie) {
		return string(kerr.Internal), fmt.Sprint(ie.Value), "", "this is a bug in MiniKafka Lab, not your mistake"
	}
	if e, ok := kerr.As(err); ok {
		code, msg = string(e.Code), e.Message
		if msg == "" {
			msg = strings.ToLower(strings.ReplaceAll(code, "_", " "))
		}
		return code, msg, "", hintFor(e)
	}
	return string(kerr.Internal), err.Error(), "", ""
}

// writeError prints "error: CODE: message", then "usage: ..." or "hint: ...".
func writeError(w io.Writer, st *style, code, msg, usage, hint string) {
	fmt.Fprintf(w, "%s %s: %s\n", st.paint(st.errLabel, "error:"), code, msg)
	if usage != "" {
		lines := strings.Split(usage, "\n")
		fmt.Fprintf(w, "usage: %s\n", lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(w, "       %s\n", l)
		}
	}
	if hint != "" {
		fmt.Fprintf(w, "%s %s\n", st.paint(st.hint, "hint:"), hint)
	}
}

// hintFor returns the learner's hint for a domain error: a specific one where
// the REPL knows the next step, else the code's description. Argument and
// state errors carry their explanation in the message already.
func hintFor(e *kerr.Error) string {
	if h, ok := hints[e.Code]; ok {
		return h
	}
	info, ok := kerr.Lookup(e.Code)
	if !ok || !info.Domain || e.Code == kerr.Internal {
		return ""
	}
	return info.Description
}

// hints are the REPL's own next steps for codes a learner meets often.
var hints = map[kerr.Code]string{
	kerr.UnknownTopic:       "`topic list` shows the topics; `topic create NAME` makes one",
	kerr.TopicAlreadyExists: "`topic describe NAME` shows it",
	kerr.UnknownPartition:   "`topic describe` shows each topic's partitions and replicas",
	kerr.NotEnoughReplicas:  "the ISR is smaller than min.insync.replicas, so acks=all refused before appending; `replicate` lets followers catch up and rejoin the ISR",
	kerr.NotInSyncReplica:   "only an ISR member can be promoted; `offsets TP` shows the ISR",
	kerr.LeaderNotAvailable: "the leader's broker is crashed: `promote TP ID` an in-sync replica or `broker restart ID`",
	kerr.BrokerNotAvailable: "`broker list` shows which brokers are up; `broker restart ID` brings one back",
	kerr.OffsetOutOfRange:   "`offsets TP` shows the log start offset and the high watermark",
	kerr.RequestTimedOut:    "acks=all waits for the ISR: `replicate` copies the record to the followers, and its pending ack resolves there",
	kerr.ProducerBufferFull: "buffer.memory bounds the records waiting in the accumulator: producer flush sends them (or clock advance past linger.ms)",
	kerr.ProducerFenced:     "a newer instance of this producer's identity exists (same producer id, higher epoch): the older one can never write again",
}
