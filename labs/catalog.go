package labs

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// Catalog is the teaching material found in an fs.FS: labs and exercises
// under labs/NN-chapter-slug/, chapters under chapters/.
type Catalog struct {
	FS fs.FS
	// Root is prepended to every file name in messages (the --dir given on
	// the command line, so that names are paths the author can open); the
	// files are read from FS without it.
	Root      string
	Labs      []*Lab        // sorted by ID
	Exercises []*Exercise   // sorted by ID
	Chapters  []ChapterFile // the English chapters
	// Translated are the translated chapters (chapters/LANG/NN-slug.md),
	// in the order of Translations, each language sorted by file name.
	Translated []ChapterFile
	// Messages are the translations of the step and checker messages
	// (labs/messages.LANG), by language.
	Messages map[Language]*Messages
	// Problems are the files that could not be read or parsed, each as
	// "FILE:LINE: what is wrong".
	Problems []error
	// Tool is how the learner runs the program, for the commands that
	// messages suggest: "minikafka" (when empty), "go run .", or "" with
	// InREPL, where they are typed as they are ("lab list").
	Tool   string
	InREPL bool
}

// Suggest is the command line a message suggests for a subcommand
// ("lab list"): "minikafka lab list", "go run . lab list", or inside the
// REPL "lab list".
func (c *Catalog) Suggest(cmd string) string {
	switch {
	case c == nil:
		return "minikafka " + cmd
	case c.InREPL:
		return cmd
	case c.Tool == "":
		return "minikafka " + cmd
	}
	return c.Tool + " " + cmd
}

// labsDir is the directory holding the chapter directories: labs/ when the
// FS has one, else the FS root itself (a teacher's directory of chapter
// directories).
func labsDir(fsys fs.FS) string {
	if st, err := fs.Stat(fsys, "labs"); err == nil && st.IsDir() {
		return "labs"
	}
	return "."
}

// Load reads every lab, exercise (with its reference solution) and chapter
// of fsys. Files are looked up in labs/NN-chapter-slug/ (or NN-chapter-slug/
// at the root when there is no labs/) and chapters/NN-slug.md. root is
// prepended to file names in messages. A file that does not parse is kept
// out and reported in Problems; the error is only for an unreadable FS.
func Load(fsys fs.FS, root string) (*Catalog, error) {
	c := &Catalog{FS: fsys, Root: root}
	dir := labsDir(fsys)
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, chap := range entries {
		if _, _, ok := splitNumbered(chap.Name()); !ok || !chap.IsDir() {
			continue
		}
		c.loadChapterDir(path.Join(dir, chap.Name()))
	}
	chapters, err := listChapters(fsys, root, "chapters", English)
	if err != nil {
		return nil, err
	}
	c.Chapters = chapters
	for _, lang := range Translations {
		tr, err := listChapters(fsys, root, path.Join("chapters", string(lang)), lang)
		if err != nil {
			return nil, err
		}
		c.Translated = append(c.Translated, tr...)
		c.loadMessages(dir, lang)
	}
	return c, nil
}

// name is the file name shown in messages for an FS path.
func (c *Catalog) name(p string) string {
	if c.Root == "" {
		return p
	}
	return path.Join(c.Root, p)
}

