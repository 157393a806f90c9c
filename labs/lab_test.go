package labs

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

const goodLab = `# title: Counting up
# chapter: 1
#
# The intro paragraph belongs to the first block.

set x 1
----
ok

# Narration for the second block,
#
# in two paragraphs.
incr x
----
x=2

para
----
----
first paragraph

second paragraph
----
----

get nope
----
error: no nope

# What we learned: an epilogue.
`

func TestParseLab(t *testing.T) {
	l, err := ParseLab("labs/01-basics/02-counting.lab", []byte(goodLab))
	if err != nil {
		t.Fatal(err)
	}
	if l.ID != "01-02" || l.Slug != "counting" || l.ChapterSlug != "basics" || l.Title != "Counting up" || l.Chapter != 1 {
		t.Errorf("identity: %+v", l)
	}
	if l.Steps() != 4 {
		t.Fatalf("steps = %d, want 4", l.Steps())
	}
	b := l.Blocks
	if want := []string{"The intro paragraph belongs to the first block."}; !slices.Equal(b[0].Narration, want) {
		t.Errorf("narration 0 = %q", b[0].Narration)
	}
	if want := []string{"Narration for the second block,", "", "in two paragraphs."}; !slices.Equal(b[1].Narration, want) {
		t.Errorf("narration 1 = %q", b[1].Narration)
	}
	if b[1].Line != 13 || b[1].Command != "incr x" || !slices.Equal(b[1].Expected, []string{"x=2"}) {
		t.Errorf("block 1 = %+v", b[1])
	}
	if !b[2].DoubleFence || !slices.Equal(b[2].Expected, []string{"first paragraph", "", "second paragraph"}) {
		t.Errorf("block 2 = %q double=%v", b[2].Expected, b[2].DoubleFence)
	}
	if !slices.Equal(l.Epilogue, []string{"What we learned: an epilogue."}) {
		t.Errorf("epilogue = %q", l.Epilogue)
	}
	if !b[2].Matches("first paragraph\n\nsecond paragraph  \n\n") {
		t.Error("double-fenced output does not match")
	}
}

// TestMalformedLabs: every malformed file fails with FILE:LINE and what is
// wrong, never a panic or a silent pass. Unknown commands and unknown check
// quantities come from the executor's Validate, before anything runs.
func TestMalformedLabs(t *testing.T) {
	const head = "# title: T\n# chapter: 1\n\n"
	tests := []struct {
		name, src, want string
		validate        bool
	}{
		{"no fence", head + "set x 1\nok\n", "f.lab:4: command \"set x 1\" is not followed by a ---- line", false},
		{"no fence at end of file", head + "set x 1", "f.lab:4: command \"set x 1\" is not followed by a ---- line", false},
		{"empty command", head + "set x 1\n----\nok\n\n----\nok\n", "f.lab:8: ---- without a command: a block starts with a command line", false},
		{"fence first", head + "----\n", "f.lab:4: ---- without a command", false},
		{"unterminated double fence", head + "para\n----\n----\nfirst\n\nsecond\n----\n", "f.lab:6: unterminated ----/---- output: no closing ---- and ---- lines", false},
		{"unknown command", head + "set x 1\n----\nok\n\nfrobnicate x\n----\nok\n", "f.lab:8: unknown command \"frobnicate\"", true},
		{"unknown check quantity", head + "check bogus == 1\n----\nok\n", "f.lab:4: check: unknown quantity \"bogus\"", true},
		{"missing title", "# chapter: 1\n\nset x 1\n----\nok\n", "f.lab:1: missing header line '# title: ...'", false},
		{"missing chapter", "# title: T\n\nset x 1\n----\nok\n", "f.lab:1: missing header line '# chapter: N'", false},
		{"bad chapter", "# title: T\n# chapter: five\n", "f.lab:2: chapter must be a number from 1 to 99, not \"five\"", false},
		{"unknown header", "# title: T\n# chapter: 1\n# author: me\n", "f.lab:3: unknown header \"author\"", false},
		{"duplicate header", "# title: T\n# title: U\n", "f.lab:2: header \"title\" given twice (first at line 1)", false},
		{"empty title", "# title:\n# chapter: 1\n", "f.lab:1: empty title", false},
		{"no blocks", head + "# only narration\n", "f.lab:4: no blocks", false},
		{"bad regexp", head + "echo a\n----\na(b (re)\n", "f.lab:6: bad regular expression \"a(b\"", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseLab("f.lab", []byte(tt.src))
			if err == nil && tt.validate {
				f := &fakeFactory{}
				x, _ := f.new()
				err = l.Validate(x.(Validator))
				r := Run(l, f.new)
				if r.Stopped == nil || len(f.ran) != 0 {
					t.Errorf("Run: stopped=%v, ran %q; want a stop before anything runs", r.Stopped, f.ran)
				}
			}
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error = %q\nwant prefix %q", err, tt.want)
			}
			var se *SourceError
			if !errors.As(err, &se) {
				t.Errorf("error %T is not a *SourceError", err)
			}
		})
	}
}

