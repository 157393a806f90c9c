package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/minikafka-lab/minikafka/labs"
	"github.com/minikafka-lab/minikafka/repl"
)

var labCommand = &Subcommand{
	Name:     "lab",
	Synopsis: "lab list | run ID...|--all [--rewrite] | step ID | chapters [N...] [--rewrite]  [--dir DIR [--trust]] [--lang en|zh]",
	Summary:  "replay the scripted labs, check them, or step through one",
	Usage:    labUsage,
	Run:      runLab,
}

const labUsage = `usage:
  minikafka lab list
      the labs: ID, slug, chapter, steps, title
  minikafka lab run ID...|FILE.lab... | --all [--rewrite] [--set key=value]...
      replay and compare; --rewrite regenerates the expected output in
      the files (needs --dir); --set rules=kafka replays under Kafka's
      rules (a lab that names its rules keeps them)
  minikafka lab step ID [--from N] [--set key=value]...
      step through a lab: Enter runs the next step; type commands of your
      own, back, reset, quit; --from N starts at step N
  minikafka lab chapters [N...] [--rewrite]
      run the chapters' mk transcripts and compare; --rewrite regenerates
      their output (needs --dir)
Every form takes --dir DIR (labs from DIR/labs/ or DIR itself instead of
the built-in ones; they run sandboxed, data directories only in a
temporary one and remote only to the session's own server, unless
--trust) and --lang en|zh (titles and narration; default: the locale).
ID is 05-01 (chapter 05, lab 01) or the lab's slug.
`

func runLab(env *Env, args []string) int {
	a, err := parseMaterialArgs(args, "all", "rewrite", "trust", "set", "from")
	if err != nil || a.help || len(a.pos) == 0 {
		return usageError(env, "lab", labUsage, err, a)
	}
	verb, ids := a.pos[0], a.pos[1:]
	if (a.all && verb != "run") || (a.rewrite && verb != "run" && verb != "chapters") || (a.from > 0 && verb != "step") {
		return usageError(env, "lab", labUsage, fmt.Errorf("--all goes with run, --rewrite with run and chapters, --from with step"), nil)
	}
	if len(a.settings) > 0 && ((verb != "run" && verb != "step") || a.rewrite) {
		return usageError(env, "lab", labUsage, fmt.Errorf("--set goes with run and step, and not with --rewrite"), nil)
	}
	switch verb {
	case "list":
		if len(ids) > 0 {
			return usageError(env, "lab", labUsage, fmt.Errorf("list takes no ID"), nil)
		}
		cat, ok := loadCatalog(env, "lab", a.dir)
		if !ok {
			return 1
		}
		labs.ListLabs(env.Stdout, cat, language(env, a))
		if printProblems(env.Stderr, cat) {
			return 1
		}
		return 0
	case "run":
		return labRun(env, a, ids)
	case "chapters":
		return labChapters(env, a, ids)
	case "step":
		if len(ids) != 1 {
			return usageError(env, "lab", labUsage, fmt.Errorf("step takes one lab ID"), nil)
		}
		cat, ok := loadCatalog(env, "lab", a.dir)
		if !ok {
			return 1
		}
		l, err := cat.Lab(ids[0])
		if err != nil {
			printProblems(env.Stderr, cat)
			fmt.Fprintf(env.Stderr, "minikafka lab: %v\n", err)
			return 1
		}
		if tl, err := l.In(language(env, a)); err != nil {
			fmt.Fprintf(env.Stderr, "minikafka lab: %v; showing the English text\n", err)
		} else {
			l = tl
		}
		return labStep(env, cat, l, a.from, newExecutorWith(env, a.settings, a.sandboxed()))
	default:
		return usageError(env, "lab", labUsage, fmt.Errorf("unknown lab command %q%s", verb, suggest(verb, "list", "run", "step", "chapters")), nil)
	}
}

func labRun(env *Env, a *materialArgs, ids []string) int {
	if a.all == (len(ids) > 0) {
		return usageError(env, "lab", labUsage, fmt.Errorf("run takes lab IDs or --all"), nil)
	}
	if a.rewrite && a.dir == "" {
		fmt.Fprintln(env.Stderr, env.say("minikafka lab: --rewrite writes the lab files, so it needs --dir DIR (the built-in labs are read-only); in a checkout: minikafka lab run --all --rewrite --dir ."))
		return 2
	}
	cat, ok := loadCatalog(env, "lab", a.dir)
	if !ok {
		return 1
	}
	status := 0
	if printProblems(env.Stderr, cat) {
		status = 1
	}
	list := cat.Labs
	sandboxed := a.sandboxed()
	if !a.all {
		list = nil
		for _, id := range ids {
			if strings.HasSuffix(id, ".lab") {
				// A lab file given by its path (one recorded with record
				// start, say) is material the program did not bring.
				src, err := os.ReadFile(id)
				if err == nil {
					var l *labs.Lab
					if l, err = labs.ParseLab(filepath.ToSlash(id), src); err == nil {
						list = append(list, l)
						sandboxed = sandboxed || !a.trust
						continue
					}
				}
				fmt.Fprintf(env.Stderr, "minikafka lab: %v\n", err)
				return 1
			}
			l, err := cat.Lab(id)
			if err != nil {
				fmt.Fprintf(env.Stderr, "minikafka lab: %v\n", err)
				return 1
			}
			list = append(list, l)
		}
	}
	opt := labs.RunOptions{Rewrite: a.rewrite, Write: writeLab}
	newExec := newExecutorWith(env, a.settings, sandboxed)
	if len(list) > 1 {
		// Many labs: their clusters in memory, one per chapter on disk,
		// one more at a time than there are processors (a lab on disk
		// waits for fsync at its close).
		opt.ExecutorFor = labs.DiskOncePerChapter(newExec, newMemoryExecutor(env, a.settings, sandboxed))
		opt.Parallel = runtime.GOMAXPROCS(0) + 1
	}
	if labs.RunLabs(env.Stdout, list, newExec, opt) > 0 {
		status = 1
	}
	return status
}

