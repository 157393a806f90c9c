package labs

import (
	"bytes"
	"fmt"
	"io"
)

// Executor runs one command line of the MiniKafka command language and
// writes what it printed to w. A command that fails prints its error and
// returns a non-nil error; for labs and chapters that printed error is just
// output to compare, for exercise checks it means the check failed.
type Executor interface {
	Exec(w io.Writer, line string) error
	Close() error
}

// NewExecutor returns a fresh executor: a new session on a new, empty
// cluster. The runner calls it once per lab, exercise attempt and chapter
// (and again when step mode replays).
type NewExecutor func() (Executor, error)

// Validator is implemented by executors that can judge a command line
// without running it: an unknown command, arguments that do not fit the
// command, a check on an unknown quantity. Validate must not depend on or
// change the session's state. When the executor implements it, every
// command of a lab, exercise, attempt or chapter is validated before the
// first one runs, and each problem is reported as FILE:LINE.
type Validator interface {
	Validate(line string) error
}

// execLine runs one line and captures its output. A panic inside the
// executor is turned into a fatal error: the run cannot continue with a
// session in an unknown state.
func execLine(x Executor, line string) (out string, err error, fatal error) {
	var buf bytes.Buffer
	defer func() {
		if r := recover(); r != nil {
			out = buf.String()
			err = nil
			fatal = fmt.Errorf("the executor panicked on %q: %v", line, r)
		}
	}()
	err = x.Exec(&buf, line)
	return buf.String(), err, nil
}

// open starts a fresh executor, turning a panic in the constructor into an
// error.
func open(newExec NewExecutor) (x Executor, err error) {
	defer func() {
		if r := recover(); r != nil {
			x, err = nil, fmt.Errorf("starting a session panicked: %v", r)
		}
	}()
	x, err = newExec()
	if err == nil && x == nil {
		err = fmt.Errorf("starting a session returned no executor")
	}
	if err != nil {
		return nil, fmt.Errorf("cannot start a session: %w", err)
	}
	return x, nil
}

// closeQuietly closes an executor, turning a panic into an error.
func closeExec(x Executor) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("closing the session panicked: %v", r)
		}
	}()
	return x.Close()
}
