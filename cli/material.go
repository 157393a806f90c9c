package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/minikafka-lab/minikafka/labs"
	"github.com/minikafka-lab/minikafka/repl"
)

// materialArgs are the arguments of lab, exercise and read: positional
// words and the flags --dir DIR, --all and --rewrite, in any order.
type materialArgs struct {
	pos     []string
	dir     string
	lang    string
	from    int // lab step --from N
	all     bool
	rewrite bool
	trust   bool
	watch   bool
	help    bool
	// settings are the --set key=value pairs (lab run and lab step): the
	// sessions run with them, and every cluster a lab opens inherits its
	// rule settings (--set rules=kafka runs a lab under Kafka's rules).
	settings map[string]string
}

// sandboxed reports whether material from --dir runs sandboxed: always,
// unless --trust (the built-in material is the program's own).
func (a *materialArgs) sandboxed() bool { return a.dir != "" && !a.trust }

// parseMaterialArgs reads args; allowed names the boolean flags the
// subcommand accepts besides --dir.
func parseMaterialArgs(args []string, allowed ...string) (*materialArgs, error) {
	a := &materialArgs{}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		switch {
		case arg == "-" || !strings.HasPrefix(arg, "-"):
			a.pos = append(a.pos, arg)
		case arg == "--":
			a.pos = append(a.pos, args[i+1:]...)
			return a, nil
		case name == "h" || name == "help":
			a.help = true
		case name == "dir":
			if !hasValue {
				if i+1 >= len(args) {
					return nil, errors.New("--dir needs a directory")
				}
				i++
				value = args[i]
			}
			a.dir = value
		case name == "lang":
			if !hasValue {
				if i+1 >= len(args) {
					return nil, errors.New("--lang needs a language: en or zh")
				}
				i++
				value = args[i]
			}
			if _, err := labs.ParseLanguage(value); err != nil {
				return nil, fmt.Errorf("--lang: %w", err)
			}
			a.lang = value
		case name == "set" && slices.Contains(allowed, "set"):
			if !hasValue {
				if i+1 >= len(args) {
					return nil, errors.New("--set needs key=value")
				}
				i++
				value = args[i]
			}
			k, v, ok := strings.Cut(value, "=")
			if !ok || k == "" {
				return nil, fmt.Errorf("--set wants key=value, got %q", value)
			}
			if a.settings == nil {
				a.settings = map[string]string{}
			}
			a.settings[k] = v
		case name == "from" && slices.Contains(allowed, "from"):
			if !hasValue {
				if i+1 >= len(args) {
					return nil, errors.New("--from needs a step number")
				}
				i++
				value = args[i]
			}
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("--from: %q is not a step number (1, 2, ...)", value)
			}
			a.from = n
		case hasValue || !slices.Contains(allowed, name):
			return nil, fmt.Errorf("unknown flag %s", arg)
		case name == "watch":
			a.watch = true
		case name == "all":
			a.all = true
		case name == "rewrite":
			a.rewrite = true
		case name == "trust":
			a.trust = true
		}
	}
	return a, nil
}

// language is the language of the teaching material for a subcommand: its
// own --lang, else the global one, else the locale (LC_ALL, LC_MESSAGES,
// LANG: zh_* is Chinese).
func language(env *Env, a *materialArgs) labs.Language {
	for _, v := range []string{a.lang, env.Lang} {
		if lang, err := labs.ParseLanguage(v); v != "" && err == nil {
			return lang
		}
	}
	getenv := env.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	return labs.LanguageFromEnv(getenv)
}

// messages are the catalog's messages for lang (nil for English).
func messages(cat *labs.Catalog, lang labs.Language) *labs.Messages {
	if lang == labs.English || lang == "" {
		return nil
	}
	return cat.Messages[lang]
}

// material opens the teaching material: the embedded content, or the
// directory given with --dir. root is what file names are shown relative to
// (the directory itself, so that names are paths on disk).
func material(env *Env, dir string) (fs.FS, string, error) {
	if dir == "" {
		if env.Content == nil {
			return nil, "", errors.New("no teaching material is built in; use --dir DIR")
		}
		return env.Content, "", nil
	}
	st, err := os.Stat(dir)
	if err != nil {
		return nil, "", err
	}
	if !st.IsDir() {
		return nil, "", fmt.Errorf("%s is not a directory", dir)
	}
	return os.DirFS(dir), dir, nil
}

