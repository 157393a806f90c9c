package group

import (
	"bytes"
	"reflect"
	"testing"
)

// FuzzDecodeOffsets: the loader never panics, and whatever it accepts
// re-encodes to a canonical file that loads to the same offsets and encodes
// to the same bytes again.
func FuzzDecodeOffsets(f *testing.F) {
	f.Add([]byte(`{"groups":{"g":[{"offset":5,"partition":0,"topic":"orders"}]},"version":1}`))
	f.Add([]byte(`{"groups":{},"version":1}`))
	f.Add([]byte(`{"groups":{"a":[],"b":[{"offset":1,"partition":10,"topic":"z"},{"offset":2,"partition":2,"topic":"z"}]},"version":1}`))
	f.Add([]byte(`{"groups":{"g\u00e9\ud83d\ude00":[{"offset":1,"partition":0,"topic":"t<&>"}]},"version":1}`))
	f.Add([]byte(`{"groups":{"g":[{"offset":-1,"partition":0,"topic":"t"}]},"version":1}`))
	f.Add([]byte(`{"groups":`))
	f.Fuzz(func(t *testing.T, data []byte) {
		groups, err := decodeOffsets(data)
		if err != nil {
			return
		}
		enc := encodeOffsets(groups)
		again, err := decodeOffsets(enc)
		if err != nil {
			t.Fatalf("canonical encoding %s does not load: %v", enc, err)
		}
		if !reflect.DeepEqual(groups, again) {
			t.Fatalf("round trip changed offsets: %v vs %v", groups, again)
		}
		if enc2 := encodeOffsets(again); !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding not canonical:\n%s\n%s", enc, enc2)
		}
	})
}

// FuzzDecodeGroups: the groups.json loader never panics, and what it accepts
// re-encodes canonically to the same membership.
func FuzzDecodeGroups(f *testing.F) {
	f.Add([]byte(`{"groups":{"workers":{"assignment":{"member-1":[["orders",0],["orders",2]],"member-2":[["orders",1]]},"generation":2,"members":{"member-1":["orders"],"member-2":["orders"]}}},"version":1}`))
	f.Add([]byte(`{"groups":{"g":{"assignment":{},"generation":3,"members":{}}},"version":1}`))
	f.Add([]byte(`{"groups":{"g":{"assignment":{"a":[["t",0]],"b":[["t",0]]},"generation":1,"members":{"a":["t"],"b":["t"]}}},"version":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		groups, err := decodeGroups(data, 7)
		if err != nil {
			return
		}
		enc := encodeGroups(groups)
		again, err := decodeGroups(enc, 7)
		if err != nil {
			t.Fatalf("canonical encoding %s does not load: %v", enc, err)
		}
		if enc2 := encodeGroups(again); !bytes.Equal(enc, enc2) {
			t.Fatalf("not canonical:\n%s\n%s", enc, enc2)
		}
		for id, g := range groups {
			if (g.state == Stable) != (len(g.members) > 0) {
				t.Fatalf("group %s state %v with %d members", id, g.state, len(g.members))
			}
		}
	})
}
