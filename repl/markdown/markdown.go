// Package markdown renders the chapters' Markdown for a terminal: headings,
// paragraphs wrapped to a width, lists, block quotes, tables, code blocks
// (```mk transcripts with their prompts highlighted) and inline code,
// emphasis and links. It knows the subset the chapters use, not all of
// CommonMark.
//
// Widths are terminal columns: an East Asian wide character (Chinese) takes
// two, and Chinese text, which has no spaces between words, breaks between
// any two characters except before closing and after opening punctuation.
//
// Without colour the output is plain text that still reads well in a pipe
// or a file: headings are underlined, code spans keep their backticks and
// code blocks are indented. Colour adds ANSI styles and nothing else, so the
// layout is the same in both modes.
package markdown

import (
	"bufio"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/minikafka-lab/minikafka/internal/lazyre"
)

// Options configure Render.
type Options struct {
	// Color adds ANSI styles. Only set it for a terminal, and never when
	// NO_COLOR is set.
	Color bool
	// Width is the column at which paragraphs wrap; 80 when zero.
	Width int
}

// ANSI styles.
const (
	ansiReset     = "\x1b[0m"
	ansiBold      = "\x1b[1m"
	ansiDim       = "\x1b[2m"
	ansiItalic    = "\x1b[3m"
	ansiUnderline = "\x1b[4m"
	ansiCyan      = "\x1b[36m"
	ansiGreen     = "\x1b[32m"
	ansiMagenta   = "\x1b[35m"
)

type renderer struct {
	w     *bufio.Writer
	opt   Options
	lines []string
	i     int
	first bool // nothing written yet: no blank line before the next block
}

var (
	headingRe = lazyre.New(`^(#{1,6})\s+(.*?)(?:\s+#+)?\s*$`)
	ruleRe    = lazyre.New(`^\s{0,3}(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,})$`)
	itemRe    = lazyre.New(`^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$`)
	fenceRe   = lazyre.New("^(\\s*)(`{3,}|~{3,})\\s*([^`]*)$")
	tableSep  = lazyre.New(`^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$`)
)

// Render writes src, a Markdown document, to w for a terminal.
func Render(w io.Writer, src []byte, opt Options) error {
	if opt.Width <= 0 {
		opt.Width = 80
	}
	text := strings.ReplaceAll(string(src), "\r\n", "\n")
	text = strings.ReplaceAll(text, "\t", "    ")
	r := &renderer{w: bufio.NewWriter(w), opt: opt, lines: strings.Split(strings.TrimSuffix(text, "\n"), "\n"), first: true}
	for r.i < len(r.lines) {
		r.block()
	}
	return r.w.Flush()
}

// startBlock separates blocks with one blank line.
func (r *renderer) startBlock() {
	if !r.first {
		r.w.WriteString("\n")
	}
	r.first = false
}

func (r *renderer) style(s string, codes ...string) string {
	if !r.opt.Color || s == "" {
		return s
	}
	return strings.Join(codes, "") + s + ansiReset
}

func (r *renderer) block() {
	line := r.lines[r.i]
	trimmed := strings.TrimSpace(line)
	switch {
	case trimmed == "":
		r.i++
	case strings.HasPrefix(trimmed, "<!--"):
		for r.i < len(r.lines) && !strings.Contains(r.lines[r.i], "-->") {
			r.i++
		}
		r.i++
	case fenceRe().MatchString(line):
		r.code()
	case headingRe().MatchString(line):
		r.heading()
	case ruleRe().MatchString(line):
		r.i++
		r.startBlock()
		r.w.WriteString(r.style(strings.Repeat(r.pick("─", "-"), min(r.opt.Width, 40)), ansiDim) + "\n")
	case strings.Contains(line, "|") && r.i+1 < len(r.lines) && tableSep().MatchString(r.lines[r.i+1]) && strings.Contains(r.lines[r.i+1], "|"):
		r.table()
	case itemRe().MatchString(line):
		r.list()
	case strings.HasPrefix(trimmed, ">"):
		r.quote()
	default:
		r.paragraph()
	}
}

func (r *renderer) pick(color, plain string) string {
	if r.opt.Color {
		return color
	}
	return plain
}

func (r *renderer) heading() {
	m := headingRe().FindStringSubmatch(r.lines[r.i])
	r.i++
	level, text := len(m[1]), m[2]
	r.startBlock()
	rendered, width := r.inlineLine(text)
	switch level {
	case 1:
		r.w.WriteString(r.style(rendered, ansiBold, ansiMagenta) + "\n")
		r.w.WriteString(r.style(strings.Repeat("=", width), ansiMagenta) + "\n")
	case 2:
		r.w.WriteString(r.style(rendered, ansiBold, ansiCyan) + "\n")
		r.w.WriteString(r.style(strings.Repeat("-", width), ansiCyan) + "\n")
	default:
		r.w.WriteString(r.style(strings.Repeat("#", level)+" ", ansiDim) + r.style(rendered, ansiBold) + "\n")
	}
}

