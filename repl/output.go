package repl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/storage"
	"github.com/minikafka-lab/minikafka/engine/vfs"
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
	// Errors lists every error when the command failed with more than one
	// (the first is also Code and Message).
	Errors []jsonError `json:"errors,omitempty"`
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

// errorPart is one error as a learner sees it.
type errorPart struct {
	code, msg, usage, hint string
}

// errorList splits an error into the errors a learner sees: one per error
// of an errors.Join (a replicate round joins one per failing partition),
// else just the one.
func errorList(err error) []errorPart {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []errorPart
		for _, e := range j.Unwrap() {
			if e != nil {
				out = append(out, errorList(e)...)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	var p errorPart
	p.code, p.msg, p.usage, p.hint = errorParts(err)
	return []errorPart{p}
}

// errorParts splits an error into the code, message, usage and hint a
// learner sees.
func errorParts(err error) (code, msg, usage, hint string) {
	var he *hintedError
	if errors.As(err, &he) {
		code, msg, usage, _ = errorParts(he.err)
		return code, msg, usage, withKafkaName(he.hint, kerr.Code(code))
	}
	var ue *UsageError
	if errors.As(err, &ue) {
		return string(kerr.InvalidArgument), ue.Msg, ue.Usage, ue.Hint
	}
	var ce *CheckError
	if errors.As(err, &ce) {
		return CheckFailed, ce.Message(), "", ce.Look
	}
	var unsolved *unsolvedError
	if errors.As(err, &unsolved) {
		return CheckFailed, unsolved.message(), "", ""
	}
	var ie *InternalError
	if errors.As(err, &ie) {
		return string(kerr.Internal), fmt.Sprint(ie.Value), "", "this is a bug in MiniKafka Lab, not your mistake"
	}
	if e, ok := kerr.As(err); ok {
		if storage.IsDiskError(err) {
			return string(e.Code), kerrMessage(err, e), "", withKafkaName(diskHint, e.Code)
		}
		if errors.Is(err, vfs.ErrLocked) {
			return string(e.Code), kerrMessage(err, e), "", withKafkaName(lockedHint, e.Code)
		}
		return string(e.Code), kerrMessage(err, e), "", withKafkaName(hintFor(e), e.Code)
	}
	return string(kerr.Internal), err.Error(), "", ""
}

// kerrMessage is the message of e, the coded error inside err, with the
// context err's wrappers added ("commit marker for orders-0: ISR [1] has
// 1, ..."), without repeating the code.
func kerrMessage(err error, e *kerr.Error) string {
	msg := e.Message
	if msg == "" {
		msg = strings.ToLower(strings.ReplaceAll(string(e.Code), "_", " "))
	}
	full, inner := err.Error(), e.Error()
	switch {
	case full == inner:
		return msg
	case strings.HasSuffix(full, inner):
		return full[:len(full)-len(inner)] + msg
	case strings.Contains(full, inner):
		return strings.Replace(full, inner, msg, 1)
	}
	return full
}

// hintedError is an error with the REPL's own hint for this case, instead
// of the hint for its code.
type hintedError struct {
	err  error
	hint string
}

func (e *hintedError) Error() string { return e.err.Error() }
func (e *hintedError) Unwrap() error { return e.err }

// writeErrors prints "error: CODE: message" for each error, then the
// "usage: ..." and "hint: ..." lines they carry (each hint once).
func writeErrors(w io.Writer, st *style, parts []errorPart) {
	for _, p := range parts {
		fmt.Fprintf(w, "%s %s: %s\n", st.paint(st.errLabel, "error:"), p.code, p.msg)
	}
	var shown []string
	for _, p := range parts {
		if p.usage != "" {
			lines := strings.Split(p.usage, "\n")
			fmt.Fprintf(w, "usage: %s\n", lines[0])
			for _, l := range lines[1:] {
				fmt.Fprintf(w, "       %s\n", l)
			}
		}
		if p.hint != "" && !slices.Contains(shown, p.hint) {
			shown = append(shown, p.hint)
			fmt.Fprintf(w, "%s %s\n", st.paint(st.hint, "hint:"), p.hint)
		}
	}
}

// helpFor is the usage or hint line of an error that brought neither
// (TestEveryErrorHasUsageOrHint): an argument error shows the command's
// synopsis; a state error says where to look, by the command's verb; any
// other error points at the command's help, or at the index when the line
// named no command.
func helpFor(cmd *Command, code string) (usage, hint string) {
	if cmd == nil {
		return "", "`help` lists every command; `help NAME` explains one"
	}
	verb := cmd
	if verb.parent != nil {
		verb = verb.parent
	}
	switch code {
	case string(kerr.InvalidArgument):
		return cmd.Synopsis(), ""
	case string(kerr.IllegalState):
		if h, ok := stateHints[verb.Name]; ok {
			return "", h
		}
	}
	return "", fmt.Sprintf("`help %s` explains what it needs", cmd.FullName())
}

// stateHints say where to look after a state error, by verb: the view
// that shows the state the command needed.
var stateHints = map[string]string{
	"txn":       "`txn list` shows every transaction and its state; `txn begin ID` starts one",
	"producer":  "`producer list` shows the producers; a closed one is gone, `producer create NAME` makes another",
	"consumer":  "`consumer list` shows the consumers; a closed one is gone, `consumer create NAME` makes another",
	"broker":    "`broker list` shows which brokers are up",
	"promote":   "`offsets TP` shows the leader, the ISR and each replica; `broker list` which brokers are up",
	"rejoin":    "`offsets TP` shows the leader, the ISR and each replica; `broker list` which brokers are up",
	"serve":     "`serve status` says whether this session serves JSON/TCP, and where",
	"remote":    "`serve status` says whether this session serves JSON/TCP, and where; `serve start` starts it",
	"dispatch":  "`serve status` says whether this session serves JSON/TCP, and where",
	"corrupt":   "`log segments TP` lists the segment files; `txn begin ID` writes the transaction journal",
	"cluster":   "`cluster restart` reopens a closed cluster, `cluster open` starts a fresh one",
	"replicate": "`broker list` shows which brokers are up; `offsets TP` each replica",
	"kafka":     "`kafka status` says whether this session listens for Kafka clients, and where",
	"kclient":   "`kafka status` shows this session's Kafka listener (`kafka listen` starts it); `kclient list` the running members; `topic list` the topics",
	"check":     "a check reads the state as it is now: `show TP`, `group list`, `producer list` and `txn list` show what exists",
}

// diskHint is the next step after a STORAGE_ERROR the file system caused.
const diskHint = "the file system refused it (the message says how): free space, or fix the disk or its permissions; a broker whose log directory failed stays offline (`broker list`) until `broker restart ID`"

// lockedHint is the next step when another cluster holds a data directory.
const lockedHint = "one cluster per data directory: close the other (`cluster close` in its session, or stop its process), or `cluster open dir=PATH` another directory"

// hintFor returns the learner's next step for a domain error. Argument and
// state errors carry their explanation in the message already, and an
// internal error has its own hint (errorParts).
func hintFor(e *kerr.Error) string {
	return hints[e.Code]
}

// withKafkaName adds Kafka's name and number to a hint when Kafka calls
// the error something else (help errors lists them all).
func withKafkaName(hint string, code kerr.Code) string {
	k, ok := kerr.Kafka(code)
	if !ok || k.Name == string(code) || hint == "" {
		return hint
	}
	return fmt.Sprintf("%s; Kafka calls it %s (error code %d)", hint, k.Name, k.Number)
}

// hints are the REPL's next steps, one per domain code a learner can meet:
// lower-case, no final period, and each says what to look at or do next
// (TestHintsStyle).
var hints = map[kerr.Code]string{
	kerr.OffsetOutOfRange:             "`offsets TP` shows the log start offset and the high watermark",
	kerr.InvalidRecord:                "the message names the rule of the log format that was broken; `log dump TP` shows the batches as stored",
	kerr.CorruptBatch:                 "the bytes on disk are damaged: `log dump TP` shows the valid batches before the damage, and recovery at the next `broker restart ID` or `cluster restart` cuts a damaged active segment",
	kerr.CorruptIndex:                 "an index is rebuilt from its log segment when recovery does not trust it: `cluster restart` reopens the logs",
	kerr.StorageError:                 "the message names the file; recovery only cuts a damaged tail of an active segment, so for anything else `cluster open` starts over with a fresh cluster",
	kerr.TopicAlreadyExists:           "`topic describe NAME` shows it",
	kerr.UnknownTopic:                 "`topic list` shows the topics; `topic create NAME` makes one",
	kerr.UnknownPartition:             "`topic describe` shows each topic's partitions and replicas",
	kerr.ProducerBufferFull:           "buffer.memory bounds the records waiting in the accumulator: `producer flush NAME` sends them (or `clock advance` past linger.ms)",
	kerr.RebalanceInProgress:          "the group has no stable membership (its members left or expired): `consumer subscribe NAME TOPIC` joins it again, then commit",
	kerr.IllegalGeneration:            "the group rebalanced since this consumer last looked: `consumer refresh NAME` takes the current generation and assignment, then retry",
	kerr.NotPartitionOwner:            "the member does not own that partition in the current generation: `consumer refresh NAME` shows its assignment, `group describe G` every owner",
	kerr.UnknownMember:                "`group list` shows the groups; a consumer that left or expired joins again with `consumer subscribe NAME TOPIC`",
	kerr.NotEnoughReplicas:            "the ISR is smaller than min.insync.replicas, so acks=all refused before appending; `replicate` lets followers catch up and rejoin the ISR",
	kerr.NotEnoughReplicasAfterAppend: "the record may be in the leader's log but was not acknowledged: `replicate` to grow the ISR again, then retry (an idempotent producer's `producer retry NAME` cannot duplicate it)",
	kerr.NotInSyncReplica:             "only an ISR member can be promoted; `offsets TP` shows the ISR",
	kerr.FencedLeaderEpoch:            "`offsets TP` shows the current leader epoch; a client refreshes its metadata and retries",
	kerr.ProducerFenced:               "a newer instance of this producer's identity exists (same producer id, higher epoch): it cannot write to partitions that know the newer epoch; write with the newer instance (`producer list` shows each epoch)",
	kerr.OutOfOrderSequence:           "the batch's sequence is not the next one this partition expects: `producer list` shows each partition's sequences",
	kerr.InvalidRequest:               "the message says what is wrong with the request line; `help remote` shows a valid request",
	kerr.FrameTooLarge:                "a line is longer than the limit (a server's max.frame.bytes for requests): send a shorter one, or `serve start max.frame.bytes=N` for this session's server",
	kerr.ConcurrentTransactions:       "an earlier instance of this transaction id left batches without a marker in that partition (a crash lost it): `replicate` lets the cluster append their own marker (that instance's outcome), then retry the `txn send`",
	kerr.LeaderNotAvailable:           "the leader's broker is crashed: `promote TP ID` an in-sync replica or `broker restart ID`",
	kerr.BrokerNotAvailable:           "`broker list` shows which brokers are up; `broker restart ID` brings one back",
	kerr.RequestTimedOut:              "acks=all waits for the ISR: `replicate` copies the record to the followers, and its pending ack resolves there",
	kerr.NotLeaderOrFollower:          "the partition has a new leader: `offsets TP` shows it; a Kafka client refreshes its metadata and retries (an idempotent producer's `producer retry NAME` cannot duplicate the record)",
	kerr.InvalidProducerEpoch:         "a newer instance of this producer's identity exists (higher epoch): the partition refuses the older one; write with the newer instance (`producer list` shows each epoch)",
}
