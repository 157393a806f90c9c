package labs

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// ChapterFile is one chapter: chapters/NN-slug.md, or its translation
// chapters/LANG/NN-slug.md.
type ChapterFile struct {
	Number int
	Slug   string
	Lang   Language // English for chapters/NN-slug.md
	Path   string   // file name used in messages
	FSPath string   // path inside the catalog's FS
	Title  string   // the first "# " heading, or the slug
}

// Name is "NN-slug", or "LANG/NN-slug" for a translation.
func (c ChapterFile) Name() string {
	name := fmt.Sprintf("%02d-%s", c.Number, c.Slug)
	if c.Lang != English && c.Lang != "" {
		return string(c.Lang) + "/" + name
	}
	return name
}

// listChapters finds NN-slug.md in the directory dir of fsys (chapters, or
// chapters/LANG for a translation), sorted by file name.
func listChapters(fsys fs.FS, root, dir string, lang Language) ([]ChapterFile, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var chapters []ChapterFile
	for _, e := range entries {
		base, ok := strings.CutSuffix(e.Name(), ".md")
		if !ok || e.IsDir() {
			continue
		}
		n, slug, ok := splitNumbered(base)
		if !ok {
			continue
		}
		fsPath := path.Join(dir, e.Name())
		name := fsPath
		if root != "" {
			name = path.Join(root, fsPath)
		}
		src, err := fs.ReadFile(fsys, fsPath)
		if err != nil {
			return nil, err
		}
		chapters = append(chapters, ChapterFile{Number: n, Slug: slug, Lang: lang, Path: name, FSPath: fsPath, Title: markdownTitle(src, slug)})
	}
	return chapters, nil
}

// markdownTitle is the text of the first "# " heading outside code fences.
func markdownTitle(src []byte, fallback string) string {
	var f fence
	for _, line := range splitLines(string(src)) {
		if f.open {
			f.update(line)
			continue
		}
		if f.update(line) {
			continue
		}
		if t, ok := strings.CutPrefix(line, "# "); ok {
			return strings.TrimSpace(t)
		}
	}
	return fallback
}

// fence tracks Markdown code fences (``` or ~~~, three or more, closed by at
// least as many of the same character).
type fence struct {
	open   bool
	char   byte
	length int
	indent int
	info   string
}

// update feeds one line; it reports whether the line was a fence line
// (opening or closing).
func (f *fence) update(line string) bool {
	trimmed := strings.TrimLeft(line, " ")
	indent := len(line) - len(trimmed)
	if trimmed == "" || (trimmed[0] != '`' && trimmed[0] != '~') {
		return false
	}
	c := trimmed[0]
	n := 0
	for n < len(trimmed) && trimmed[n] == c {
		n++
	}
	if n < 3 {
		return false
	}
	rest := strings.TrimSpace(trimmed[n:])
	if f.open {
		if c == f.char && n >= f.length && rest == "" {
			f.open = false
			return true
		}
		return false
	}
	if c == '`' && strings.Contains(rest, "`") {
		return false
	}
	*f = fence{open: true, char: c, length: n, indent: indent, info: rest}
	return true
}

// TranscriptStep is one `mk> COMMAND` line of a chapter and the output
// written below it.
type TranscriptStep struct {
	Line     int
	Command  string
	Expected []string
	want     []wantLine
	// outFrom and outTo delimit the output lines in the source (0-based,
	// half-open: from the line after `mk>` to the next `mk>` or the fence).
	outFrom, outTo int
}

// TranscriptBlock is one ```mk fenced block of a chapter.
type TranscriptBlock struct {
	Line   int // the opening fence
	Steps  []TranscriptStep
	indent int // the fence's indentation, kept when rewriting
}

// opensCluster reports whether the block starts with `cluster open`, which
// gives it a fresh session.
func (b TranscriptBlock) opensCluster() bool {
	if len(b.Steps) == 0 {
		return false
	}
	f := strings.Fields(b.Steps[0].Command)
	return len(f) >= 2 && f[0] == "cluster" && f[1] == "open"
}

// mkPrompt starts a command line inside a ```mk block.
const mkPrompt = "mk>"