func (c *Catalog) loadChapterDir(dir string) {
	files, err := fs.ReadDir(c.FS, dir)
	if err != nil {
		c.Problems = append(c.Problems, fmt.Errorf("%s: %w", c.name(dir), err))
		return
	}
	labIDs, exIDs := map[string]string{}, map[string]string{}
	exercises := map[string]bool{}
	labByFile, exByFile := map[string]*Lab{}, map[string]*Exercise{}
	for _, f := range files {
		if f.IsDir() {
			continue
		}
		fsPath := path.Join(dir, f.Name())
		name := c.name(fsPath)
		ext := path.Ext(f.Name())
		switch ext {
		case ".lab", ".exercise", ".solution":
		default:
			continue
		}
		if _, _, ok := splitNumbered(strings.TrimSuffix(f.Name(), ext)); !ok {
			c.Problems = append(c.Problems, fmt.Errorf("%s: bad file name: use NN-slug%s (two digits, a dash, lower-case words joined by dashes)", name, ext))
			continue
		}
		if ext == ".solution" {
			continue // read with its exercise
		}
		src, err := fs.ReadFile(c.FS, fsPath)
		if err != nil {
			c.Problems = append(c.Problems, fmt.Errorf("%s: %w", name, err))
			continue
		}
		switch ext {
		case ".lab":
			l, err := ParseLab(name, src)
			if err != nil {
				c.Problems = append(c.Problems, err)
				continue
			}
			if prev, dup := labIDs[l.ID]; dup {
				c.Problems = append(c.Problems, fmt.Errorf("%s: lab ID %s is taken by %s", name, l.ID, prev))
				continue
			}
			labIDs[l.ID] = name
			labByFile[f.Name()] = l
			c.Labs = append(c.Labs, l)
		case ".exercise":
			e, err := ParseExercise(name, src)
			if err != nil {
				c.Problems = append(c.Problems, err)
				continue
			}
			if prev, dup := exIDs[e.ID]; dup {
				c.Problems = append(c.Problems, fmt.Errorf("%s: exercise ID %s is taken by %s", name, e.ID, prev))
				continue
			}
			exIDs[e.ID] = name
			exercises[strings.TrimSuffix(f.Name(), ext)] = true
			solution := strings.TrimSuffix(fsPath, ext) + ".solution"
			if sol, err := fs.ReadFile(c.FS, solution); err == nil {
				e.Solution, e.HasSolution = sol, true
			} else if !errors.Is(err, fs.ErrNotExist) {
				c.Problems = append(c.Problems, fmt.Errorf("%s: %w", c.name(solution), err))
			}
			exByFile[f.Name()] = e
			c.Exercises = append(c.Exercises, e)
		}
	}
	c.loadTexts(dir, files, labByFile, exByFile)
	for _, f := range files {
		base, isSolution := strings.CutSuffix(f.Name(), ".solution")
		if isSolution && !f.IsDir() && !exercises[base] {
			if _, _, ok := splitNumbered(base); ok {
				c.Problems = append(c.Problems, fmt.Errorf("%s: a solution without an exercise (expected %s.exercise beside it)", c.name(path.Join(dir, f.Name())), base))
			}
		}
	}
}

// Lab finds a lab by ID ("05-01"), slug ("leo-vs-hw") or both
// ("05-01-leo-vs-hw").
func (c *Catalog) Lab(id string) (*Lab, error) {
	var found []*Lab
	for _, l := range c.Labs {
		if l.ID == id || l.Slug == id || l.ID+"-"+l.Slug == id {
			found = append(found, l)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		var names []string
		for _, l := range c.Labs {
			names = append(names, l.ID, l.Slug, l.ID+"-"+l.Slug)
		}
		return nil, fmt.Errorf("no lab %q%s (`%s` shows them)", id, didYouMean(id, names), c.Suggest("lab list"))
	default:
		return nil, fmt.Errorf("lab %q is ambiguous: %s and %s; use the ID", id, found[0].Path, found[1].Path)
	}
}

// Exercise finds an exercise by ID, slug or both, like Lab.
func (c *Catalog) Exercise(id string) (*Exercise, error) {
	var found []*Exercise
	for _, e := range c.Exercises {
		if e.ID == id || e.Slug == id || e.ID+"-"+e.Slug == id {
			found = append(found, e)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		var names []string
		for _, e := range c.Exercises {
			names = append(names, e.ID, e.Slug, e.ID+"-"+e.Slug)
		}
		return nil, fmt.Errorf("no exercise %q%s (`%s` shows them)", id, didYouMean(id, names), c.Suggest("exercise list"))
	default:
		return nil, fmt.Errorf("exercise %q is ambiguous: %s and %s; use the ID", id, found[0].Path, found[1].Path)
	}
}

// ChapterIn finds a chapter like Chapter and returns its text in lang: the
// English chapter, or its translation chapters/LANG/NN-slug.md. A missing
// translation is an error wrapping ErrNoTranslation.
func (c *Catalog) ChapterIn(id string, lang Language) (ChapterFile, error) {
	ch, err := c.Chapter(id)
	if err != nil || lang == English || lang == "" {
		return ch, err
	}
	for _, t := range c.Translated {
		if t.Lang == lang && t.Number == ch.Number && t.Slug == ch.Slug {
			return t, nil
		}
	}
	return ChapterFile{}, fmt.Errorf("chapter %s has no %s text (expected %s): %w", ch.Name(), lang.Name(), c.name(path.Join("chapters", string(lang), path.Base(ch.FSPath))), ErrNoTranslation)
}

// Chapter finds an English chapter by number ("5" or "05") or slug.
func (c *Catalog) Chapter(id string) (ChapterFile, error) {
	n, err := strconv.Atoi(id)
	for _, ch := range c.Chapters {
		if (err == nil && n == ch.Number) || ch.Slug == id || ch.Name() == id {
			return ch, nil
		}
	}
	var names []string
	for _, ch := range c.Chapters {
		names = append(names, ch.Slug, ch.Name())
	}
	return ChapterFile{}, fmt.Errorf("no chapter %q%s (`%s` lists them)", id, didYouMean(id, names), c.Suggest("read"))
}
