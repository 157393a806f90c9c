package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/minikafka-lab/minikafka/repl"
)

var exploreCommand = &Subcommand{
	Name:     "explore",
	Synopsis: "explore SCRIPT.mk [depth=N] [faults=N] [property=NAME] [ops=LIST] [acks=LIST] [values=N] [save=FILE.lab] [max-states=N]",
	Summary:  "run a script, then search every fault schedule from the state it built for the shortest one that breaks a property (the REPL's explore)",
	Usage: `usage: minikafka explore SCRIPT.mk [depth=N] [faults=N] [property=NAME]
                         [ops=LIST] [acks=LIST] [values=N] [save=FILE.lab]
                         [max-states=N]

Runs the commands of SCRIPT.mk in a fresh session (their output is not
shown; the first that fails stops it), then the REPL's explore command
with the options given: the shortest schedule of produces, follower
fetches, crashes, restarts, elections and clock steps that breaks the
property, or how many distinct states the search reached without breaking
it. On a terminal a progress line shows the states, the depth and the
states per second; Ctrl-C stops the search with what it found so far.
Exit status: 0 when no schedule breaks the property, 3 when one does, 1 on
a failing script, 2 on bad arguments. In the REPL, help explore explains
each property.
`,
	Run: runExplore,
}

func runExplore(env *Env, args []string) int {
	if len(args) == 0 || strings.Contains(args[0], "=") {
		fmt.Fprint(env.Stderr, env.say("minikafka explore: give the script that builds the cluster first: minikafka explore SCRIPT.mk [depth=N] ...\n"))
		return 2
	}
	script, err := os.ReadFile(args[0])
	if err != nil {
		fmt.Fprintf(env.Stderr, "minikafka explore: %v\n", err)
		return 1
	}
	for _, a := range args[1:] {
		if !strings.Contains(a, "=") || strings.HasPrefix(a, "-") {
			fmt.Fprint(env.Stderr, env.say(fmt.Sprintf("minikafka explore: %q is not an option: options are key=value (minikafka help explore)\n", a)))
			return 2
		}
	}
	opts := repl.Options{Content: env.Content, Lang: language(env, &materialArgs{})}
	if env.StdoutIsTerminal {
		opts.Width = repl.TerminalWidth
	}
	sigs := notifyShutdown()
	defer sigs.release()
	s, err := repl.NewSession(opts)
	if err != nil {
		fmt.Fprintf(env.Stderr, "minikafka explore: %v\n", err)
		return 1
	}
	defer s.Close()
	sigs.run(s, true, func() {})
	if status := runQuiet(env, s, args[0], script); status != 0 {
		return status
	}
	line := strings.Join(append([]string{"explore"}, args[1:]...), " ")
	var out bytes.Buffer
	w := io.Writer(&out)
	if env.StdoutIsTerminal {
		w = env.Stdout // the progress line goes straight to the terminal
	}
	err = s.Exec(w, line)
	switch {
	case w != io.Writer(&out):
	case err != nil:
		env.Stderr.Write(out.Bytes())
	default:
		env.Stdout.Write(out.Bytes())
	}
	switch {
	case err != nil:
		return 2 // the session printed the error with the usage
	case s.ExploreFound():
		return 3
	}
	return 0
}

// runQuiet runs the script's commands, printing only the first that fails.
func runQuiet(env *Env, s *repl.Session, name string, script []byte) int {
	sc := bufio.NewScanner(bytes.NewReader(script))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var out bytes.Buffer
		if err := s.Exec(&out, line); err != nil {
			fmt.Fprintf(env.Stderr, "minikafka explore: %s:%d: %s\n%s", name, n, line, out.String())
			return 1
		}
	}
	return 0
}
