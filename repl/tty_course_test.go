//go:build unix

package repl

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/labs"
)

// output is everything the terminal printed so far.
func (term *terminal) output() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.out.String()
}

// run types a command and Enter, and waits for the next prompt; it
// returns what the command printed (without the echoed line and the
// prompt), with the editor's escape sequences removed.
func (term *terminal) run(cmd, prompt string) string {
	term.t.Helper()
	term.send(cmd + "\r")
	term.expect(cmd + "\r\n")
	from := term.mark
	term.expect(prompt)
	return cleanTerminal(term.output()[from : term.mark-len(prompt)])
}

// terminalEscapes are the editor's cursor and erase sequences.
var terminalEscapes = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

func cleanTerminal(s string) string {
	s = terminalEscapes.ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.TrimRight(strings.ReplaceAll(s, "\r", ""), "\n ")
}

func needTerminal(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a process on a pseudo-terminal")
	}
	t.Parallel()
}

// TestTerminalLabStep: lab step inside the REPL reads through the line
// editor: Tab completes step mode's words, commands and the lab's live
// names; the up arrow and Ctrl-R recall lines; Ctrl-C clears the line being
// typed (the lab goes on); the pending step reads "next:"; quit comes back
// to the session, whose cluster is untouched; a command of one's own that
// only inspects does not leave the script.
func TestTerminalLabStep(t *testing.T) {
	needTerminal(t)
	term := startTerminal(t, t.TempDir())
	term.expect("mk> ")
	term.run("topic create mine", "mk> ")
	term.send("lab step 01-01\r")
	term.expect("next: cluster open brokers=1,2,3")
	term.expect("01-01 1/9> ")
	term.send("\r") // step 1
	term.expect("next: topic create orders partitions=2 rf=1")
	term.expect("01-01 2/9> ")
	term.send("\r") // step 2
	term.expect("01-01 3/9> ")

	// Tab completes a command and a live name of the lab's cluster.
	term.send("top\t")
	term.expect("topic ")
	term.send("describe or\t")
	term.expect("orders ")
	term.send("\r")
	term.expect("Topic: orders\tPartitionCount: 2")
	term.expect("01-01 3/9> ")
	if strings.Contains(term.output(), "You left the script") {
		t.Error("an inspection left the script")
	}
	// Tab completes step mode's own words.
	term.send("bac\t")
	term.expect("back ")
	term.send("\x15") // Ctrl-U: clear the line
	// Ctrl-C clears a line being typed; the lab goes on at the same step.
	term.send("garbage-line\x03")
	term.expect("01-01 3/9> ")
	// Ctrl-R searches the history; Enter runs the match.
	term.send("\x12describe")
	term.expect("topic describe orders")
	term.send("\r")
	term.expect("Topic: orders\tPartitionCount: 2")
	term.expect("01-01 3/9> ")
	// The up arrow recalls the last line typed.
	term.send("\x1b[A")
	term.expect("topic describe orders")
	term.send("\r")
	term.expect("Topic: orders\tPartitionCount: 2")
	term.expect("01-01 3/9> ")
	term.send("\r") // step 3
	term.expect("01-01 4/9> ")
	term.send("quit\r")
	term.expect("Stopped at step 4 of 9.")
	term.expect("Back in your session: your cluster is as you left it.")
	term.expect("mk> ")
	if got := term.run("topic list", "mk> "); got != "mine" {
		t.Errorf("the session's cluster changed: topic list = %q", got)
	}
	if strings.Contains(term.output(), "unknown command \"garbage-line\"") {
		t.Error("Ctrl-C ran the line instead of clearing it")
	}
	// Ctrl-D at a lab's prompt leaves the lab, not the REPL.
	term.send("lab step 01-01 from=9\r")
	term.expect("Starting at step 9")
	term.expect("01-01 9/9> ")
	term.send("\x04")
	term.expect("Back in your session")
	term.expect("mk> ")
}

// TestTerminalExerciseTry: exercise try sets the exercise up on a fresh
// cluster, the learner types commands, check shows ✓/✗ with expected and
// actual and the hint of the first failing check, and once solved the
// progress file has it and the next step is named.
func TestTerminalExerciseTry(t *testing.T) {
	needTerminal(t)
	state := t.TempDir()
	term := startTerminal(t, state)
	term.expect("mk> ")
	term.send("exercise try 01-03\r")
	term.expect("The setup ran on a fresh cluster (2 commands):")
	term.expect("mk> ")
	term.run("produce events value=a acks=1", "mk> ")
	got := term.run("check", "mk> ")
	for _, want := range []string{"✗ check events-0 leo@1 == 2", "expected events-0 leo@1 == 2, got 1",
		"Hint for `check events-0 leo@1 == 2`: The leader holds two records", "✗ 4 of 7 checks failed."} {
		if !strings.Contains(got, want) {
			t.Errorf("first check lacks %q:\n%s", want, got)
		}
	}
	term.run("replicate", "mk> ")
	term.run("produce events value=b acks=1", "mk> ")
	got = term.run("check", "mk> ")
	if !strings.Contains(got, "✓ Solved: all 7 checks pass.") || !strings.Contains(got, "Next: `read 1` (1. Meet MiniKafka)") {
		t.Errorf("second check:\n%s", got)
	}
	if p, err := os.ReadFile(filepath.Join(state, "minikafka", "progress")); err != nil || !strings.Contains(string(p), "01-03 leo-ahead-of-hw solved") {
		t.Errorf("progress: %q %v", p, err)
	}
}