// writeLab replaces a lab file on disk (its Path is a path on disk when the
// labs come from --dir).
func writeLab(l *labs.Lab, src []byte) error { return rewriteFile(l.Path, src) }

// rewriteFile replaces a material file given by its slash path on disk,
// keeping its permissions.
func rewriteFile(name string, src []byte) error {
	path := filepath.FromSlash(name)
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, src, st.Mode().Perm())
}

// usageError prints a problem (if any) and the usage; help asked for is not
// an error.
func usageError(env *Env, name, usage string, err error, a *materialArgs) int {
	if err == nil && a != nil && a.help {
		fmt.Fprint(env.Stdout, env.say(usage))
		return 0
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "minikafka %s: %v\n", name, err)
	}
	fmt.Fprint(env.Stderr, env.say(usage))
	return 2
}

// labChapters checks (or with --rewrite regenerates) the mk transcripts of
// the chosen chapters, all of them by default.
func labChapters(env *Env, a *materialArgs, ids []string) int {
	if a.rewrite && a.dir == "" {
		fmt.Fprintln(env.Stderr, env.say("minikafka lab: --rewrite writes the chapter files, so it needs --dir DIR; in a checkout: minikafka lab chapters --rewrite --dir ."))
		return 2
	}
	cat, ok := loadCatalog(env, "lab", a.dir)
	if !ok {
		return 1
	}
	list := append(slices.Clone(cat.Chapters), cat.Translated...)
	if len(ids) > 0 {
		list = nil
		for _, id := range ids {
			ch, err := cat.Chapter(id)
			if err != nil {
				fmt.Fprintf(env.Stderr, "minikafka lab: %v\n", err)
				return 1
			}
			list = append(list, ch)
			for _, tr := range cat.Translated {
				if tr.Number == ch.Number && tr.Slug == ch.Slug {
					list = append(list, tr)
				}
			}
		}
	}
	status := 0
	for _, ch := range list {
		if !a.rewrite {
			if err := labs.CheckChapter(cat.FS, ch.FSPath, newExecutor(env, a.sandboxed())); err != nil {
				fmt.Fprintf(env.Stdout, "✗ %s\n%v\n", ch.Name(), err)
				status = 1
				continue
			}
			fmt.Fprintf(env.Stdout, "✓ %s\n", ch.Name())
			continue
		}
		src, n, err := labs.RewriteChapter(cat.FS, ch.FSPath, newExecutor(env, a.sandboxed()))
		if err != nil {
			fmt.Fprintf(env.Stdout, "✗ %s\n%v\n", ch.Name(), err)
			status = 1
			continue
		}
		if n > 0 {
			if err := rewriteFile(ch.Path, src); err != nil {
				fmt.Fprintf(env.Stderr, "minikafka lab: %v\n", err)
				return 1
			}
		}
		noun := "outputs"
		if n == 1 {
			noun = "output"
		}
		fmt.Fprintf(env.Stdout, "✓ %s (%d %s rewritten)\n", ch.Name(), n, noun)
	}
	return status
}

// labStep steps through a lab: on a terminal through the REPL's line
// editor (history, Tab completion of commands and the lab's live names,
// Ctrl-R; Ctrl-C clears the line, Ctrl-D leaves), else reading piped
// lines. Reaching the last step records the lab as completed and says
// what comes next.
func labStep(env *Env, cat *labs.Catalog, l *labs.Lab, from int, newExec labs.NewExecutor) int {
	msg := messages(cat, l.Lang)
	progress := progressOrMemory(env, "lab")
	opt := labs.StepOptions{
		Echo:     !env.StdinIsTerminal,
		Messages: msg,
		From:     from,
		Finished: func(w io.Writer) {
			if en, err := cat.Lab(l.ID); err == nil {
				progress.MarkLab(en.ID, en.Slug)
			}
			if err := progress.Save(); err != nil {
				fmt.Fprintf(env.Stderr, "minikafka lab: %v (progress is not recorded)\n", err)
			}
			if next := cat.NextLine(progress, l.Lang, msg); next != "" {
				fmt.Fprintln(w, next)
			}
		},
	}
	if env.StdinIsTerminal {
		sc := &repl.StepCompleter{}
		ed, err := repl.NewReadlineEditor(repl.EditorConfig{
			HistoryFile: repl.HistoryPath(env.Getenv),
			Completer:   sc,
			Stdout:      env.Stdout,
			Stderr:      env.Stderr,
		})
		if err != nil {
			fmt.Fprintf(env.Stderr, "minikafka lab: line editor: %v\n", err)
			return 1
		}
		defer ed.Close()
		opt.Input, opt.Attach, opt.Echo = ed, sc.Attach, false
	}
	if err := labs.Step(l, newExec, env.Stdin, env.Stdout, opt); err != nil {
		fmt.Fprintf(env.Stderr, "minikafka lab: %v\n", err)
		return 1
	}
	return 0
}
