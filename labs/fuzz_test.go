package labs

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func FuzzParseLab(f *testing.F) {
	f.Add([]byte(goodLab))
	f.Add([]byte("# title: T\n# chapter: 1\n\npara\n----\n----\na\n\nb\n----\n----\n"))
	f.Add([]byte("# title: T\n# chapter: 1\n\nx\n----\n"))
	f.Add([]byte("# title: T\n# chapter: 1\n\nx\n----\n----\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		l, err := ParseLab("labs/01-a/01-f.lab", src)
		if err != nil {
			return
		}
		if len(l.Blocks) == 0 {
			t.Fatal("a lab without blocks parsed")
		}
		for _, b := range l.Blocks {
			if b.Command == "" || b.Line < 1 {
				t.Fatalf("block %+v", b)
			}
		}
	})
}

// FuzzRewrite: whatever the commands print, a rewritten lab parses again,
// has the same blocks and narration, and every block matches what was
// printed.
func FuzzRewrite(f *testing.F) {
	f.Add([]byte(goodLab), "x\n\ny\n")
	f.Add([]byte(goodLab), "")
	f.Add([]byte(goodLab), "...\n")
	f.Add([]byte(goodLab), "----\n")
	f.Add([]byte(goodLab), "a (re)\n# b\n")
	f.Add([]byte(goodLab), "\xff (re)\n")
	f.Add([]byte("# title: T\n# chapter: 1\n\nx\n----\n----\na\n\nb\n----\n----\n# n\ny\n----\nz\n"), "\n\nq\n")
	f.Fuzz(func(t *testing.T, src []byte, output string) {
		l, err := ParseLab("f.lab", src)
		if err != nil {
			return
		}
		r := &Result{Lab: l}
		for _, b := range l.Blocks {
			r.Steps = append(r.Steps, StepResult{Block: b, Output: output, Match: b.Matches(output)})
		}
		out, _, err := Rewrite(r)
		if err != nil {
			return // output that cannot be written as expected output (refused)
		}
		again, err := ParseLab("f.lab", out)
		if err != nil {
			t.Fatalf("rewritten lab does not parse: %v\n%s", err, out)
		}
		if len(again.Blocks) != len(l.Blocks) {
			t.Fatalf("blocks %d → %d\n%s", len(l.Blocks), len(again.Blocks), out)
		}
		for i, b := range again.Blocks {
			if b.Command != l.Blocks[i].Command || !slices.Equal(b.Narration, l.Blocks[i].Narration) {
				t.Fatalf("block %d changed: %+v → %+v", i, l.Blocks[i], b)
			}
			if !b.Matches(output) {
				t.Fatalf("block %d does not match the output it was rewritten with:\n%s", i, out)
			}
		}
	})
}

func FuzzParseExercise(f *testing.F) {
	f.Add([]byte("# title: T\n# chapter: 1\n# goal: g\n#   more\n# hint: h\n\nsetup:\nset x 1\n\nchecks:\ncheck x == 1\n"))
	f.Add([]byte("# title: T\n# chapter: 1\n# goal: g\nchecks:\n"))
	f.Add([]byte("# title: T\n# chapter: 1\n# goal: g\n\nchecks:\ncheck a == 1\n# hint: h\n#   more\n# note\ncheck b == 2\n# hint: two\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		e, err := ParseExercise("labs/01-a/01-f.exercise", src)
		if err != nil {
			return
		}
		if e.Title == "" || e.Goal == "" || len(e.Checks) == 0 {
			t.Fatalf("incomplete exercise parsed: %+v", e)
		}
		for i := -1; i <= len(e.Checks); i++ {
			if h := e.HintFor(i); h != "" && !slices.Contains(e.CheckHints, h) {
				t.Fatalf("check %d has a hint that is not among the check hints: %q", i, h)
			}
		}
	})
}

// FuzzParseExerciseText: a translation either parses with a title and a
// goal, or is refused; it never panics.
func FuzzParseExerciseText(f *testing.F) {
	f.Add([]byte("# title: 题\n# goal: 目标\n#   续\n# hint: 一\n# check-hint: 二\n#   三\n"))
	f.Add([]byte("# title: t\n# goal: g\ncheck x\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		tr, err := ParseExerciseText("x.exercise.zh", Chinese, src)
		if err != nil {
			return
		}
		if tr.Title == "" || tr.Goal == "" {
			t.Fatalf("incomplete translation parsed: %+v", tr)
		}
	})
}

// FuzzProgress: whatever the progress file holds, it is read or refused
// with a line number, and what is read writes back to a file that reads
// the same.
func FuzzProgress(f *testing.F) {
	f.Add([]byte("# c\n01-01 set-x solved hints=1\nread 01\nlab 01-02 escapes done\nquiz 01 q1 correct tries=2\n"))
	f.Add([]byte("read\nlab x\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		p := &Progress{Path: "progress"}
		if err := p.parse(src); err != nil {
			if !strings.HasPrefix(err.Error(), "progress:") {
				t.Fatalf("error without its position: %v", err)
			}
			return
		}
		again := &Progress{Path: "progress"}
		if err := again.parse(p.Bytes()); err != nil {
			t.Fatalf("what was read does not read back: %v\n%s", err, p.Bytes())
		}
		if !bytes.Equal(again.Bytes(), p.Bytes()) {
			t.Fatalf("read back differently:\n%s\n%s", p.Bytes(), again.Bytes())
		}
	})
}

func FuzzParseChapter(f *testing.F) {
	f.Add([]byte("# C\n\n```mk\nmk> set x 1\nok\n```\n"))
	f.Add([]byte("````\n```mk\nmk> x\n```\n````\n"))
	f.Add([]byte("  ~~~ mk\n  mk> a\n  b\n  ~~~\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		blocks, err := ParseChapter("c.md", src)
		if err != nil {
			return
		}
		for _, b := range blocks {
			if len(b.Steps) == 0 {
				t.Fatal("a block without steps parsed")
			}
		}
	})
}

func FuzzMatch(f *testing.F) {
	f.Add("a\n...\nz", "a\nb\nz\n")
	f.Add(`\d+ (re)`+"\nx", "1\ny\n")
	f.Fuzz(func(t *testing.T, expected, actual string) {
		want, err := compileWant("f", 1, normalizeOutput(expected))
		if err != nil {
			return
		}
		got := normalizeOutput(actual)
		d := unifiedDiff(want, got)
		if matchOutput(want, got) != (d == "") {
			t.Fatalf("match and diff disagree: %q", d)
		}
		// Every line matches itself once escaped.
		self := make([]string, len(got))
		for i, g := range got {
			self[i] = escapeLine(g)
		}
		sw, err := compileWant("f", 1, self)
		if err != nil || !matchOutput(sw, got) {
			t.Fatalf("escaped output does not match itself: %q %v", self, err)
		}
	})
}
