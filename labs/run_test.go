package labs

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func content(t *testing.T) *Catalog {
	t.Helper()
	cat, err := Load(os.DirFS("testdata/content"), "testdata/content")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range cat.Problems {
		t.Error(p)
	}
	return cat
}

func mustLab(t *testing.T, name, src string) *Lab {
	t.Helper()
	l, err := ParseLab(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestRunPasses(t *testing.T) {
	cat := content(t)
	for _, l := range cat.Labs {
		f := &fakeFactory{}
		r := Run(l, f.new)
		if !r.OK() {
			t.Errorf("%s: %v", l.Name(), r.Err())
		}
		if f.opened != 1 || f.closed != 1 {
			t.Errorf("%s: opened %d sessions, closed %d; want one fresh session", l.Name(), f.opened, f.closed)
		}
	}
}

func TestRunStopsOnPanic(t *testing.T) {
	l := mustLab(t, "p.lab", "# title: T\n# chapter: 1\n\nset x 1\n----\nok\n\npanic\n----\nnever\n\necho after\n----\nafter\n")
	f := &fakeFactory{}
	r := Run(l, f.new)
	if r.Complete() || r.OK() {
		t.Fatal("a run with a panicking command counts as complete")
	}
	if want := "p.lab:8: the executor panicked on \"panic\": fake panic"; r.Err() == nil || r.Err().Error() != want {
		t.Errorf("err = %v, want %s", r.Err(), want)
	}
	if f.closed != 1 {
		t.Errorf("session not closed")
	}
}

// TestRunWithoutValidator: an executor without Validate still reports an
// unknown command at its FILE:LINE, as a mismatch of the block.
func TestRunWithoutValidator(t *testing.T) {
	l := mustLab(t, "u.lab", "# title: T\n# chapter: 1\n\nfrobnicate\n----\nok\n")
	f := &fakeFactory{noValidate: true}
	r := Run(l, f.new)
	err := r.Err()
	if err == nil || !strings.HasPrefix(err.Error(), "u.lab:4: frobnicate\n--- expected\n+++ actual\n") {
		t.Errorf("err = %v", err)
	}
}

// TestRunLabsOutput is the golden output of `lab run` over labs that pass,
// differ and stop.
func TestRunLabsOutput(t *testing.T) {
	cat := content(t)
	differs := mustLab(t, "labs/01-basics/03-differs.lab", `# title: Differs
# chapter: 1

set x 1
----
ok

lines a b c d e f g h
----
a
b
c
d
E
f
g
h
i

echo fine
----
fine
`)
	stops := mustLab(t, "labs/01-basics/04-stops.lab", "# title: Stops\n# chapter: 1\n\npanic\n----\nok\n")
	var out bytes.Buffer
	f := &fakeFactory{}
	failed := RunLabs(&out, append(cat.Labs, differs, stops), f.new, RunOptions{})
	if failed != 2 {
		t.Errorf("failed = %d, want 2", failed)
	}
	golden(t, "run.golden", out.String())
}

func TestCheckLabDeterminism(t *testing.T) {
	l := mustLab(t, "r.lab", "# title: T\n# chapter: 1\n\nrandom\n----\n...\n")
	f := &fakeFactory{}
	err := CheckLab(l, f.new)
	want := "r.lab: two runs printed different transcripts (the lab is not deterministic):\n--- first run\n+++ second run\n@@ -1,2 +1,2 @@\n > random\n-draw 1\n+draw 2"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	for _, l := range content(t).Labs {
		if err := CheckLab(l, (&fakeFactory{}).new); err != nil {
			t.Errorf("%s: %v", l.Name(), err)
		}
	}
}

func TestHelpersOnFixtures(t *testing.T) {
	fsys := os.DirFS("testdata/content")
	f := &fakeFactory{}
	RunAll(t, fsys, f.new)
	VerifyExercises(t, fsys, f.new)
	CheckChapters(t, fsys, f.new)
	if f.opened != f.closed || f.opened == 0 {
		t.Errorf("opened %d sessions, closed %d", f.opened, f.closed)
	}
}
