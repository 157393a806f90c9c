package labs

import (
	"bytes"
	"errors"
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

// Fatal marks an error returned by Exec after which the session cannot be
// trusted: a command panicked (a bug). The runner stops there: the lab did
// not run to the end (so it is not rewritten), the chapter or exercise
// fails. An executor adapter wraps such errors with Fatal.
func Fatal(err error) error { return &markedError{err: err, fatal: true} }

// Invalid marks an error returned by Exec for a line that is not in the
// command language: an unknown command, a malformed check. The runner treats
// it like a failed validation found at run time: it reports FILE:LINE and
// stops, instead of comparing the error as output or writing it into a lab
// with --rewrite. Executors that implement Validator catch these earlier.
func Invalid(err error) error { return &markedError{err: err} }

type markedError struct {
	err   error
	fatal bool
}

func (e *markedError) Error() string { return e.err.Error() }
func (e *markedError) Unwrap() error { return e.err }

// isInvalid reports whether err was marked with Invalid.
func isInvalid(err error) bool {
	var m *markedError
	return errors.As(err, &m) && !m.fatal
}

// execLine runs one line and captures its output. stop is set when the run
// cannot go on with this line: the executor panicked, or returned an error
// marked with Fatal or Invalid.
func execLine(x Executor, line string) (out string, err error, stop error) {
	var buf bytes.Buffer
	defer func() {
		if r := recover(); r != nil {
			out = buf.String()
			err = nil
			stop = fmt.Errorf("the executor panicked on %q: %v", line, r)
		}
	}()
	err = x.Exec(&buf, line)
	var m *markedError
	if errors.As(err, &m) {
		if m.fatal {
			return buf.String(), err, fmt.Errorf("the session broke on %q: %w", line, err)
		}
		return buf.String(), err, err
	}
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
