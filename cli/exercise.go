package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/minikafka-lab/minikafka/labs"
)

var exerciseCommand = &Subcommand{
	Name:     "exercise",
	Synopsis: "exercise list | show ID | check ID FILE | hint ID  [--dir DIR [--trust]] [--lang en|zh]",
	Summary:  "checked exercises: read the goal, check your attempt, get hints",
	Usage:    exerciseUsage,
	Run:      runExercise,
}

const exerciseUsage = `usage:
  minikafka exercise list
      your progress, chapter by chapter
  minikafka exercise show ID
      the goal and the setup
  minikafka exercise try ID
      a REPL with the setup applied: type commands, then check
  minikafka exercise check ID FILE [--watch]
      run the setup, your commands from FILE (- for stdin), then the
      checks; --watch checks again every time FILE is saved
  minikafka exercise hint ID
      the next hint
Every form takes --dir DIR (exercises from DIR run sandboxed, see
minikafka help lab, unless --trust) and --lang en|zh (titles, goals and
hints; default: the locale). ID is 05-01 (chapter 05, exercise 01) or the
exercise's slug. Progress is kept in $XDG_STATE_HOME/minikafka/progress
(or ~/.local/state/minikafka/progress).
`

func runExercise(env *Env, args []string) int {
	a, err := parseMaterialArgs(args, "trust", "watch")
	if err != nil || a.help || len(a.pos) == 0 {
		return usageError(env, "exercise", exerciseUsage, err, a)
	}
	verb, rest := a.pos[0], a.pos[1:]
	if a.watch && verb != "check" {
		return usageError(env, "exercise", exerciseUsage, fmt.Errorf("--watch goes with check"), nil)
	}
	want := map[string]int{"list": 0, "show": 1, "hint": 1, "check": 2, "try": 1}
	n, known := want[verb]
	if !known {
		return usageError(env, "exercise", exerciseUsage, fmt.Errorf("unknown exercise command %q%s", verb, suggest(verb, "list", "show", "try", "check", "hint")), nil)
	}
	if len(rest) != n {
		return usageError(env, "exercise", exerciseUsage, fmt.Errorf("%s takes %d argument(s)", verb, n), nil)
	}
	cat, ok := loadCatalog(env, "exercise", a.dir)
	if !ok {
		return 1
	}
	progressPath, err := labs.ProgressPath(env.Getenv)
	if err != nil {
		fmt.Fprintf(env.Stderr, "minikafka exercise: %v\n", err)
		return 1
	}
	progress, err := labs.LoadProgress(progressPath)
	if err != nil {
		fmt.Fprintf(env.Stderr, "minikafka exercise: %v\n", err)
		return 1
	}
	lang := language(env, a)
	coach := &labs.Coach{Out: env.Stdout, Progress: progress, Command: env.prog() + " exercise", Messages: messages(cat, lang),
		Course: cat, Lang: lang, Watch: a.watch}
	if a.dir != "" {
		coach.Command += " --dir " + a.dir
	}
	if verb == "list" {
		coach.List(cat.In(lang))
		if printProblems(env.Stderr, cat) {
			return 1
		}
		return 0
	}
	e, err := cat.Exercise(rest[0])
	if err != nil {
		printProblems(env.Stderr, cat)
		fmt.Fprintf(env.Stderr, "minikafka exercise: %v\n", err)
		return 1
	}
	if te, err := e.In(lang); err != nil {
		fmt.Fprintf(env.Stderr, "minikafka exercise: %v; showing the English text\n", err)
		coach.Messages = nil
	} else {
		e = te
	}
	switch verb {
	case "show":
		coach.Show(e)
	case "hint":
		if err := coach.Hint(e); err != nil {
			fmt.Fprintf(env.Stderr, "minikafka exercise: %v\n", err)
			return 1
		}
	case "check":
		if a.watch {
			return watchCheck(env, coach, e, rest[1], a.sandboxed())
		}
		return exerciseCheck(env, coach, e, rest[1], a.sandboxed())
	case "try":
		return exerciseTry(env, a, e)
	}
	return 0
}

// exerciseTry opens the REPL (interactive on a terminal, else reading the
// commands piped in) on a fresh cluster with the exercise's setup applied:
// check judges the live state.
func exerciseTry(env *Env, a *materialArgs, e *labs.Exercise) int {
	f := &replFlags{brokers: "1,2,3", format: "text", color: "auto"}
	opts, err := sessionOptions(env, f)
	if err != nil {
		fmt.Fprintf(env.Stderr, "minikafka exercise: %v\n", err)
		return 2
	}
	if a.dir != "" {
		opts.Content = os.DirFS(a.dir)
	}
	opts.Lang = language(env, a)
	opts.Sandboxed = a.sandboxed()
	opts.Startup = []string{"exercise try " + e.ID}
	return runSession(env, "exercise", opts, true)
}

// watchEvery is how often --watch looks at the attempt's file.
var watchEvery = 250 * time.Millisecond

// watchCheck checks the attempt, then again every time its file changes,
// until it passes, or the learner presses Ctrl-C (or env.Interrupt fires).
func watchCheck(env *Env, coach *labs.Coach, e *labs.Exercise, file string, sandboxed bool) int {
	stop := env.Interrupt
	if stop == nil {
		ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
		defer cancel()
		stop = ctx.Done()
	}
	version := func() string {
		b, err := os.ReadFile(file)
		if err != nil {
			return "missing"
		}
		return string(b)
	}
	seen := version()
	if exerciseCheck(env, coach, e, file, sandboxed) == 0 {
		return 0
	}
	tick := time.NewTicker(watchEvery)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			fmt.Fprintln(env.Stdout, "\n"+coach.Messages.T("Stopped watching."))
			return 1
		case <-tick.C:
		}
		if v := version(); v != seen {
			seen = v
			fmt.Fprintln(env.Stdout, "\n"+coach.Messages.Sprintf("── %s changed: checking again ──", file))
			if exerciseCheck(env, coach, e, file, sandboxed) == 0 {
				return 0
			}
		}
	}
}

func exerciseCheck(env *Env, coach *labs.Coach, e *labs.Exercise, file string, sandboxed bool) int {
	var attempt []byte
	var err error
	name := file
	if file == "-" {
		name = labs.StdinName
		attempt, err = io.ReadAll(env.Stdin)
	} else {
		attempt, err = os.ReadFile(file)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "minikafka exercise: %v\n", err)
		return 1
	}
	passed, err := coach.Check(e, name, attempt, newExecutor(env, sandboxed))
	if err != nil {
		fmt.Fprintf(env.Stderr, "minikafka exercise: %v\n", err)
		return 1
	}
	if !passed {
		return 1
	}
	return 0
}
