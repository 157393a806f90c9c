package txn

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/group"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// FuzzScanJournal: the journal reader never panics; the valid prefix and the
// drop report describe the input exactly; the valid prefix rescans to the
// same entries with nothing dropped; every accepted entry re-encodes to a
// line that parses back to the same entry.
func FuzzScanJournal(f *testing.F) {
	full := Entry{ID: "t1", State: CompleteCommit,
		Partitions:    []topic.Partition{{Topic: "out", Partition: 0}},
		FirstOffsets:  map[topic.Partition]int64{{Topic: "out", Partition: 0}: 3},
		StagedOffsets: map[string]group.Offsets{"g": {{Topic: "in", Partition: 0}: 3}}}
	f.Add(Entry{ID: "t1", State: Ongoing}.AppendLine(nil))
	f.Add(full.AppendLine(Entry{ID: "t1", State: Ongoing}.AppendLine(nil)))
	f.Add(append(full.AppendLine(nil), "deadbeef {"...))
	f.Add([]byte(`0020b3f9 {"first_offsets":[],"id":"t1","partitions":[],"staged_offsets":{},"state":"ongoing"}`))
	f.Add([]byte("garbage\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, valid, missingNewline, drop := ScanJournal(data)
		if valid < 0 || valid > len(data) || (drop == nil) != (valid == len(data)) {
			t.Fatalf("valid %d of %d, drop %+v", valid, len(data), drop)
		}
		if drop != nil && (drop.Position != int64(valid) || drop.Bytes != int64(len(data)-valid) || drop.Lines < 1 || drop.Reason == "") {
			t.Fatalf("drop %+v for valid %d of %d", drop, valid, len(data))
		}
		if missingNewline && (valid == 0 || data[valid-1] == '\n') {
			t.Fatal("missingNewline on a terminated prefix")
		}
		again, valid2, _, drop2 := ScanJournal(data[:valid])
		if drop2 != nil || valid2 != valid || len(again) != len(entries) {
			t.Fatalf("rescan of the valid prefix: %d entries, valid %d, drop %+v", len(again), valid2, drop2)
		}
		if got := bytes.Count(data[:valid], []byte{'\n'}); got+boolInt(missingNewline) != len(entries) {
			t.Fatalf("%d entries in %d lines", len(entries), got)
		}
		for _, e := range entries {
			line := e.AppendLine(nil)
			back, err := ParseLine(line[:len(line)-1])
			if err != nil {
				t.Fatalf("re-encoded line %q: %v", line, err)
			}
			if !reflect.DeepEqual(back, e) {
				t.Fatalf("round trip %+v vs %+v", back, e)
			}
		}
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// FuzzParsePayload frames arbitrary payloads with their correct CRC, so the
// fuzzer reaches the JSON checks behind it: no panic, and an accepted entry
// re-encodes canonically (encode → parse → encode is stable).
func FuzzParsePayload(f *testing.F) {
	f.Add([]byte(`{"first_offsets":[],"id":"t1","partitions":[],"staged_offsets":{},"state":"ongoing"}`))
	f.Add([]byte(`{"first_offsets":[["out",0,0],["out",2,0]],"id":"t1","partitions":[["out",0],["out",2]],"staged_offsets":{"g":[["in",0,3]]},"state":"complete_commit"}`))
	f.Add([]byte(`{"state":"prepare_abort","id":"\u00e9<&>","partitions":[["a",1],["a",1]],"staged_offsets":{"g":[]},"first_offsets":[["a",1,4]],"x":null}`))
	f.Add([]byte(`{"first_offsets":[["a",null,1]],"id":"t","partitions":[],"staged_offsets":{},"state":"ongoing"}`))
	f.Fuzz(func(t *testing.T, payload []byte) {
		e, err := ParseLine([]byte(crcLine(string(payload))))
		if err != nil {
			return
		}
		if e.ID == "" || !e.State.Unstable() && e.State != CompleteCommit && e.State != CompleteAbort {
			t.Fatalf("accepted %+v", e)
		}
		enc := e.AppendLine(nil)
		back, err := ParseLine(enc[:len(enc)-1])
		if err != nil || !reflect.DeepEqual(back, e) {
			t.Fatalf("round trip of %q: %+v, %v", enc, back, err)
		}
		if enc2 := back.AppendLine(nil); !bytes.Equal(enc, enc2) {
			t.Fatalf("not canonical:\n%s\n%s", enc, enc2)
		}
	})
}
