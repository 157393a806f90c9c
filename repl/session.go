package repl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/minikafka-lab/minikafka/adapters/jsontcp"
	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/vfs"
	"github.com/minikafka-lab/minikafka/labs"
)

// Options configure a session.
type Options struct {
	Format   Format            // FormatText (default) or FormatJSON
	Color    bool              // ANSI colour in text output (only ever for a terminal)
	Brokers  []int32           // broker ids; default 1,2,3
	Settings map[string]string // cluster config by Kafka name (--set key=value)
	DataDir  string            // keep the cluster here; "" means a fresh temporary directory removed on Close
	Content  fs.FS             // the embedded teaching material (chapters/, labs/, fixtures/), may be nil
	// Sandboxed confines a session that runs material it did not write
	// (labs, exercises and chapters from --dir): `cluster open dir=` only
	// under a temporary root the session removes on Close, remote and
	// kclient only to its own listeners, serve start and kafka listen only
	// on port 0.
	Sandboxed bool
	// FS is the file system the session's clusters live in; nil is the
	// real one. Tests give a vfs.Mem to inject disk faults.
	FS vfs.FS
	// Lang is the language of the course inside the REPL (read, lab,
	// exercise, help TOPIC); "" is English.
	Lang labs.Language
	// Width is the terminal's width in columns, asked before each picture;
	// nil (scripts, labs, tests) draws for 80 columns.
	Width func() int
	// ProgressPath is the learner's progress file (chapters read, labs
	// completed, exercises solved); "" keeps progress in memory only.
	ProgressPath string
	// Page shows a long text (a chapter) through a pager and reports
	// whether it did; nil prints it.
	Page func(text []byte) bool
	// Startup are commands RunInteractive and RunScript run first, shown
	// as if typed (minikafka exercise try ID starts with exercise try ID).
	Startup []string
	// HistoryMax caps the commands the history keeps (what undo, fork and
	// history reach back to; the oldest are dropped): 0 is
	// DefaultHistoryMax, a negative value keeps every command.
	HistoryMax int
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

	exited bool

	res result // the current command's result in JSON mode

	// world is the cluster and everything that belongs to it; undo and
	// fork replace it whole (timeline.go).
	world
	// tl is the session's timeline: the commands of the current branch,
	// the other branches, the recording in progress (timeline.go).
	tl timeline

	// server is this session's JSON/TCP server, nil when not serving.
	server *served
	// kafka is this session's Kafka listener, nil when not listening; kc
	// its real clients (kclient), nil until the first one. Both reach
	// outside the session: undo and fork do not rebuild them.
	kafka *kafkaListening
	kc    *kclients
	// kwake wakes settleKafka when the listener or a kclient moves.
	kwake settleSignal
	// intr carries Interrupt and Stop from the goroutine that gets signals.
	intr interrupts
	// exploreFound: the last explore found a schedule (ExploreFound).
	exploreFound bool
	// sandbox is set for a sandboxed session (Options.Sandboxed).
	sandbox *sandbox

	// input is where commands that read lines themselves (lab step, quiz)
	// read them: the line editor, or a script's next lines; nil when there
	// is none (the session runs single lines: a lab, a test).
	input lineSource
	// stepping completes for the lab that lab step runs, while it runs.
	stepping *StepCompleter
	// course is the teaching material and the learner's progress, read
	// when a course command first needs them (course.go).
	course *course
}