func TestLabChapterMustMatchDirectory(t *testing.T) {
	_, err := ParseLab("labs/02-more/01-x.lab", []byte("# title: T\n# chapter: 3\n\nset x 1\n----\nok\n"))
	if err == nil || !strings.Contains(err.Error(), "labs/02-more/01-x.lab:2: the header says chapter 3 but the file is in chapter directory 02") {
		t.Errorf("err = %v", err)
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		name     string
		expected []string
		actual   string
		want     bool
	}{
		{"exact", []string{"a", "b"}, "a\nb\n", true},
		{"trailing spaces and blank lines", []string{"a", "b"}, "a   \nb\t\n\n\n", true},
		{"leading blank line counts", []string{"a"}, "\na\n", false},
		{"different", []string{"a", "b"}, "a\nc\n", false},
		{"missing line", []string{"a", "b"}, "a\n", false},
		{"extra line", []string{"a"}, "a\nb\n", false},
		{"ellipsis zero lines", []string{"a", "...", "b"}, "a\nb\n", true},
		{"ellipsis many lines", []string{"a", "...", "z"}, "a\nb\nc\nd\nz\n", true},
		{"ellipsis at end", []string{"a", "..."}, "a\nb\nc\n", true},
		{"ellipsis alone", []string{"..."}, "", true},
		{"ellipsis still needs the tail", []string{"a", "...", "z"}, "a\nb\n", false},
		{"regexp", []string{`listening on 127\.0\.0\.1:\d+ (re)`}, "listening on 127.0.0.1:40123\n", true},
		{"regexp is anchored", []string{`\d+ (re)`}, "port 42\n", false},
		{"regexp alternation is anchored", []string{`a|b (re)`}, "ab\n", false},
		{"regexp no match", []string{`\d+ (re)`}, "x\n", false},
		{"regexp and ellipsis", []string{"...", `b\w+ (re)`, "..."}, "a\nbee\nc\n", true},
		{"empty", nil, "\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := compileWant("f", 1, tt.expected)
			if err != nil {
				t.Fatal(err)
			}
			got := normalizeOutput(tt.actual)
			if m := matchOutput(want, got); m != tt.want {
				t.Errorf("match = %v, want %v", m, tt.want)
			}
			if d := unifiedDiff(want, got); (d == "") != tt.want {
				t.Errorf("diff = %q but match = %v", d, tt.want)
			}
		})
	}
}

func TestDiff(t *testing.T) {
	tests := []struct {
		name     string
		expected []string
		actual   string
		want     string
	}{
		{"one line changed", []string{"a", "b", "c"}, "a\nB\nc\n",
			"--- expected\n+++ actual\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"line added at the start", []string{"a"}, "x\na\n",
			"--- expected\n+++ actual\n@@ -1 +1,2 @@\n+x\n a\n"},
		{"all gone", []string{"a", "b"}, "",
			"--- expected\n+++ actual\n@@ -1,2 +0,0 @@\n-a\n-b\n"},
		{"ellipsis shown once", []string{"a", "...", "z", "tail"}, "a\nb\nc\nz\nTAIL\n",
			"--- expected\n+++ actual\n@@ -1,4 +1,5 @@\n a\n ...\n z\n-tail\n+TAIL\n"},
		{"regexp match shows the actual line", []string{`\d+ (re)`, "x"}, "42\ny\n",
			"--- expected\n+++ actual\n@@ -1,2 +1,2 @@\n 42\n-x\n+y\n"},
		{"two hunks", strings.Fields("a b c d e f g h i j k l m n"), strings.Join(strings.Fields("A b c d e f g h i j k l m N"), "\n"),
			"--- expected\n+++ actual\n@@ -1,4 +1,4 @@\n-a\n+A\n b\n c\n d\n@@ -11,4 +11,4 @@\n k\n l\n m\n-n\n+N\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := compileWant("f", 1, tt.expected)
			if err != nil {
				t.Fatal(err)
			}
			if got := unifiedDiff(want, normalizeOutput(tt.actual)); got != tt.want {
				t.Errorf("diff:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}
