package labs

import (
	"fmt"
	"strings"
)

// SourceError is a problem at a line of a lab, exercise, attempt or chapter
// file. It renders as "FILE:LINE: what is wrong", the form editors and
// terminals turn into a link.
type SourceError struct {
	File string
	Line int // 1-based; 0 when the problem concerns the whole file
	Err  error
}

// Error renders "FILE:LINE: message" (or "FILE: message" for line 0).
func (e *SourceError) Error() string {
	if e.Line <= 0 {
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
}

// Unwrap returns the underlying problem (for a validation failure, the
// executor's own error).
func (e *SourceError) Unwrap() error { return e.Err }

func errorAt(file string, line int, format string, args ...any) *SourceError {
	return &SourceError{File: file, Line: line, Err: fmt.Errorf(format, args...)}
}

// splitLines splits file text into lines without their line terminators
// (LF or CRLF). A final line terminator does not start another line.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	text = strings.TrimSuffix(text, "\n")
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// trimRight removes trailing spaces, tabs and carriage returns.
func trimRight(s string) string { return strings.TrimRight(s, " \t\r") }
