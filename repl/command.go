package repl

import (
	"fmt"
	"io"
	"strings"
)

// Command is one entry of the REPL's command table: a verb such as
// "produce", or a verb with subcommands such as "broker" (list, crash,
// restart). The table drives dispatch, help, tab completion and
// docs/commands.md, so everything a learner can type is declared here.
type Command struct {
	Name    string // the verb or subverb: "produce", "crash"
	Args    string // synopsis after the name: "TOPIC [key=K] ..."
	Summary string // one line for the help list
	Detail  string // paragraphs for `help NAME`
	// MoreDetail, when set, returns paragraphs built from a table (the
	// config names, the check quantities) that `help NAME` shows after
	// Detail. They are built when help asks, not when the program starts.
	MoreDetail func() string
	Chapter    int    // the chapter that teaches it (0: the tool itself)
	Group      string // help section; subcommands inherit their parent's

	Positional []Param // positional arguments in order
	Keys       []Param // key=value names
	Flags      []Param // bare-word flags such as tombstone
	FreeKeys   bool    // any key=value is accepted (config names, TP=OFFSET)
	// Raw commands take the rest of the line as typed, not as words (the
	// JSON of remote and dispatch): Exec does not split it, and Args.Raw
	// returns it.
	Raw bool
	// Outside commands do not run on the goroutine that owns the cluster
	// while this session serves JSON/TCP (serve, remote): they talk to
	// the server, and take the cluster's events through it afterwards.
	Outside bool
	// Reports lists the engine event kinds the command's own output already
	// describes: they are left out of its text (JSON keeps every event).
	Reports []string

	// Sub lists the subcommands. A verb with both Sub and Run runs Run when
	// its first word is not a subcommand (`clock` vs `clock advance 10s`).
	Sub []*Command
	// Default names the subcommand run when the verb is typed alone
	// (`config` is `config show`).
	Default string
	// Run executes the command. It must validate every argument before it
	// changes state, and write only to w.
	Run func(s *Session, w io.Writer, a *Args) error

	parent *Command
}

// Param is a positional argument, a key or a flag, and how to complete it.
type Param struct {
	Name     string // "TOPIC", "acks", "tombstone"
	Optional bool   // positional only
	Rest     bool   // positional only: takes every remaining word
	// Values lists the completions for the argument or key value: fixed
	// choices or live names from the session. Nil means no completion.
	Values func(s *Session) []string
}

// detail is the command's help paragraphs: Detail, then MoreDetail's.
func (c *Command) detail() string {
	if c.MoreDetail == nil {
		return c.Detail
	}
	return c.Detail + c.MoreDetail()
}

// FullName is "broker crash" for a subcommand, "produce" for a verb.
func (c *Command) FullName() string {
	if c.parent != nil {
		return c.parent.Name + " " + c.Name
	}
	return c.Name
}

// Synopsis is the full name followed by the argument synopsis.
func (c *Command) Synopsis() string {
	if c.Args == "" {
		return c.FullName()
	}
	return c.FullName() + " " + c.Args
}

// ChapterNumber is the command's chapter, or its parent's when it has none.
func (c *Command) ChapterNumber() int {
	if c.Chapter == 0 && c.parent != nil {
		return c.parent.Chapter
	}
	return c.Chapter
}

// GroupName is the command's help section.
func (c *Command) GroupName() string {
	if c.Group == "" && c.parent != nil {
		return c.parent.Group
	}
	return c.Group
}

func (c *Command) key(name string) *Param {
	for i := range c.Keys {
		if c.Keys[i].Name == name {
			return &c.Keys[i]
		}
	}
	return nil
}

func (c *Command) flag(name string) *Param {
	for i := range c.Flags {
		if c.Flags[i].Name == name {
			return &c.Flags[i]
		}
	}
	return nil
}

func (c *Command) sub(name string) *Command {
	for _, s := range c.Sub {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// subNames lists the names of the subcommands.
func (c *Command) subNames() []string {
	var names []string
	for _, s := range c.Sub {
		names = append(names, s.Name)
	}
	return names
}

// Registry is the command table with parent links set.
type Registry struct {
	commands []*Command
}

// newRegistry links subcommands to their parents.
func newRegistry(cmds []*Command) *Registry {
	for _, c := range cmds {
		for _, s := range c.Sub {
			s.parent = c
		}
	}
	return &Registry{commands: cmds}
}

// Commands returns the top-level commands in table order.
func (r *Registry) Commands() []*Command { return r.commands }

// Lookup finds a verb by name.
func (r *Registry) Lookup(name string) *Command {
	for _, c := range r.commands {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// All returns every runnable command (verbs with Run, and subcommands) in
// table order.
func (r *Registry) All() []*Command {
	var out []*Command
	for _, c := range r.commands {
		if c.Run != nil {
			out = append(out, c)
		}
		out = append(out, c.Sub...)
	}
	return out
}

// resolve finds the command a line names and returns it with the words
// after its name.
func (r *Registry) resolve(words []Word) (*Command, []Word, error) {
	verb := words[0]
	c := r.Lookup(verb.Text)
	if c == nil || verb.Quoted || verb.IsPair {
		return nil, nil, r.unknown(verb.Text)
	}
	rest := words[1:]
	if len(rest) == 0 && c.Default != "" {
		return c.sub(c.Default), nil, nil
	}
	if len(c.Sub) > 0 {
		if len(rest) > 0 && !rest[0].Quoted && !rest[0].IsPair {
			if s := c.sub(rest[0].Text); s != nil {
				return s, rest[1:], nil
			}
		}
		strayWord := len(rest) > 0 && !rest[0].Quoted && !rest[0].IsPair && c.flag(rest[0].Text) == nil
		if c.Run == nil || (len(c.Positional) == 0 && strayWord) {
			msg := "missing subcommand: one of " + strings.Join(c.subNames(), ", ")
			if len(rest) > 0 {
				msg = fmt.Sprintf("unknown subcommand %q: one of ", rest[0].Text) + strings.Join(c.subNames(), ", ") + didYouMean(rest[0].Text, c.subNames())
			}
			return nil, nil, &UsageError{Command: c.Name, Usage: subUsage(c), Msg: c.Name + ": " + msg}
		}
	}
	return c, rest, nil
}

func (r *Registry) unknown(name string) error {
	var names []string
	for _, c := range r.commands {
		names = append(names, c.Name)
	}
	hint := "`help` lists every command"
	if s := closest(name, names); s != "" {
		hint = fmt.Sprintf("did you mean `%s`? `help` lists every command", s)
	}
	return &UsageError{Msg: fmt.Sprintf("unknown command %q", name), Hint: hint}
}

// subUsage lists the synopses of a verb's subcommands, one per line.
func subUsage(c *Command) string {
	var lines []string
	if c.Run != nil {
		lines = append(lines, c.Synopsis())
	}
	for _, s := range c.Sub {
		lines = append(lines, s.Synopsis())
	}
	return strings.Join(lines, "\n")
}

// closest returns the candidate nearest to s by edit distance when it is
// near enough to be a likely typo, else "".
func closest(s string, candidates []string) string {
	best, bestD := "", 3
	if len(s) <= 3 {
		bestD = 2
	}
	for _, c := range candidates {
		if d := editDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
