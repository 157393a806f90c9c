package repl

import (
	"fmt"
	"io"
)

var helpCommand = &Command{
	Name:    "help",
	Args:    "[COMMAND [SUBCOMMAND] | TOPIC]",
	Summary: "list the commands, explain one, or explain a concept (help hw) and where it is taught",
	Detail: `Without an argument, help lists every command by topic with the chapter
that teaches it. help COMMAND shows the usage of a command and all its
subcommands; help COMMAND SUBCOMMAND explains one subcommand. help TOPIC
explains a concept in two lines (hw, leo, isr, lso, epoch, acks,
generation, ...) and names the chapter, labs and exercises that teach it;
help concepts lists them. help rules lists the rules that differ between
MiniKafka and Kafka 4.x, each with both behaviours, the Kafka source it
follows and the lab that runs it under both; help errors lists every
error code with Kafka's name and number.`,
	Group:      "Session",
	Positional: []Param{{Name: "COMMAND", Optional: true, Rest: true}},
	Run:        runHelp,
}

var historyCommand = &Command{
	Name:    "history",
	Summary: "list the commands this session has run, ready to paste into a script",
	Detail: `Prints, numbered, every command of the current branch that succeeded and
changed or inspected the cluster: pasted into a script, they rebuild the
same state. Failed and unknown commands are left out, and so are session
commands such as help; commands taken back with undo are gone. Where the
branch was forked (fork NAME), a "# fork" comment line marks the point.
Interactive sessions also keep a persistent history of every line typed,
for the up arrow and Ctrl-R ($XDG_STATE_HOME/minikafka/history or
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
