package labs

import (
	"fmt"
	"regexp"
	"strings"
)

// Rewrite returns the lab's source with the expected output of every
// mismatching block replaced by what the run printed, and the number of
// blocks changed. Everything else is kept byte for byte: header, narration,
// blank lines, and the expected output of the blocks that matched (with
// their "..." and " (re)" escapes). Output with blank lines is written
// between ----/---- fences; actual lines that would read as escapes are
// written as escaped regular expressions.
//
// Rewrite refuses a run that did not reach the end: rewriting half a lab
// would silently drop the expected output of the blocks that did not run.
func Rewrite(r *Result) ([]byte, int, error) {
	l := r.Lab
	if !r.Complete() {
		why := r.Stopped
		if why == nil {
			why = fmt.Errorf("only %d of %d blocks ran", len(r.Steps), len(l.Blocks))
		}
		return nil, 0, fmt.Errorf("%s: not rewritten, the lab did not run to the end: %w", l.Path, why)
	}
	var out []string
	at, changed := 0, 0
	for _, s := range r.Steps {
		b := s.Block
		out = append(out, l.lines[at:b.outFrom]...)
		at = b.outTo
		if s.Match {
			out = append(out, l.lines[b.outFrom:b.outTo]...)
			continue
		}
		lines, err := renderExpected(normalizeOutput(s.Output))
		if err != nil {
			return nil, 0, &SourceError{File: l.Path, Line: b.Line, Err: err}
		}
		out = append(out, lines...)
		// Single-fenced output ends at a blank line: keep one after it.
		if len(lines) > 0 && lines[0] != fenceLine && at < len(l.lines) && trimRight(l.lines[at]) != "" {
			out = append(out, "")
		}
		if len(lines) == 0 && at < len(l.lines) && trimRight(l.lines[at]) != "" {
			out = append(out, "")
		}
		changed++
	}
	out = append(out, l.lines[at:]...)
	return []byte(strings.Join(out, "\n") + "\n"), changed, nil
}

// renderExpected turns normalized actual output into the lines written after
// a block's "----": plain lines, or a ----/---- fenced region when the output
// has blank lines or starts with "----".
func renderExpected(actual []string) ([]string, error) {
	lines := make([]string, len(actual))
	fence := false
	for i, a := range actual {
		lines[i] = escapeLine(a)
		if lines[i] != a {
			if _, err := compileWant("", 0, lines[i:i+1]); err != nil {
				return nil, fmt.Errorf("output line %q cannot be written as expected output", a)
			}
		}
		if a == "" {
			fence = true
		}
	}
	if len(lines) > 0 && lines[0] == fenceLine {
		fence = true
	}
	if !fence {
		return lines, nil
	}
	for i := 0; i+1 < len(lines); i++ {
		if lines[i] == fenceLine && lines[i+1] == fenceLine {
			return nil, fmt.Errorf("output has two ---- lines in a row, which cannot be written as expected output")
		}
	}
	if len(lines) > 0 && lines[len(lines)-1] == fenceLine {
		return nil, fmt.Errorf("output ends with a ---- line, which cannot be written between ----/---- fences")
	}
	fenced := append([]string{fenceLine}, lines...)
	return append(fenced, fenceLine, fenceLine), nil
}

// escapeLine writes an actual line so that it matches itself: a literal
// "..." or a line ending in " (re)" becomes an escaped regular expression.
func escapeLine(a string) string {
	if a == anyLines || strings.HasSuffix(a, reSuffix) {
		return regexp.QuoteMeta(a) + reSuffix
	}
	return a
}
