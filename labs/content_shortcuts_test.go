package labs_test

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/cli"
	"github.com/minikafka-lab/minikafka/labs"
)

// shortcut is one attempt of an exercise's .shortcuts file: commands that
// reach the state the checks of old judged without doing what the goal
// asks, and the checks that must catch them.
type shortcut struct {
	what     string
	commands []labs.Command
	fails    []string
}

// parseShortcuts reads NAME.shortcuts: blocks separated by blank lines,
// each "# shortcut: WHAT", its commands, and "# fails: CHECK" lines; or a
// file that starts with "# no shortcut:" and says why there is none.
func parseShortcuts(t *testing.T, name string, src []byte) (none bool, out []shortcut) {
	t.Helper()
	text := strings.TrimSpace(string(src))
	if strings.HasPrefix(text, "# no shortcut:") {
		return true, nil
	}
	for _, block := range strings.Split(text, "\n\n") {
		var s shortcut
		for i, line := range strings.Split(block, "\n") {
			switch {
			case strings.HasPrefix(line, "# shortcut: "):
				s.what = strings.TrimPrefix(line, "# shortcut: ")
			case strings.HasPrefix(line, "# fails: "):
				s.fails = append(s.fails, strings.TrimPrefix(line, "# fails: "))
			case strings.HasPrefix(line, "#"):
			default:
				s.commands = append(s.commands, labs.Command{File: name, Line: i + 1, Text: line})
			}
		}
		if s.what == "" || len(s.commands) == 0 || len(s.fails) == 0 {
			t.Fatalf("%s: a block needs '# shortcut: ...', commands and '# fails: CHECK' lines:\n%s", name, block)
		}
		out = append(out, s)
	}
	return false, out
}

// TestContentShortcuts is the audit of every exercise against shortcuts
// that reach its checked state without doing what its goal asks: each
// exercise has a NAME.shortcuts file beside it, which either says why there
// is no shortcut, or lists shortcut attempts; each attempt's commands all
// succeed, the checks it names fail, and every other check passes (so the
// named checks are what catches it). Every check has a hint, in every
// language: the hint a learner gets is the one of the first check that
// failed.
func TestContentShortcuts(t *testing.T) {
	fsys := os.DirFS("..")
	cat, err := labs.Load(fsys, "")
	if err != nil {
		t.Fatal(err)
	}
	newExec := cli.SessionExecutor(fsys)
	shortcuts := 0
	for _, e := range cat.Exercises {
		t.Run(e.ID+"-"+e.Slug, func(t *testing.T) {
			for i, c := range e.Checks {
				if e.HintFor(i) == "" {
					t.Errorf("%s:%d: %q has no hint (write '# hint: ...' above it)", e.Path, c.Line, c.Text)
				}
			}
			for _, lang := range labs.Translations {
				te, err := e.In(lang)
				if err != nil {
					t.Error(err)
					continue
				}
				for i := range e.Checks {
					if te.HintFor(i) == "" || te.HintFor(i) == e.HintFor(i) {
						t.Errorf("%s: check %d has no %s hint", e.Path, i+1, lang.Name())
					}
				}
			}
			name := strings.TrimSuffix(e.Path, ".exercise") + ".shortcuts"
			src, err := fs.ReadFile(fsys, name)
			if errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("%s: not audited: write %s (shortcut attempts, or '# no shortcut: why')", e.Path, name)
			}
			if err != nil {
				t.Fatal(err)
			}
			none, list := parseShortcuts(t, name, src)
			if none {
				return
			}
			for _, s := range list {
				shortcuts++
				for _, f := range s.fails {
					if !slices.ContainsFunc(e.Checks, func(c labs.Command) bool { return c.Text == f }) {
						t.Errorf("%s: %q is not a check of %s", name, f, e.Path)
					}
				}
				r, err := labs.RunChecks(e, s.commands, newExec)
				if err != nil {
					t.Fatalf("%s: %s: %v", name, s.what, err)
				}
				for _, st := range r.FailedSteps() {
					t.Errorf("%s: %s: the command %q failed (a shortcut must run):\n%s", name, s.what, st.Command.Text, st.Output)
				}
				for _, ch := range r.Checks {
					named := slices.Contains(s.fails, ch.Check.Text)
					switch {
					case named && ch.Passed:
						t.Errorf("%s: %s: %q passes: the shortcut is not caught", name, s.what, ch.Check.Text)
					case !named && !ch.Passed:
						t.Errorf("%s: %s: %q fails too, so the shortcut does not reach the rest of the goal's state:\n%s", name, s.what, ch.Check.Text, ch.Output)
					}
				}
			}
		})
	}
	if shortcuts < 25 {
		t.Errorf("only %d shortcut attempts in all", shortcuts)
	}
}
