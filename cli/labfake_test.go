package cli

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/labs"
)

// fakeSession is a tiny command interpreter standing in for the REPL in the
// tests of lab, exercise and read (set, get, incr, echo, lines, para, check).
type fakeSession struct{ vars map[string]string }

func (x *fakeSession) Validate(line string) error {
	f := strings.Fields(line)
	switch {
	case len(f) == 0:
		return errors.New("empty command")
	case f[0] == "check" && (len(f) != 4 || f[1] != "x" && f[1] != "y"):
		return fmt.Errorf("check: unknown quantity %q", f[1])
	}
	switch f[0] {
	case "set", "get", "incr", "echo", "lines", "para", "check", "port":
		return nil
	}
	return fmt.Errorf("unknown command %q", f[0])
}

func (x *fakeSession) Exec(w io.Writer, line string) error {
	if err := x.Validate(line); err != nil {
		fmt.Fprintf(w, "error: %v\n", err)
		return err
	}
	f := strings.Fields(line)
	switch f[0] {
	case "set":
		x.vars[f[1]] = f[2]
		fmt.Fprintln(w, "ok")
	case "get":
		v, ok := x.vars[f[1]]
		if !ok {
			fmt.Fprintf(w, "error: no %s\n", f[1])
			return errors.New("no such variable")
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
		fmt.Fprint(w, "first paragraph\n\nsecond paragraph\n")
	case "port":
		fmt.Fprintln(w, "listening on 127.0.0.1:40001")
	case "check":
		if got := x.vars[f[1]]; got != f[3] {
			fmt.Fprintf(w, "error: CHECK_FAILED: expected %s == %s, got %q\n", f[1], f[3], got)
			return errors.New("check failed")
		}
		fmt.Fprintln(w, "ok")
	}
	return nil
}

func (x *fakeSession) Close() error { return nil }

// useFakeSessions makes lab, exercise and read run on fake sessions for the
// duration of the test.
func useFakeSessions(t *testing.T) {
	t.Helper()
	saved, savedMem := newExecutor, newMemoryExecutor
	newExecutor = func(*Env, bool) labs.NewExecutor {
		return func() (labs.Executor, error) { return &fakeSession{vars: map[string]string{}}, nil }
	}
	newMemoryExecutor = func(env *Env, _ map[string]string, sandboxed bool) labs.NewExecutor {
		return newExecutor(env, sandboxed)
	}
	t.Cleanup(func() { newExecutor, newMemoryExecutor = saved, savedMem })
}
