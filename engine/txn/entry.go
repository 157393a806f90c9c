package txn

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"maps"
	"slices"
	"strconv"

	"github.com/minikafka-lab/minikafka/engine/group"
	"github.com/minikafka-lab/minikafka/engine/pyjson"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// Entry is one transaction's full state: what a journal line holds (§12.2).
// The coordinator keeps one Entry per transaction id; the latest begin
// replaces the previous one.
type Entry struct {
	ID    string
	State State
	// Partitions are the partitions the transaction wrote to, sorted, unique.
	Partitions []topic.Partition
	// FirstOffsets maps each written partition to the base offset of the
	// transaction's first batch there.
	FirstOffsets map[topic.Partition]int64
	// StagedOffsets are the consumer offsets (group → offsets) that the commit
	// publishes together with the output (send_offsets).
	StagedOffsets map[string]group.Offsets
}

func (e Entry) clone() Entry {
	c := Entry{ID: e.ID, State: e.State, Partitions: slices.Clone(e.Partitions),
		FirstOffsets: maps.Clone(e.FirstOffsets), StagedOffsets: make(map[string]group.Offsets, len(e.StagedOffsets))}
	if c.FirstOffsets == nil {
		c.FirstOffsets = map[topic.Partition]int64{}
	}
	for g, offs := range e.StagedOffsets {
		c.StagedOffsets[g] = maps.Clone(offs)
	}
	return c
}

// AppendPayload appends the entry's journal payload: compact JSON with sorted
// keys,
//
//	{"first_offsets":[["out",0,0]],"id":"t1","partitions":[["out",0]],"staged_offsets":{"g":[["in",0,3]]},"state":"complete_commit"}
//
// partitions sorted [topic, partition]; first_offsets sorted [topic,
// partition, offset]; staged_offsets maps groups (sorted) to sorted [topic,
// partition, offset]; state in lowercase. Strings are escaped as Python's
// json.dumps does (see pyjson.AppendString): the output is ASCII.
func (e Entry) AppendPayload(b []byte) []byte {
	b = append(b, `{"first_offsets":[`...)
	for i, tp := range sortedKeys(e.FirstOffsets) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendTriple(b, tp, e.FirstOffsets[tp])
	}
	b = append(b, `],"id":`...)
	b = pyjson.AppendString(b, e.ID)
	b = append(b, `,"partitions":[`...)
	parts := slices.Clone(e.Partitions)
	topic.Sort(parts)
	for i, tp := range slices.Compact(parts) {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = pyjson.AppendString(b, tp.Topic)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(tp.Partition), 10)
		b = append(b, ']')
	}
	b = append(b, `],"staged_offsets":{`...)
	for i, g := range slices.Sorted(maps.Keys(e.StagedOffsets)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = pyjson.AppendString(b, g)
		b = append(b, ':', '[')
		offs := e.StagedOffsets[g]
		for j, tp := range sortedKeys(offs) {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendTriple(b, tp, offs[tp])
		}
		b = append(b, ']')
	}
	b = append(b, `},"state":`...)
	b = pyjson.AppendString(b, e.State.String())
	return append(b, '}')
}

// AppendLine appends the entry's journal line: 8 lowercase hex digits of the
// CRC-32/IEEE of the payload, a space, the payload, a newline.
func (e Entry) AppendLine(b []byte) []byte {
	start := len(b)
	b = append(b, "00000000 "...)
	b = e.AppendPayload(b)
	crc := crc32.ChecksumIEEE(b[start+9:])
	hex := strconv.FormatUint(uint64(crc), 16)
	copy(b[start+8-len(hex):start+8], hex)
	return append(b, '\n')
}

func appendTriple(b []byte, tp topic.Partition, off int64) []byte {
	b = append(b, '[')
	b = pyjson.AppendString(b, tp.Topic)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(tp.Partition), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, off, 10)
	return append(b, ']')
}

func sortedKeys[V any](m map[topic.Partition]V) []topic.Partition {
	keys := slices.Collect(maps.Keys(m))
	topic.Sort(keys)
	return keys
}

// lineError says why a journal line is not valid; its text is the reason a
// recovery report gives.
type lineError struct{ reason string }

func (e *lineError) Error() string { return e.reason }

func badLine(format string, args ...any) error { return &lineError{fmt.Sprintf(format, args...)} }

