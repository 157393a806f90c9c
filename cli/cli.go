// Package cli is the minikafka command line: one explicit table of
// subcommands (repl, lab, exercise, read, serve, dump-log, bench, version,
// help), each in its own file. main.go only embeds the teaching material and
// calls Main.
package cli

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/minikafka-lab/minikafka/internal/lazyre"
	"github.com/minikafka-lab/minikafka/labs"
)

// Env is everything a subcommand may touch, so that tests can run the whole
// command line in memory.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Content is the embedded teaching material: chapters/, labs/, fixtures/.
	Content fs.FS
	// Getenv reads the environment (NO_COLOR, XDG_STATE_HOME, HOME, ...).
	Getenv func(string) string
	// StdinIsTerminal and StdoutIsTerminal decide interactive mode and colour.
	StdinIsTerminal  bool
	StdoutIsTerminal bool
	// Lang is the language of the teaching material chosen with the global
	// flag `minikafka --lang zh|en ...`; "" follows LC_ALL, LC_MESSAGES and
	// LANG (see language).
	Lang string
	// Prog is how the learner ran the program, for the commands messages
	// suggest: "minikafka", or "go run ." (see progName); "" is "minikafka".
	Prog string
	// Interrupt, when set, stops a command that runs until Ctrl-C
	// (exercise check --watch) instead of the process's SIGINT.
	Interrupt <-chan struct{}
}

// prog is how to write a command line the learner can type: "minikafka"
// or "go run .".
func (env *Env) prog() string {
	if env.Prog == "" {
		return "minikafka"
	}
	return env.Prog
}

// say rewrites the command lines a text suggests ("minikafka lab list",
// "`minikafka read N`") for the way the learner ran the program; the
// program's name before a colon ("minikafka lab: ...") stays.
func (env *Env) say(text string) string {
	p := env.prog()
	if p == "minikafka" {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		shift := 0
		line = suggestion().ReplaceAllStringFunc(line, func(m string) string {
			sub := suggestion().FindStringSubmatch(m)
			if sub[3] == ":" { // an error's prefix
				return m
			}
			shift += len(p) - len("minikafka")
			return sub[1] + p + " " + sub[2]
		})
		lines[i] = realign(line, shift)
	}
	return strings.Join(lines, "\n")
}

// realign keeps a usage line's second column in place after its command
// grew by shift characters (or shrank, shift < 0): the first gap of two or
// more spaces gives them back (never below two).
func realign(line string, shift int) string {
	if shift == 0 {
		return line
	}
	i := strings.Index(strings.TrimLeft(line, " "), "  ")
	if i < 0 {
		return line
	}
	i += len(line) - len(strings.TrimLeft(line, " "))
	j := i
	for j < len(line) && line[j] == ' ' {
		j++
	}
	if j == len(line) {
		return line
	}
	gap := max(2, j-i-shift)
	return line[:i] + strings.Repeat(" ", gap) + line[j:]
}

// suggestion matches "minikafka WORD" at the start of a command line.
var suggestion = lazyre.New("(^|[\\s`(])minikafka ([a-z-]+|\\[)(:?)")

// progName is how the learner runs the program, judged from argv[0]:
// `go run .` builds into a temporary go-build directory; otherwise the
// name of the binary.
func progName(argv0 string) string {
	if strings.Contains(filepath.ToSlash(argv0), "/go-build") {
		return "go run ."
	}
	if base := filepath.Base(argv0); base != "" && base != "." && base != "/" {
		return base
	}
	return "minikafka"
}

// DefaultEnv is the process environment with the given embedded content.
func DefaultEnv(content fs.FS) *Env {
	return &Env{
		Stdin:            os.Stdin,
		Stdout:           os.Stdout,
		Stderr:           os.Stderr,
		Content:          content,
		Getenv:           os.Getenv,
		StdinIsTerminal:  isTerminal(os.Stdin),
		StdoutIsTerminal: isTerminal(os.Stdout),
		Prog:             progName(os.Args[0]),
	}
}

// Subcommand is one entry of the command line.
type Subcommand struct {
	Name     string
	Synopsis string // e.g. "dump-log FILE [--format text|json] [--records]"
	Summary  string // one line for `minikafka help`
	// Usage is the full usage text `minikafka help NAME` prints ("" for a
	// command whose synopsis says it all).
	Usage string
	// Run executes the subcommand with the arguments after its name and
	// returns the process exit status.
	Run func(env *Env, args []string) int
}

