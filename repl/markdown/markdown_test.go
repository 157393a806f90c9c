package markdown

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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

// TestRenderChinese is the golden rendering of mixed Chinese and Latin text
// at 80 columns, checked line by line: no line is wider than 80 terminal
// columns (a Chinese character takes two), no line starts with closing
// punctuation, the wrapped paragraphs keep every character, and the table's
// columns start at the same column on every row.
func TestRenderChinese(t *testing.T) {
	src, err := os.ReadFile("testdata/sample-zh.md")
	if err != nil {
		t.Fatal(err)
	}
	got := render(t, string(src), Options{Width: 80})
	lines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
	for i, line := range lines {
		if w := displayWidth(line); w > 80 {
			t.Errorf("line %d is %d columns wide: %q", i+1, w, line)
		}
		trimmed := strings.TrimLeft(line, " -•>│")
		if r := []rune(trimmed); len(r) > 0 && strings.ContainsRune(noBreakBefore, r[0]) {
			t.Errorf("line %d starts with closing punctuation: %q", i+1, line)
		}
	}
	// Wrapping only removes the line breaks: the first paragraph's text
	// comes back when its lines are joined.
	para := strings.Split(string(src), "\n")[2]
	var joined strings.Builder
	for _, line := range lines[3:] {
		if line == "" {
			break
		}
		joined.WriteString(line)
	}
	if strip := func(s string) string { return strings.NewReplacer(" ", "", "`", "").Replace(s) }; strip(joined.String()) != strip(para) {
		t.Errorf("the wrapped paragraph lost text:\n got %q\nwant %q", joined.String(), para)
	}
	// Table: find the rows and check that every cell starts at the same
	// display column as the header's.
	var table []string
rows:
	for _, line := range lines {
		switch {
		case strings.HasPrefix(line, "  配置"):
			table = append(table, line)
		case len(table) > 0 && line == "":
			break rows
		case len(table) > 0 && !strings.HasPrefix(line, "  --"):
			table = append(table, line)
		}
	}
	if len(table) != 4 {
		t.Fatalf("found %d table rows, want 4:\n%s", len(table), got)
	}
	starts := func(line string) []int {
		var cols []int
		col, prevSpace := 0, 0
		for _, r := range line {
			if r == ' ' {
				prevSpace++
			} else {
				if prevSpace >= 2 {
					cols = append(cols, col)
				}
				prevSpace = 0
			}
			col += displayWidth(string(r))
		}
		return cols
	}
	want := starts(table[0])
	if len(want) != 3 {
		t.Fatalf("header %q: columns at %v, want 3", table[0], want)
	}
	for _, row := range table[1:] {
		if c := starts(row); !slices.Equal(c, want) {
			t.Errorf("row %q: columns start at %v, header at %v", row, c, want)
		}
	}
	golden(t, "sample-zh.txt", got)
}

func TestWrapBreaks(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  string
	}{
		{"中文文本没有空格也能断行", 10, "中文文本没\n有空格也能\n断行\n"},
		{"句号不能出现在行首。第二句", 12, "句号不能出现\n在行首。第二\n句\n"},
		{"使用 `replicate` 命令", 14, "使用\n`replicate` 命\n令\n"},
		{"（括号）不分开", 6, "（括\n号）不\n分开\n"},
		{"acks=all 等待 ISR", 80, "acks=all 等待 ISR\n"},
		{"第一行，\n`code` 和\n中文\nand English", 80, "第一行，`code` 和中文 and English\n"},
	}
	for _, tt := range tests {
		if got := string(render(t, tt.in, Options{Width: tt.width})); got != tt.want {
			t.Errorf("%q at %d: got %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
}
