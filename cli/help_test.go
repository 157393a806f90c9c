package cli

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestHelpFitsEightyColumns: `minikafka --help` and `help COMMAND` for
// every command keep to 80 columns.
func TestHelpFitsEightyColumns(t *testing.T) {
	outs := []result{run(t, &Env{}, "--help"), run(t, &Env{Prog: "go run ."}, "help")}
	for _, c := range subcommands() {
		outs = append(outs, run(t, &Env{}, "help", c.Name))
	}
	for _, r := range outs {
		if r.status != 0 {
			t.Errorf("%+v", r)
		}
		for _, l := range strings.Split(r.stdout, "\n") {
			if n := utf8.RuneCountInString(l); n > 80 {
				t.Errorf("%d columns: %q", n, l)
			}
		}
	}
}

// TestUnknownVerbSuggests: a mistyped subcommand names the closest one.
func TestUnknownVerbSuggests(t *testing.T) {
	r := run(t, &Env{}, "lba", "list")
	if r.status != 2 || !strings.Contains(r.stderr, `unknown command "lba" (did you mean lab?)`) {
		t.Errorf("%+v", r)
	}
	r = run(t, &Env{}, "help", "exercize")
	if r.status != 2 || !strings.Contains(r.stderr, "(did you mean exercise?)") {
		t.Errorf("%+v", r)
	}
	r = run(t, &Env{}, "zzzzzz")
	if r.status != 2 || strings.Contains(r.stderr, "did you mean") {
		t.Errorf("%+v", r)
	}
}

// TestMessagesSayGoRun: someone who ran `go run .` is told to type
// `go run . ...`, not `minikafka ...`; error prefixes keep the program's
// name.
func TestMessagesSayGoRun(t *testing.T) {
	if p := progName("/tmp/go-build123456/b001/exe/minikafka"); p != "go run ." {
		t.Errorf("go run: %q", p)
	}
	if p := progName("/usr/local/bin/minikafka"); p != "minikafka" {
		t.Errorf("installed: %q", p)
	}
	env := &Env{Prog: "go run ."}
	if got := env.say("minikafka lab: --rewrite needs --dir; in a checkout: minikafka lab run --all --rewrite --dir ."); got != "minikafka lab: --rewrite needs --dir; in a checkout: go run . lab run --all --rewrite --dir ." {
		t.Errorf("say: %q", got)
	}
	r := run(t, env, "lab", "nosuch")
	if !strings.Contains(r.stderr, "  go run . lab list\n") || strings.Contains(r.stderr, "  minikafka lab") {
		t.Errorf("usage:\n%s", r.stderr)
	}
	r = run(t, env, "lab", "step", "no-such-lab", "--dir", content)
	if !strings.Contains(r.stderr, "`go run . lab list` shows them") {
		t.Errorf("missing lab:\n%s", r.stderr)
	}
	r = run(t, env, "read", "--dir", content)
	if !strings.Contains(r.stdout, "`go run . read N`") {
		t.Errorf("read list:\n%s", r.stdout)
	}
	r = run(t, env, "--help")
	if !strings.Contains(r.stdout, "usage: go run . [--lang") || !strings.Contains(r.stdout, "`go run . help COMMAND`") {
		t.Errorf("help:\n%s", r.stdout)
	}
}

// TestUnknownSubVerbSuggests: lab and exercise suggest their own verbs.
func TestUnknownSubVerbSuggests(t *testing.T) {
	if r := run(t, &Env{}, "lab", "rnu"); r.status != 2 || !strings.Contains(r.stderr, `unknown lab command "rnu" (did you mean run?)`) {
		t.Errorf("%+v", r)
	}
	if r := run(t, &Env{}, "exercise", "chek"); r.status != 2 || !strings.Contains(r.stderr, `(did you mean check?)`) {
		t.Errorf("%+v", r)
	}
}