// subcommands is the one table of subcommands, in the order `help` lists them.
// The default (no arguments) is the REPL.
func subcommands() []*Subcommand {
	return []*Subcommand{
		replCommand,
		labCommand,
		exerciseCommand,
		readCommand,
		quizCommand,
		serveCommand,
		exploreCommand,
		dumpLogCommand,
		benchCommand,
		versionCommand,
	}
}

// Main runs the command line and returns the exit status. A leading
// `--lang zh|en` (or `--lang=zh`) chooses the language of the teaching
// material for the subcommand after it.
func Main(env *Env, args []string) int {
	for len(args) > 0 && (args[0] == "--lang" || strings.HasPrefix(args[0], "--lang=")) {
		value, ok := strings.CutPrefix(args[0], "--lang=")
		args = args[1:]
		if !ok {
			if len(args) == 0 {
				fmt.Fprintln(env.Stderr, "minikafka: --lang needs a language: en or zh")
				return 2
			}
			value, args = args[0], args[1:]
		}
		if _, err := labs.ParseLanguage(value); err != nil {
			fmt.Fprintf(env.Stderr, "minikafka: --lang: %v\n", err)
			return 2
		}
		env.Lang = value
	}
	if len(args) == 0 {
		if repl := find("repl"); repl != nil {
			return repl.Run(env, nil)
		}
		return usage(env, env.Stdout, 0)
	}
	switch args[0] {
	case "help", "-h", "--help":
		if len(args) > 1 {
			if c := find(args[1]); c != nil {
				if c.Usage != "" {
					fmt.Fprint(env.Stdout, env.say(c.Usage))
					return 0
				}
				fmt.Fprintf(env.Stdout, "%s\n\n%s\n", wrap("usage: ", env.prog()+" "+c.Synopsis, 80, "         "), wrap("", c.Summary, 80, ""))
				return 0
			}
			fmt.Fprintf(env.Stderr, "minikafka: no command %q%s\n\n", args[1], verbHint(args[1]))
			return usage(env, env.Stderr, 2)
		}
		return usage(env, env.Stdout, 0)
	}
	c := find(args[0])
	if c == nil {
		fmt.Fprintf(env.Stderr, "minikafka: unknown command %q%s\n\n", args[0], verbHint(args[0]))
		return usage(env, env.Stderr, 2)
	}
	return c.Run(env, args[1:])
}

// verbHint is " (did you mean lab?)" for a mistyped subcommand.
func verbHint(name string) string {
	var names []string
	for _, c := range subcommands() {
		names = append(names, c.Name)
	}
	return suggest(strings.TrimLeft(name, "-"), names...)
}

// suggest is " (did you mean X?)" when one of names is close to name.
func suggest(name string, names ...string) string {
	if c := labs.Closest(name, names); c != "" {
		return fmt.Sprintf(" (did you mean %s?)", c)
	}
	return ""
}

func find(name string) *Subcommand {
	for _, c := range subcommands() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func usage(env *Env, w io.Writer, status int) int {
	p := env.prog()
	fmt.Fprintln(w, "MiniKafka Lab: learn how Kafka works by running it.")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "usage: %s [--lang en|zh] [COMMAND [ARGS]]\n\n", p)
	fmt.Fprintln(w, "Commands (without one, the REPL):")
	width := 0
	for _, c := range subcommands() {
		width = max(width, len(c.Name))
	}
	indent := strings.Repeat(" ", width+4)
	for _, c := range subcommands() {
		fmt.Fprintln(w, wrap(fmt.Sprintf("  %-*s  ", width, c.Name), c.Summary, 80, indent))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, wrap("", fmt.Sprintf("`%s help COMMAND` shows a command's arguments. --lang chooses the language of the chapters, labs, exercises and quizzes (default: zh when LC_ALL, LC_MESSAGES or LANG starts with zh, else en).", p), 80, ""))
	return status
}

// wrap breaks text into lines of at most width columns at spaces, the
// first line after prefix, the others after indent.
func wrap(prefix, text string, width int, indent string) string {
	var b strings.Builder
	line := prefix
	fresh := true
	for _, word := range strings.Fields(text) {
		if !fresh && len(line)+1+len(word) > width {
			b.WriteString(line + "\n")
			line, fresh = indent, true
		}
		if !fresh {
			line += " "
		}
		line += word
		fresh = false
	}
	b.WriteString(line)
	return b.String()
}
