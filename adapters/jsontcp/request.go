package jsontcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// The operations of §14.4.
const (
	opCreateTopic   = "create_topic"
	opMetadata      = "metadata"
	opProduce       = "produce"
	opFetch         = "fetch"
	opJoinGroup     = "join_group"
	opHeartbeat     = "heartbeat"
	opCommitOffsets = "commit_offsets"
)

// DefaultMaxRecords is fetch's max_records when the request omits it.
const DefaultMaxRecords = 100

// operationFields lists the fields each operation defines, besides "operation".
var operationFields = map[string][]string{
	opCreateTopic:   {"topic", "partitions", "replication_factor"},
	opMetadata:      {"topic"},
	opProduce:       {"topic", "partition", "key_b64", "value_b64", "acks"},
	opFetch:         {"topic", "partition", "offset", "max_records", "isolation"},
	opJoinGroup:     {"group_id", "member_id", "topics"},
	opHeartbeat:     {"group_id", "member_id", "generation"},
	opCommitOffsets: {"group_id", "member_id", "generation", "offsets"},
}

// request is one decoded request. Only the fields of its operation are set.
type request struct {
	op string

	topic             string // create_topic, metadata
	partitions        int
	replicationFactor int

	produce ProduceRequest
	fetch   FetchRequest

	groupID, memberID string
	topics            []string
	generation        int32
	offsets           []OffsetCommit
}

// invalid builds the INVALID_REQUEST error every decoding failure returns.
func invalid(format string, args ...any) error {
	return kerr.New(kerr.InvalidRequest, format, args...)
}