// ParseLine reads one journal line without its newline. The CRC is checked
// on the bytes as stored, before anything is parsed (decision 32). The
// reasons for rejecting a line, in the order they are checked: no space, a
// CRC field that is not 8 lowercase hex digits, a CRC mismatch, a payload
// that is not a JSON object, a missing key, a field of the wrong shape (an
// empty id, a negative partition or offset, an empty topic), an unknown
// state. Unknown extra keys are ignored.
func ParseLine(line []byte) (Entry, error) {
	sp := bytes.IndexByte(line, ' ')
	if sp < 0 {
		return Entry{}, badLine("missing space after crc")
	}
	crcText, payload := line[:sp], line[sp+1:]
	if len(crcText) != 8 || !lowerHex(crcText) {
		return Entry{}, badLine("crc is not 8 lowercase hex digits")
	}
	want, _ := strconv.ParseUint(string(crcText), 16, 32)
	if got := crc32.ChecksumIEEE(payload); uint64(got) != want {
		return Entry{}, badLine("crc mismatch (stored %s, computed %08x)", crcText, got)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(payload, &raw); err != nil || raw == nil {
		return Entry{}, badLine("invalid json")
	}
	for _, k := range []string{"first_offsets", "id", "partitions", "staged_offsets", "state"} {
		if _, ok := raw[k]; !ok {
			return Entry{}, badLine("missing key %q", k)
		}
	}
	var e Entry
	if err := json.Unmarshal(raw["id"], &e.ID); err != nil || e.ID == "" {
		return Entry{}, badLine("invalid field %q", "id")
	}
	var err error
	if e.Partitions, err = parsePairs(raw["partitions"]); err != nil {
		return Entry{}, badLine("invalid field %q", "partitions")
	}
	if e.FirstOffsets, err = parseTriples(raw["first_offsets"]); err != nil {
		return Entry{}, badLine("invalid field %q", "first_offsets")
	}
	var staged map[string]json.RawMessage
	if err := json.Unmarshal(raw["staged_offsets"], &staged); err != nil || staged == nil {
		return Entry{}, badLine("invalid field %q", "staged_offsets")
	}
	e.StagedOffsets = make(map[string]group.Offsets, len(staged))
	for g, v := range staged {
		offs, err := parseTriples(v)
		if err != nil || g == "" {
			return Entry{}, badLine("invalid field %q", "staged_offsets")
		}
		e.StagedOffsets[g] = offs
	}
	var st string
	if err := json.Unmarshal(raw["state"], &st); err != nil {
		return Entry{}, badLine("invalid field %q", "state")
	}
	var ok bool
	if e.State, ok = ParseState(st); !ok {
		return Entry{}, badLine("unknown state %q", st)
	}
	return e, nil
}

func lowerHex(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

var errShape = errors.New("wrong shape")

// parseTuple reads a JSON array of exactly n elements: a non-empty topic
// string, a non-negative int32 partition and, when n is 3, a non-negative
// int64 offset.
func parseTuple(raw json.RawMessage, n int) (topic.Partition, int64, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil || len(elems) != n {
		return topic.Partition{}, 0, errShape
	}
	var name *string
	var part *int32
	var off *int64
	if json.Unmarshal(elems[0], &name) != nil || name == nil || *name == "" ||
		json.Unmarshal(elems[1], &part) != nil || part == nil || *part < 0 {
		return topic.Partition{}, 0, errShape
	}
	tp := topic.Partition{Topic: *name, Partition: *part}
	if n == 2 {
		return tp, 0, nil
	}
	if json.Unmarshal(elems[2], &off) != nil || off == nil || *off < 0 {
		return topic.Partition{}, 0, errShape
	}
	return tp, *off, nil
}

func parsePairs(raw json.RawMessage) ([]topic.Partition, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || items == nil {
		return nil, errShape
	}
	out := make([]topic.Partition, 0, len(items))
	for _, it := range items {
		tp, _, err := parseTuple(it, 2)
		if err != nil {
			return nil, err
		}
		out = append(out, tp)
	}
	topic.Sort(out)
	return slices.Compact(out), nil
}

func parseTriples(raw json.RawMessage) (map[topic.Partition]int64, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || items == nil {
		return nil, errShape
	}
	out := make(map[topic.Partition]int64, len(items))
	for _, it := range items {
		tp, off, err := parseTuple(it, 3)
		if err != nil {
			return nil, err
		}
		out[tp] = off
	}
	return out, nil
}
