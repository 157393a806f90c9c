package repl

import (
	"errors"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		line string
		want []Word
	}{
		{"", nil},
		{"   \t ", nil},
		{"# just a comment", nil},
		{"produce orders", []Word{{Text: "produce"}, {Text: "orders"}}},
		{"  produce   orders  # trailing comment", []Word{{Text: "produce"}, {Text: "orders"}}},
		{"produce orders value=a#b", []Word{{Text: "produce"}, {Text: "orders"}, {Text: "value=a#b", IsPair: true, Key: "value", Value: "a#b"}}},
		{`produce orders value="two words"`, []Word{{Text: "produce"}, {Text: "orders"}, {Text: "value=two words", Quoted: true, IsPair: true, Key: "value", Value: "two words", ValueQuoted: true}}},
		{`value='it''s'`, []Word{{Text: "value=its", Quoted: true, IsPair: true, Key: "value", Value: "its", ValueQuoted: true}}},
		{`key=""`, []Word{{Text: "key=", Quoted: true, IsPair: true, Key: "key", Value: "", ValueQuoted: true}}},
		{`key=`, []Word{{Text: "key=", IsPair: true, Key: "key", Value: ""}}},
		{`"a=b"`, []Word{{Text: "a=b", Quoted: true}}},
		{`"a"=b`, []Word{{Text: "a=b", Quoted: true}}},
		{`==`, []Word{{Text: "=="}}},
		{`>=`, []Word{{Text: ">="}}},
		{`orders-0=5`, []Word{{Text: "orders-0=5", IsPair: true, Key: "orders-0", Value: "5"}}},
		{`min.insync.replicas=2`, []Word{{Text: "min.insync.replicas=2", IsPair: true, Key: "min.insync.replicas", Value: "2"}}},
		{`v=a=b`, []Word{{Text: "v=a=b", IsPair: true, Key: "v", Value: "a=b"}}},
		{`"say \"hi\"\n\x41\\"`, []Word{{Text: "say \"hi\"\nA\\", Quoted: true}}},
		{`dir=C:\tmp`, []Word{{Text: `dir=C:\tmp`, IsPair: true, Key: "dir", Value: `C:\tmp`}}},
		{`"#not a comment"`, []Word{{Text: "#not a comment", Quoted: true}}},
		{`tombstone "tombstone"`, []Word{{Text: "tombstone"}, {Text: "tombstone", Quoted: true}}},
	}
	for _, tc := range tests {
		got, err := Split(tc.line)
		if err != nil {
			t.Errorf("Split(%q): %v", tc.line, err)
			continue
		}
		if len(got) != len(tc.want) {
			t.Errorf("Split(%q) = %+v, want %+v", tc.line, got, tc.want)
			continue
		}
		for i := range got {
			got[i].start, got[i].end = 0, 0 // spans are tested in TestSplitSpans
			if got[i] != tc.want[i] {
				t.Errorf("Split(%q)[%d] = %+v, want %+v", tc.line, i, got[i], tc.want[i])
			}
		}
	}
}

// TestSplitSpans: each word knows where it was in the line, quotes
// included, so that a command can take the raw text after a word.
func TestSplitSpans(t *testing.T) {
	line := `check  events-0 values == ["two words" 'x'] # note`
	words, err := Split(line)
	if err != nil {
		t.Fatal(err)
	}
	var spans []string
	for _, w := range words {
		spans = append(spans, line[w.start:w.end])
	}
	want := []string{"check", "events-0", "values", "==", `["two words"`, `'x']`}
	if strings.Join(spans, "|") != strings.Join(want, "|") {
		t.Errorf("spans = %q, want %q", spans, want)
	}
}

func TestSplitErrors(t *testing.T) {
	for _, line := range []string{`value="open`, `value='open`, `"bad \q escape"`, `"\x4"`, `"ends with \`} {
		_, err := Split(line)
		if !errors.Is(err, kerr.InvalidArgument) {
			t.Errorf("Split(%q) error = %v, want INVALID_ARGUMENT", line, err)
		}
	}
}

func TestQuoteRoundTrip(t *testing.T) {
	for _, s := range []string{"", "plain", "two words", `quo"te`, "it's", `back\slash`, "#hash", "a=b", "tab\there", "nl\n", "\x00\xff", "héllo wörld", "\u00a0nbsp", "tombstone"} {
		checkQuoteRoundTrip(t, s)
	}
}

func checkQuoteRoundTrip(t *testing.T, s string) {
	t.Helper()
	q := Quote(s)
	got, err := Split(q)
	if err != nil || len(got) != 1 || got[0].Text != s || got[0].IsPair {
		t.Fatalf("Split(Quote(%q)=%s) = %+v, %v; want one word %q", s, q, got, err, s)
	}
	got, err = Split("value=" + q)
	if err != nil || len(got) != 1 || !got[0].IsPair || got[0].Value != s {
		t.Fatalf("Split(value=%s) = %+v, %v; want value %q", q, got, err, s)
	}
}

// FuzzQuote checks that any string survives Quote then Split, as a word and
// as a value.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "a b", `"`, `\`, "'", "#", "=", "\x00", "\xff\xfe", "ü"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkQuoteRoundTrip(t, s)
	})
}

// FuzzSplit checks that Split never panics and that re-rendering its words
// gives the same words back.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{
		`produce orders key=alice value="two words" acks=all`,
		`check events-0 hw == 1 # comment`,
		`value='x' "y"=z k=hex:00ff`, `"unterminated`, `a\`, `"\x41\n"`, "\t\r\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		words, err := Split(line)
		if err != nil {
			if !errors.Is(err, kerr.InvalidArgument) {
				t.Fatalf("Split(%q) error %v is not INVALID_ARGUMENT", line, err)
			}
			return
		}
		var parts []string
		for _, w := range words {
			parts = append(parts, w.String())
		}
		again, err := Split(strings.Join(parts, " "))
		if err != nil {
			t.Fatalf("re-split of %q: %v", strings.Join(parts, " "), err)
		}
		if len(again) != len(words) {
			t.Fatalf("re-split of %q gave %d words, want %d", line, len(again), len(words))
		}
		for i := range words {
			a, b := words[i], again[i]
			if a.Text != b.Text || a.IsPair != b.IsPair || a.Key != b.Key || a.Value != b.Value || a.Quoted != b.Quoted || (a.IsPair && a.ValueQuoted != b.ValueQuoted) {
				t.Fatalf("word %d of %q: %+v, re-split %+v", i, line, a, b)
			}
		}
	})
}

func TestParseDuration(t *testing.T) {
	good := map[string]int64{"0": 0, "500": 500, "500ms": 500, "10s": 10_000, "2m": 120_000, "1h": 3_600_000}
	for in, want := range good {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "ms", "-5", "1.5s", "10 s", "5d", "99999999999999999999", "9223372036854775807s"} {
		if _, err := ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q) succeeded, want an error", in)
		}
	}
}
