package labs

import (
	"fmt"
	"regexp"
	"strings"
)

// The escapes of expected output. A line that is exactly "..." matches any
// number of actual lines (none included); a line ending in " (re)" is a
// regular expression that must match the whole actual line.
const (
	anyLines  = "..."
	reSuffix  = " (re)"
	fenceLine = "----"
)

// wantLine is one compiled line of expected output.
type wantLine struct {
	text string         // as written (trailing spaces trimmed)
	re   *regexp.Regexp // set for a " (re)" line
	any  bool           // the "..." line
}

func (w wantLine) matches(actual string) bool {
	if w.re != nil {
		return w.re.MatchString(actual)
	}
	return w.text == actual
}

// compileWant compiles expected lines. firstLine is the 1-based line number
// of lines[0] in file, for the error of a bad regular expression.
func compileWant(file string, firstLine int, lines []string) ([]wantLine, error) {
	want := make([]wantLine, len(lines))
	for i, l := range lines {
		want[i] = wantLine{text: l}
		switch {
		case l == anyLines:
			want[i].any = true
		case strings.HasSuffix(l, reSuffix):
			pattern := strings.TrimSuffix(l, reSuffix)
			re, err := regexp.Compile(`^(?:` + pattern + `)$`)
			if err != nil {
				return nil, errorAt(file, firstLine+i, "bad regular expression %q: %v", pattern, err)
			}
			want[i].re = re
		}
	}
	return want, nil
}

// normalizeOutput splits output into lines for comparison: trailing spaces
// are trimmed from every line and trailing blank lines are dropped. Leading
// blank lines stay significant.
func normalizeOutput(out string) []string {
	lines := splitLines(out)
	for i, l := range lines {
		lines[i] = trimRight(l)
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// editKind is one operation of an alignment of expected and actual lines.
type editKind byte

const (
	editSame   editKind = ' ' // an expected line matched one actual line
	editAny    editKind = '.' // "..." matched n actual lines (n >= 0)
	editDelete editKind = '-' // an expected line with no actual line
	editInsert editKind = '+' // an actual line with no expected line
)

type edit struct {
	kind editKind
	e    int // index into expected (editSame, editAny, editDelete)
	a    int // first index into actual (editSame, editAny, editInsert)
	n    int // actual lines consumed: 1 for editSame and editInsert, n for editAny
}

// align finds a cheapest alignment of want against actual, where a delete or
// an insert costs 1 and everything else is free. The output matches exactly
// when the cost is 0. Outputs are small (one command's output), so the
// quadratic table is fine.
func align(want []wantLine, actual []string) (edits []edit, cost int) {
	n, m := len(want), len(actual)
	if n == m && !hasEscapes(want) {
		same := true
		for i := range want {
			if want[i].text != actual[i] {
				same = false
				break
			}
		}
		if same {
			edits = make([]edit, n)
			for i := range want {
				edits[i] = edit{kind: editSame, e: i, a: i, n: 1}
			}
			return edits, 0
		}
	}
	// c[i][j]: cost of aligning want[i:] with actual[j:].
	c := make([][]int, n+1)
	for i := range c {
		c[i] = make([]int, m+1)
	}
	for j := m - 1; j >= 0; j-- {
		c[n][j] = c[n][j+1] + 1
	}
	match := make([][]bool, n)
	for i := n - 1; i >= 0; i-- {
		match[i] = make([]bool, m)
		if want[i].any {
			c[i][m] = c[i+1][m]
		} else {
			c[i][m] = c[i+1][m] + 1
		}
		for j := m - 1; j >= 0; j-- {
			if want[i].any {
				c[i][j] = min(c[i+1][j], c[i][j+1])
				continue
			}
			best := min(c[i+1][j], c[i][j+1]) + 1
			if want[i].matches(actual[j]) {
				match[i][j] = true
				best = min(best, c[i+1][j+1])
			}
			c[i][j] = best
		}
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && want[i].any:
			start := j
			for j < m && c[i][j] != c[i+1][j] {
				j++
			}
			edits = append(edits, edit{kind: editAny, e: i, a: start, n: j - start})
			i++
		case i < n && j < m && match[i][j] && c[i][j] == c[i+1][j+1]:
			edits = append(edits, edit{kind: editSame, e: i, a: j, n: 1})
			i, j = i+1, j+1
		case i < n && (j == m || c[i][j] == c[i+1][j]+1):
			edits = append(edits, edit{kind: editDelete, e: i, a: j})
			i++
		default:
			edits = append(edits, edit{kind: editInsert, e: i, a: j, n: 1})
			j++
		}
	}
	return edits, c[0][0]
}

func hasEscapes(want []wantLine) bool {
	for _, w := range want {
		if w.any || w.re != nil {
			return true
		}
	}
	return false
}

// matchOutput reports whether actual (normalized) matches want.
func matchOutput(want []wantLine, actual []string) bool {
	_, cost := align(want, actual)
	return cost == 0
}

// diffContext is the number of unchanged lines shown around a change.
const diffContext = 3

// unifiedDiff renders a unified diff of want (labelled "expected") against
// actual (labelled "actual"). Lines matched by a regular expression show the
// actual text; a "..." line is shown once however many lines it covered.
func unifiedDiff(want []wantLine, actual []string) string {
	return labelledDiff(want, actual, "expected", "actual")
}

// textDiff is a unified diff of two plain texts (no escapes).
func textDiff(a, b, labelA, labelB string) string {
	lines := normalizeOutput(a)
	want := make([]wantLine, len(lines))
	for i, l := range lines {
		want[i] = wantLine{text: l}
	}
	return labelledDiff(want, normalizeOutput(b), labelA, labelB)
}

func labelledDiff(want []wantLine, actual []string, labelA, labelB string) string {
	edits, cost := align(want, actual)
	if cost == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("--- " + labelA + "\n+++ " + labelB + "\n")
	// Group the edits into hunks: changes plus diffContext edits around them.
	for start := 0; start < len(edits); {
		first := -1
		for k := start; k < len(edits); k++ {
			if edits[k].kind == editDelete || edits[k].kind == editInsert {
				first = k
				break
			}
		}
		if first < 0 {
			break
		}
		from := max(start, first-diffContext)
		to := first // exclusive end, grows while changes are near
		for k := first; k < len(edits); k++ {
			if edits[k].kind == editDelete || edits[k].kind == editInsert {
				to = k + 1
				continue
			}
			if k-to >= 2*diffContext {
				break
			}
		}
		end := min(len(edits), to+diffContext)
		writeHunk(&b, want, actual, edits, from, end)
		start = end
	}
	return b.String()
}

func writeHunk(b *strings.Builder, want []wantLine, actual []string, edits []edit, from, to int) {
	eStart, aStart := edits[from].e, edits[from].a
	eCount, aCount := 0, 0
	for _, ed := range edits[from:to] {
		if ed.kind != editInsert {
			eCount++
		}
		aCount += ed.n
	}
	fmt.Fprintf(b, "@@ -%s +%s @@\n", hunkRange(eStart, eCount), hunkRange(aStart, aCount))
	for _, ed := range edits[from:to] {
		switch ed.kind {
		case editSame:
			b.WriteString(" " + actual[ed.a] + "\n")
		case editAny:
			b.WriteString(" " + anyLines + "\n")
		case editDelete:
			b.WriteString("-" + want[ed.e].text + "\n")
		case editInsert:
			b.WriteString("+" + actual[ed.a] + "\n")
		}
	}
}

// hunkRange renders "start,count" the way diff -u does: 1-based, and for an
// empty range the line before it.
func hunkRange(start, count int) string {
	if count == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if count == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, count)
}