// code renders a fenced block, indented by four spaces; in a ```mk block the
// `mk> ` command lines are highlighted.
func (r *renderer) code() {
	m := fenceRe().FindStringSubmatch(r.lines[r.i])
	indent, marker, info := len(m[1]), m[2], strings.Fields(m[3])
	r.i++
	mk := len(info) > 0 && info[0] == "mk"
	r.startBlock()
	for ; r.i < len(r.lines); r.i++ {
		line := r.lines[r.i]
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, marker[:1]) && len(t) >= len(marker) && strings.Trim(t, marker[:1]) == "" {
			r.i++
			break
		}
		for k := 0; k < indent && strings.HasPrefix(line, " "); k++ {
			line = line[1:]
		}
		switch {
		case strings.TrimSpace(line) == "":
			r.w.WriteString("\n")
		case mk && strings.HasPrefix(line, "mk>"):
			r.w.WriteString("    " + r.style("mk>", ansiGreen) + r.style(strings.TrimPrefix(line, "mk>"), ansiBold) + "\n")
		case mk:
			r.w.WriteString("    " + strings.TrimRight(line, " ") + "\n")
		default:
			r.w.WriteString("    " + r.style(line, ansiCyan) + "\n")
		}
	}
}

// paragraph joins lines up to a blank line or another block and wraps them.
func (r *renderer) paragraph() {
	var parts []string
	for r.i < len(r.lines) {
		line := r.lines[r.i]
		if strings.TrimSpace(line) == "" || (len(parts) > 0 && r.startsBlock(line)) {
			break
		}
		parts = append(parts, strings.TrimSpace(line))
		r.i++
	}
	r.startBlock()
	r.wrap(joinLines(parts), "", "")
}

// startsBlock reports whether line interrupts a paragraph.
func (r *renderer) startsBlock(line string) bool {
	t := strings.TrimSpace(line)
	return fenceRe().MatchString(line) || headingRe().MatchString(line) || itemRe().MatchString(line) ||
		strings.HasPrefix(t, ">") || ruleRe().MatchString(line) || strings.HasPrefix(t, "|")
}

// list renders consecutive items; continuation lines join their item.
func (r *renderer) list() {
	r.startBlock()
	for r.i < len(r.lines) {
		m := itemRe().FindStringSubmatch(r.lines[r.i])
		if m == nil {
			return
		}
		r.i++
		depth := len(m[1]) / 2
		text := []string{m[3]}
		for r.i < len(r.lines) {
			next := r.lines[r.i]
			t := strings.TrimSpace(next)
			if t == "" || itemRe().MatchString(next) || fenceRe().MatchString(next) || headingRe().MatchString(next) || !strings.HasPrefix(next, " ") && r.startsBlock(next) {
				break
			}
			text = append(text, t)
			r.i++
		}
		bullet := m[2]
		if bullet == "-" || bullet == "*" || bullet == "+" {
			bullet = r.pick("•", "-")
		}
		indent := strings.Repeat("  ", depth)
		first := indent + "  " + r.style(bullet, ansiBold) + " "
		rest := indent + "  " + strings.Repeat(" ", utf8.RuneCountInString(bullet)+1)
		r.wrap(joinLines(text), first, rest)
		// A blank line between items of the same list does not end it.
		if r.i+1 < len(r.lines) && strings.TrimSpace(r.lines[r.i]) == "" && itemRe().MatchString(r.lines[r.i+1]) {
			r.i++
		}
	}
}

func (r *renderer) quote() {
	var parts []string
	for r.i < len(r.lines) {
		t := strings.TrimSpace(r.lines[r.i])
		if !strings.HasPrefix(t, ">") {
			break
		}
		parts = append(parts, strings.TrimSpace(strings.TrimPrefix(t, ">")))
		r.i++
	}
	r.startBlock()
	bar := r.style(r.pick("│", ">"), ansiDim) + " "
	// Paragraphs inside the quote are separated by empty "> " lines.
	var para []string
	flush := func(last bool) {
		if len(para) > 0 {
			r.wrap(joinLines(para), "  "+bar, "  "+bar)
			para = nil
		}
		if !last {
			r.w.WriteString("  " + strings.TrimRight(bar, " ") + "\n")
		}
	}
	for k, p := range parts {
		if p == "" {
			if len(para) > 0 && k < len(parts)-1 {
				flush(false)
			}
			continue
		}
		para = append(para, p)
	}
	flush(true)
}

