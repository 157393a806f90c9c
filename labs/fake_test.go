package labs

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// fakeFactory makes fake executors: a tiny command interpreter standing in
// for the REPL in the runner's tests. It counts sessions opened and closed
// and the commands run.
type fakeFactory struct {
	opened, closed int
	ran            []string
	noValidate     bool // executors without Validate
	markInvalid    bool // unknown commands return Invalid errors (the run-time fallback)
	global         int  // state shared across sessions: makes `random` nondeterministic
}

func (f *fakeFactory) new() (Executor, error) {
	f.opened++
	x := &fake{f: f, vars: map[string]string{}}
	if f.noValidate {
		return struct{ Executor }{x}, nil
	}
	return x, nil
}

type fake struct {
	f    *fakeFactory
	vars map[string]string
}

var errFake = errors.New("fake command failed")

// quantities are what `check` can test.
var quantities = map[string]bool{"x": true, "y": true, "n": true, "hw": true}

var arity = map[string][2]int{ // verb → min, max arguments
	"set": {2, 2}, "get": {1, 1}, "incr": {1, 1}, "echo": {0, 99}, "lines": {0, 99},
	"para": {0, 0}, "fail": {0, 0}, "panic": {0, 0}, "broken": {0, 0}, "random": {0, 0}, "port": {0, 0},
	"check": {3, 3}, "nothing": {0, 0}, "help": {0, 1}, "cluster": {1, 9},
}

func (x *fake) Validate(line string) error {
	f := strings.Fields(line)
	if len(f) == 0 {
		return errors.New("empty command")
	}
	a, ok := arity[f[0]]
	if !ok {
		return fmt.Errorf("unknown command %q", f[0])
	}
	if n := len(f) - 1; n < a[0] || n > a[1] {
		return fmt.Errorf("%s takes %d to %d arguments", f[0], a[0], a[1])
	}
	if f[0] == "check" && !quantities[f[1]] {
		return fmt.Errorf("check: unknown quantity %q", f[1])
	}
	return nil
}

func (x *fake) Exec(w io.Writer, line string) error {
	x.f.ran = append(x.f.ran, line)
	f := strings.Fields(line)
	if len(f) == 0 {
		return nil
	}
	fail := func(format string, args ...any) error {
		fmt.Fprintf(w, "error: "+format+"\n", args...)
		return errFake
	}
	if err := x.Validate(line); err != nil {
		failed := fail("%v", err)
		if x.f.markInvalid {
			return Invalid(err)
		}
		return failed
	}
	switch f[0] {
	case "set":
		x.vars[f[1]] = f[2]
		fmt.Fprintln(w, "ok")
	case "get":
		v, ok := x.vars[f[1]]
		if !ok {
			return fail("no %s", f[1])
		}
		fmt.Fprintln(w, v)
	case "incr":
		n, _ := strconv.Atoi(x.vars[f[1]])
		x.vars[f[1]] = strconv.Itoa(n + 1)
		fmt.Fprintf(w, "%s=%d\n", f[1], n+1)
	case "echo":
		fmt.Fprintln(w, strings.Join(f[1:], " "))
	case "lines":
		for _, a := range f[1:] {
			fmt.Fprintln(w, a)
		}
	case "para":
		fmt.Fprint(w, "first paragraph\n\nsecond paragraph   \n\n")
	case "fail":
		return fail("on purpose")
	case "panic":
		panic("fake panic")
	case "broken":
		fmt.Fprintln(w, "internal error: broken on purpose")
		return Fatal(errors.New("internal error: broken on purpose"))
	case "random":
		x.f.global++
		fmt.Fprintf(w, "draw %d\n", x.f.global)
	case "port":
		x.f.global++
		fmt.Fprintf(w, "listening on 127.0.0.1:%d\n", 40000+x.f.global)
	case "check":
		got := x.vars[f[1]]
		if f[2] != "==" {
			return fail("check: bad operator %q", f[2])
		}
		if got != f[3] {
			return fail("check %s: expected %s, actual %q", f[1], f[3], got)
		}
		fmt.Fprintln(w, "ok")
	case "cluster":
		fmt.Fprintln(w, "ok") // keeps the variables: only a fresh session forgets them
	case "nothing":
	case "help":
		fmt.Fprintln(w, "commands: set get incr echo lines para fail check")
	}
	return nil
}

func (x *fake) Close() error {
	x.f.closed++
	return nil
}
