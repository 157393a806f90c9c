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