// world is the state a session's commands build: the cluster with its
// configuration, clock and data directory, the learner's named clients,
// and what the session remembers about them. Undo and fork swap a world
// for another one rebuilt from the timeline, so every field that a
// command changes and a later command reads belongs here.
type world struct {
	// The cluster: its configuration, clock and data directory. temp is the
	// directory to remove on Close ("" when the learner chose it).
	cluster *engine.Cluster
	cfg     engine.Config
	clock   *clock.Manual
	temp    string
	// opened is the recovery report of the last open, for the banner.
	opened engine.OpenReport
	// producers and consumers are the learner's named producers and
	// consumers of the current cluster, in creation order.
	producers []*namedProducer
	consumers []*namedConsumer
	// backlog holds engine events taken from the cluster's queue before the
	// command that caused them ended: by peekEvents, or by requests this
	// session serves over JSON/TCP (at most maxBacklog, the oldest dropped).
	backlog        []engine.Event
	backlogDropped int
	// lastKnown holds the cells each replica of a crashed broker held when
	// it crashed, for show to draw dimmed (cmd_show.go).
	lastKnown map[replicaKey]storedLog
	// exercise is the exercise `exercise try` set up, whose checks a bare
	// `check` judges; nil when none.
	exercise *tryingExercise
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
		tl:     newTimeline(),
	}
	cfg := engine.DefaultConfig("")
	cfg.FS = opts.FS
	cfg.BrokerIDs = append([]int32(nil), opts.Brokers...)
	if err := cfg.SetAll(settingsOf(opts.Settings, false)); err != nil {
		return nil, err
	}
	if opts.Sandboxed {
		sb, err := newSandbox()
		if err != nil {
			return nil, err
		}
		s.sandbox = sb
	}
	o, err := openCluster(cfg, opts.DataDir, 0)
	if err != nil {
		s.closeSandbox()
		return nil, err
	}
	s.adopt(o)
	return s, nil
}

// settingsOf lists the --set settings in name order (SetAll applies rules=
// first); with onlyRules, only the rule set and the knobs of single rules,
// which every cluster the session opens inherits.
func settingsOf(m map[string]string, onlyRules bool) []engine.Setting {
	rule := map[string]bool{}
	for _, k := range engine.ConfigKeys() {
		rule[k.Name] = k.Rule
	}
	var out []engine.Setting
	for _, k := range sortedKeys(m) {
		if !onlyRules || rule[k] {
			out = append(out, engine.Setting{Name: k, Value: m[k]})
		}
	}
	return out
}

// opened is a cluster just opened, not yet the session's.
type openedCluster struct {
	cluster *engine.Cluster
	cfg     engine.Config
	clock   *clock.Manual
	temp    string
	report  engine.OpenReport
}

// openCluster opens a cluster with cfg in dir, or in a fresh temporary
// directory when dir is "", with the manual clock at nowMs. On failure the
// temporary directory is removed.
func openCluster(cfg engine.Config, dir string, nowMs int64) (openedCluster, error) {
	temp := ""
	if dir == "" {
		d, err := tempDataDir(cfg.FS)
		if err != nil {
			return openedCluster{}, err
		}
		dir, temp = d, d
	}
	cfg.DataDir = dir
	clk := clock.NewManual(nowMs)
	c, report, err := engine.Open(cfg, clk)
	if err != nil {
		if temp != "" {
			removeTempDataDir(cfg.FS, temp)
		}
		return openedCluster{}, err
	}
	return openedCluster{cluster: c, cfg: cfg, clock: clk, temp: temp, report: report}, nil
}

// adopt makes an opened cluster the session's.
func (s *Session) adopt(o openedCluster) {
	s.cluster, s.cfg, s.clock, s.temp, s.opened = o.cluster, o.cfg, o.clock, o.temp, o.report
	s.forgetClients()
	s.lastKnown = nil
}

// forgetClients drops the named producers and consumers: they belonged to
// a cluster that was closed, crashed or replaced.
func (s *Session) forgetClients() {
	s.producers, s.consumers = nil, nil
}

// shut closes a cluster gracefully (if it is still running) and removes its
// temporary directory.
func shut(c *engine.Cluster, temp string) error {
	if c == nil {
		return nil
	}
	var err error
	if st := c.State(); st == engine.Running || st == engine.FailedState {
		err = c.Close()
	}
	if temp != "" {
		if rerr := removeTempDataDir(c.FS(), temp); rerr != nil && err == nil {
			err = rerr
		}
	}
	return err
}

// Close ends the session: a JSON/TCP server it runs is stopped, the
// cluster is closed gracefully and a temporary data directory removed (one
// given with DataDir is kept).
func (s *Session) Close() error {
	s.closeKclients()
	s.stopKafka()
	s.stopServing()
	err := shut(s.cluster, s.temp)
	s.cluster, s.temp = nil, ""
	if berr := s.closeBranches(); berr != nil && err == nil {
		err = berr
	}
	if serr := s.closeSandbox(); serr != nil && err == nil {
		err = serr
	}
	return err
}

