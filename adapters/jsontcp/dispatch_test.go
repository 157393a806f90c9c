package jsontcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

func dispatch(t *testing.T, b Backend, line string) string {
	t.Helper()
	resp := Dispatch(b, []byte(line))
	if !bytes.HasSuffix(resp, []byte("\n")) || bytes.Count(resp, []byte("\n")) != 1 {
		t.Fatalf("%s: response %q is not one line", line, resp)
	}
	return string(resp[:len(resp)-1])
}

// Chapter 10's dispatch-only experiment, byte for byte (the Go port prints
// compact JSON where the Python prints dicts).
func TestDispatchChapter10Experiment(t *testing.T) {
	b := newFake()
	steps := []struct{ req, resp string }{
		{`{"operation":"create_topic","topic":"events","partitions":1,"replication_factor":1}`, `{"ok":true,"topic":"events"}`},
		{`{"operation":"produce","topic":"events","partition":0,"value_b64":"aGVsbG8=","acks":"1"}`, `{"ok":true,"partition":0,"offset":0}`},
		{`{"operation":"fetch","topic":"events","partition":0,"offset":0}`, `{"ok":true,"records":[{"offset":0,"key_b64":null,"value_b64":"aGVsbG8="}]}`},
	}
	for _, s := range steps {
		if got := dispatch(t, b, s.req); got != s.resp {
			t.Fatalf("%s\n got %s\nwant %s", s.req, got, s.resp)
		}
	}
}

func TestDispatchResponsesHaveSpecKeyOrder(t *testing.T) {
	b := newFake()
	dispatch(t, b, `{"operation":"create_topic","topic":"t","partitions":2,"replication_factor":2}`)
	cases := []struct{ req, resp string }{
		{`{"operation":"metadata","topic":"t"}`, `{"ok":true,"topic":"t","partitions":[{"partition":0,"leader_id":1,"leader_epoch":0,"replicas":[1,2]},{"partition":1,"leader_id":1,"leader_epoch":0,"replicas":[1,2]}]}`},
		{`{"operation":"produce","topic":"t","partition":1,"key_b64":"AGtleQ==","value_b64":"","acks":0}`, `{"ok":true,"partition":1,"offset":null}`},
		{`{"operation":"fetch","topic":"t","partition":1,"offset":0,"max_records":10}`, `{"ok":true,"records":[{"offset":0,"key_b64":"AGtleQ==","value_b64":""}]}`},
		{`{"operation":"fetch","topic":"t","partition":1,"offset":0,"max_records":0}`, `{"ok":true,"records":[]}`},
		{`{"operation":"join_group","group_id":"g","member_id":"m1","topics":["t"]}`, `{"ok":true,"generation":1,"assignment":[{"topic":"t","partition":0},{"topic":"t","partition":1}]}`},
		{`{"operation":"heartbeat","group_id":"g","member_id":"m1","generation":1}`, `{"ok":true}`},
		{`{"operation":"commit_offsets","group_id":"g","member_id":"m1","generation":1,"offsets":[{"topic":"t","partition":1,"offset":1}]}`, `{"ok":true}`},
		{`{"operation":"heartbeat","group_id":"g","member_id":"m1","generation":0}`, `{"ok":false,"code":"ILLEGAL_GENERATION","message":"generation 0 does not match 1"}`},
		{`{"operation":"heartbeat","group_id":"nope","member_id":"m1","generation":1}`, `{"ok":false,"code":"UNKNOWN_MEMBER","message":"unknown group nope"}`},
		{`{"operation":"metadata","topic":"missing"}`, `{"ok":false,"code":"UNKNOWN_TOPIC","message":"missing"}`},
		{`{"operation":"create_topic","topic":"t","partitions":1,"replication_factor":1}`, `{"ok":false,"code":"TOPIC_ALREADY_EXISTS","message":"t"}`},
		{`{"operation":"fetch","topic":"t","partition":1,"offset":5}`, `{"ok":false,"code":"OFFSET_OUT_OF_RANGE","message":"offset 5 outside retained range [0, 1]"}`},
		{`{"operation":"wat"}`, `{"ok":false,"code":"INVALID_REQUEST","message":"unknown operation 'wat'"}`},
		{`[]`, `{"ok":false,"code":"INVALID_REQUEST","message":"request must be a JSON object"}`},
	}
	for _, c := range cases {
		if got := dispatch(t, b, c.req); got != c.resp {
			t.Errorf("%s\n got %s\nwant %s", c.req, got, c.resp)
		}
	}
}

