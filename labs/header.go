package labs

import (
	"strconv"
	"strings"

	"github.com/minikafka-lab/minikafka/internal/lazyre"
)

// headerLine matches "# key: value" with a lower-case key.
var headerLine = lazyre.New(`^#\s*([a-z][a-z0-9-]*):(?:\s+(.*))?$`)

// parseHeaderLine splits a "# key: value" line. ok is false for any other
// line.
func parseHeaderLine(line string) (key, value string, ok bool) {
	m := headerLine().FindStringSubmatch(trimRight(line))
	if m == nil {
		return "", "", false
	}
	return m[1], strings.TrimSpace(m[2]), true
}

// parseChapter reads the value of a "# chapter:" header.
func parseChapter(file string, line int, value string) (int, error) {
	n, err := strconv.Atoi(value)
	if err != nil || n < 1 || n > 99 {
		return 0, errorAt(file, line, "chapter must be a number from 1 to 99, not %q", value)
	}
	return n, nil
}

// commentText is the text of a '#' line without the '#' and one space.
func commentText(line string) string {
	t := strings.TrimPrefix(trimRight(line), "#")
	return strings.TrimPrefix(t, " ")
}

// isComment reports whether a line is a '#' comment (narration).
func isComment(line string) bool { return strings.HasPrefix(line, "#") }

// trimBlank drops leading and trailing empty strings (paragraph breaks at the
// edges of narration).
func trimBlank(lines []string) []string {
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
