package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/minikafka-lab/minikafka/labs"
	"github.com/minikafka-lab/minikafka/repl"
)

var replCommand = &Subcommand{
	Name:     "repl",
	Synopsis: "repl [--data DIR] [--brokers 1,2,3] [--set key=value]... [--format text|json] [--color auto|always|never] [--keep-going]",
	Summary:  "the interactive REPL (the default); reads a script when stdin is not a terminal",
	Run:      runRepl,
}

// replFlags are the parsed options of `minikafka repl`.
type replFlags struct {
	data       string
	brokers    string
	settings   map[string]string
	format     string
	color      string
	keepGoing  bool
	historyMax int
}

func parseReplFlags(args []string, stderr io.Writer) (*replFlags, error) {
	f := &replFlags{settings: map[string]string{}}
	fs := flag.NewFlagSet("repl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.data, "data", "", "keep the cluster in `DIR` (reopened with recovery if it exists)")
	fs.StringVar(&f.brokers, "brokers", "1,2,3", "broker ids, comma-separated")
	fs.Func("set", "cluster config `key=value` by Kafka name (repeatable)", func(v string) error {
		k, val, ok := strings.Cut(v, "=")
		if !ok || k == "" {
			return fmt.Errorf("expected key=value, got %q", v)
		}
		f.settings[k] = val
		return nil
	})
	fs.StringVar(&f.format, "format", "text", "output `mode`: text or json")
	fs.StringVar(&f.color, "color", "auto", "colour: auto, always or never (a non-empty NO_COLOR always turns it off)")
	fs.BoolVar(&f.keepGoing, "keep-going", false, "in a script, run the remaining commands after a failure")
	fs.IntVar(&f.historyMax, "history-max", 0, "commands the history keeps for history, undo and fork (0: 10000, -1: all)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (pipe a script on stdin: minikafka repl < script.mk)", fs.Arg(0))
	}
	return f, nil
}

func runRepl(env *Env, args []string) int {
	f, err := parseReplFlags(args, env.Stderr)
	if err != nil {
		if err != flag.ErrHelp {
			fmt.Fprint(env.Stderr, env.say(fmt.Sprintf("minikafka repl: %v\n", err)))
		}
		return 2
	}
	opts, err := sessionOptions(env, f)
	if err != nil {
		fmt.Fprintf(env.Stderr, "minikafka repl: %v\n", err)
		return 2
	}
	return runSession(env, "repl", opts, f.keepGoing)
}

// runSession runs a REPL session with opts: interactive on a terminal,
// else the script on stdin (opts.Startup runs first either way). name is
// the subcommand, for messages.
func runSession(env *Env, name string, opts repl.Options, keepGoing bool) int {
	sigs := notifyShutdown()
	defer sigs.release()
	s, err := repl.NewSession(opts)
	if err != nil {
		fmt.Fprintf(env.Stderr, "minikafka %s: %v\n", name, err)
		return 1
	}
	if !env.StdinIsTerminal { // the interactive banner shows the whole recovery report
		for _, note := range recoveryNotes(s.OpenReport()) {
			fmt.Fprintf(env.Stderr, "minikafka %s: recovery: %s\n", name, note)
		}
	}
	out := &stopOnWriteError{w: env.Stdout, st: sigs}
	var status int
	switch {
	case env.StdinIsTerminal:
		status = interactive(env, s, out, sigs)
	default:
		in := newStoppableReader(env.Stdin)
		sigs.run(s, false, in.Stop)
		status = repl.RunScript(s, in, out, repl.ScriptOptions{KeepGoing: keepGoing})
	}
	if err := s.Close(); err != nil {
		fmt.Fprintf(env.Stderr, "minikafka %s: closing the cluster: %v\n", name, err)
		return 1
	}
	if code, stopped := sigs.report(env.Stderr); stopped {
		return code
	}
	return status
}

func interactive(env *Env, s *repl.Session, out io.Writer, sigs *stopper) int {
	ed, err := repl.NewReadlineEditor(repl.EditorConfig{
		HistoryFile: repl.HistoryPath(env.Getenv),
		Completer:   s,
		Stdout:      env.Stdout,
		Stderr:      env.Stderr,
	})
	if err != nil {
		fmt.Fprintf(env.Stderr, "minikafka repl: line editor: %v\n", err)
		return 1
	}
	defer ed.Close()
	sigs.run(s, true, func() { _ = ed.Close() })
	return repl.RunInteractive(s, ed, out)
}

// sessionOptions turns the flags and the environment into session options.
// Colour is on only for an interactive terminal (never in a script).
func sessionOptions(env *Env, f *replFlags) (repl.Options, error) {
	format, err := repl.ParseFormat(f.format)
	if err != nil {
		return repl.Options{}, err
	}
	mode, err := repl.ParseColorMode(f.color)
	if err != nil {
		return repl.Options{}, err
	}
	brokers, err := repl.ParseBrokerList(f.brokers)
	if err != nil {
		return repl.Options{}, fmt.Errorf("--brokers: %v", err)
	}
	opts := repl.Options{
		Format:     format,
		Color:      repl.UseColor(mode, env.StdinIsTerminal && env.StdoutIsTerminal, env.Getenv),
		Brokers:    brokers,
		Settings:   f.settings,
		DataDir:    f.data,
		Content:    env.Content,
		Lang:       language(env, &materialArgs{}),
		HistoryMax: f.historyMax,
	}
	courseOptions(env, &opts)
	return opts, nil
}

// courseOptions fill in what the course commands of a session need: the
// progress file, and on a terminal its width and a pager.
func courseOptions(env *Env, opts *repl.Options) {
	if env.Getenv != nil {
		if p, err := labs.ProgressPath(env.Getenv); err == nil {
			opts.ProgressPath = p
		}
	}
	if env.StdinIsTerminal && env.StdoutIsTerminal {
		opts.Width = repl.TerminalWidth
		opts.Page = func(page []byte) bool { return pageOut(env, page) }
	}
}
