package statekey_test

import (
	"bytes"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/statekey"
)

// TestUnambiguous: values that print alike encode apart.
func TestUnambiguous(t *testing.T) {
	enc := func(f func(w *statekey.Writer)) string {
		var b bytes.Buffer
		f(statekey.New(&b))
		return b.String()
	}
	pairs := [][2]func(w *statekey.Writer){
		{func(w *statekey.Writer) { w.String("ab"); w.String("c") }, func(w *statekey.Writer) { w.String("a"); w.String("bc") }},
		{func(w *statekey.Writer) { w.Bytes(nil) }, func(w *statekey.Writer) { w.Bytes([]byte{}) }},
		{func(w *statekey.Writer) { w.IDs([]int32{1, 2}); w.IDs(nil) }, func(w *statekey.Writer) { w.IDs([]int32{1}); w.IDs([]int32{2}) }},
		{func(w *statekey.Writer) { w.Bool(true) }, func(w *statekey.Writer) { w.Bool(false) }},
		{func(w *statekey.Writer) { w.Int(-1) }, func(w *statekey.Writer) { w.Int(1) }},
	}
	for i, p := range pairs {
		if a, b := enc(p[0]), enc(p[1]); a == b {
			t.Errorf("pair %d encodes alike: %q", i, a)
		}
	}
	if a, b := enc(func(w *statekey.Writer) { w.Int(300); w.String("x") }), enc(func(w *statekey.Writer) { w.Int(300); w.String("x") }); a != b {
		t.Error("the same values encode differently")
	}
}
