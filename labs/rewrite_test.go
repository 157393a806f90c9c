package labs

import (
	"os"
	"strings"
	"testing"
)

// TestRewrite: --rewrite regenerates expected output in place, preserving
// narration, headers and layout, keeping the blocks that matched as written,
// adding double fences for blank lines and escaping lines that would read
// as escapes. An expected error is just output.
func TestRewrite(t *testing.T) {
	src, err := os.ReadFile("testdata/rewrite/before.lab")
	if err != nil {
		t.Fatal(err)
	}
	l := mustLab(t, "before.lab", string(src))
	f := &fakeFactory{}
	r := Run(l, f.new)
	if !r.Complete() || r.OK() {
		t.Fatalf("complete=%v ok=%v, want a complete run with mismatches", r.Complete(), r.OK())
	}
	out, changed, err := Rewrite(r)
	if err != nil {
		t.Fatal(err)
	}
	if changed != r.Mismatches() || changed != 7 {
		t.Errorf("changed = %d, mismatches = %d, want 7", changed, r.Mismatches())
	}
	golden(t, "rewrite-after.lab", string(out))

	// The rewritten lab passes, and rewriting it again changes nothing.
	again := mustLab(t, "after.lab", string(out))
	r2 := Run(again, f.new)
	if !r2.OK() {
		t.Fatalf("rewritten lab fails: %v", r2.Err())
	}
	out2, changed2, err := Rewrite(r2)
	if err != nil || changed2 != 0 || string(out2) != string(out) {
		t.Errorf("second rewrite: changed %d, err %v, same text %v", changed2, err, string(out2) == string(out))
	}
	if len(again.Blocks) != len(l.Blocks) {
		t.Errorf("blocks %d → %d", len(l.Blocks), len(again.Blocks))
	}
	for i := range l.Blocks {
		if strings.Join(l.Blocks[i].Narration, "\n") != strings.Join(again.Blocks[i].Narration, "\n") {
			t.Errorf("block %d narration changed: %q → %q", i, l.Blocks[i].Narration, again.Blocks[i].Narration)
		}
	}
}

// TestRewriteRefusesPartialRuns: a lab that did not run to the end is not
// rewritten.
func TestRewriteRefusesPartialRuns(t *testing.T) {
	l := mustLab(t, "p.lab", "# title: T\n# chapter: 1\n\nset x 1\n----\nwrong\n\npanic\n----\nok\n\necho after\n----\nafter\n")
	r := Run(l, (&fakeFactory{}).new)
	_, _, err := Rewrite(r)
	want := "p.lab: not rewritten, the lab did not run to the end: p.lab:8: the executor panicked"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v, want prefix %q", err, want)
	}

	// Through RunLabs: the file is not written and the lab counts as failed.
	var buf strings.Builder
	wrote := false
	failed := RunLabs(&buf, []*Lab{l}, (&fakeFactory{}).new, RunOptions{Rewrite: true, Write: func(*Lab, []byte) error {
		wrote = true
		return nil
	}})
	if failed != 1 || wrote {
		t.Errorf("failed = %d, wrote = %v; want 1, false\n%s", failed, wrote, buf.String())
	}
	if !strings.Contains(buf.String(), "✗ p (3 steps)\np.lab: not rewritten") {
		t.Errorf("output:\n%s", buf.String())
	}
}

func TestRewriteThroughRunLabs(t *testing.T) {
	l := mustLab(t, "labs/01-basics/01-w.lab", "# title: T\n# chapter: 1\n\n# Say it.\nset x 1\n----\nwrong\n")
	var buf strings.Builder
	var written string
	failed := RunLabs(&buf, []*Lab{l}, (&fakeFactory{}).new, RunOptions{Rewrite: true, Write: func(_ *Lab, src []byte) error {
		written = string(src)
		return nil
	}})
	if failed != 0 {
		t.Errorf("failed = %d", failed)
	}
	if want := "# title: T\n# chapter: 1\n\n# Say it.\nset x 1\n----\nok\n"; written != want {
		t.Errorf("written:\n%s\nwant:\n%s", written, want)
	}
	if want := "↻ 01-01 w (1 step): rewrote 1 block; review the diff before you commit it\n"; buf.String() != want {
		t.Errorf("output = %q", buf.String())
	}
}

func TestRenderExpectedRefusesAmbiguousOutput(t *testing.T) {
	if _, err := renderExpected([]string{"a", "", "----", "----"}); err == nil {
		t.Error("two ---- lines in a row were accepted inside fences")
	}
	lines, err := renderExpected([]string{"----", "x"})
	if err != nil || strings.Join(lines, "|") != "----|----|x|----|----" {
		t.Errorf("leading ----: %q %v", lines, err)
	}
}