// closeSandbox removes a sandbox's root, with the data directories that
// `cluster open dir=` made in it.
func (s *Session) closeSandbox() error {
	if s.sandbox == nil {
		return nil
	}
	err := s.sandbox.close()
	s.sandbox = nil
	return err
}

// OpenReport is what recovery did when the session's current cluster was
// opened (empty for a fresh directory).
func (s *Session) OpenReport() engine.OpenReport { return s.opened }

// Exited reports whether `exit` or `quit` ran.
func (s *Session) Exited() bool { return s.exited }

// Registry returns the session's command table.
func (s *Session) Registry() *Registry { return s.reg }

// Exec runs one command line and writes its output to w. Blank lines and
// comments do nothing (while recording, a comment is narration for the
// lab). A line pasted with its prompt ("mk> produce ...") runs without it.
// A failed command prints "error: CODE: message" (and a usage or hint
// line), changes nothing, and returns the error. A command that panics
// prints "internal error: ..." and returns an *InternalError.
//
// While the session serves JSON/TCP, the command runs on the server's
// goroutine that owns the cluster (jsontcp.Server.Direct), between
// requests, so that the single-threaded cluster never sees two callers.
func (s *Session) Exec(w io.Writer, line string) (err error) {
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	line = stripPrompt(line)
	text := strings.TrimSpace(line)
	if s.tl.depth == 0 {
		s.tl.lastChanged = false
	}
	defer func() {
		if v := recover(); v != nil {
			err = &InternalError{Value: v, Stack: string(debug.Stack())}
			s.report(w, text, nil, err, nil, "")
		}
	}()
	s.intr.reset()
	if strings.ContainsAny(line, "\n") {
		err = &UsageError{Msg: "a command must fit on one line", Hint: "one command per line; `help NAME` shows a command's form"}
		s.report(w, text, nil, err, nil, "")
		return err
	}
	if cmd, raw, ok := s.rawCommand(line); ok {
		s.res = nil
		args := &Args{cmd: cmd, line: line, raw: raw, flags: map[string]bool{}}
		return s.run(w, text, cmd, args)
	}
	words, err := Split(line)
	if err != nil {
		err = &UsageError{Msg: kerr.MessageOf(err), Hint: quotingHint}
		s.report(w, text, nil, err, nil, "")
		return err
	}
	if len(words) == 0 {
		s.narrate(text)
		return nil
	}
	s.res = nil

	cmd, rest, err := s.reg.resolve(words)
	if err != nil {
		s.report(w, text, nil, err, nil, "")
		return err
	}
	args, err := newArgs(cmd, line, rest)
	if err != nil {
		s.report(w, text, cmd, err, nil, "")
		return err
	}
	return s.run(w, text, cmd, args)
}

// run executes a command and notes it in the timeline (and the recording),
// with what it printed when that is needed.
func (s *Session) run(w io.Writer, text string, cmd *Command, args *Args) error {
	var printed *bytes.Buffer
	if s.tl.rec != nil && s.tl.depth == 0 {
		printed = &bytes.Buffer{}
		w = io.MultiWriter(w, printed)
	}
	s.tl.depth++
	err := s.execute(w, text, cmd, args)
	s.tl.depth--
	out := ""
	if printed != nil {
		out = printed.String()
	}
	s.note(text, cmd, args, err, out)
	return err
}

