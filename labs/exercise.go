package labs

import (
	"errors"
	"strings"

	"github.com/minikafka-lab/minikafka/internal/lazyre"
)

// Exercise is one parsed .exercise file: a goal, hints, setup commands and
// the checks that judge the learner's attempt. Its reference solution is the
// file with the same name and the extension .solution beside it.
type Exercise struct {
	Path        string // file name used in messages
	ID          string // "05-01"; "" outside labs/NN-slug/
	Slug        string
	Title       string
	Chapter     int
	ChapterSlug string
	Goal        string   // may span lines
	Hints       []string // in the order they are given
	Setup       []Command
	Checks      []Command // each a `check ...` command
	// CheckHints are the hints written among the checks ("# hint: ..."
	// above them), in order; a hint belongs to the checks below it, up to
	// the next hint. When checks fail, the learner gets the hint of the
	// first failing one.
	CheckHints []string
	// hintOf is, for each check, the index of its hint in CheckHints, or -1.
	hintOf []int
	// Texts are the exercise's translations, by language (see In); Lang is
	// the language of Title, Goal and Hints ("" for English).
	Texts map[Language]*ExerciseText
	Lang  Language

	// SolutionPath is the reference solution's file name (Path with the
	// extension .solution); Solution is its text when the catalog found it.
	SolutionPath string
	Solution     []byte
	HasSolution  bool
}

// Command is one command line of a file, with its position.
type Command struct {
	File string
	Line int // 1-based
	Text string
}

// Name is "ID slug" (or the slug alone outside the labs/NN-slug/ layout).
func (e *Exercise) Name() string {
	if e.ID == "" {
		return e.Slug
	}
	return e.ID + " " + e.Slug
}

// sectionLine matches a section header such as "setup:".
var sectionLine = lazyre.New(`^([a-z]+):$`)

// ParseExercise parses the text of an exercise file. name is the file's path
// (used in messages, and for the ID and slug as in ParseLab). Every problem
// is reported as "NAME:LINE: what is wrong".
func ParseExercise(name string, src []byte) (*Exercise, error) {
	e := &Exercise{Path: name, SolutionPath: strings.TrimSuffix(name, ".exercise") + ".solution"}
	var chapterDir int
	e.ID, e.Slug, e.ChapterSlug, chapterDir = identify(name, ".exercise")
	lines := splitLines(string(src))
	seen := map[string]int{}
	section := ""    // "", "setup" or "checks"
	var last *string // the goal or hint that indented '#' lines continue
	for i, raw := range lines {
		line := trimRight(raw)
		n := i + 1
		if line == "" {
			last = nil
			continue
		}
		if isComment(line) {
			if section == "checks" {
				// "# hint: ..." among the checks is the hint for the checks
				// below it; indented '#' lines continue it.
				if text := strings.TrimPrefix(line, "#"); last != nil && (strings.HasPrefix(text, "  ") || strings.HasPrefix(text, "\t")) {
					*last += "\n" + strings.TrimSpace(text)
					continue
				}
				if key, value, ok := parseHeaderLine(line); ok && key == "hint" {
					if value == "" {
						return nil, errorAt(name, n, "empty hint")
					}
					e.CheckHints = append(e.CheckHints, value)
					last = &e.CheckHints[len(e.CheckHints)-1]
					continue
				}
				last = nil
				continue // an author's comment among the checks
			}
			if section != "" {
				continue // a comment among the commands
			}
			// An indented line continues the goal or hint above it, even
			// when its first word ends in ':' ("#   anything: ...").
			if text := strings.TrimPrefix(line, "#"); last != nil && (strings.HasPrefix(text, "  ") || strings.HasPrefix(text, "\t")) {
				*last += "\n" + strings.TrimSpace(text)
				continue
			}
			if key, value, ok := parseHeaderLine(line); ok {
				if err := e.setHeader(seen, key, value, n); err != nil {
					return nil, err
				}
				switch key {
				case "goal":
					last = &e.Goal
				case "hint":
					last = &e.Hints[len(e.Hints)-1]
				default:
					last = nil
				}
				continue
			}
			last = nil
			continue // an author's comment
		}
		last = nil
		if m := sectionLine().FindStringSubmatch(line); m != nil {
			switch {
			case m[1] == "setup" && section == "" && seen["setup:"] == 0:
				section = "setup"
			case m[1] == "checks" && seen["checks:"] == 0:
				section = "checks"
			case m[1] == "setup" || m[1] == "checks":
				return nil, errorAt(name, n, "section %q is out of place: setup: comes once, before checks:", m[1])
			default:
				return nil, errorAt(name, n, "unknown section %q: an exercise has setup: and checks: (the reference solution is the .solution file beside it)", m[1])
			}
			seen[m[1]+":"] = n
			continue
		}
		cmd := Command{File: name, Line: n, Text: strings.TrimSpace(line)}
		switch section {
		case "setup":
			e.Setup = append(e.Setup, cmd)
		case "checks":
			if f := strings.Fields(cmd.Text); f[0] != "check" {
				return nil, errorAt(name, n, "%q is not a check: every line under checks: is a `check ...` command", cmd.Text)
			}
			e.Checks = append(e.Checks, cmd)
			e.hintOf = append(e.hintOf, len(e.CheckHints)-1)
		default:
			return nil, errorAt(name, n, "command %q before setup: or checks:", cmd.Text)
		}
	}
	switch {
	case e.Title == "":
		return nil, errorAt(name, 1, "missing header line '# title: ...'")
	case e.Chapter == 0:
		return nil, errorAt(name, 1, "missing header line '# chapter: N'")
	case e.Goal == "":
		return nil, errorAt(name, 1, "missing header line '# goal: ...'")
	case seen["checks:"] == 0:
		return nil, errorAt(name, len(lines), "missing checks: section")
	case len(e.Checks) == 0:
		return nil, errorAt(name, seen["checks:"], "no checks: an exercise needs at least one `check ...` line")
	case chapterDir != 0 && chapterDir != e.Chapter:
		return nil, errorAt(name, seen["chapter"], "the header says chapter %d but the file is in chapter directory %02d", e.Chapter, chapterDir)
	}
	return e, nil
}