// loadCatalog loads the material and prints the files that did not parse.
// ok is false when the catalog could not be loaded at all.
func loadCatalog(env *Env, name, dir string) (*labs.Catalog, bool) {
	fsys, root, err := material(env, dir)
	if err != nil {
		fmt.Fprintf(env.Stderr, "minikafka %s: %v\n", name, err)
		return nil, false
	}
	cat, err := labs.Load(fsys, root)
	if err != nil {
		fmt.Fprintf(env.Stderr, "minikafka %s: %v\n", name, err)
		return nil, false
	}
	cat.Tool = env.prog()
	return cat, true
}

func printProblems(w io.Writer, cat *labs.Catalog) bool {
	for _, p := range cat.Problems {
		fmt.Fprintln(w, p)
	}
	return len(cat.Problems) > 0
}

// newExecutor makes the executors of labs, exercises and chapters,
// sandboxed for material from --dir without --trust. Tests replace it.
var newExecutor = func(env *Env, sandboxed bool) labs.NewExecutor {
	return newSessionExecutor(env.Content, nil, sandboxed)
}

// newExecutorWith is newExecutor with session settings (--set); without
// any it is newExecutor itself.
func newExecutorWith(env *Env, settings map[string]string, sandboxed bool) labs.NewExecutor {
	if len(settings) == 0 {
		return newExecutor(env, sandboxed)
	}
	return newSessionExecutor(env.Content, settings, sandboxed)
}

// SessionExecutor is the runner's executor for the real command language:
// a fresh REPL session each time (text output, no colour, its own
// temporary cluster) with content as its teaching material (see
// repl.LabExecutor). Content tests use it:
//
//	labs.RunAll(t, content, cli.SessionExecutor(content))
func SessionExecutor(content fs.FS) labs.NewExecutor { return newSessionExecutor(content, nil, false) }

// SessionExecutorWith is SessionExecutor with session settings by Kafka
// name, as repl --set gives them: every cluster a lab opens inherits the
// rule settings (rules=kafka runs the lab under Kafka's rules unless its
// cluster open names the rules itself).
func SessionExecutorWith(content fs.FS, settings map[string]string) labs.NewExecutor {
	return newSessionExecutor(content, settings, false)
}

// SessionExecutorInMemory is SessionExecutor with the sessions' clusters
// on an in-memory file system (repl.LabExecutorInMemory): the same
// transcripts, without the disk's writes and fsyncs.
func SessionExecutorInMemory(content fs.FS) labs.NewExecutor {
	return repl.LabExecutorInMemory(repl.Options{Content: content})
}

// newSessionExecutor is SessionExecutorWith, with sandboxed sessions
// (repl.Options.Sandboxed) for material the program did not bring.
func newSessionExecutor(content fs.FS, settings map[string]string, sandboxed bool) labs.NewExecutor {
	return repl.LabExecutor(repl.Options{Content: content, Settings: settings, Sandboxed: sandboxed})
}

// newMemoryExecutor is newExecutorWith with the clusters in memory, for
// runs of many labs. Tests replace it.
var newMemoryExecutor = func(env *Env, settings map[string]string, sandboxed bool) labs.NewExecutor {
	return repl.LabExecutorInMemory(repl.Options{Content: env.Content, Settings: settings, Sandboxed: sandboxed})
}

// progressOrMemory is the learner's progress file, or progress kept in
// memory when there is no file to keep it in (no HOME) or it cannot be
// read (then with a warning): what the learner does never fails for it.
func progressOrMemory(env *Env, name string) *labs.Progress {
	getenv := env.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	path, err := labs.ProgressPath(getenv)
	if err != nil {
		return &labs.Progress{}
	}
	p, err := labs.LoadProgress(path)
	if err != nil {
		fmt.Fprintf(env.Stderr, "minikafka %s: %v (progress is not recorded)\n", name, err)
		return &labs.Progress{}
	}
	return p
}
