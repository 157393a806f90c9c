package jsontcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

func TestDecodeRequestAcceptsEachOperation(t *testing.T) {
	tp := topic.Partition{Topic: "events", Partition: 2}
	cases := []struct {
		line string
		want request
	}{
		{`{"operation":"create_topic","topic":"events","partitions":3,"replication_factor":1}`,
			request{op: opCreateTopic, topic: "events", partitions: 3, replicationFactor: 1}},
		{` {"topic":"events","operation":"metadata"} ` + "\r",
			request{op: opMetadata, topic: "events"}},
		{`{"operation":"produce","topic":"events","value_b64":"aGVsbG8="}`,
			request{op: opProduce, produce: ProduceRequest{Topic: "events", Value: []byte("hello"), Acks: AcksLeader}}},
		{`{"operation":"produce","topic":"events","partition":2,"key_b64":"","value_b64":null,"acks":"all"}`,
			request{op: opProduce, produce: ProduceRequest{Topic: "events", Partition: 2, Explicit: true, Key: []byte{}, Acks: AcksAll}}},
		{`{"operation":"produce","topic":"events","partition":null,"acks":-1}`,
			request{op: opProduce, produce: ProduceRequest{Topic: "events", Acks: AcksAll}}},
		{`{"operation":"produce","topic":"events","acks":0}`,
			request{op: opProduce, produce: ProduceRequest{Topic: "events", Acks: AcksNone}}},
		{`{"operation":"produce","topic":"events","acks":"-1"}`,
			request{op: opProduce, produce: ProduceRequest{Topic: "events", Acks: AcksAll}}},
		{`{"operation":"fetch","topic":"events","partition":2,"offset":0}`,
			request{op: opFetch, fetch: FetchRequest{Partition: tp, MaxRecords: 100}}},
		{`{"operation":"fetch","topic":"events","partition":2,"offset":9223372036854775807,"max_records":0,"isolation":"read_committed"}`,
			request{op: opFetch, fetch: FetchRequest{Partition: tp, Offset: 1<<63 - 1, MaxRecords: 0, Isolation: ReadCommitted}}},
		{`{"operation":"join_group","group_id":"g","member_id":"m1","topics":["events","orders"]}`,
			request{op: opJoinGroup, groupID: "g", memberID: "m1", topics: []string{"events", "orders"}}},
		{`{"operation":"join_group","group_id":"g","member_id":"m1","topics":[]}`,
			request{op: opJoinGroup, groupID: "g", memberID: "m1", topics: []string{}}},
		{`{"operation":"heartbeat","group_id":"g","member_id":"m1","generation":-0}`,
			request{op: opHeartbeat, groupID: "g", memberID: "m1"}},
		{`{"operation":"commit_offsets","group_id":"g","member_id":"m1","generation":4,"offsets":[{"topic":"events","partition":2,"offset":7}]}`,
			request{op: opCommitOffsets, groupID: "g", memberID: "m1", generation: 4, offsets: []OffsetCommit{{Partition: tp, Offset: 7}}}},
	}
	for _, c := range cases {
		got, err := decodeRequest([]byte(c.line))
		if err != nil {
			t.Errorf("%s: %v", c.line, err)
			continue
		}
		if !reflect.DeepEqual(*got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.line, *got, c.want)
		}
	}
}