// table renders a pipe table with aligned columns.
func (r *renderer) table() {
	var rows [][]string
	header := splitRow(r.lines[r.i])
	r.i += 2
	rows = append(rows, header)
	for r.i < len(r.lines) && strings.Contains(r.lines[r.i], "|") && strings.TrimSpace(r.lines[r.i]) != "" {
		rows = append(rows, splitRow(r.lines[r.i]))
		r.i++
	}
	cols := 0
	for _, row := range rows {
		cols = max(cols, len(row))
	}
	rendered := make([][]string, len(rows))
	widths := make([]int, cols)
	cellWidth := make([][]int, len(rows))
	for k, row := range rows {
		rendered[k] = make([]string, cols)
		cellWidth[k] = make([]int, cols)
		for c := 0; c < cols; c++ {
			cell := ""
			if c < len(row) {
				cell = row[c]
			}
			s, w := r.inlineLine(cell)
			if k == 0 {
				s = r.style(s, ansiBold)
			}
			rendered[k][c], cellWidth[k][c] = s, w
			widths[c] = max(widths[c], w)
		}
	}
	r.startBlock()
	for k := range rows {
		var b strings.Builder
		b.WriteString("  ")
		for c := 0; c < cols; c++ {
			b.WriteString(rendered[k][c])
			if c < cols-1 {
				b.WriteString(strings.Repeat(" ", widths[c]-cellWidth[k][c]+2))
			}
		}
		r.w.WriteString(strings.TrimRight(b.String(), " ") + "\n")
		if k == 0 {
			var sep []string
			for c := 0; c < cols; c++ {
				sep = append(sep, strings.Repeat(r.pick("─", "-"), widths[c]))
			}
			r.w.WriteString("  " + r.style(strings.Join(sep, "  "), ansiDim) + "\n")
		}
	}
}

// splitRow splits "| a | b |" into cells, honouring \| escapes and code
// spans.
func splitRow(line string) []string {
	t := strings.TrimSpace(line)
	t = strings.TrimPrefix(t, "|")
	if strings.HasSuffix(t, "|") && !strings.HasSuffix(t, `\|`) {
		t = t[:len(t)-1]
	}
	var cells []string
	var b strings.Builder
	inCode := false
	for i := 0; i < len(t); i++ {
		switch {
		case t[i] == '\\' && i+1 < len(t) && t[i+1] == '|':
			b.WriteByte('|')
			i++
		case t[i] == '`':
			inCode = !inCode
			b.WriteByte('`')
		case t[i] == '|' && !inCode:
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(t[i])
		}
	}
	return append(cells, strings.TrimSpace(b.String()))
}

// inlineLine renders inline markup on one line (no wrapping) and returns it
// with its visible width.
func (r *renderer) inlineLine(s string) (string, int) {
	var b strings.Builder
	width := 0
	for _, p := range parseInline(s, !r.opt.Color) {
		b.WriteString(r.piece(p))
		width += displayWidth(p.text)
	}
	return b.String(), width
}

func (r *renderer) piece(p piece) string {
	if !r.opt.Color || p.style == 0 {
		return p.text
	}
	var codes []string
	if p.style&styleBold != 0 {
		codes = append(codes, ansiBold)
	}
	if p.style&styleItalic != 0 {
		codes = append(codes, ansiItalic)
	}
	if p.style&styleCode != 0 {
		codes = append(codes, ansiCyan)
	}
	if p.style&styleLink != 0 {
		codes = append(codes, ansiUnderline)
	}
	if p.style&styleDim != 0 {
		codes = append(codes, ansiDim)
	}
	return r.style(p.text, codes...)
}

// wrap writes text wrapped at the width: the first line starts with first,
// the others with rest (both may hold ANSI codes; their visible width is
// what counts).
func (r *renderer) wrap(text, first, rest string) {
	ws := words(parseInline(text, !r.opt.Color))
	prefix, prefixWidth := first, visibleWidth(first)
	col := prefixWidth
	var line strings.Builder
	line.WriteString(prefix)
	empty := true
	for _, w := range ws {
		n := w.width()
		gap := 0
		if w.space && !empty {
			gap = 1
		}
		if !empty && col+gap+n > r.opt.Width {
			r.w.WriteString(line.String() + "\n")
			line.Reset()
			prefix, prefixWidth = rest, visibleWidth(rest)
			line.WriteString(prefix)
			col, empty, gap = prefixWidth, true, 0
		}
		if gap > 0 {
			line.WriteString(" ")
			col++
		}
		for _, p := range w.pieces {
			line.WriteString(r.piece(p))
		}
		col += n
		empty = false
	}
	r.w.WriteString(strings.TrimRight(line.String(), " ") + "\n")
}

var ansiRe = lazyre.New("\x1b\\[[0-9;]*m")

func visibleWidth(s string) int { return displayWidth(ansiRe().ReplaceAllString(s, "")) }
