package repl

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

func run(t *testing.T, s *Session, line string) (string, error) {
	t.Helper()
	var buf bytes.Buffer
	err := s.Exec(&buf, line)
	if IsInternal(err) {
		t.Fatalf("%q panicked: %v", line, err)
	}
	return buf.String(), err
}

func TestExecBlankAndComment(t *testing.T) {
	s := newTestSession(t, Options{})
	for _, line := range []string{"", "   ", "# note", "\t# note\r\n"} {
		if out, err := run(t, s, line); out != "" || err != nil {
			t.Errorf("%q printed %q, %v", line, out, err)
		}
	}
	if out, _ := run(t, s, "history"); out != "(no commands yet)\n" {
		t.Errorf("blank lines must not enter the history: %q", out)
	}
}

func TestExecErrors(t *testing.T) {
	s := newTestSession(t, Options{})
	for line, want := range map[string]string{
		"nosuch":        "error: INVALID_ARGUMENT: unknown command \"nosuch\"\nhint: `help` lists every command\n",
		`help "open`:    "error: INVALID_ARGUMENT: unterminated quoted string: missing \" at the end\nhint: " + quotingHint + "\n",
		"help\nhistory": "error: INVALID_ARGUMENT: a command must fit on one line\nhint: one command per line; `help NAME` shows a command's form\n",
		"exit now":      "error: INVALID_ARGUMENT: unexpected argument \"now\"\nusage: exit\n",
	} {
		out, err := run(t, s, line)
		if out != want || !errors.Is(err, kerr.InvalidArgument) {
			t.Errorf("%q:\n got %q (%v)\nwant %q", line, out, err, want)
		}
	}
	if s.Exited() {
		t.Error("a rejected exit must not end the session")
	}
}

// TestPanicIsInternalError checks that Exec recovers a panicking command,
// prints "internal error" and returns an *InternalError.
func TestPanicIsInternalError(t *testing.T) {
	s := newTestSession(t, Options{})
	boom := &Command{Name: "boom", Group: "Session", Run: func(*Session, io.Writer, *Args) error { panic("broken invariant") }}
	s.reg = newRegistry(append(commandTable(), boom))
	var buf bytes.Buffer
	err := s.Exec(&buf, "boom")
	if !IsInternal(err) {
		t.Fatalf("err = %v, want *InternalError", err)
	}
	if !strings.HasPrefix(buf.String(), "error: INTERNAL: broken invariant\nhint: this is a bug") {
		t.Errorf("output %q", buf.String())
	}
	// The session still works afterwards.
	if _, err := run(t, s, "help help"); err != nil {
		t.Error(err)
	}
}

func TestArgumentErrorIgnoredIsABug(t *testing.T) {
	s := newTestSession(t, Options{})
	sloppy := &Command{Name: "sloppy", Group: "Session", Keys: []Param{{Name: "n"}},
		Run: func(s *Session, w io.Writer, a *Args) error { a.Int("n", 0, 0, 9); return nil }}
	s.reg = newRegistry(append(commandTable(), sloppy))
	if err := s.Exec(io.Discard, "sloppy n=x"); !IsInternal(err) {
		t.Errorf("a command that ignores Args.Err must be reported as a bug, got %v", err)
	}
}

func TestJSONEnvelope(t *testing.T) {
	s := newTestSession(t, Options{Format: FormatJSON})
	cases := []struct {
		line string
		ok   bool
		code string
	}{
		{"help", true, ""},
		{"help exit", true, ""},
		{"history", true, ""},
		{"nosuch", false, "INVALID_ARGUMENT"},
		{"exit", true, ""},
	}
	for _, c := range cases {
		out, _ := run(t, s, c.line)
		if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
			t.Fatalf("%q: want exactly one line, got %q", c.line, out)
		}
		var env struct {
			Command string                     `json:"command"`
			OK      bool                       `json:"ok"`
			Result  map[string]json.RawMessage `json:"result"`
			Error   *struct{ Code, Message string }
		}
		if err := json.Unmarshal([]byte(out), &env); err != nil {
			t.Fatalf("%q: %v in %s", c.line, err, out)
		}
		if env.Command != c.line || env.OK != c.ok {
			t.Errorf("%q: envelope %s", c.line, out)
		}
		if c.ok && (env.Result == nil || env.Error != nil) {
			t.Errorf("%q: success needs result and no error: %s", c.line, out)
		}
		if !c.ok && (env.Error == nil || env.Error.Code != c.code || env.Error.Message == "") {
			t.Errorf("%q: failure needs error code %s: %s", c.line, c.code, out)
		}
	}
}

