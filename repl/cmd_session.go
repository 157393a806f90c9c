package repl

import (
	"fmt"
	"io"
)

var helpCommand = &Command{
	Name:    "help",
	Args:    "[COMMAND [SUBCOMMAND]]",
	Summary: "list the commands, or explain one and name the chapter that teaches it",
	Detail: `Without an argument, help lists every command by topic with the chapter
that teaches it. help COMMAND shows the usage of a command and all its
subcommands; help COMMAND SUBCOMMAND explains one subcommand. help rules
lists the rules that differ between MiniKafka and Kafka 4.x, each with
both behaviours, the Kafka source it follows and the lab that runs it
under both; help errors lists every error code with Kafka's name and
number.`,
	Group:      "Session",
	Positional: []Param{{Name: "COMMAND", Optional: true, Rest: true}},
	Run:        runHelp,
}

var historyCommand = &Command{
	Name:    "history",
	Summary: "list the commands this session has run, ready to paste into a script",
	Detail: `Prints every command line this session ran, numbered, including ones
that failed. Interactive sessions also keep a persistent history for the
up arrow and Ctrl-R ($XDG_STATE_HOME/minikafka/history or
~/.minikafka_history).`,
	Group: "Session",
	Run:   runHistory,
}

var exitCommand = &Command{
	Name:    "exit",
	Summary: "leave the REPL (Ctrl-D does the same)",
	Detail: `Ends the session: the cluster is closed gracefully and its temporary
data directory removed (a directory given with --data is kept). In a piped
script, the lines after exit are not run.`,
	Group: "Session",
	Run:   runExit,
}

var quitCommand = &Command{
	Name:    "quit",
	Summary: "the same as exit",
	Group:   "Session",
	Run:     runExit,
}

// historyResult lists the session's command lines.
type historyResult struct {
	History []string `json:"history"`
}

func (h historyResult) writeText(w io.Writer, _ *style) error {
	if len(h.History) == 0 {
		fmt.Fprintln(w, "(no commands yet)")
	}
	for i, l := range h.History {
		fmt.Fprintf(w, "%4d  %s\n", i+1, l)
	}
	return nil
}

func runHistory(s *Session, w io.Writer, a *Args) error {
	// The history command itself was appended last; leave it out.
	return s.emit(w, historyResult{History: append([]string{}, s.history[:len(s.history)-1]...)})
}

type exitResult struct {
	Exit bool `json:"exit"`
}

func (exitResult) writeText(w io.Writer, _ *style) error {
	_, err := fmt.Fprintln(w, "bye")
	return err
}

func runExit(s *Session, w io.Writer, a *Args) error {
	s.exited = true
	return s.emit(w, exitResult{Exit: true})
}