// decodeRequest decodes one request line strictly (decision 24). Every error
// it returns is INVALID_REQUEST.
func decodeRequest(line []byte) (*request, error) {
	if !utf8.Valid(line) {
		return nil, invalid("request is not valid UTF-8")
	}
	body := trimJSONSpace(line)
	if len(body) == 0 {
		return nil, invalid("empty request")
	}
	if !json.Valid(body) {
		var v any
		err := json.Unmarshal(body, &v)
		if err == nil { // unreachable: Valid and Unmarshal agree
			err = fmt.Errorf("syntax error")
		}
		return nil, invalid("invalid JSON: %v", err)
	}
	if body[0] != '{' {
		return nil, invalid("request must be a JSON object")
	}
	f, err := parseObject(body, "")
	if err != nil {
		return nil, err
	}
	rawOp, ok := f.raw["operation"]
	if !ok || isNull(rawOp) {
		return nil, invalid("unknown operation: the request has no 'operation' field")
	}
	if kindOf(rawOp) != "string" {
		return nil, invalid("field 'operation' must be a string, got %s", describe(rawOp))
	}
	op, err := unquote(rawOp)
	if err != nil {
		return nil, invalid("field 'operation': %v", err)
	}
	allowed, known := operationFields[op]
	if !known {
		return nil, invalid("unknown operation %s", quote(op))
	}
	if err := f.onlyFields(op, append([]string{"operation"}, allowed...)); err != nil {
		return nil, err
	}
	r := &request{op: op}
	switch op {
	case opCreateTopic:
		err = r.decodeCreateTopic(f)
	case opMetadata:
		r.topic, err = f.str("topic")
	case opProduce:
		err = r.decodeProduce(f)
	case opFetch:
		err = r.decodeFetch(f)
	case opJoinGroup:
		err = r.decodeJoinGroup(f)
	case opHeartbeat:
		err = r.decodeMember(f)
	case opCommitOffsets:
		err = r.decodeCommitOffsets(f)
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

func (r *request) decodeCreateTopic(f *fields) error {
	var err error
	if r.topic, err = f.str("topic"); err != nil {
		return err
	}
	p, _, err := f.integer("partitions", true, math.MinInt32, math.MaxInt32)
	if err != nil {
		return err
	}
	rf, _, err := f.integer("replication_factor", true, math.MinInt32, math.MaxInt32)
	if err != nil {
		return err
	}
	r.partitions, r.replicationFactor = int(p), int(rf)
	return nil
}

func (r *request) decodeProduce(f *fields) error {
	p := &r.produce
	var err error
	if p.Topic, err = f.str("topic"); err != nil {
		return err
	}
	part, explicit, err := f.integer("partition", false, math.MinInt32, math.MaxInt32)
	if err != nil {
		return err
	}
	p.Partition, p.Explicit = int32(part), explicit
	if p.Key, err = f.bytes("key_b64"); err != nil {
		return err
	}
	if p.Value, err = f.bytes("value_b64"); err != nil {
		return err
	}
	p.Acks, err = f.acks("acks")
	return err
}

func (r *request) decodeFetch(f *fields) error {
	q := &r.fetch
	var err error
	if q.Partition.Topic, err = f.str("topic"); err != nil {
		return err
	}
	part, _, err := f.integer("partition", true, math.MinInt32, math.MaxInt32)
	if err != nil {
		return err
	}
	q.Partition.Partition = int32(part)
	if q.Offset, _, err = f.integer("offset", true, math.MinInt64, math.MaxInt64); err != nil {
		return err
	}
	max, given, err := f.integer("max_records", false, math.MinInt32, math.MaxInt32)
	if err != nil {
		return err
	}
	switch {
	case !given:
		q.MaxRecords = DefaultMaxRecords
	case max < 0:
		return invalid("field 'max_records' must not be negative, got %d", max)
	default:
		q.MaxRecords = int(max)
	}
	q.Isolation, err = f.isolation("isolation")
	return err
}

func (r *request) decodeJoinGroup(f *fields) error {
	var err error
	if r.groupID, err = f.str("group_id"); err != nil {
		return err
	}
	if r.memberID, err = f.str("member_id"); err != nil {
		return err
	}
	r.topics, err = f.strings("topics")
	return err
}

// decodeMember reads group_id, member_id and generation (heartbeat and the
// start of commit_offsets).
func (r *request) decodeMember(f *fields) error {
	var err error
	if r.groupID, err = f.str("group_id"); err != nil {
		return err
	}
	if r.memberID, err = f.str("member_id"); err != nil {
		return err
	}
	g, _, err := f.integer("generation", true, math.MinInt32, math.MaxInt32)
	r.generation = int32(g)
	return err
}

func (r *request) decodeCommitOffsets(f *fields) error {
	if err := r.decodeMember(f); err != nil {
		return err
	}
	raw, err := f.required("offsets")
	if err != nil {
		return err
	}
	if kindOf(raw) != "array" {
		return invalid("field 'offsets' must be an array of objects, got %s", describe(raw))
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return invalid("field 'offsets': %v", err)
	}
	r.offsets = make([]OffsetCommit, 0, len(items))
	for i, item := range items {
		where := fmt.Sprintf("offsets[%d].", i)
		if kindOf(item) != "object" {
			return invalid("field 'offsets[%d]' must be an object, got %s", i, describe(item))
		}
		o, err := parseObject(item, where)
		if err != nil {
			return err
		}
		if err := o.onlyFields("", []string{"topic", "partition", "offset"}); err != nil {
			return err
		}
		var c OffsetCommit
		if c.Partition.Topic, err = o.str("topic"); err != nil {
			return err
		}
		p, _, err := o.integer("partition", true, math.MinInt32, math.MaxInt32)
		if err != nil {
			return err
		}
		c.Partition.Partition = int32(p)
		if c.Offset, _, err = o.integer("offset", true, math.MinInt64, math.MaxInt64); err != nil {
			return err
		}
		r.offsets = append(r.offsets, c)
	}
	return nil
}

// fields is one JSON object's members, by name, in a request.
type fields struct {
	where string // prefix for messages: "" or "offsets[2]."
	names []string
	raw   map[string]json.RawMessage
}

// onlyFields rejects the first member that is not in allowed.
func (f *fields) onlyFields(op string, allowed []string) error {
	for _, name := range f.names {
		ok := false
		for _, a := range allowed {
			ok = ok || a == name
		}
		if ok {
			continue
		}
		if op != "" {
			return invalid("unknown field %s for operation '%s'", quote(f.where+name), op)
		}
		return invalid("unknown field %s", quote(f.where+name))
	}
	return nil
}

// optional returns a member's raw value; a JSON null counts as absent.
func (f *fields) optional(name string) (json.RawMessage, bool) {
	raw, ok := f.raw[name]
	if !ok || isNull(raw) {
		return nil, false
	}
	return raw, true
}

// required returns a member's raw value, which may be null (the caller's type
// check reports that).
func (f *fields) required(name string) (json.RawMessage, error) {
	raw, ok := f.raw[name]
	if !ok {
		return nil, invalid("missing field '%s%s'", f.where, name)
	}
	return raw, nil
}

// str reads a required string.
func (f *fields) str(name string) (string, error) {
	raw, err := f.required(name)
	if err != nil {
		return "", err
	}
	if kindOf(raw) != "string" {
		return "", invalid("field '%s%s' must be a string, got %s", f.where, name, describe(raw))
	}
	s, err := unquote(raw)
	if err != nil {
		return "", invalid("field '%s%s': %v", f.where, name, err)
	}
	return s, nil
}

// integer reads a JSON integer within [lo, hi]. An optional absent field
// returns given=false.
func (f *fields) integer(name string, required bool, lo, hi int64) (v int64, given bool, err error) {
	var raw json.RawMessage
	if required {
		if raw, err = f.required(name); err != nil {
			return 0, false, err
		}
	} else if raw, given = f.optional(name); !given {
		return 0, false, nil
	}
	if kindOf(raw) != "number" {
		return 0, false, invalid("field '%s%s' must be an integer, got %s", f.where, name, describe(raw))
	}
	if bytes.ContainsAny(raw, ".eE") {
		return 0, false, invalid("field '%s%s' must be an integer, got %s", f.where, name, raw)
	}
	v, perr := strconv.ParseInt(string(raw), 10, 64)
	if perr != nil || v < lo || v > hi {
		return 0, false, invalid("field '%s%s' is out of range [%d, %d]: %s", f.where, name, lo, hi, raw)
	}
	return v, true, nil
}

// bytes reads optional base64 bytes: absent or null is nil, "" is empty.
func (f *fields) bytes(name string) ([]byte, error) {
	raw, ok := f.optional(name)
	if !ok {
		return nil, nil
	}
	if kindOf(raw) != "string" {
		return nil, invalid("field '%s' must be a base64 string or null, got %s", name, describe(raw))
	}
	s, err := unquote(raw)
	if err != nil {
		return nil, invalid("field '%s': %v", name, err)
	}
	return decodeBase64(name, s)
}

// decodeBase64 decodes strict, padded standard base64. Go's decoder skips
// '\r' and '\n'; they are rejected here, as any other character outside the
// alphabet.
func decodeBase64(name, s string) ([]byte, error) {
	if i := indexLineBreak(s); i >= 0 {
		return nil, invalid("field '%s' is not valid base64: illegal base64 data at input byte %d", name, i)
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, invalid("field '%s' is not valid base64: %v", name, err)
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

func indexLineBreak(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '\r' || s[i] == '\n' {
			return i
		}
	}
	return -1
}

// acks reads the optional acks field; the default is "1".
func (f *fields) acks(name string) (Acks, error) {
	raw, ok := f.optional(name)
	if !ok {
		return AcksLeader, nil
	}
	var spelled string
	switch kindOf(raw) {
	case "string":
		var err error
		if spelled, err = unquote(raw); err != nil {
			return 0, invalid("field '%s': %v", name, err)
		}
	case "number":
		spelled = string(raw)
	default:
		return 0, invalid("field '%s' must be \"0\", \"1\", \"all\" or \"-1\", got %s", name, describe(raw))
	}
	a, err := parseAcks(spelled)
	if err != nil {
		return 0, err
	}
	return a, nil
}

// parseAcks reads an acks spelling: "0", "1", "all" or "-1" (the same as
// "all"). Anything else is INVALID_REQUEST.
func parseAcks(s string) (Acks, error) {
	switch s {
	case "0":
		return AcksNone, nil
	case "1":
		return AcksLeader, nil
	case "all", "-1":
		return AcksAll, nil
	}
	return 0, invalid("acks must be 0, 1, all or -1, got %s", quote(s))
}

// isolation reads the optional isolation field; the default is read_uncommitted.
func (f *fields) isolation(name string) (Isolation, error) {
	raw, ok := f.optional(name)
	if !ok {
		return ReadUncommitted, nil
	}
	if kindOf(raw) != "string" {
		return 0, invalid("field '%s' must be a string, got %s", name, describe(raw))
	}
	s, err := unquote(raw)
	if err != nil {
		return 0, invalid("field '%s': %v", name, err)
	}
	switch s {
	case "read_uncommitted":
		return ReadUncommitted, nil
	case "read_committed":
		return ReadCommitted, nil
	}
	return 0, invalid("isolation must be read_uncommitted or read_committed, got %s", quote(s))
}

// strings reads a required array of strings.
func (f *fields) strings(name string) ([]string, error) {
	raw, err := f.required(name)
	if err != nil {
		return nil, err
	}
	if kindOf(raw) != "array" {
		return nil, invalid("field '%s' must be an array of strings, got %s", name, describe(raw))
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, invalid("field '%s': %v", name, err)
	}
	out := make([]string, 0, len(items))
	for i, item := range items {
		if kindOf(item) != "string" {
			return nil, invalid("field '%s' must be an array of strings, got %s at index %d", name, describe(item), i)
		}
		s, err := unquote(item)
		if err != nil {
			return nil, invalid("field '%s': %v", name, err)
		}
		out = append(out, s)
	}
	return out, nil
}
