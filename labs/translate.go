package labs

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// LabText is a lab's text in another language, read from the file beside
// it with ".LANG" appended (labs/05-replication/01-leo-vs-hw.lab.zh). It
// holds the title, the narration of every step and the epilogue; the
// commands are repeated, without their output, so that each narration sits
// above the command it explains and a changed lab shows up as a mismatch.
type LabText struct {
	Path      string
	Lang      Language
	Title     string
	Narration [][]string // per step, as Block.Narration
	Epilogue  []string
	Commands  []Command
	lines     int // the number of lines, for messages about the end
}

// ParseLabText parses a lab translation: a "# title:" header, then '#'
// narration lines and command lines exactly as in the lab, but no "----"
// and no output.
func ParseLabText(name string, lang Language, src []byte) (*LabText, error) {
	lines := splitLines(string(src))
	t := &LabText{Path: name, Lang: lang, lines: max(len(lines), 1)}
	i := 0
	for ; i < len(lines); i++ {
		key, value, ok := parseHeaderLine(lines[i])
		if !ok {
			break
		}
		if key != "title" {
			return nil, errorAt(name, i+1, "unknown header %q (a translation's header has only a title; the rest comes from the lab)", key)
		}
		if t.Title != "" {
			return nil, errorAt(name, i+1, "header \"title\" given twice")
		}
		if value == "" {
			return nil, errorAt(name, i+1, "empty title")
		}
		t.Title = value
	}
	if t.Title == "" {
		return nil, errorAt(name, 1, "missing header line '# title: ...'")
	}
	var narration []string
	for ; i < len(lines); i++ {
		line := trimRight(lines[i])
		switch {
		case line == "":
			if len(narration) > 0 && narration[len(narration)-1] != "" {
				narration = append(narration, "")
			}
		case isComment(line):
			narration = append(narration, commentText(line))
		case line == fenceLine:
			return nil, errorAt(name, i+1, "---- in a translation: it holds the narration and the commands, not their output")
		default:
			t.Commands = append(t.Commands, Command{File: name, Line: i + 1, Text: strings.TrimSpace(line)})
			t.Narration = append(t.Narration, trimBlank(narration))
			narration = nil
		}
	}
	t.Epilogue = trimBlank(narration)
	return t, nil
}

// CheckText reports how a translation fails to match the lab: its commands
// must be the lab's, in order, and every step, and the epilogue, that has
// narration in the lab must have narration in the translation.
func (l *Lab) CheckText(t *LabText) error {
	var errs []error
	if len(t.Commands) != len(l.Blocks) {
		errs = append(errs, errorAt(t.Path, t.lines, "%d commands, but %s has %d steps: a translation repeats every command of the lab", len(t.Commands), l.Path, len(l.Blocks)))
	}
	for i := range min(len(t.Commands), len(l.Blocks)) {
		c, b := t.Commands[i], l.Blocks[i]
		if c.Text != b.Command {
			errs = append(errs, errorAt(t.Path, c.Line, "step %d is %q, but %s has %q", i+1, c.Text, b.Pos(), b.Command))
			continue
		}
		if len(b.Narration) > 0 && len(t.Narration[i]) == 0 {
			errs = append(errs, errorAt(t.Path, c.Line, "step %d has no narration, but %s has", i+1, b.Pos()))
		}
	}
	if len(l.Epilogue) > 0 && len(t.Epilogue) == 0 {
		errs = append(errs, errorAt(t.Path, t.lines, "no epilogue (narration after the last command), but %s has one", l.Path))
	}
	return errors.Join(errs...)
}

// In is the lab with its title and narration in lang. For English, or when
// the lab has no text in lang, it is the lab itself; the error then wraps
// ErrNoTranslation, so that callers can say so instead of falling back
// silently.
func (l *Lab) In(lang Language) (*Lab, error) {
	if lang == English || lang == "" {
		return l, nil
	}
	t := l.Texts[lang]
	if t == nil {
		return l, fmt.Errorf("lab %s has no %s text (expected %s.%s): %w", l.Name(), lang.Name(), l.Path, lang, ErrNoTranslation)
	}
	c := *l
	c.Title, c.Epilogue, c.Lang = t.Title, t.Epilogue, lang
	c.Blocks = make([]*Block, len(l.Blocks))
	for i, b := range l.Blocks {
		nb := *b
		nb.Narration = t.Narration[i]
		c.Blocks[i] = &nb
	}
	return &c, nil
}

