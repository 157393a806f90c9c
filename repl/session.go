package repl

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// Options configure a session.
type Options struct {
	Format   Format            // FormatText (default) or FormatJSON
	Color    bool              // ANSI colour in text output (only ever for a terminal)
	Brokers  []int32           // broker ids; default 1,2,3
	Settings map[string]string // cluster config by Kafka name (--set key=value)
	DataDir  string            // keep the cluster here; "" means a fresh temporary directory removed on Close
	Content  fs.FS             // the embedded teaching material (chapters/, labs/, fixtures/), may be nil
}

// Session is one learner's REPL session: it owns one cluster and executes
// command lines against it. Exec is the single entry used by the interactive
// loop, piped scripts, labs, exercises and chapter transcripts.
//
// A Session is not safe for concurrent use.
type Session struct {
	opts   Options
	reg    *Registry
	st     *style
	format Format

	history []string
	exited  bool

	res result // the current command's result in JSON mode
}

// theRegistry is the command table, linked once per process.
var theRegistry = sync.OnceValue(func() *Registry { return newRegistry(commandTable()) })

// NewSession opens a session with its own cluster.
func NewSession(opts Options) (*Session, error) {
	if opts.Format == "" {
		opts.Format = FormatText
	}
	if _, err := ParseFormat(string(opts.Format)); err != nil {
		return nil, kerr.Argument("%v", err)
	}
	if len(opts.Brokers) == 0 {
		opts.Brokers = []int32{1, 2, 3}
	}
	s := &Session{
		opts:   opts,
		reg:    theRegistry(),
		st:     newStyle(opts.Color && opts.Format == FormatText),
		format: opts.Format,
	}
	return s, nil
}

// Close ends the session and releases what it owns.
func (s *Session) Close() error {
	return nil
}

// Exited reports whether `exit` or `quit` ran.
func (s *Session) Exited() bool { return s.exited }

// Registry returns the session's command table.
func (s *Session) Registry() *Registry { return s.reg }

// Exec runs one command line and writes its output to w. Blank lines and
// comments do nothing. A failed command prints "error: CODE: message" (and a
// usage or hint line), changes nothing, and returns the error. A command that
// panics prints "internal error: ..." and returns an *InternalError.
func (s *Session) Exec(w io.Writer, line string) (err error) {
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	text := strings.TrimSpace(line)
	if strings.ContainsAny(line, "\n") {
		err = &UsageError{Msg: "a command must fit on one line"}
		s.report(w, text, err, nil)
		return err
	}
	words, err := Split(line)
	if err != nil {
		err = &UsageError{Msg: kerr.MessageOf(err)}
		s.report(w, text, err, nil)
		return err
	}
	if len(words) == 0 {
		return nil
	}
	defer func() {
		if v := recover(); v != nil {
			err = &InternalError{Value: v, Stack: string(debug.Stack())}
			s.report(w, text, err, nil)
		}
	}()
	s.history = append(s.history, text)
	s.res = nil

	cmd, rest, err := s.reg.resolve(words)
	if err != nil {
		s.report(w, text, err, nil)
		return err
	}
	args, err := newArgs(cmd, line, rest)
	if err != nil {
		s.report(w, text, err, nil)
		return err
	}
	out := w
	if s.format == FormatJSON {
		out = io.Discard
	}
	cw := &countWriter{w: out}
	err = cmd.Run(s, cw, args)
	if err == nil && args.err != nil {
		panic(fmt.Sprintf("%s ignored an argument error: %v", cmd.FullName(), args.err))
	}
	events := s.takeEvents()
	if err != nil {
		s.report(w, text, err, events)
		return err
	}
	if s.format == FormatJSON {
		return s.writeJSON(w, text, s.res, events)
	}
	s.writeEvents(cw, events)
	if cw.n == 0 {
		fmt.Fprintln(w, "ok")
	}
	return nil
}

// report prints a failed command: events that happened anyway, then the
// error, as text or as one JSON line.
func (s *Session) report(w io.Writer, text string, err error, events []event) {
	if s.format == FormatJSON {
		code, msg, usage, hint := errorParts(err)
		env := envelope{Command: text, Error: &jsonError{Code: code, Message: msg, Usage: usage, Hint: hint}}
		if len(events) > 0 {
			b, merr := withExtras([]byte("{}"), []extraField{{"events", eventsJSON(events)}})
			if merr == nil {
				env.Result = b
			}
		}
		b, merr := marshal(env)
		if merr != nil {
			b = []byte(`{"command":"","ok":false,"error":{"code":"INTERNAL","message":"cannot encode error"}}`)
		}
		fmt.Fprintf(w, "%s\n", b)
		return
	}
	s.writeEvents(w, events)
	writeError(w, s.st, err)
}

// writeJSON prints the success envelope.
func (s *Session) writeJSON(w io.Writer, text string, r result, events []event) error {
	obj := []byte("{}")
	if r != nil {
		b, err := marshal(r)
		if err != nil {
			return s.fail(w, text, err)
		}
		obj = b
	}
	extras := []extraField{}
	if len(events) > 0 {
		extras = append(extras, extraField{"events", eventsJSON(events)})
		if res := resolvedJSON(events); len(res) > 0 {
			extras = append(extras, extraField{"resolved", res})
		}
	}
	obj, err := withExtras(obj, extras)
	if err != nil {
		return s.fail(w, text, err)
	}
	b, err := marshal(envelope{Command: text, OK: true, Result: obj})
	if err != nil {
		return s.fail(w, text, err)
	}
	fmt.Fprintf(w, "%s\n", b)
	return nil
}

func (s *Session) fail(w io.Writer, text string, err error) error {
	err = &InternalError{Value: err}
	s.report(w, text, err, nil)
	return err
}

// IsInternal reports whether err (from Exec) is a bug: a recovered panic.
func IsInternal(err error) bool {
	var ie *InternalError
	return errors.As(err, &ie)
}

// nowMs is the cluster's manual clock.
func (s *Session) nowMs() int64 { return 0 }

// describeStart says what the session opened, for the interactive banner.
func (s *Session) describeStart() string {
	ids := make([]string, len(s.opts.Brokers))
	for i, b := range s.opts.Brokers {
		ids[i] = fmt.Sprint(b)
	}
	where := "a temporary data directory"
	if s.opts.DataDir != "" {
		where = s.opts.DataDir
	}
	return fmt.Sprintf("brokers %s, clock at 0 ms, data in %s", strings.Join(ids, ","), where)
}