// N1 at the dispatch layer: binary keys and values survive JSON.
func TestDispatchBinaryRoundTrip(t *testing.T) {
	b := newFake()
	dispatch(t, b, `{"operation":"create_topic","topic":"events","partitions":1,"replication_factor":1}`)
	req := fmt.Sprintf(`{"operation":"produce","topic":"events","key_b64":%q,"value_b64":%q,"acks":"1"}`, b64("\x00key"), b64("\xffvalue"))
	if got := dispatch(t, b, req); got != `{"ok":true,"partition":0,"offset":0}` {
		t.Fatal(got)
	}
	var resp struct {
		Records []struct {
			Key   []byte `json:"key_b64"`
			Value []byte `json:"value_b64"`
		}
	}
	if err := json.Unmarshal([]byte(dispatch(t, b, `{"operation":"fetch","topic":"events","partition":0,"offset":0,"max_records":10}`)), &resp); err != nil {
		t.Fatal(err)
	}
	if len(resp.Records) != 1 || string(resp.Records[0].Value) != "\xffvalue" || string(resp.Records[0].Key) != "\x00key" {
		t.Fatalf("records %+v", resp.Records)
	}
}

// Decision 24: argument errors → INVALID_REQUEST; state errors keep
// ILLEGAL_STATE; errors without a code and panics → INTERNAL; none of them
// changes anything.
func TestDispatchErrorMapping(t *testing.T) {
	b := newFake()
	dispatch(t, b, `{"operation":"create_topic","topic":"t","partitions":1,"replication_factor":1}`)
	if got := dispatch(t, b, `{"operation":"create_topic","topic":"bad name","partitions":1,"replication_factor":1}`); got != `{"ok":false,"code":"INVALID_REQUEST","message":"invalid topic name 'bad name'"}` {
		t.Errorf("argument error: %s", got)
	}
	if got := dispatch(t, b, `{"operation":"create_topic","topic":"u","partitions":0,"replication_factor":1}`); !strings.HasPrefix(got, `{"ok":false,"code":"INVALID_REQUEST"`) {
		t.Errorf("partitions 0: %s", got)
	}
	b.panicOn = "produce"
	if got := dispatch(t, b, `{"operation":"produce","topic":"t","value_b64":"AA=="}`); got != `{"ok":false,"code":"INTERNAL","message":"panic during produce: injected panic"}` {
		t.Errorf("panic: %s", got)
	}
	b.panicOn = ""
	b.failWith = errors.New("disk on fire")
	if got := dispatch(t, b, `{"operation":"metadata","topic":"t"}`); got != `{"ok":false,"code":"INTERNAL","message":"disk on fire"}` {
		t.Errorf("plain error: %s", got)
	}
	b.failWith = fmt.Errorf("flush cycle: %w", kerr.New(kerr.StorageError, "boom"))
	if got := dispatch(t, b, `{"operation":"metadata","topic":"t"}`); got != `{"ok":false,"code":"STORAGE_ERROR","message":"boom"}` {
		t.Errorf("terminal domain error: %s", got)
	}
	b.failWith = nil
	b.closed = true
	for _, req := range []string{
		`{"operation":"metadata","topic":"t"}`,
		`{"operation":"join_group","group_id":"g","member_id":"m","topics":["t"]}`,
	} {
		if got := dispatch(t, b, req); got != `{"ok":false,"code":"ILLEGAL_STATE","message":"cluster is closed"}` {
			t.Errorf("closed cluster, %s: %s", req, got)
		}
	}
	b.closed = false
	if n := len(b.records("t", 0)); n != 0 {
		t.Fatalf("failed requests appended %d records", n)
	}
}