func TestWithExtras(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{}`, `{"events":[1]}`},
		{`{"a":1}`, `{"a":1,"events":[1]}`},
	} {
		got, err := withExtras([]byte(c.in), []extraField{{"events", []int{1}}, {"none", nil}})
		if err != nil || string(got) != c.want {
			t.Errorf("withExtras(%s) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	if _, err := withExtras([]byte(`[1]`), nil); err == nil {
		t.Error("a non-object result must be rejected")
	}
}

// TestHelpEveryCommand checks that every command has a summary and detail,
// that help names its chapter, and that its declared keys and flags appear in
// its synopsis.
func TestHelpEveryCommand(t *testing.T) {
	s := newTestSession(t, Options{})
	known := map[string]bool{}
	for _, g := range groupOrder {
		known[g] = true
	}
	for _, c := range s.reg.All() {
		name := c.FullName()
		if c.Summary == "" || strings.HasSuffix(c.Summary, ".") {
			t.Errorf("%s: summary %q must be one line without a final period", name, c.Summary)
		}
		if !known[c.GroupName()] {
			t.Errorf("%s: unknown help group %q", name, c.GroupName())
		}
		for _, k := range c.Keys {
			if !strings.Contains(c.Args, k.Name+"=") && !strings.Contains(c.Args, "key=value") {
				t.Errorf("%s: key %s= missing from synopsis %q", name, k.Name, c.Args)
			}
		}
		for _, f := range c.Flags {
			if !strings.Contains(c.Args, f.Name) {
				t.Errorf("%s: flag %s missing from synopsis %q", name, f.Name, c.Args)
			}
		}
		out, err := run(t, s, "help "+name)
		if err != nil {
			t.Fatalf("help %s: %v", name, err)
		}
		if n := c.ChapterNumber(); n > 0 && !strings.Contains(out, chapterLabel(n)) {
			t.Errorf("help %s does not name %s:\n%s", name, chapterLabel(n), out)
		}
		if !strings.Contains(out, c.Synopsis()) {
			t.Errorf("help %s does not show the synopsis", name)
		}
	}
}

func TestColorOnlyWhenAsked(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cases := []struct {
		mode ColorMode
		tty  bool
		env  map[string]string
		want bool
	}{
		{ColorAuto, true, nil, true},
		{ColorAuto, false, nil, false},
		{ColorAuto, true, map[string]string{"NO_COLOR": "1"}, false},
		{ColorAuto, true, map[string]string{"NO_COLOR": ""}, true},
		{ColorAuto, true, map[string]string{"TERM": "dumb"}, false},
		{ColorAuto, false, map[string]string{"FORCE_COLOR": "1"}, true},
		{ColorNever, true, nil, false},
		{ColorAlways, false, nil, true},
		{ColorAlways, true, map[string]string{"NO_COLOR": "1"}, false}, // NO_COLOR always wins
		{ColorAlways, false, map[string]string{"NO_COLOR": "1"}, false},
		{ColorNever, true, map[string]string{"FORCE_COLOR": "1"}, false},
		{ColorAuto, true, map[string]string{"NO_COLOR": "1", "FORCE_COLOR": "1"}, false},
	}
	for _, c := range cases {
		if got := UseColor(c.mode, c.tty, env(c.env)); got != c.want {
			t.Errorf("UseColor(%s, tty=%v, %v) = %v", c.mode, c.tty, c.env, got)
		}
	}
	// Colour on: the error label is painted; colour off: never an escape.
	on := newTestSession(t, Options{Color: true})
	out, _ := run(t, on, "nosuch")
	if !strings.Contains(out, "\x1b[") {
		t.Errorf("colour on, no ANSI in %q", out)
	}
	off := newTestSession(t, Options{})
	out, _ = run(t, off, "nosuch")
	if strings.Contains(out, "\x1b[") {
		t.Errorf("colour off, ANSI in %q", out)
	}
}

func TestComplete(t *testing.T) {
	s := newTestSession(t, Options{})
	for _, l := range []string{"topic create orders partitions=2", "topic create events", "producer create p1"} {
		if _, err := run(t, s, l); err != nil {
			t.Fatal(err)
		}
	}
	cases := map[string][]string{
		"he":                              {"help "},
		"hi":                              {"history "},
		"help hi":                         {"history "},
		"help broker c":                   {"crash "},
		"br":                              {"broker "},
		"broker ":                         {"list ", "crash ", "restart "},
		"broker crash ":                   {"1 ", "2 ", "3 "},
		"broker crash 2 ":                 {"keep-unflushed "},
		"topic describe ":                 {"events ", "orders "},
		"topic describe or":               {"orders "},
		"fetch ord":                       {"orders-0 ", "orders-1 "},
		"fetch orders-0 is":               {"isolation="},
		"fetch orders-0 isolation=read_c": {"isolation=read_committed "},
		"produce orders ac":               {"acks="},
		"produce orders acks=":            {"acks=0 ", "acks=1 ", "acks=all "},
		"produce orders acks=1 a":         nil,
		"produce orders t":                {"timestamp=", "tombstone "},
		"producer send ":                  {"p1 "},
		"producer send p1 e":              {"events "},
		"config set min":                  {"min.insync.replicas="},
		"clock ":                          {"advance "},
		"# he":                            nil,
		`help "he`:                        nil,
		"nosuch ":                         nil,
	}
	for line, want := range cases {
		_, got := s.Complete(line)
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("Complete(%q) = %q, want %q", line, got, want)
		}
	}
	// The readline adapter returns suffixes and the typed prefix length.
	suffixes, n := readlineCompleter{s}.Do([]rune("topic describe or"), len("topic describe or"))
	if n != 2 || len(suffixes) != 1 || string(suffixes[0]) != "ders " {
		t.Errorf("readline completion = %q, %d", suffixes, n)
	}
}