// TestTerminalUndo: undo brings offsets and show back to exactly what
// they printed before the commands it takes back.
func TestTerminalUndo(t *testing.T) {
	needTerminal(t)
	term := startTerminal(t, t.TempDir())
	term.expect("mk> ")
	term.run("topic create events partitions=1 rf=3", "mk> ")
	term.run("produce events value=first acks=all", "mk> ")
	term.run("replicate", "mk> ")
	offsets := term.run("offsets events-0", "mk> ")
	show := term.run("show events-0", "mk> ")
	term.run("broker crash 2", "mk> ")
	term.run("produce events value=second acks=1", "mk> ")
	term.run("clock advance 20s", "mk[20000ms]> ")
	if got := term.run("offsets events-0", "mk[20000ms]> "); got == offsets {
		t.Fatal("nothing changed")
	}
	got := term.run("undo 3", "mk> ")
	if !strings.Contains(got, "undid 3 commands (the clock reads 0 ms):") {
		t.Errorf("undo:\n%s", got)
	}
	if got := term.run("offsets events-0", "mk> "); got != offsets {
		t.Errorf("offsets after undo:\n%s\nwant:\n%s", got, offsets)
	}
	if got := term.run("show events-0", "mk> "); got != show {
		t.Errorf("show after undo:\n%s\nwant:\n%s", got, show)
	}
}

// TestTerminalFork: two branches, switched back and forth, each showing
// its own state every time.
func TestTerminalFork(t *testing.T) {
	needTerminal(t)
	term := startTerminal(t, t.TempDir())
	term.expect("mk> ")
	term.run("topic create events partitions=1 rf=2", "mk> ")
	term.run("produce events value=a acks=1", "mk> ")
	mainShow := term.run("show events-0", "mk> ")
	term.run("fork crashed", "mk> ")
	term.run("broker crash 1", "mk> ")
	term.run("promote events-0 2", "mk> ")
	crashedShow := term.run("show events-0", "mk> ")
	if crashedShow == mainShow {
		t.Fatal("the branch did not change the picture")
	}
	for range 2 {
		if got := term.run("fork switch main", "mk> "); !strings.Contains(got, "on branch main") {
			t.Fatalf("switch: %s", got)
		}
		if got := term.run("show events-0", "mk> "); got != mainShow {
			t.Errorf("main:\n%s\nwant:\n%s", got, mainShow)
		}
		term.run("fork switch crashed", "mk> ")
		if got := term.run("show events-0", "mk> "); got != crashedShow {
			t.Errorf("crashed:\n%s\nwant:\n%s", got, crashedShow)
		}
	}
	if got := term.run("fork list", "mk> "); !strings.Contains(got, "* crashed") || !strings.Contains(got, "forked from main after 3") {
		t.Errorf("fork list:\n%s", got)
	}
}

// TestTerminalRecord: a session recorded at the terminal (colour and a
// wide terminal notwithstanding) gives a lab that `minikafka lab run --dir`
// passes.
func TestTerminalRecord(t *testing.T) {
	needTerminal(t)
	dir := t.TempDir()
	lab := filepath.Join(dir, "05-mine", "01-recorded-at-a-terminal.lab")
	term := startTerminal(t, t.TempDir())
	term.expect("mk> ")
	term.run("topic create events partitions=1 rf=2", "mk> ")
	term.run("record start "+lab, "mk> ")
	term.run("# The leader has it, the follower not yet.", "mk> ")
	term.run("produce events value=a-value-long-enough-to-be-cut acks=1", "mk> ")
	term.run("show events-0", "mk> ")
	term.run("replicate", "mk> ")
	term.run("offsets events-0", "mk> ")
	term.run("bogus", "mk> ")
	got := term.run("record stop", "mk> ")
	if !strings.Contains(got, "wrote "+lab+": 5 steps") {
		t.Fatalf("record stop:\n%s", got)
	}
	src, err := os.ReadFile(lab)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(src), "\x1b") || strings.Contains(string(src), "bogus") {
		t.Errorf("the lab holds colour or a failed command:\n%s", src)
	}
	// The runner behind lab run --dir ...
	cat, err := labs.Load(os.DirFS(dir), dir)
	if err != nil || len(cat.Problems) > 0 || len(cat.Labs) != 1 {
		t.Fatalf("%v %v", err, cat.Problems)
	}
	var out strings.Builder
	if failed := labs.RunLabs(&out, cat.Labs, LabExecutor(Options{}), labs.RunOptions{}); failed != 0 {
		t.Errorf("the recorded lab fails:\n%s\n%s", out.String(), src)
	}
	// ... and the program itself, as a teacher runs it.
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to run the program with")
	}
	cmd := exec.Command("go", "run", "..", "lab", "run", "--all", "--dir", dir)
	got2, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(got2), "✓ 05-01 recorded-at-a-terminal (5 steps)") {
		t.Errorf("lab run --dir: %v\n%s\nthe lab:\n%s", err, got2, src)
	}
}