// ParseChapter reads the ```mk blocks of a chapter: lines `mk> COMMAND`,
// each followed by its expected output (same matching as labs: trailing
// spaces and blank lines trimmed, "..." and " (re)" escapes). Other fenced
// blocks and the prose are ignored.
func ParseChapter(name string, src []byte) ([]TranscriptBlock, error) {
	var blocks []TranscriptBlock
	var f fence
	var cur *TranscriptBlock
	var out []string
	outLine := 0
	finish := func(end int) error {
		if len(cur.Steps) == 0 {
			return nil
		}
		s := &cur.Steps[len(cur.Steps)-1]
		s.outTo = end
		for len(out) > 0 && out[len(out)-1] == "" {
			out = out[:len(out)-1]
		}
		want, err := compileWant(name, outLine, out)
		if err != nil {
			return err
		}
		s.Expected, s.want = out, want
		out = nil
		return nil
	}
	lines := splitLines(string(src))
	for i, line := range lines {
		n := i + 1
		if !f.open {
			if f.update(line) && f.open && firstWord(f.info) == "mk" {
				blocks = append(blocks, TranscriptBlock{Line: n, indent: f.indent})
				cur = &blocks[len(blocks)-1]
			}
			continue
		}
		if f.update(line) { // closing fence
			if cur != nil {
				if err := finish(i); err != nil {
					return nil, err
				}
				if len(cur.Steps) == 0 {
					return nil, errorAt(name, cur.Line, "```mk block without a `mk> ` command line")
				}
			}
			cur = nil
			continue
		}
		if cur == nil {
			continue
		}
		text := trimRight(stripIndent(line, f.indent))
		if cmd, ok := strings.CutPrefix(text, mkPrompt); ok {
			if err := finish(i); err != nil {
				return nil, err
			}
			cmd = strings.TrimSpace(cmd)
			if cmd == "" {
				return nil, errorAt(name, n, "`mk>` without a command")
			}
			cur.Steps = append(cur.Steps, TranscriptStep{Line: n, Command: cmd, outFrom: i + 1})
			outLine = n + 1
			continue
		}
		if len(cur.Steps) == 0 {
			if text == "" {
				continue
			}
			return nil, errorAt(name, n, "output before the first `mk> ` line of the block")
		}
		out = append(out, text)
	}
	if cur != nil {
		return nil, errorAt(name, cur.Line, "unterminated ```mk block")
	}
	return blocks, nil
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// stripIndent removes up to n leading spaces (the indentation of the fence).
func stripIndent(line string, n int) string {
	for n > 0 && strings.HasPrefix(line, " ") {
		line, n = line[1:], n-1
	}
	return line
}

// CheckChapter executes every ```mk block of the chapter at fsPath in fsys,
// in order, and compares each command's output with the text below it. The
// chapter runs on one fresh session; a block that starts with `cluster open`
// gets a fresh session of its own. Commands are validated first when the
// executor is a Validator. The first difference is returned as FILE:LINE and
// a unified diff; nil means the chapter matches the program.
func CheckChapter(fsys fs.FS, fsPath string, newExec NewExecutor) error {
	src, err := fs.ReadFile(fsys, fsPath)
	if err != nil {
		return err
	}
	blocks, err := ParseChapter(fsPath, src)
	if err != nil {
		return err
	}
	return runTranscript(fsPath, blocks, newExec, nil)
}

// RewriteChapter runs the chapter at fsPath like CheckChapter and returns
// its source with the output under every command that printed something
// else replaced by what the program printed, and the number of commands
// changed. Everything else is kept byte for byte: the prose, other code
// blocks, the output of the commands that matched (with their "..." and
// " (re)" escapes), blank lines after an output, and the fence's
// indentation. Like a lab rewrite it refuses a run that did not reach the
// end, so a broken session never truncates a chapter.
func RewriteChapter(fsys fs.FS, fsPath string, newExec NewExecutor) ([]byte, int, error) {
	src, err := fs.ReadFile(fsys, fsPath)
	if err != nil {
		return nil, 0, err
	}
	blocks, err := ParseChapter(fsPath, src)
	if err != nil {
		return nil, 0, err
	}
	lines := splitLines(string(src))
	type change struct {
		step   *TranscriptStep
		indent int
		actual []string
	}
	var changes []change
	err = runTranscript(fsPath, blocks, newExec, func(b *TranscriptBlock, s *TranscriptStep, actual []string) {
		changes = append(changes, change{s, b.indent, actual})
	})
	if err != nil {
		return nil, 0, fmt.Errorf("%s: not rewritten, the transcript did not run to the end: %w", fsPath, err)
	}
	var out []string
	at := 0
	for _, c := range changes {
		out = append(out, lines[at:c.step.outFrom]...)
		region := lines[c.step.outFrom:c.step.outTo]
		trailing := 0
		for trailing < len(region) && trimRight(region[len(region)-1-trailing]) == "" {
			trailing++
		}
		pad := strings.Repeat(" ", c.indent)
		for _, a := range c.actual {
			if a == "" {
				out = append(out, "")
			} else {
				out = append(out, pad+escapeLine(a))
			}
		}
		out = append(out, region[len(region)-trailing:]...)
		at = c.step.outTo
	}
	out = append(out, lines[at:]...)
	text := strings.Join(out, "\n")
	if strings.HasSuffix(string(src), "\n") {
		text += "\n"
	}
	return []byte(text), len(changes), nil
}

// runTranscript executes the blocks. Without rewrite it stops at the first
// mismatch and returns it; with rewrite it calls rewrite for every
// mismatching step and goes on.
func runTranscript(name string, blocks []TranscriptBlock, newExec NewExecutor, rewrite func(*TranscriptBlock, *TranscriptStep, []string)) (err error) {
	if len(blocks) == 0 {
		return nil
	}
	x, err := open(newExec)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer func() {
		if x == nil {
			return
		}
		if cerr := closeExec(x); cerr != nil && err == nil {
			err = fmt.Errorf("%s: %w", name, cerr)
		}
	}()
	if v, ok := x.(Validator); ok {
		var cmds []Command
		for _, b := range blocks {
			for _, s := range b.Steps {
				cmds = append(cmds, Command{File: name, Line: s.Line, Text: s.Command})
			}
		}
		if err := validateCommands(v, cmds); err != nil {
			return err
		}
	}
	for i := range blocks {
		b := &blocks[i]
		if i > 0 && b.opensCluster() {
			old := x
			x = nil
			if err := closeExec(old); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if x, err = open(newExec); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		for j := range b.Steps {
			s := &b.Steps[j]
			out, _, fatal := execLine(x, s.Command)
			if fatal != nil {
				return &SourceError{File: name, Line: s.Line, Err: fatal}
			}
			actual := normalizeOutput(out)
			if matchOutput(s.want, actual) {
				continue
			}
			if rewrite != nil {
				rewrite(b, s, actual)
				continue
			}
			return &SourceError{File: name, Line: s.Line, Err: &MismatchError{Command: s.Command, Diff: unifiedDiff(s.want, actual)}}
		}
	}
	return nil
}

// transcriptText is the text of every ```mk block of a chapter, one string
// per block: its lines without the fence's indentation, trailing spaces
// trimmed.
func transcriptText(name string, src []byte) ([]string, []int, error) {
	blocks, err := ParseChapter(name, src)
	if err != nil {
		return nil, nil, err
	}
	lines := splitLines(string(src))
	var texts []string
	var at []int
	for _, b := range blocks {
		var t strings.Builder
		from := b.Line // the line after the opening fence (0-based index)
		to := from
		if n := len(b.Steps); n > 0 {
			to = b.Steps[n-1].outTo
		}
		for _, l := range lines[from:to] {
			t.WriteString(trimRight(stripIndent(l, b.indent)))
			t.WriteByte('\n')
		}
		texts = append(texts, strings.TrimRight(t.String(), "\n"))
		at = append(at, b.Line)
	}
	return texts, at, nil
}

// CompareTranscripts checks that a translated chapter carries exactly the
// English chapter's transcripts: the same number of ```mk blocks, each
// with the same commands and output, byte for byte (the prose around them
// is the translator's). It also requires the same number of "## " sections,
// so that the two editions keep one structure.
func CompareTranscripts(enName string, en []byte, trName string, tr []byte) error {
	a, aLines, err := transcriptText(enName, en)
	if err != nil {
		return err
	}
	b, bLines, err := transcriptText(trName, tr)
	if err != nil {
		return err
	}
	var errs []error
	if len(a) != len(b) {
		errs = append(errs, fmt.Errorf("%s: %d ```mk blocks, but %s has %d: translate every transcript, and only those", trName, len(b), enName, len(a)))
	}
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			errs = append(errs, fmt.Errorf("%s:%d: block %d differs from %s:%d (transcripts are copied byte for byte):\n%s",
				trName, bLines[i], i+1, enName, aLines[i], textDiff(a[i], b[i], enName, trName)))
		}
	}
	if na, nb := countSections(en), countSections(tr); na != nb {
		errs = append(errs, fmt.Errorf("%s: %d \"## \" sections, but %s has %d: keep the English structure", trName, nb, enName, na))
	}
	return errors.Join(errs...)
}

// countSections counts "## " headings outside code fences.
func countSections(src []byte) int {
	var f fence
	n := 0
	for _, line := range splitLines(string(src)) {
		if f.open {
			f.update(line)
			continue
		}
		if f.update(line) {
			continue
		}
		if strings.HasPrefix(line, "## ") {
			n++
		}
	}
	return n
}
