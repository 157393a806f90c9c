package labs

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

func TestCheckChapterPasses(t *testing.T) {
	fsys := os.DirFS("testdata/content")
	for _, name := range []string{"chapters/01-basics.md", "chapters/02-more.md"} {
		f := &fakeFactory{}
		if err := CheckChapter(fsys, name, f.new); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if f.opened != f.closed {
			t.Errorf("%s: opened %d, closed %d", name, f.opened, f.closed)
		}
	}
	// 02-more has a block that starts with `cluster open`: a second session.
	f := &fakeFactory{}
	if err := CheckChapter(fsys, "chapters/02-more.md", f.new); err != nil || f.opened != 2 {
		t.Errorf("opened %d sessions (err %v), want 2", f.opened, err)
	}
}

func TestCheckChapterDrift(t *testing.T) {
	f := &fakeFactory{}
	err := CheckChapter(os.DirFS("testdata/drift"), "chapters/01-drift.md", f.new)
	want := "chapters/01-drift.md:15: incr x\n--- expected\n+++ actual\n@@ -1 +1 @@\n-x=4\n+x=3"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant:\n%s", err, want)
	}
	if strings.Contains(strings.Join(f.ran, "\n"), "never reached") {
		t.Error("the chapter ran on after the first difference")
	}
}

func TestParseChapter(t *testing.T) {
	src, err := os.ReadFile("testdata/content/chapters/01-basics.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := ParseChapter("c.md", src)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 {
		t.Fatalf("%d blocks, want 2 (the text and four-backtick fences are not transcripts)", len(blocks))
	}
	last := blocks[1].Steps[1]
	if last.Command != "para" || strings.Join(last.Expected, "|") != "first paragraph||second paragraph" || last.Line != 29 {
		t.Errorf("last step = %+v", last)
	}

	bad := []struct{ name, src, want string }{
		{"output before a command", "```mk\nok\n```\n", "c.md:2: output before the first `mk> ` line"},
		{"empty command", "```mk\nmk>\n```\n", "c.md:2: `mk>` without a command"},
		{"no command", "```mk\n\n```\n", "c.md:1: ```mk block without a `mk> ` command line"},
		{"unterminated", "text\n\n```mk\nmk> set x 1\nok\n", "c.md:3: unterminated ```mk block"},
		{"bad regexp", "```mk\nmk> port\n(x (re)\n```\n", "c.md:3: bad regular expression"},
	}
	for _, b := range bad {
		if _, err := ParseChapter("c.md", []byte(b.src)); err == nil || !strings.HasPrefix(err.Error(), b.want) {
			t.Errorf("%s: err = %v, want %q", b.name, err, b.want)
		}
	}
}

func TestChapterValidation(t *testing.T) {
	fsys := fstest.MapFS{"chapters/01-x.md": {Data: []byte("# X\n\n```mk\nmk> set x 1\nok\nmk> frobnicate\nok\n```\n")}}
	f := &fakeFactory{}
	err := CheckChapter(fsys, "chapters/01-x.md", f.new)
	if err == nil || err.Error() != `chapters/01-x.md:6: unknown command "frobnicate"` {
		t.Errorf("err = %v", err)
	}
	if len(f.ran) != 0 {
		t.Errorf("ran %q before validating", f.ran)
	}
}

