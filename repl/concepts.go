package repl

import (
	"embed"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/minikafka-lab/minikafka/labs"
)

// The concept help (help hw, help isr, ...): a two-line definition of each
// idea the chapters teach, and where it is taught. The texts live in
// concepts/LANG.txt, one file per language, entry for entry.

//go:embed concepts/*.txt
var conceptFiles embed.FS

// concept is one entry of a concepts file.
type concept struct {
	Name       string   `json:"topic"`
	Aliases    []string `json:"aliases,omitempty"`
	Definition []string `json:"definition"`
	Chapter    int      `json:"chapter"`
	Labs       []string `json:"labs,omitempty"`
	Exercises  []string `json:"exercises,omitempty"`
	Related    []string `json:"related,omitempty"`
	// chapterTitle and the framing texts, in the concept's language.
	chapterTitle string
	msg          *labs.Messages
}

// parseConcepts reads a concepts file: "== NAME [ALIAS...]", the
// definition lines, "taught: CHAPTER [lab ID | exercise ID]...", "related:
// NAME...". '#' lines and blank lines separate entries.
func parseConcepts(name string, src []byte) ([]concept, error) {
	var out []concept
	var cur *concept
	bad := func(n int, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", name, n, fmt.Sprintf(format, args...))
	}
	for i, line := range strings.Split(string(src), "\n") {
		n := i + 1
		line = strings.TrimRight(line, " \t\r")
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case strings.HasPrefix(line, "== "):
			f := strings.Fields(strings.TrimPrefix(line, "== "))
			if len(f) == 0 {
				return nil, bad(n, "a concept without a name")
			}
			out = append(out, concept{Name: f[0], Aliases: f[1:]})
			cur = &out[len(out)-1]
		case cur == nil:
			return nil, bad(n, "text before the first \"== NAME\" line")
		case strings.HasPrefix(line, "taught: "):
			f := strings.Fields(strings.TrimPrefix(line, "taught: "))
			ch, err := strconv.Atoi(f[0])
			if err != nil || ch < 1 {
				return nil, bad(n, "taught: starts with a chapter number")
			}
			cur.Chapter = ch
			for j := 1; j+1 < len(f); j += 2 {
				switch f[j] {
				case "lab":
					cur.Labs = append(cur.Labs, f[j+1])
				case "exercise":
					cur.Exercises = append(cur.Exercises, f[j+1])
				default:
					return nil, bad(n, "taught: lists \"lab ID\" and \"exercise ID\", not %q", f[j])
				}
			}
			if len(f)%2 == 0 {
				return nil, bad(n, "taught: %q has no ID", f[len(f)-1])
			}
		case strings.HasPrefix(line, "related: "):
			cur.Related = strings.Fields(strings.TrimPrefix(line, "related: "))
		default:
			if cur.Chapter != 0 {
				return nil, bad(n, "definition text after taught:")
			}
			cur.Definition = append(cur.Definition, line)
		}
	}
	for _, c := range out {
		if len(c.Definition) != 2 || c.Chapter == 0 {
			return nil, fmt.Errorf("%s: %s: a concept has a two-line definition and a taught: line", name, c.Name)
		}
	}
	return out, nil
}

// concepts are the concept texts by language, read once.
var concepts = sync.OnceValues(func() (map[labs.Language][]concept, error) {
	out := map[labs.Language][]concept{}
	for _, lang := range append([]labs.Language{labs.English}, labs.Translations...) {
		name := "concepts/" + string(lang) + ".txt"
		src, err := conceptFiles.ReadFile(name)
		if err != nil {
			return nil, err
		}
		cs, err := parseConcepts(name, src)
		if err != nil {
			return nil, err
		}
		out[lang] = cs
	}
	return out, nil
})

// lookupConcept finds a concept by name or alias in the session's language
// (English when it has no text in it).
func (s *Session) lookupConcept(name string) (concept, bool) {
	all, err := concepts()
	if err != nil {
		return concept{}, false
	}
	name = strings.ToLower(name)
	for _, lang := range []labs.Language{s.lang(), labs.English} {
		for _, c := range all[lang] {
			if c.Name == name || slices.Contains(c.Aliases, name) {
				c.chapterTitle = chapterTitles[c.Chapter]
				if co, err := s.theCourse(); err == nil {
					if ch, err := co.cat.ChapterIn(strconv.Itoa(c.Chapter), lang); err == nil {
						c.chapterTitle = strings.TrimSpace(strings.TrimPrefix(ch.Title, strconv.Itoa(c.Chapter)+"."))
					}
					c.msg = co.messages(lang)
				}
				return c, true
			}
		}
	}
	return concept{}, false
}

// conceptNames lists every concept name, for completion and help concepts.
func conceptNames() []string {
	all, err := concepts()
	if err != nil {
		return nil
	}
	var out []string
	for _, c := range all[labs.English] {
		out = append(out, c.Name)
	}
	return out
}

func (c concept) writeText(w io.Writer, st *style) error {
	name := st.paint(st.heading, c.Name)
	if len(c.Aliases) > 0 {
		name += " (" + strings.Join(c.Aliases, ", ") + ")"
	}
	fmt.Fprintln(w, name)
	for _, l := range c.Definition {
		fmt.Fprintln(w, "  "+l)
	}
	var try []string
	for _, l := range c.Labs {
		try = append(try, "lab step "+l)
	}
	for _, e := range c.Exercises {
		try = append(try, "exercise try "+e)
	}
	fmt.Fprintln(w, c.msg.Sprintf("Taught in chapter %d (%s): read %d.", c.Chapter, c.chapterTitle, c.Chapter))
	if len(try) > 0 {
		fmt.Fprintln(w, c.msg.Sprintf("Try it: %s.", strings.Join(try, ", ")))
	}
	if len(c.Related) > 0 {
		fmt.Fprintln(w, c.msg.Sprintf("Related: %s (help TOPIC).", strings.Join(c.Related, ", ")))
	}
	return nil
}

// conceptList is help concepts.
type conceptList struct {
	Topics []concept `json:"topics"`
}

func (l conceptList) writeText(w io.Writer, _ *style) error {
	width := 0
	for _, c := range l.Topics {
		width = max(width, len(c.Name))
	}
	var msg *labs.Messages
	if len(l.Topics) > 0 {
		msg = l.Topics[0].msg
	}
	fmt.Fprintln(w, msg.T("Concepts (help TOPIC explains one and names the chapter and labs that teach it):"))
	for _, c := range l.Topics {
		line := fmt.Sprintf("  %-*s  %s", width, c.Name, c.Definition[0])
		if textWidth(line) > 80 {
			line = widths.Truncate(line, 79, "") + "…"
		}
		fmt.Fprintln(w, line)
	}
	return nil
}

// helpConcepts is the list of concepts in the session's language.
func (s *Session) helpConcepts() conceptList {
	var l conceptList
	for _, name := range conceptNames() {
		if c, ok := s.lookupConcept(name); ok {
			l.Topics = append(l.Topics, c)
		}
	}
	return l
}
