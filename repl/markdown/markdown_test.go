package markdown

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update rewrites it):\n%s", path, got)
	}
}

func render(t *testing.T, src string, opt Options) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, []byte(src), opt); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestRenderPlain is the golden rendering without colour: no escape codes,
// headings underlined, code spans with their backticks, wrapped at 80.
func TestRenderPlain(t *testing.T) {
	src, err := os.ReadFile("testdata/sample.md")
	if err != nil {
		t.Fatal(err)
	}
	got := render(t, string(src), Options{})
	if bytes.Contains(got, []byte("\x1b")) {
		t.Error("plain output contains an escape code")
	}
	for i, line := range strings.Split(string(got), "\n") {
		if n := len([]rune(line)); n > 80 && !strings.Contains(line, "aaaaaaaa") {
			t.Errorf("line %d is %d columns wide: %q", i+1, n, line)
		}
		if strings.TrimRight(line, " ") != line {
			t.Errorf("line %d has trailing spaces: %q", i+1, line)
		}
	}
	golden(t, "sample.txt", got)
}

// TestRenderColor: colour adds styles only; stripped of them, the layout is
// the plain one except for the few marks that differ (bullets, rules, code
// backticks).
func TestRenderColor(t *testing.T) {
	src, err := os.ReadFile("testdata/sample.md")
	if err != nil {
		t.Fatal(err)
	}
	got := render(t, string(src), Options{Color: true})
	if !bytes.Contains(got, []byte("\x1b[1m")) {
		t.Error("colour output has no bold")
	}
	golden(t, "sample.ansi", got)
	stripped := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(string(got), "")
	plain := string(render(t, string(src), Options{}))
	if a, b := strings.Count(stripped, "\n"), strings.Count(plain, "\n"); a > b+1 || a < b-1 {
		t.Errorf("colour output has %d lines, plain %d", a, b)
	}
}

func TestInline(t *testing.T) {
	tests := []struct{ in, plain string }{
		{"a `b c` d", "a `b c` d"},
		{"**bold** and *em* and _em_", "bold and em and em"},
		{"snake_case_name stays", "snake_case_name stays"},
		{"2 * 3 * 4", "2 * 3 * 4"},
		{`escaped \*star\*`, "escaped *star*"},
		{"[text](http://x.y)", "text (http://x.y)"},
		{"[anchor](#here)", "anchor"},
		{"unclosed `tick and **bold", "unclosed `tick and **bold"},
		{"``code with ` inside``", "`code with ` inside`"},
	}
	for _, tt := range tests {
		var b strings.Builder
		for _, p := range parseInline(tt.in, true) {
			b.WriteString(p.text)
		}
		if b.String() != tt.plain {
			t.Errorf("%q → %q, want %q", tt.in, b.String(), tt.plain)
		}
	}
}

func TestWidth(t *testing.T) {
	got := string(render(t, "one two three four five six", Options{Width: 10}))
	if want := "one two\nthree four\nfive six\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func FuzzRender(f *testing.F) {
	src, err := os.ReadFile("testdata/sample.md")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(src), false)
	f.Add("| a |\n|---|\n| `x|y` |\n", true)
	f.Add("- a\n\n- b\n  c\n", false)
	f.Fuzz(func(t *testing.T, src string, color bool) {
		var b bytes.Buffer
		if err := Render(&b, []byte(src), Options{Color: color, Width: 40}); err != nil {
			t.Fatal(err)
		}
		if !color && strings.Contains(b.String(), "\x1b[") && !strings.Contains(src, "\x1b[") {
			t.Fatal("escape codes without colour")
		}
	})
}