func TestRunScriptStopsAtFirstFailure(t *testing.T) {
	in := "clock\nnosuch\nhistory\n"
	var out bytes.Buffer
	s := newTestSession(t, Options{})
	if status := RunScript(s, strings.NewReader(in), &out, ScriptOptions{}); status != 1 {
		t.Errorf("status %d, want 1", status)
	}
	if strings.Contains(out.String(), "> history") {
		t.Errorf("ran past the failure:\n%s", out.String())
	}
	out.Reset()
	s = newTestSession(t, Options{})
	if status := RunScript(s, strings.NewReader(in), &out, ScriptOptions{KeepGoing: true}); status != 1 {
		t.Errorf("keep-going status %d, want 1", status)
	}
	// history keeps what succeeded: the unknown command is not in it.
	if !strings.HasSuffix(out.String(), "> history\n   1  clock\n") {
		t.Errorf("keep-going transcript:\n%s", out.String())
	}
	out.Reset()
	s = newTestSession(t, Options{})
	if status := RunScript(s, strings.NewReader("# only\n\nexit\nnosuch\n"), &out, ScriptOptions{}); status != 0 || out.String() != "> exit\nbye\n" {
		t.Errorf("exit ends a script: status %d, %q", status, out.String())
	}
}

func TestHistoryPath(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if p := HistoryPath(env(map[string]string{"XDG_STATE_HOME": "/s", "HOME": "/h"})); p != "/s/minikafka/history" {
		t.Error(p)
	}
	if p := HistoryPath(env(map[string]string{"HOME": "/h"})); p != "/h/.minikafka_history" {
		t.Error(p)
	}
}

func TestValidate(t *testing.T) {
	s := newTestSession(t, Options{})
	good := []string{"", "# note", "produce orders value=x acks=all", "config", "clock", "check events-0 hw == 1",
		"check events-0 leo@2 >= 0", "check orders partition-of key=a == 1", "check group g committed orders-0 == 3",
		"check consumer c position orders-0 == none", "check txn t state == ongoing", "check broker 2 up == true",
		"txn offsets t1 group=g orders-0=5", "cluster open brokers=1,2 min.insync.replicas=2",
		`remote {"operation":"metadata", "topic":"events"}`, "remote", "remote not json", `dispatch {"a":'b}`,
		"  remote\t127.0.0.1:9093 {}", "serve start listen=127.0.0.1:0 max.frame.bytes=42", "serve"}
	for _, l := range good {
		if err := s.Validate(l); err != nil {
			t.Errorf("Validate(%q) = %v", l, err)
		}
	}
	bad := []string{"nosuch", "broker", "broker explode 1", "produce", "produce orders colour=red", `produce "open`, "exit now",
		"check events-0 bogus == 1", "check events-0 hw = 1", "check events-0 hw == x", "check events-0 isr < [1]",
		"check group g state == Stable", "check consumer c polled", "check clock == soon"}
	for _, l := range bad {
		var ue *UsageError
		if err := s.Validate(l); !errors.As(err, &ue) {
			t.Errorf("Validate(%q) = %v, want a usage error", l, err)
		}
	}
	if err := s.Validate("nosuch"); err.Error() != "unknown command \"nosuch\" (`help` lists every command)" {
		t.Errorf("a validation error is its message alone: %q", err)
	}
	if err := s.Validate("check events-0 values@1 isolation=read_committed == []"); err == nil || !strings.Contains(err.Error(), "isolation=") {
		t.Errorf("a check's keys are validated: %v", err)
	}
	if out, _ := run(t, s, "topic list"); out != "(no topics)\n" {
		t.Errorf("Validate must not run anything: %q", out)
	}
}
