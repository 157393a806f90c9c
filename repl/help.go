package repl

import (
	"fmt"
	"io"
	"strings"
)

// groupOrder is the order of the help sections.
var groupOrder = []string{
	"Cluster and time",
	"Topics and records",
	"Producers",
	"Replication and failure",
	"The log on disk",
	"Consumers and groups",
	"Transactions",
	"JSON/TCP adapter",
	"Kafka protocol",
	"Views and checks",
	"Course",
	"Session",
}

// helpList is the result of `help`.
type helpList struct {
	Commands []helpEntry `json:"commands"`
}

type helpEntry struct {
	Name     string `json:"name"`
	Synopsis string `json:"synopsis"`
	Summary  string `json:"summary"`
	Group    string `json:"group"`
	Chapter  int    `json:"chapter,omitempty"`
}

func newHelpList(r *Registry) helpList {
	var l helpList
	for _, g := range groupOrder {
		for _, c := range r.All() {
			if c.GroupName() == g {
				l.Commands = append(l.Commands, helpEntry{
					Name: c.FullName(), Synopsis: c.Synopsis(), Summary: c.Summary,
					Group: g, Chapter: c.ChapterNumber(),
				})
			}
		}
	}
	return l
}

func (l helpList) writeText(w io.Writer, st *style) error {
	width := 0
	for _, e := range l.Commands {
		width = max(width, len(e.Name))
	}
	fmt.Fprintln(w, "Commands (`help COMMAND` shows the arguments and which chapter teaches it):")
	group := ""
	for _, e := range l.Commands {
		if e.Group != group {
			group = e.Group
			fmt.Fprintf(w, "\n%s\n", st.paint(st.heading, group))
		}
		ch := "     "
		if e.Chapter > 0 {
			ch = fmt.Sprintf("ch.%-2d", e.Chapter)
		}
		fmt.Fprintf(w, "  %-*s  %s  %s\n", width, e.Name, ch, e.Summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Arguments: positional words, then key=value, then flags. Quote \"two words\",")
	fmt.Fprintln(w, "write bytes as hex:6869 or b64:aGk=, durations as 500ms, 10s, 2m. # starts a comment.")
	fmt.Fprintln(w, "Concepts: help hw, help isr, help lso, ... (help concepts lists them).")
	fmt.Fprintln(w, "`help rules` compares MiniKafka's rules with Kafka's; `help errors` lists the error codes.")
	return nil
}

// helpTopic is the result of `help COMMAND`.
type helpTopic struct {
	Name        string      `json:"name"`
	Summary     string      `json:"summary"`
	Usage       []string    `json:"usage"`
	Detail      string      `json:"detail,omitempty"`
	Chapter     int         `json:"chapter,omitempty"`
	Subcommands []helpEntry `json:"subcommands,omitempty"`
}

func newHelpTopic(c *Command) helpTopic {
	t := helpTopic{Name: c.FullName(), Summary: c.Summary, Detail: c.detail(), Chapter: c.ChapterNumber()}
	if c.Run != nil {
		t.Usage = append(t.Usage, c.Synopsis())
	}
	for _, s := range c.Sub {
		t.Usage = append(t.Usage, s.Synopsis())
		t.Subcommands = append(t.Subcommands, helpEntry{
			Name: s.FullName(), Synopsis: s.Synopsis(), Summary: s.Summary,
			Group: s.GroupName(), Chapter: s.ChapterNumber(),
		})
	}
	return t
}

func (t helpTopic) writeText(w io.Writer, st *style) error {
	fmt.Fprintf(w, "%s: %s\n\n", st.paint(st.heading, t.Name), t.Summary)
	fmt.Fprintln(w, "usage:")
	for _, u := range t.Usage {
		fmt.Fprintf(w, "  %s\n", u)
	}
	if len(t.Subcommands) > 0 {
		width := 0
		for _, s := range t.Subcommands {
			width = max(width, len(s.Name))
		}
		fmt.Fprintln(w)
		for _, s := range t.Subcommands {
			fmt.Fprintf(w, "  %-*s  %s\n", width, s.Name, s.Summary)
		}
	}
	if t.Detail != "" {
		fmt.Fprintln(w)
		for _, line := range strings.Split(strings.TrimSpace(t.Detail), "\n") {
			if line == "" {
				fmt.Fprintln(w)
				continue
			}
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
	fmt.Fprintln(w)
	if t.Chapter > 0 {
		fmt.Fprintf(w, "Taught in %s.\n", chapterLabel(t.Chapter))
	} else {
		fmt.Fprintln(w, "Part of the tool itself; no chapter teaches it.")
	}
	if len(t.Subcommands) > 0 {
		fmt.Fprintf(w, "`help %s SUBCOMMAND` explains one subcommand.\n", t.Name)
	}
	return nil
}

// runHelp implements `help [COMMAND [SUBCOMMAND]]`.
func runHelp(s *Session, w io.Writer, a *Args) error {
	if a.Len() == 0 {
		return s.emit(w, newHelpList(s.reg))
	}
	names := a.Rest(0)
	c := s.reg.Lookup(names[0])
	if c == nil && len(names) == 1 { // not a command: a concept (help hw), then help rules and errors
		if names[0] == "concepts" {
			return s.emit(w, s.helpConcepts())
		}
		if t, ok := s.lookupConcept(names[0]); ok {
			return s.emit(w, t)
		}
	}
	if topic, ok := helpTopics[names[0]]; ok && c == nil && len(names) == 1 {
		return s.emit(w, topic(s))
	}
	if c == nil {
		return s.reg.unknown(names[0])
	}
	if len(names) > 1 {
		sub := c.sub(names[1])
		if sub == nil || len(names) > 2 {
			return a.usage("%s has no subcommand %q; try: help %s", c.Name, strings.Join(names[1:], " "), c.Name)
		}
		c = sub
	}
	if c == s.reg.Lookup("explore") {
		return s.emit(w, s.exploreHelp(newHelpTopic(c)))
	}
	return s.emit(w, newHelpTopic(c))
}

// WriteCommandsMarkdown writes docs/commands.md: the reference of every REPL
// command, generated from the registry.
func WriteCommandsMarkdown(w io.Writer) error {
	r := theRegistry()
	var b strings.Builder
	b.WriteString("# MiniKafka Lab REPL commands\n\n")
	b.WriteString("<!-- Generated from the command registry (repl/commands.go) by `go test ./repl -update`. Do not edit. -->\n\n")
	b.WriteString("Every command is one line: `verb [subverb] positional... key=value... flag...`.\n")
	b.WriteString("The same language runs in the interactive REPL, in piped scripts (`minikafka repl < script.mk`),\n")
	b.WriteString("in labs, in exercises and in chapter transcripts. Inside the REPL, `help COMMAND` shows the same text.\n\n")
	b.WriteString("## Syntax\n\n")
	b.WriteString(syntaxDoc)
	b.WriteString("\n## Index\n\n| Command | Chapter | Does |\n|---|---|---|\n")
	for _, e := range newHelpList(r).Commands {
		ch := "–"
		if e.Chapter > 0 {
			ch = fmt.Sprint(e.Chapter)
		}
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s |\n", e.Name, anchor(e.Name), ch, strings.ReplaceAll(e.Summary, "|", `\|`))
	}
	for _, g := range groupOrder {
		fmt.Fprintf(&b, "\n## %s\n", g)
		for _, c := range r.Commands() {
			if c.GroupName() != g {
				continue
			}
			if len(c.Sub) == 0 {
				writeCommandMarkdown(&b, "###", c)
				continue
			}
			fmt.Fprintf(&b, "\n### %s\n\n%s.\n", c.Name, capitalize(c.Summary))
			if d := strings.TrimSpace(c.detail()); d != "" {
				fmt.Fprintf(&b, "\n%s\n", d)
			}
			if c.Run != nil {
				fmt.Fprintf(&b, "\n```\n%s\n```\n", c.Synopsis())
			}
			for _, sub := range c.Sub {
				writeCommandMarkdown(&b, "####", sub)
			}
			if n := c.ChapterNumber(); n > 0 {
				fmt.Fprintf(&b, "\nTaught in %s.\n", chapterLabel(n))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeCommandMarkdown(b *strings.Builder, level string, c *Command) {
	fmt.Fprintf(b, "\n%s %s\n\n```\n%s\n```\n\n%s.\n", level, c.FullName(), c.Synopsis(), capitalize(c.Summary))
	if d := strings.TrimSpace(c.detail()); d != "" {
		fmt.Fprintf(b, "\n%s\n", d)
	}
	if c.parent == nil || c.Chapter != 0 {
		if n := c.ChapterNumber(); n > 0 {
			fmt.Fprintf(b, "\nTaught in %s.\n", chapterLabel(n))
		}
	}
}

// syntaxDoc is the argument syntax, shared by docs/commands.md.
const syntaxDoc = "- Partitions are written Kafka-style: `orders-0` (split at the last `-`).\n" +
	"- Values: `value=hello`, quoted `value=\"two words\"` or `value='two words'`; in double quotes `\\\"`, `\\\\`, `\\n`, `\\t`, `\\r` and `\\xHH` are escapes.\n" +
	"- Bytes: `value=hex:68656c6c6f` or `value=b64:aGVsbG8=` (only when the value is not quoted).\n" +
	"- A missing `key=` means a null key; `key=\"\"` (or `key=`) is the empty byte string; the flag `tombstone` means a null value.\n" +
	"- Durations: `500ms`, `10s`, `2m`, `1h`, or a bare integer of milliseconds.\n" +
	"- Config names are Kafka's: `acks`, `batch.size`, `linger.ms`, `min.insync.replicas`, `segment.bytes`, `retention.ms`, ...\n" +
	"- A bare word that names one of the command's flags is that flag; quote it (`\"tombstone\"`) to pass it as a word.\n" +
	"- `#` at the start of a word begins a comment; a blank line does nothing.\n" +
	"- A command that changes nothing visible prints `ok`; a failure prints `error: CODE: message` plus a `usage:` or `hint:` line and changes nothing.\n" +
	"- `--format json` prints one JSON object per command: `{\"command\":...,\"ok\":true,\"result\":{...}}` or `{\"command\":...,\"ok\":false,\"error\":{\"code\":...,\"message\":...}}`.\n"

func anchor(name string) string { return strings.ReplaceAll(name, " ", "-") }

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
