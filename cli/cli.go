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
	"strings"

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
	}
}

// Subcommand is one entry of the command line.
type Subcommand struct {
	Name     string
	Synopsis string // e.g. "dump-log FILE [--format text|json] [--records]"
	Summary  string // one line for `minikafka help`
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
		return usage(env.Stdout, 0)
	}
	switch args[0] {
	case "help", "-h", "--help":
		if len(args) > 1 {
			if c := find(args[1]); c != nil {
				fmt.Fprintf(env.Stdout, "usage: minikafka %s\n\n%s\n", c.Synopsis, c.Summary)
				return 0
			}
		}
		return usage(env.Stdout, 0)
	}
	c := find(args[0])
	if c == nil {
		fmt.Fprintf(env.Stderr, "minikafka: unknown command %q\n\n", args[0])
		return usage(env.Stderr, 2)
	}
	return c.Run(env, args[1:])
}

func find(name string) *Subcommand {
	for _, c := range subcommands() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func usage(w io.Writer, status int) int {
	fmt.Fprintln(w, "MiniKafka Lab: learn how Kafka works by running it.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "usage: minikafka [--lang en|zh] COMMAND ...")
	width := 0
	for _, c := range subcommands() {
		width = max(width, len(c.Synopsis))
	}
	for _, c := range subcommands() {
		fmt.Fprintf(w, "  minikafka %-*s  %s\n", width, c.Synopsis, c.Summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run `minikafka help COMMAND` for one command. --lang chooses the language of")
	fmt.Fprintln(w, "the chapters, labs, exercises and quizzes (default: zh when LC_ALL, LC_MESSAGES")
	fmt.Fprintln(w, "or LANG starts with zh, else en).")
	return status
}
