package pyjson

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// What Python's json.dumps(s) prints for each string (ensure_ascii, the
// default), checked against CPython 3.
func TestAppendStringMatchesPython(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", `""`},
		{"orders", `"orders"`},
		{`say "hi"`, `"say \"hi\""`},
		{`back\slash`, `"back\\slash"`},
		{"\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"\x00\x01\x1f", `"\u0000\u0001\u001f"`},
		{"\x7f", `"\u007f"`},
		{"<a&b>", `"<a&b>"`},
		{"/", `"/"`},
		{"é", `"\u00e9"`},
		{"grüppe", `"gr\u00fcppe"`},
		{"\u2028\u2029", `"\u2028\u2029"`},
		{"日本", `"\u65e5\u672c"`},
		{"\uffff", `"\uffff"`},
		{"😀", `"\ud83d\ude00"`},
		{"\U00010000", `"\ud800\udc00"`},
		{"\U0010ffff", `"\udbff\udfff"`},
	}
	for _, c := range cases {
		if got := string(AppendString(nil, c.in)); got != c.want {
			t.Errorf("AppendString(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// AppendString appends: what dst holds stays in front.
func TestAppendStringAppends(t *testing.T) {
	dst := []byte(`{"id":`)
	if got := string(AppendString(dst, "t1")); got != `{"id":"t1"` {
		t.Fatalf("got %s", got)
	}
}

// For valid UTF-8 the output is ASCII JSON that decodes back to the input.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a", "\"\\", "\x00\x7f", "<&>", "é😀", "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			t.Skip()
		}
		out := AppendString(nil, s)
		for _, c := range out {
			if c < 0x20 || c > 0x7e {
				t.Fatalf("AppendString(%q) wrote byte %#x", s, c)
			}
		}
		var back string
		if err := json.Unmarshal(out, &back); err != nil || back != s {
			t.Fatalf("AppendString(%q) = %s decodes to %q, %v", s, out, back, err)
		}
	})
}
