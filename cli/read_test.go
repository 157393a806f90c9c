package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadList(t *testing.T) {
	r := run(t, &Env{}, "read", "--dir", content)
	want := "Chapters (read one with `minikafka read N`):\n   1  Basics of counting\n   2  More\n"
	if r.status != 0 || r.stdout != want {
		t.Errorf("%+v", r)
	}
}

// TestReadPlain: in a pipe the chapter is rendered without colour and
// without a pager.
func TestReadPlain(t *testing.T) {
	r := run(t, &Env{}, "read", "1", "--dir", content)
	if r.status != 0 || strings.Contains(r.stdout, "\x1b") {
		t.Fatalf("%+v", r)
	}
	want := "Basics of counting\n==================\n\nSome prose with `code` and a transcript:\n\n    mk> set x 1\n    ok\n"
	if !strings.HasPrefix(r.stdout, want) {
		t.Errorf("got:\n%s", r.stdout)
	}
	if r := run(t, &Env{}, "read", "9", "--dir", content); r.status != 1 || !strings.Contains(r.stderr, `no chapter "9"`) {
		t.Errorf("missing chapter: %+v", r)
	}
	if r := run(t, &Env{}, "read", "1", "99", "--dir", content); r.status != 1 || !strings.Contains(r.stderr, `no section "99"`) {
		t.Errorf("a section that is not there: %+v", r)
	}
	// A chapter read to the end says what comes next.
	if !strings.HasSuffix(r.stdout, "\nNext: `minikafka lab step 01-01` (Counting up)\n") {
		t.Errorf("no next step:\n%s", r.stdout)
	}
}

// TestReadPager: on a terminal the page goes through $PAGER, in colour
// unless NO_COLOR is set.
func TestReadPager(t *testing.T) {
	out := filepath.Join(t.TempDir(), "paged")
	for _, noColor := range []string{"", "1"} {
		env := &Env{StdoutIsTerminal: true, Getenv: func(k string) string {
			return map[string]string{"PAGER": "cat > " + out, "NO_COLOR": noColor}[k]
		}}
		r := run(t, env, "read", "basics", "--dir", content)
		if r.status != 0 || r.stdout != "\nNext: `minikafka lab step 01-01` (Counting up)\n" {
			t.Fatalf("%+v", r)
		}
		paged, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if colored := strings.Contains(string(paged), "\x1b["); colored != (noColor == "") {
			t.Errorf("NO_COLOR=%q: colour = %v", noColor, colored)
		}
		if !strings.Contains(string(paged), "Basics of counting") {
			t.Errorf("paged:\n%s", paged)
		}
	}
}

// TestReadBrokenPager: a $PAGER that does not exist (or fails) does not
// leave the learner with nothing: the chapter is printed, with a warning,
// and the exit status is 0.
func TestReadBrokenPager(t *testing.T) {
	for _, pager := range []string{"no-such-pager-anywhere", "false"} {
		env := &Env{StdoutIsTerminal: true, Getenv: func(k string) string {
			return map[string]string{"PAGER": pager, "NO_COLOR": "1"}[k]
		}}
		r := run(t, env, "read", "basics", "--dir", content)
		if r.status != 0 || !strings.Contains(r.stdout, "Basics of counting") || !strings.Contains(r.stderr, "failed") {
			t.Errorf("PAGER=%s: %+v", pager, r)
		}
	}
}

// TestReadSectionAndProgress: read N SECTION renders one section; reading
// a whole chapter records it in the progress file and names what comes
// next, the way the learner runs the program.
func TestReadSectionAndProgress(t *testing.T) {
	state := t.TempDir()
	env := &Env{Prog: "go run .", Getenv: func(k string) string { return map[string]string{"XDG_STATE_HOME": state}[k] }}
	r := run(t, &Env{Content: os.DirFS("..")}, "read", "1", "summary")
	if r.status != 0 || !strings.HasPrefix(r.stdout, "1. Meet MiniKafka\n") || !strings.Contains(r.stdout, "Summary\n-------") ||
		strings.Contains(r.stdout, "A first session") || strings.Contains(r.stdout, "Next:") {
		t.Errorf("a section: %+v", r)
	}
	r = run(t, env, "read", "1", "--dir", content)
	if r.status != 0 || !strings.Contains(r.stdout, "Next: `go run . lab step 01-01` (Counting up)") {
		t.Errorf("the chapter: %+v", r)
	}
	p, err := os.ReadFile(filepath.Join(state, "minikafka", "progress"))
	if err != nil || !strings.Contains(string(p), "read 01\n") {
		t.Errorf("progress: %q %v", p, err)
	}
}