// HintFor is the hint written for Checks[i] ("" when none).
func (e *Exercise) HintFor(i int) string {
	if i < 0 || i >= len(e.hintOf) || e.hintOf[i] < 0 || e.hintOf[i] >= len(e.CheckHints) {
		return ""
	}
	return e.CheckHints[e.hintOf[i]]
}

func (e *Exercise) setHeader(seen map[string]int, key, value string, line int) error {
	if prev, dup := seen[key]; dup && key != "hint" {
		return errorAt(e.Path, line, "header %q given twice (first at line %d)", key, prev)
	}
	if _, dup := seen[key]; !dup {
		seen[key] = line
	}
	if value == "" {
		return errorAt(e.Path, line, "empty %s", key)
	}
	switch key {
	case "title":
		e.Title = value
	case "chapter":
		n, err := parseChapter(e.Path, line, value)
		if err != nil {
			return err
		}
		e.Chapter = n
	case "goal":
		e.Goal = value
	case "hint":
		e.Hints = append(e.Hints, value)
	default:
		return errorAt(e.Path, line, "unknown header %q (an exercise's header has title, chapter, goal and hint)", key)
	}
	return nil
}

// ParseCommands reads a file of plain commands (a learner's attempt or a
// reference solution): one command per line; blank lines and '#' comments
// are skipped.
func ParseCommands(name string, src []byte) []Command {
	var cmds []Command
	for i, raw := range splitLines(string(src)) {
		line := strings.TrimSpace(raw)
		if line == "" || isComment(line) {
			continue
		}
		cmds = append(cmds, Command{File: name, Line: i + 1, Text: line})
	}
	return cmds
}

func validateCommands(v Validator, lists ...[]Command) error {
	var errs []error
	for _, list := range lists {
		for _, c := range list {
			if err := validateLine(v, c.Text); err != nil {
				errs = append(errs, &SourceError{File: c.File, Line: c.Line, Err: err})
			}
		}
	}
	return errors.Join(errs...)
}
