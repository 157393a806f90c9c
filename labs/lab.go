package labs

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/minikafka-lab/minikafka/internal/lazyre"
)

// Lab is one parsed .lab file: a header, then blocks of a command and its
// expected output, each with the narration written before it.
type Lab struct {
	Path        string // file name used in messages, e.g. labs/05-replication/01-leo-vs-hw.lab
	ID          string // "05-01" (chapter directory number, file number); "" outside labs/NN-slug/
	Slug        string // "leo-vs-hw"
	Title       string
	Chapter     int
	ChapterSlug string   // "replication", from the chapter directory; "" when there is none
	Blocks      []*Block // at least one
	Epilogue    []string // narration after the last block, shown when step mode finishes
	// Texts are the lab's translations, by language (see In); Lang is the
	// language of Title and the narration ("" for English).
	Texts map[Language]*LabText
	Lang  Language

	lines []string // the source, for rewriting in place
}

// Block is one step of a lab: a command line, the narration written before
// it and its expected output.
type Block struct {
	Line        int      // 1-based line of the command
	Narration   []string // the '#' lines before the block, without "# "; "" separates paragraphs
	Command     string
	Expected    []string // expected output lines, trailing spaces trimmed
	DoubleFence bool     // the output was written between ----/---- fences

	want     []wantLine
	outFrom  int // index of the first source line after the "----" separator
	outTo    int // index of the first source line after the output (and closing fence)
	fileName string
}

// Steps is the number of blocks.
func (l *Lab) Steps() int { return len(l.Blocks) }

// Name is "ID slug" (or the slug alone outside the labs/NN-slug/ layout).
func (l *Lab) Name() string {
	if l.ID == "" {
		return l.Slug
	}
	return l.ID + " " + l.Slug
}

// Pos is "FILE:LINE" of the block's command.
func (b *Block) Pos() string { return fmt.Sprintf("%s:%d", b.fileName, b.Line) }

// Matches reports whether output (as printed by the executor) matches the
// block's expected output: exact after trimming trailing spaces on every
// line and trailing blank lines, "..." lines matching any number of lines,
// " (re)" lines matching as anchored regular expressions.
func (b *Block) Matches(output string) bool {
	return matchOutput(b.want, normalizeOutput(output))
}

// Diff is a unified diff (--- expected, +++ actual) of the block's expected
// output against output, or "" when they match.
func (b *Block) Diff(output string) string {
	return unifiedDiff(b.want, normalizeOutput(output))
}

// fileNameRe is the shape of lab, exercise and chapter-directory names:
// a two-digit number, a dash and a lower-case slug.
var fileNameRe = lazyre.New(`^([0-9]{2})-([a-z0-9]+(?:-[a-z0-9]+)*)$`)

// splitNumbered splits "05-replication" into 5 and "replication".
func splitNumbered(name string) (int, string, bool) {
	m := fileNameRe().FindStringSubmatch(name)
	if m == nil {
		return 0, "", false
	}
	n, _ := strconv.Atoi(m[1])
	return n, m[2], true
}

// identify fills ID, Slug and ChapterSlug from a path of the shape
// .../NN-chapter-slug/MM-slug.EXT. Outside that shape the slug is the base
// name and the ID stays empty.
func identify(p, ext string) (id, slug, chapterSlug string, chapterDir int) {
	base := strings.TrimSuffix(path.Base(p), ext)
	dir := path.Base(path.Dir(p))
	cn, cslug, okDir := splitNumbered(dir)
	fn, fslug, okFile := splitNumbered(base)
	switch {
	case okDir && okFile:
		return fmt.Sprintf("%02d-%02d", cn, fn), fslug, cslug, cn
	case okFile:
		return "", fslug, "", 0
	default:
		return "", base, "", 0
	}
}

// ParseLab parses the text of a lab file. name is the file's path; it is
// used in error messages and, when it has the shape
// labs/NN-chapter-slug/MM-lab-slug.lab, gives the lab its ID and slug.
// Every problem is reported as "NAME:LINE: what is wrong".
func ParseLab(name string, src []byte) (*Lab, error) {
	text := string(src)
	l := &Lab{Path: name, lines: splitLines(text)}
	var chapterDir int
	l.ID, l.Slug, l.ChapterSlug, chapterDir = identify(name, ".lab")
	i, chapterLine, err := l.parseHeader()
	if err != nil {
		return nil, err
	}
	if chapterDir != 0 && chapterDir != l.Chapter {
		return nil, errorAt(name, chapterLine, "the header says chapter %d but the file is in chapter directory %02d", l.Chapter, chapterDir)
	}
	if err := l.parseBlocks(i); err != nil {
		return nil, err
	}
	return l, nil
}