// A pending acks=all produce cannot complete during a direct dispatch.
func TestDispatchPendingAcksAllTimesOut(t *testing.T) {
	b := newFake()
	dispatch(t, b, `{"operation":"create_topic","topic":"r","partitions":1,"replication_factor":3}`)
	got := dispatch(t, b, `{"operation":"produce","topic":"r","value_b64":"AA==","acks":"all"}`)
	if !strings.HasPrefix(got, `{"ok":false,"code":"REQUEST_TIMED_OUT"`) {
		t.Fatal(got)
	}
	if n := len(b.records("r", 0)); n != 1 {
		t.Fatalf("the record should be in the leader log: %d records", n)
	}
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" back\\slash", "ctl\x00\x01\x1f\t\r\n", "é ✓ \U0001F600", "bad \xff utf8", "\u2028\u2029", "<&>"} {
		got := appendString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%q → %s: %v", s, got, err)
		}
		want := strings.ToValidUTF8(s, "\uFFFD")
		if back != want {
			t.Fatalf("%q → %s → %q", s, got, back)
		}
	}
	if got := string(appendString(nil, "<&>")); got != `"<&>"` {
		t.Fatalf("HTML characters are escaped: %s", got)
	}
}

func TestCheckResponse(t *testing.T) {
	if err := CheckResponse(`{"ok":true,"topic":"t"}`); err != nil {
		t.Fatal(err)
	}
	err := CheckResponse(`{"ok":false,"code":"UNKNOWN_TOPIC","message":"missing"}`)
	if !errors.Is(err, kerr.UnknownTopic) || kerr.MessageOf(err) != "missing" {
		t.Fatalf("err %v", err)
	}
	if err := CheckResponse(`[1]`); !errors.Is(err, kerr.InvalidArgument) {
		t.Fatalf("not a response: %v", err)
	}
}

// FuzzDispatch feeds any line through decoding, dispatch to a fake and
// response encoding: never a panic, always exactly one valid JSON line whose
// first key is "ok", and a failed decode is always INVALID_REQUEST.
func FuzzDispatch(f *testing.F) {
	for _, s := range []string{
		`{"operation":"create_topic","topic":"events","partitions":1,"replication_factor":1}`,
		`{"operation":"produce","topic":"events","partition":0,"value_b64":"aGVsbG8=","acks":"1"}`,
		`{"operation":"fetch","topic":"events","partition":0,"offset":0,"max_records":5,"isolation":"read_committed"}`,
		`{"operation":"join_group","group_id":"g","member_id":"m","topics":["events"]}`,
		`{"operation":"commit_offsets","group_id":"g","member_id":"m","generation":1,"offsets":[{"topic":"events","partition":0,"offset":1}]}`,
		`{"operation":"produce","topic":"events","key_b64":"@@","acks":-1}`,
		`{"operation":"metadata","topic":"\u00e9\ud800"}`,
		`[]`, ``, "\r", `{"a":{"b":[1,2,{"c":null}]}}`, `{"operation":"fetch","topic":"events","partition":0,"offset":-9223372036854775808}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		b := newFake()
		Dispatch(b, []byte(`{"operation":"create_topic","topic":"events","partitions":2,"replication_factor":1}`))
		_, decodeErr := decodeRequest(line)
		if decodeErr != nil && !errors.Is(decodeErr, kerr.InvalidRequest) {
			t.Fatalf("decode error without INVALID_REQUEST: %v", decodeErr)
		}
		resp := Dispatch(b, line)
		if bytes.Count(resp, []byte("\n")) != 1 || resp[len(resp)-1] != '\n' {
			t.Fatalf("response %q is not one line", resp)
		}
		if !utf8.Valid(resp) || !json.Valid(resp) {
			t.Fatalf("response %q is not valid JSON", resp)
		}
		if !bytes.HasPrefix(resp, []byte(`{"ok":`)) {
			t.Fatalf("response %q does not start with ok", resp)
		}
		if decodeErr != nil && !bytes.HasPrefix(resp, []byte(`{"ok":false,"code":"INVALID_REQUEST"`)) {
			t.Fatalf("undecodable request answered %q", resp)
		}
	})
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