// ExerciseText is an exercise's title, goal and hints in another language,
// read from the file beside it with ".LANG" appended
// (01-two-of-three.exercise.zh): the same "# title:", "# goal:" and
// "# hint:" lines as the exercise (continued on indented '#' lines), and
// nothing else.
type ExerciseText struct {
	Path  string
	Lang  Language
	Title string
	Goal  string
	Hints []string
	// CheckHints translate the exercise's hints among its checks, in
	// order ("# check-hint: ..." lines).
	CheckHints []string
}

// ParseExerciseText parses an exercise translation.
func ParseExerciseText(name string, lang Language, src []byte) (*ExerciseText, error) {
	t := &ExerciseText{Path: name, Lang: lang}
	var last *string
	for i, raw := range splitLines(string(src)) {
		line := trimRight(raw)
		n := i + 1
		if line == "" {
			last = nil
			continue
		}
		if !isComment(line) {
			return nil, errorAt(name, n, "%q: a translation holds only the title, goal and hints ('#' lines); setup and checks come from the exercise", line)
		}
		if text := strings.TrimPrefix(line, "#"); last != nil && (strings.HasPrefix(text, "  ") || strings.HasPrefix(text, "\t")) {
			*last += "\n" + strings.TrimSpace(text)
			continue
		}
		key, value, ok := parseHeaderLine(line)
		if !ok {
			last = nil
			continue // a translator's comment
		}
		if value == "" {
			return nil, errorAt(name, n, "empty %s", key)
		}
		switch key {
		case "title", "goal":
			p := &t.Title
			if key == "goal" {
				p = &t.Goal
			}
			if *p != "" {
				return nil, errorAt(name, n, "header %q given twice", key)
			}
			*p, last = value, p
		case "hint":
			t.Hints = append(t.Hints, value)
			last = &t.Hints[len(t.Hints)-1]
		case "check-hint":
			t.CheckHints = append(t.CheckHints, value)
			last = &t.CheckHints[len(t.CheckHints)-1]
		default:
			return nil, errorAt(name, n, "unknown header %q (a translation has title, goal, hint and check-hint)", key)
		}
	}
	switch {
	case t.Title == "":
		return nil, errorAt(name, 1, "missing header line '# title: ...'")
	case t.Goal == "":
		return nil, errorAt(name, 1, "missing header line '# goal: ...'")
	}
	return t, nil
}

// CheckText reports how a translation fails to match the exercise: it must
// have as many hints.
func (e *Exercise) CheckText(t *ExerciseText) error {
	if len(t.Hints) != len(e.Hints) {
		return errorAt(t.Path, 1, "%d hints, but %s has %d: translate every hint, in order", len(t.Hints), e.Path, len(e.Hints))
	}
	if len(t.CheckHints) != len(e.CheckHints) {
		return errorAt(t.Path, 1, "%d check-hints, but %s has %d hints among its checks: translate every one, in order", len(t.CheckHints), e.Path, len(e.CheckHints))
	}
	return nil
}

// In is the exercise with its title, goal and hints in lang; like Lab.In,
// without a text in lang it is the exercise itself and an error wrapping
// ErrNoTranslation.
func (e *Exercise) In(lang Language) (*Exercise, error) {
	if lang == English || lang == "" {
		return e, nil
	}
	t := e.Texts[lang]
	if t == nil {
		return e, fmt.Errorf("exercise %s has no %s text (expected %s.%s): %w", e.Name(), lang.Name(), e.Path, lang, ErrNoTranslation)
	}
	c := *e
	c.Title, c.Goal, c.Hints, c.Lang = t.Title, t.Goal, slices.Clone(t.Hints), lang
	c.CheckHints = slices.Clone(t.CheckHints)
	return &c, nil
}