// parseHeader reads the "# key: value" lines at the top of the file and
// returns the index of the first line after them and the line of the
// chapter header.
func (l *Lab) parseHeader() (int, int, error) {
	seen := map[string]int{}
	i := 0
	for ; i < len(l.lines); i++ {
		key, value, ok := parseHeaderLine(l.lines[i])
		if !ok {
			break
		}
		line := i + 1
		if prev, dup := seen[key]; dup {
			return 0, 0, errorAt(l.Path, line, "header %q given twice (first at line %d)", key, prev)
		}
		seen[key] = line
		switch key {
		case "title":
			if value == "" {
				return 0, 0, errorAt(l.Path, line, "empty title")
			}
			l.Title = value
		case "chapter":
			n, err := parseChapter(l.Path, line, value)
			if err != nil {
				return 0, 0, err
			}
			l.Chapter = n
		default:
			return 0, 0, errorAt(l.Path, line, "unknown header %q (a lab's header has title and chapter; separate narration from the header with a '#' line)", key)
		}
	}
	if l.Title == "" {
		return 0, 0, errorAt(l.Path, 1, "missing header line '# title: ...'")
	}
	if l.Chapter == 0 {
		return 0, 0, errorAt(l.Path, 1, "missing header line '# chapter: N'")
	}
	return i, seen["chapter"], nil
}

// parseBlocks reads narration and blocks from line index i on.
func (l *Lab) parseBlocks(i int) error {
	var narration []string
	for i < len(l.lines) {
		raw := l.lines[i]
		line := trimRight(raw)
		switch {
		case line == "":
			if len(narration) > 0 && narration[len(narration)-1] != "" {
				narration = append(narration, "")
			}
			i++
		case isComment(line):
			narration = append(narration, commentText(line))
			i++
		case line == fenceLine:
			return errorAt(l.Path, i+1, "---- without a command: a block starts with a command line")
		default:
			b, next, err := l.parseBlock(i)
			if err != nil {
				return err
			}
			b.Narration = trimBlank(narration)
			narration = nil
			l.Blocks = append(l.Blocks, b)
			i = next
		}
	}
	l.Epilogue = trimBlank(narration)
	if len(l.Blocks) == 0 {
		return errorAt(l.Path, len(l.lines), "no blocks: a lab needs at least one command, ---- and its expected output")
	}
	return nil
}

// parseBlock reads the block whose command is at line index i and returns
// the index of the line after it.
func (l *Lab) parseBlock(i int) (*Block, int, error) {
	cmd := strings.TrimSpace(l.lines[i])
	b := &Block{Line: i + 1, Command: cmd, fileName: l.Path}
	if i+1 >= len(l.lines) || trimRight(l.lines[i+1]) != fenceLine {
		return nil, 0, errorAt(l.Path, i+1, "command %q is not followed by a ---- line", cmd)
	}
	sep := i + 1
	b.outFrom = sep + 1
	var out []string
	firstOut := sep + 1
	if sep+1 < len(l.lines) && trimRight(l.lines[sep+1]) == fenceLine {
		b.DoubleFence = true
		firstOut = sep + 2
		end := -1
		for j := sep + 2; j+1 < len(l.lines); j++ {
			if trimRight(l.lines[j]) == fenceLine && trimRight(l.lines[j+1]) == fenceLine {
				end = j
				break
			}
		}
		if end < 0 {
			return nil, 0, errorAt(l.Path, sep+2, "unterminated ----/---- output: no closing ---- and ---- lines")
		}
		for _, o := range l.lines[sep+2 : end] {
			out = append(out, trimRight(o))
		}
		for len(out) > 0 && out[len(out)-1] == "" {
			out = out[:len(out)-1]
		}
		b.outTo = end + 2
	} else {
		j := sep + 1
		for ; j < len(l.lines) && trimRight(l.lines[j]) != ""; j++ {
			out = append(out, trimRight(l.lines[j]))
		}
		b.outTo = j
	}
	want, err := compileWant(l.Path, firstOut+1, out)
	if err != nil {
		return nil, 0, err
	}
	b.Expected, b.want = out, want
	return b, b.outTo, nil
}

// Validate asks v about every command of the lab, before anything runs, and
// returns every problem as "FILE:LINE: ..." (joined), or nil.
func (l *Lab) Validate(v Validator) error {
	var errs []error
	for _, b := range l.Blocks {
		if err := validateLine(v, b.Command); err != nil {
			errs = append(errs, &SourceError{File: l.Path, Line: b.Line, Err: err})
		}
	}
	return errors.Join(errs...)
}

// validateLine calls v.Validate, turning a panic into an error.
func validateLine(v Validator, line string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("validating %q panicked: %v", line, r)
		}
	}()
	return v.Validate(line)
}
