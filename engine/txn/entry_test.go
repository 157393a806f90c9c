package txn

import (
	"reflect"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/group"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// §12.2: the spec's example first line, byte for byte.
func TestJournalLineSpecExample(t *testing.T) {
	t.Parallel()
	e := Entry{ID: "t1", State: Ongoing}
	want := `0020b3f9 {"first_offsets":[],"id":"t1","partitions":[],"staged_offsets":{},"state":"ongoing"}` + "\n"
	if got := string(e.AppendLine(nil)); got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

// §12.2: the spec's example payload with every field.
func TestJournalPayloadShapes(t *testing.T) {
	t.Parallel()
	e := Entry{
		ID: "t1", State: CompleteCommit,
		Partitions:    []topic.Partition{tp("out-2"), tp("out-0")},
		FirstOffsets:  map[topic.Partition]int64{tp("out-2"): 0, tp("out-0"): 0},
		StagedOffsets: map[string]group.Offsets{"g": {tp("in-0"): 3}},
	}
	want := `{"first_offsets":[["out",0,0],["out",2,0]],"id":"t1","partitions":[["out",0],["out",2]],"staged_offsets":{"g":[["in",0,3]]},"state":"complete_commit"}`
	if got := string(e.AppendPayload(nil)); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	line := e.AppendLine(nil)
	back, err := ParseLine(line[:len(line)-1])
	if err != nil {
		t.Fatal(err)
	}
	e.Partitions = []topic.Partition{tp("out-0"), tp("out-2")}
	if !reflect.DeepEqual(back, e) {
		t.Fatalf("round trip %+v", back)
	}
}

// Decision 32: the encoder is deterministic and ASCII-only; '<', '>' and '&'
// are written as themselves, non-ASCII as \uXXXX (surrogate pairs beyond the
// BMP), controls in short or \u00XX form.
func TestJournalStringEscaping(t *testing.T) {
	t.Parallel()
	e := Entry{ID: "<a&b>\"\\\n\t\x01é😀", State: Ongoing,
		StagedOffsets: map[string]group.Offsets{"grüppe": {tp("t-1"): 2}}}
	got := string(e.AppendPayload(nil))
	want := `{"first_offsets":[],"id":"<a&b>\"\\\n\t\u0001\u00e9\ud83d\ude00","partitions":[],"staged_offsets":{"gr\u00fcppe":[["t",1,2]]},"state":"ongoing"}`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	line := e.AppendLine(nil)
	back, err := ParseLine(line[:len(line)-1])
	if err != nil {
		t.Fatal(err)
	}
	if back.ID != e.ID || back.StagedOffsets["grüppe"][tp("t-1")] != 2 {
		t.Fatalf("round trip %+v", back)
	}
}

func TestParseLineRejects(t *testing.T) {
	t.Parallel()
	good := crcLine // a line whose CRC matches its (bad) payload
	cases := map[string]struct{ line, reason string }{
		"no space":        {"0020b3f9", "missing space"},
		"short crc":       {"20b3f9 {}", "8 lowercase hex"},
		"upper crc":       {strings.ToUpper(crcLine(`{"a":1}`)[:8]) + crcLine(`{"a":1}`)[8:], "8 lowercase hex"},
		"crc mismatch":    {"deadbeef {", "crc mismatch"},
		"bad json":        {good(`{"id":`), "invalid json"},
		"not an object":   {good(`[1]`), "invalid json"},
		"null":            {good(`null`), "invalid json"},
		"missing state":   {good(`{"first_offsets":[],"id":"t","partitions":[],"staged_offsets":{}}`), `missing key "state"`},
		"unknown state":   {good(`{"first_offsets":[],"id":"t","partitions":[],"staged_offsets":{},"state":"done"}`), "unknown state"},
		"empty id":        {good(`{"first_offsets":[],"id":"","partitions":[],"staged_offsets":{},"state":"ongoing"}`), `invalid field "id"`},
		"short pair":      {good(`{"first_offsets":[],"id":"t","partitions":[["a"]],"staged_offsets":{},"state":"ongoing"}`), `invalid field "partitions"`},
		"negative offset": {good(`{"first_offsets":[["a",0,-1]],"id":"t","partitions":[],"staged_offsets":{},"state":"ongoing"}`), `invalid field "first_offsets"`},
		"null partition":  {good(`{"first_offsets":[["a",null,1]],"id":"t","partitions":[],"staged_offsets":{},"state":"ongoing"}`), `invalid field "first_offsets"`},
		"staged list":     {good(`{"first_offsets":[],"id":"t","partitions":[],"staged_offsets":[],"state":"ongoing"}`), `invalid field "staged_offsets"`},
		"trailing":        {good(`{"first_offsets":[],"id":"t","partitions":[],"staged_offsets":{},"state":"ongoing"} x`), "invalid json"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ParseLine([]byte(c.line))
			if err == nil || !strings.Contains(err.Error(), c.reason) {
				t.Fatalf("got %v, want reason containing %q", err, c.reason)
			}
		})
	}
	// Unknown extra keys are ignored, and keys may come in any order.
	e, err := ParseLine([]byte(crcLine(`{"state":"prepare_abort","extra":1,"id":"t","partitions":[["a",1]],"staged_offsets":{},"first_offsets":[["a",1,4]]}`)))
	if err != nil || e.State != PrepareAbort || e.FirstOffsets[tp("a-1")] != 4 {
		t.Fatalf("got %+v, %v", e, err)
	}
}

func TestStateNames(t *testing.T) {
	t.Parallel()
	want := map[State][2]string{
		Ongoing: {"ongoing", "Ongoing"}, PrepareCommit: {"prepare_commit", "PrepareCommit"},
		CompleteCommit: {"complete_commit", "CompleteCommit"}, PrepareAbort: {"prepare_abort", "PrepareAbort"},
		CompleteAbort: {"complete_abort", "CompleteAbort"},
	}
	for s, w := range want {
		if s.String() != w[0] || s.KafkaName() != w[1] {
			t.Fatalf("%d: %s %s", s, s, s.KafkaName())
		}
		if p, ok := ParseState(w[0]); !ok || p != s {
			t.Fatalf("parse %s", w[0])
		}
		if s.Unstable() != (s == Ongoing || s == PrepareCommit || s == PrepareAbort) {
			t.Fatalf("%s unstable=%v", s, s.Unstable())
		}
	}
	if _, ok := ParseState("Ongoing"); ok {
		t.Fatal("parsed the display name")
	}
}
