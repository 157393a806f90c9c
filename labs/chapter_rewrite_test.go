package labs

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

// RewriteChapter replaces only the drifted output; prose, fences and
// matching output stay byte for byte, and the result then checks clean.
func TestRewriteChapter(t *testing.T) {
	src := "# Drift\n\nProse stays.\n\n```mk\nmk> set x 1\nok\nmk> incr x\nx=2\n```\n\n  ```mk\n  mk> incr x\n  x=9\n\n  mk> echo a   b\n  a b\n  ```\nEnd.\n"
	fsys := fstest.MapFS{"chapters/01-d.md": {Data: []byte(src)}}
	got, n, err := RewriteChapter(fsys, "chapters/01-d.md", (&fakeFactory{}).new)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(src, "  x=9\n", "  x=3\n", 1)
	if n != 1 || string(got) != want {
		t.Fatalf("changed %d; got:\n%s\nwant:\n%s", n, got, want)
	}
	fsys["chapters/01-d.md"] = &fstest.MapFile{Data: got}
	if err := CheckChapter(fsys, "chapters/01-d.md", (&fakeFactory{}).new); err != nil {
		t.Fatalf("rewritten chapter does not check: %v", err)
	}
	again, n, err := RewriteChapter(fsys, "chapters/01-d.md", (&fakeFactory{}).new)
	if err != nil || n != 0 || string(again) != string(got) {
		t.Fatalf("second rewrite changed %d (err %v)", n, err)
	}
}

// A session that breaks stops the rewrite: nothing is returned to write.
func TestRewriteChapterRefusesBrokenRun(t *testing.T) {
	src, err := os.ReadFile("testdata/drift/chapters/01-drift.md")
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(src), "mk> echo never reached", "mk> broken", 1)
	fsys := fstest.MapFS{"chapters/01-drift.md": {Data: []byte(broken)}}
	out, _, err := RewriteChapter(fsys, "chapters/01-drift.md", (&fakeFactory{}).new)
	if err == nil || out != nil || !strings.Contains(err.Error(), "not rewritten") {
		t.Fatalf("out=%q err=%v", out, err)
	}
}