// translationOf splits "01-leo-vs-hw.lab.zh" into "01-leo-vs-hw.lab" and
// Chinese; ok is false for any other name.
func translationOf(name string) (base string, lang Language, ok bool) {
	ext := path.Ext(name)
	if ext == "" {
		return "", "", false
	}
	lang = Language(ext[1:])
	base = strings.TrimSuffix(name, ext)
	inner := path.Ext(base)
	if !isTranslation(lang) || (inner != ".lab" && inner != ".exercise") {
		return "", "", false
	}
	return base, lang, true
}

// loadTexts reads the translations in dir and attaches them to the labs
// and exercises loaded from it (by their file names); a translation that
// does not parse, matches no file or does not match its file is a problem.
func (c *Catalog) loadTexts(dir string, files []fs.DirEntry, labs map[string]*Lab, exercises map[string]*Exercise) {
	for _, f := range files {
		base, lang, ok := translationOf(f.Name())
		if !ok || f.IsDir() {
			continue
		}
		fsPath := path.Join(dir, f.Name())
		name := c.name(fsPath)
		src, err := fs.ReadFile(c.FS, fsPath)
		if err != nil {
			c.Problems = append(c.Problems, fmt.Errorf("%s: %w", name, err))
			continue
		}
		switch path.Ext(base) {
		case ".lab":
			l := labs[base]
			if l == nil {
				c.Problems = append(c.Problems, fmt.Errorf("%s: a translation without a lab (expected %s beside it)", name, base))
				continue
			}
			t, err := ParseLabText(name, lang, src)
			if err == nil {
				err = l.CheckText(t)
			}
			if err != nil {
				c.Problems = append(c.Problems, err)
				continue
			}
			if l.Texts == nil {
				l.Texts = map[Language]*LabText{}
			}
			l.Texts[lang] = t
		case ".exercise":
			e := exercises[base]
			if e == nil {
				c.Problems = append(c.Problems, fmt.Errorf("%s: a translation without an exercise (expected %s beside it)", name, base))
				continue
			}
			t, err := ParseExerciseText(name, lang, src)
			if err == nil {
				err = e.CheckText(t)
			}
			if err != nil {
				c.Problems = append(c.Problems, err)
				continue
			}
			if e.Texts == nil {
				e.Texts = map[Language]*ExerciseText{}
			}
			e.Texts[lang] = t
		}
	}
}

// MissingTexts lists, as errors naming the expected file, every lab,
// exercise and chapter of the catalog without a text in lang, and a missing
// messages file. The content tests require it to be empty for every
// translation of the built-in material.
func (c *Catalog) MissingTexts(lang Language) []error {
	var missing []error
	for _, l := range c.Labs {
		if _, err := l.In(lang); err != nil {
			missing = append(missing, err)
		}
	}
	for _, e := range c.Exercises {
		if _, err := e.In(lang); err != nil {
			missing = append(missing, err)
		}
	}
	for _, ch := range c.Chapters {
		if _, err := c.ChapterIn(fmt.Sprint(ch.Number), lang); err != nil {
			missing = append(missing, err)
		}
	}
	for _, t := range c.Translated {
		if t.Lang != lang {
			continue
		}
		if _, err := c.Chapter(t.Slug); err != nil {
			missing = append(missing, fmt.Errorf("%s: a translation without an English chapter", t.Path))
		}
	}
	if c.Messages[lang] == nil {
		missing = append(missing, fmt.Errorf("no %s messages (expected %s): %w", lang.Name(), c.name(path.Join(labsDir(c.FS), "messages."+string(lang))), ErrNoTranslation))
	}
	return missing
}

// In is a copy of the catalog whose labs and exercises carry their text in
// lang where they have one; the others keep their English text. It is for
// listings; a single lab or exercise should be asked with Lab.In or
// Exercise.In, which report a missing translation.
func (c *Catalog) In(lang Language) *Catalog {
	t := *c
	t.Labs = make([]*Lab, len(c.Labs))
	for i, l := range c.Labs {
		t.Labs[i], _ = l.In(lang)
	}
	t.Exercises = make([]*Exercise, len(c.Exercises))
	for i, e := range c.Exercises {
		t.Exercises[i], _ = e.In(lang)
	}
	return &t
}