func TestCatalog(t *testing.T) {
	cat := content(t)
	var ids []string
	for _, l := range cat.Labs {
		ids = append(ids, l.ID+" "+l.Slug)
	}
	if got := strings.Join(ids, ", "); got != "01-01 counting, 01-02 escapes, 02-01 two" {
		t.Errorf("labs: %s", got)
	}
	for _, id := range []string{"01-02", "escapes", "01-02-escapes"} {
		if l, err := cat.Lab(id); err != nil || l.Slug != "escapes" {
			t.Errorf("Lab(%q) = %v, %v", id, l, err)
		}
	}
	if _, err := cat.Lab("09-09"); err == nil || err.Error() != "no lab \"09-09\" (`minikafka lab list` shows them)" {
		t.Errorf("missing lab: %v", err)
	}
	if e, err := cat.Exercise("set-x"); err != nil || e.ID != "01-01" {
		t.Errorf("Exercise = %v, %v", e, err)
	}
	if len(cat.Chapters) != 2 || cat.Chapters[0].Title != "Basics of counting" || cat.Chapters[1].Name() != "02-more" {
		t.Errorf("chapters = %+v", cat.Chapters)
	}
	for _, id := range []string{"1", "01", "basics", "01-basics"} {
		if ch, err := cat.Chapter(id); err != nil || ch.Number != 1 {
			t.Errorf("Chapter(%q) = %+v, %v", id, ch, err)
		}
	}

	fsys := fstest.MapFS{
		"labs/01-a/01-x.lab":           {Data: []byte("# title: X\n# chapter: 1\n\nset x 1\n----\nok\n")},
		"labs/01-a/01-y.lab":           {Data: []byte("# title: Y\n# chapter: 1\n\nset x 1\n----\nok\n")},
		"labs/01-a/2-bad-name.lab":     {Data: []byte("")},
		"labs/01-a/03-broken.lab":      {Data: []byte("# title: B\n# chapter: 1\n\nset x 1\n")},
		"labs/01-a/04-orphan.solution": {Data: []byte("set x 1\n")},
		"labs/01-a/README.md":          {Data: []byte("ignored")},
		"labs/testdata/01-z.lab":       {Data: []byte("ignored: not a chapter directory")},
		"labs/02-b/01-z.lab":           {Data: []byte("# title: Z\n# chapter: 2\n\nset x 1\n----\nok\n")},
		"labs/03-c/01-z.lab":           {Data: []byte("# title: Z\n# chapter: 3\n\nset x 1\n----\nok\n")},
	}
	cat, err := Load(fsys, "")
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	for _, p := range cat.Problems {
		problems = append(problems, p.Error())
	}
	want := []string{
		"labs/01-a/01-y.lab: lab ID 01-01 is taken by labs/01-a/01-x.lab",
		"labs/01-a/03-broken.lab:4: command \"set x 1\" is not followed by a ---- line",
		"labs/01-a/2-bad-name.lab: bad file name: use NN-slug.lab (two digits, a dash, lower-case words joined by dashes)",
		"labs/01-a/04-orphan.solution: a solution without an exercise (expected 04-orphan.exercise beside it)",
	}
	if strings.Join(problems, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(problems, "\n"), strings.Join(want, "\n"))
	}
	if len(cat.Labs) != 3 {
		t.Errorf("%d labs, want 3", len(cat.Labs))
	}
	if _, err := cat.Lab("z"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("ambiguous slug: %v", err)
	}
}

// TestCatalogWithoutLabsDir: a teacher's directory may hold the chapter
// directories directly.
func TestCatalogWithoutLabsDir(t *testing.T) {
	fsys := fstest.MapFS{"01-a/01-x.lab": {Data: []byte("# title: X\n# chapter: 1\n\nset x 1\n----\nok\n")}}
	cat, err := Load(fsys, "/home/teacher/course")
	if err != nil || len(cat.Labs) != 1 || cat.Labs[0].Path != "/home/teacher/course/01-a/01-x.lab" {
		t.Errorf("cat = %+v, %v", cat, err)
	}
}

// TestCatalogSuggests: a mistyped lab, exercise or chapter gets the
// closest one, and the advice names the command the way the learner runs
// the program.
func TestCatalogSuggests(t *testing.T) {
	cat, err := Load(os.DirFS(".."), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cat.Lab("leo-runs-ahead-of-hv"); err == nil || !strings.Contains(err.Error(), "(did you mean leo-runs-ahead-of-hw?)") {
		t.Errorf("lab slug: %v", err)
	}
	if _, err := cat.Lab("05-1"); err == nil || !strings.Contains(err.Error(), "did you mean 05-01?") {
		t.Errorf("lab id: %v", err)
	}
	if _, err := cat.Exercise("two-of-thre"); err == nil || !strings.Contains(err.Error(), "did you mean two-of-three?") {
		t.Errorf("exercise: %v", err)
	}
	if _, err := cat.Chapter("the-lgo"); err == nil || !strings.Contains(err.Error(), "did you mean the-log?") {
		t.Errorf("chapter: %v", err)
	}
	cat.Tool = "go run ."
	if _, err := cat.Lab("nothing-like-it"); err == nil || !strings.Contains(err.Error(), "`go run . lab list` shows them") || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("go run: %v", err)
	}
	cat.InREPL = true
	if _, err := cat.Exercise("nothing-like-it"); err == nil || !strings.Contains(err.Error(), "(`exercise list` shows them)") {
		t.Errorf("in the REPL: %v", err)
	}
}