// promptPrefix matches the REPL's prompt at the start of a pasted line:
// "mk> " or "mk[1500ms]> ".
var promptPrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*mk(\[[0-9]+ms\])?> ?`) })

// stripPrompt drops a prompt pasted with a command, so that a line copied
// from a chapter's transcript ("mk> produce orders value=a") runs.
func stripPrompt(line string) string {
	if loc := promptPrefix().FindStringIndex(line); loc != nil {
		return line[loc[1]:]
	}
	return line
}

// rawCommand reports whether line runs a Raw command, and returns its text
// after the command's name (blanks before it skipped).
func (s *Session) rawCommand(line string) (*Command, string, bool) {
	trimmed := strings.TrimLeft(line, " \t")
	verb, rest := trimmed, ""
	if i := strings.IndexAny(trimmed, " \t"); i >= 0 {
		verb, rest = trimmed[:i], trimmed[i:]
	}
	c := s.reg.Lookup(verb)
	if c == nil || !c.Raw {
		return nil, "", false
	}
	return c, strings.TrimLeft(rest, " \t"), true
}

// execute runs a resolved command and prints its output, events and error.
func (s *Session) execute(w io.Writer, text string, cmd *Command, args *Args) error {
	out := w
	if s.format == FormatJSON {
		out = io.Discard
	}
	cw := &countWriter{w: out}
	var events []event
	var hint string
	// The events, and a hint that reads the cluster's state, are taken on
	// the goroutine that owns the cluster, after the command.
	after := func(err error) {
		events = s.takeEvents()
		hint = s.stateHint(err)
		if h := s.nameHint(err, args); h != "" {
			hint = h
		}
	}
	var err error
	switch {
	case cmd.Outside:
		err = s.runCommand(cmd, cw, args)
		s.settleKafka()
		_ = s.owned(func() error { after(err); return nil })
	case s.kafka != nil || s.kc != nil:
		// Real clients may answer after the command (a parked produce
		// the command's replicate completed): let them come to rest,
		// then take the events, in order.
		err = s.owned(func() error { return s.runCommand(cmd, cw, args) })
		s.settleKafka()
		_ = s.owned(func() error { after(err); return nil })
	default:
		err = s.owned(func() error {
			err := s.runCommand(cmd, cw, args)
			after(err)
			return err
		})
	}
	if err != nil {
		s.report(w, text, cmd, err, events, hint)
		return err
	}
	if s.format == FormatJSON {
		return s.writeJSON(w, text, s.res, events)
	}
	var shown []event
	for _, e := range events {
		if !slices.Contains(cmd.Reports, e.Kind) {
			shown = append(shown, e)
		}
	}
	s.writeEvents(cw, shown)
	if cw.n == 0 {
		fmt.Fprintln(w, "ok")
	}
	return nil
}

// runCommand runs cmd; a panic becomes an *InternalError with its stack.
func (s *Session) runCommand(cmd *Command, w io.Writer, args *Args) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &InternalError{Value: v, Stack: string(debug.Stack())}
		}
	}()
	err = cmd.Run(s, w, args)
	if err == nil && args.err != nil {
		panic(fmt.Sprintf("%s ignored an argument error: %v", cmd.FullName(), args.err))
	}
	return err
}

// owned runs fn where the cluster may be used: here, or on the JSON/TCP
// server's or the Kafka listener's goroutine while the session serves.
func (s *Session) owned(fn func() error) error {
	if k := s.kafka; k != nil {
		var ferr error
		err := k.srv.Direct(func() error { ferr = fn(); return nil })
		if err == nil {
			return ferr
		}
		return fn() // closed: its goroutines are done, the cluster is ours
	}
	if s.server == nil {
		return fn()
	}
	var ferr error
	err := s.server.srv.Direct(func(jsontcp.Backend) error {
		ferr = fn()
		return nil
	})
	if errors.Is(err, jsontcp.ErrServerClosed) { // its goroutines are done: the cluster is ours
		return fn()
	}
	if err != nil {
		return &InternalError{Value: err}
	}
	return ferr
}

// report prints a failed command (cmd, or nil when the line named none):
// events that happened anyway, then the error, as text or as one JSON
// line. Every error carries a usage or a hint line (docs/commands.md
// promises it): the error's own, else stateHint, else helpFor's.
func (s *Session) report(w io.Writer, text string, cmd *Command, err error, events []event, stateHint string) {
	parts := errorList(err)
	for i := range parts {
		parts[i].msg = s.relativePaths(parts[i].msg)
	}
	switch {
	case strings.HasPrefix(stateHint, "did you mean"): // a name close to the one typed
		parts[0].hint = withKafkaName(stateHint, kerr.Code(parts[0].code))
	case parts[0].hint == "":
		parts[0].hint = stateHint
	}
	for i := range parts {
		if parts[i].usage == "" && parts[i].hint == "" {
			parts[i].usage, parts[i].hint = helpFor(cmd, parts[i].code)
		}
	}
	if s.format == FormatJSON {
		p := parts[0]
		je := &jsonError{Code: p.code, Message: p.msg, Usage: p.usage, Hint: p.hint}
		if len(parts) > 1 {
			for _, p := range parts {
				je.Errors = append(je.Errors, jsonError{Code: p.code, Message: p.msg, Usage: p.usage, Hint: p.hint})
			}
		}
		env := envelope{Command: text, Error: je}
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
		fmt.Fprintf(w, "%s\n", s.relativePaths(string(b)))
		return
	}
	s.writeEvents(w, events)
	writeErrors(w, s.st, parts)
}

// relativePaths shows files below the data directory relative to it, so that
// messages do not depend on where a temporary directory was made.
func (s *Session) relativePaths(msg string) string {
	if s.cfg.DataDir != "" {
		msg = strings.ReplaceAll(msg, strings.TrimRight(s.cfg.DataDir, "/")+"/", "")
	}
	if s.sandbox != nil { // a sandboxed dir= as the material spelled it
		msg = strings.ReplaceAll(msg, s.sandbox.root+string(filepath.Separator), "")
	}
	return msg
}

// stateHint explains a state error the learner can fix from the REPL.
func (s *Session) stateHint(err error) string {
	if !errors.Is(err, kerr.IllegalState) || s.cluster == nil {
		return ""
	}
	if st := s.cluster.State(); st == engine.Closed {
		return "the cluster is closed: `cluster restart` reopens it, `cluster open` starts a fresh one"
	}
	return ""
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
	fmt.Fprintf(w, "%s\n", s.relativePaths(string(b)))
	return nil
}

func (s *Session) fail(w io.Writer, text string, err error) error {
	err = &InternalError{Value: err}
	s.report(w, text, nil, err, nil, "")
	return err
}

// IsInternal reports whether err (from Exec) is a bug: a recovered panic.
func IsInternal(err error) bool {
	var ie *InternalError
	return errors.As(err, &ie)
}

// nowMs is the cluster's manual clock.
func (s *Session) nowMs() int64 {
	if s.clock == nil {
		return 0
	}
	return s.clock.NowMs()
}

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
	return fmt.Sprintf("brokers %s, clock at %d ms, data in %s", strings.Join(ids, ","), s.nowMs(), where)
}

// Validate checks a line without running it: it splits, names a command
// and subcommand, and fits that command's declaration (known keys and
// flags, the right number of positional arguments); a check expression is
// parsed in full (a known quantity, an operator that suits it, a value of
// the right syntax). The lab runner calls it for every line of a lab before
// the first one runs. Other values, and whether a name exists, are checked
// when the line runs. The error's text is the message alone (no code); it
// unwraps to a *UsageError.
func (s *Session) Validate(line string) error {
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	if _, _, ok := s.rawCommand(line); ok {
		return nil // remote and dispatch send any text
	}
	words, err := Split(line)
	if err != nil {
		return validationError{&UsageError{Msg: kerr.MessageOf(err)}}
	}
	if len(words) == 0 {
		return nil
	}
	cmd, rest, err := s.reg.resolve(words)
	var args *Args
	if err == nil {
		args, err = newArgs(cmd, line, rest)
	}
	if err == nil && cmd == checkCommand {
		_, err = parseCheck(args)
	}
	if ue, ok := err.(*UsageError); ok {
		return validationError{ue}
	}
	return err
}

// quotingHint is the next step after a line that does not split into
// words.
const quotingHint = "quote a value with blanks as value=\"two words\" or 'two words', and close every quote; `help NAME` shows a command's form"

// validationError shows a usage error as its message alone, with its hint
// in parentheses when it has one.
type validationError struct{ *UsageError }

func (v validationError) Error() string {
	if v.Hint != "" {
		return v.Msg + " (" + v.Hint + ")"
	}
	return v.Msg
}
func (v validationError) Unwrap() error { return v.UsageError }

// logDirFailures maps each broker whose log directory failed to why (a
// disk error took it offline); the views say "offline" for those instead of
// "crashed".
func (s *Session) logDirFailures() map[int32]string {
	bs, err := s.cluster.Brokers()
	if err != nil {
		return nil
	}
	var out map[int32]string
	for _, b := range bs {
		if b.LogDirFailure != "" {
			if out == nil {
				out = map[int32]string{}
			}
			out[b.ID] = b.LogDirFailure
		}
	}
	return out
}