// Decision 24: strict decoding. Every failure is INVALID_REQUEST and names
// what is wrong.
func TestDecodeRequestRejects(t *testing.T) {
	cases := []struct{ line, mention string }{
		{``, "empty request"},
		{"  \r", "empty request"},
		{`not json`, "invalid JSON"},
		{`{"operation":"metadata"`, "invalid JSON"},
		{`{"operation":"metadata","topic":"a"} {}`, "invalid JSON"},
		{"{\"operation\":\"metadata\",\"topic\":\"\xff\"}", "UTF-8"},
		{`[{"operation":"metadata"}]`, "request must be a JSON object"},
		{`"metadata"`, "request must be a JSON object"},
		{`42`, "request must be a JSON object"},
		{`null`, "request must be a JSON object"},
		{`{"operation":"wat"}`, "unknown operation 'wat'"},
		{`{"topic":"events"}`, "unknown operation"},
		{`{"operation":null}`, "unknown operation"},
		{`{"operation":7}`, "'operation' must be a string"},
		{`{"operation":"metadata","topic":"a","topic":"b"}`, "duplicate field 'topic'"},
		{`{"operation":"metadata","topic":"a","extra":1}`, "unknown field 'extra'"},
		{`{"operation":"produce","topic":"a","value":"aGk="}`, "unknown field 'value'"},
		{`{"operation":"metadata"}`, "missing field 'topic'"},
		{`{"operation":"metadata","topic":null}`, "'topic' must be a string, got null"},
		{`{"operation":"metadata","topic":5}`, "'topic' must be a string, got number 5"},
		{`{"operation":"create_topic","topic":"a","partitions":"2","replication_factor":1}`, "'partitions' must be an integer, got string '2'"},
		{`{"operation":"create_topic","topic":"a","partitions":2.0,"replication_factor":1}`, "'partitions' must be an integer, got 2.0"},
		{`{"operation":"create_topic","topic":"a","partitions":1e1,"replication_factor":1}`, "'partitions' must be an integer"},
		{`{"operation":"create_topic","topic":"a","partitions":2}`, "missing field 'replication_factor'"},
		{`{"operation":"create_topic","topic":"a","partitions":4294967296,"replication_factor":1}`, "'partitions' is out of range"},
		{`{"operation":"produce","topic":"a","partition":true}`, "'partition' must be an integer, got boolean true"},
		{`{"operation":"produce","topic":"a","value_b64":"***"}`, "'value_b64' is not valid base64"},
		{`{"operation":"produce","topic":"a","value_b64":"aGVsbG8"}`, "'value_b64' is not valid base64"},
		{`{"operation":"produce","topic":"a","key_b64":"aGVs\nbG8="}`, "'key_b64' is not valid base64"},
		{`{"operation":"produce","topic":"a","key_b64":12}`, "'key_b64' must be a base64 string or null"},
		{`{"operation":"produce","topic":"a","acks":"2"}`, "acks must be 0, 1, all or -1"},
		{`{"operation":"produce","topic":"a","acks":1.0}`, "acks must be 0, 1, all or -1"},
		{`{"operation":"produce","topic":"a","acks":["all"]}`, "'acks' must be"},
		{`{"operation":"fetch","topic":"a","partition":0}`, "missing field 'offset'"},
		{`{"operation":"fetch","topic":"a","partition":0,"offset":"0"}`, "'offset' must be an integer"},
		{`{"operation":"fetch","topic":"a","partition":0,"offset":0,"max_records":-1}`, "'max_records' must not be negative"},
		{`{"operation":"fetch","topic":"a","partition":0,"offset":0,"isolation":"bogus"}`, "isolation must be read_uncommitted or read_committed, got 'bogus'"},
		{`{"operation":"fetch","topic":"a","partition":0,"offset":0,"isolation":1}`, "'isolation' must be a string"},
		{`{"operation":"join_group","group_id":"g","member_id":"m","topics":"events"}`, "'topics' must be an array of strings, got string 'events'"},
		{`{"operation":"join_group","group_id":"g","member_id":"m","topics":["a",1]}`, "got number 1 at index 1"},
		{`{"operation":"join_group","group_id":"g","member_id":"m"}`, "missing field 'topics'"},
		{`{"operation":"heartbeat","group_id":"g","member_id":"m","generation":"1"}`, "'generation' must be an integer"},
		{`{"operation":"commit_offsets","group_id":"g","member_id":"m","generation":1,"offsets":{}}`, "'offsets' must be an array of objects"},
		{`{"operation":"commit_offsets","group_id":"g","member_id":"m","generation":1,"offsets":[1]}`, "'offsets[0]' must be an object"},
		{`{"operation":"commit_offsets","group_id":"g","member_id":"m","generation":1,"offsets":[{"topic":"a","partition":0}]}`, "missing field 'offsets[0].offset'"},
		{`{"operation":"commit_offsets","group_id":"g","member_id":"m","generation":1,"offsets":[{"topic":"a","partition":0,"offset":1,"x":0}]}`, "unknown field 'offsets[0].x'"},
		{`{"operation":"commit_offsets","group_id":"g","member_id":"m","generation":1,"offsets":[{"topic":"a","partition":"0","offset":1}]}`, "'offsets[0].partition' must be an integer"},
	}
	for _, c := range cases {
		_, err := decodeRequest([]byte(c.line))
		if !errors.Is(err, kerr.InvalidRequest) {
			t.Errorf("%q: err %v, want INVALID_REQUEST", c.line, err)
			continue
		}
		if msg := kerr.MessageOf(err); !strings.Contains(msg, c.mention) {
			t.Errorf("%q: message %q does not mention %q", c.line, msg, c.mention)
		}
	}
}

func TestQuoteCutsLongValues(t *testing.T) {
	long := strings.Repeat("é", 100)
	q := quote(long)
	if len(q) > 70 || !strings.HasSuffix(q, "...'") || !strings.HasPrefix(q, "'é") {
		t.Fatalf("quote = %q", q)
	}
}

// FuzzParseObject compares the hand scanner with encoding/json's decoder on
// every valid JSON object: the same member names, in order, with the same
// values.
func FuzzParseObject(f *testing.F) {
	for _, s := range []string{`{}`, ` { "a" : 1 , "b":[1,{"c":"]}"}] ,"d\"e":"x\\y"}`, `{"a":{"b":{}},"c":-1.5e3,"d":true,"e":null}`, `{"a":"\u00e9"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		data = trimJSONSpace(data)
		if !utf8.Valid(data) || !json.Valid(data) || len(data) == 0 || data[0] != '{' {
			return // decodeRequest checks these before it splits an object
		}
		got, err := parseObject(data, "")
		dec := json.NewDecoder(bytes.NewReader(data))
		if _, err := dec.Token(); err != nil {
			t.Fatal(err)
		}
		var names []string
		values := map[string]string{}
		dup := false
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				t.Fatal(err)
			}
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				t.Fatal(err)
			}
			name := tok.(string)
			if _, ok := values[name]; ok {
				dup = true
			}
			names = append(names, name)
			values[name] = string(raw)
		}
		if dup {
			if err == nil {
				t.Fatalf("%s: duplicate key accepted", data)
			}
			return
		}
		if err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		if !reflect.DeepEqual(got.names, names) && !(len(got.names) == 0 && len(names) == 0) {
			t.Fatalf("%s: names %q, want %q", data, got.names, names)
		}
		for _, n := range names {
			if string(got.raw[n]) != values[n] {
				t.Fatalf("%s: %s = %s, want %s", data, n, got.raw[n], values[n])
			}
		}
	})
}
