package repl

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// Word is one argument of a command line after quote removal.
//
// A word whose first '=' is unquoted and preceded by an unquoted, valid key
// name ([A-Za-z0-9._-]+) is a key=value pair; every other word is a bare
// word (a positional argument or a flag).
type Word struct {
	Text   string // the whole word, quotes removed
	Quoted bool   // some part of the word was quoted

	IsPair      bool   // the word is key=value
	Key         string // the key of a pair
	Value       string // the value of a pair, quotes removed
	ValueQuoted bool   // some part of the value was quoted (no hex:/b64: decoding then)

	// start and end are the word's byte span in the line Split read, quotes
	// included, so that a command can take raw text after a word.
	start, end int
}

// String renders the word back so that Split reads the same word again:
// unquoted text as it was typed, quoted text double-quoted.
func (w Word) String() string {
	switch {
	case w.IsPair && w.ValueQuoted:
		return w.Key + "=" + forceQuote(w.Value)
	case !w.IsPair && w.Quoted:
		return forceQuote(w.Text)
	}
	return w.Text
}

// Split breaks a command line into words. Words are separated by blanks;
// "double quotes" allow the escapes \\ \" \n \t \r and \xHH, 'single quotes'
// take everything literally, and an unquoted '#' at the start of a word
// begins a comment that runs to the end of the line. Quoted and unquoted
// parts of one word join up, as in a shell: value="two words" is one word.
func Split(line string) ([]Word, error) {
	var (
		words []Word
		cur   strings.Builder
		w     Word
		in    bool // inside a word
		eq    = -1 // byte index in cur of the first unquoted '=' (if the prefix was unquoted)
		// prefixQuoted reports whether any quoted text came before the first '='
		prefixQuoted bool
		// valueStart is the length of cur when the value began (after '=')
		valueStart int
	)
	var i int
	finish := func() {
		if !in {
			return
		}
		w.end = i
		w.Text = cur.String()
		if eq > 0 && !prefixQuoted && validKey(w.Text[:eq]) {
			w.IsPair = true
			w.Key = w.Text[:eq]
			w.Value = w.Text[eq+1:]
		}
		words = append(words, w)
		cur.Reset()
		w = Word{}
		in, eq, prefixQuoted, valueStart = false, -1, false, 0
	}
	markQuoted := func() {
		w.Quoted = true
		if eq < 0 {
			prefixQuoted = true
		} else if cur.Len() >= valueStart {
			w.ValueQuoted = true
		}
	}
	for i = 0; i < len(line); {
		c := line[i]
		if !in && !isBlank(c) && c != '#' {
			w.start = i
		}
		switch {
		case isBlank(c):
			finish()
			i++
		case c == '#' && !in:
			return words, nil
		case c == '\'':
			in = true
			markQuoted()
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, kerr.Argument("unterminated quoted string: missing ' at the end")
			}
			cur.WriteString(line[i+1 : i+1+end])
			i += end + 2
		case c == '"':
			in = true
			markQuoted()
			n, err := readDoubleQuoted(line[i+1:], &cur)
			if err != nil {
				return nil, err
			}
			i += n + 1
		default:
			in = true
			if c == '=' && eq < 0 {
				eq = cur.Len()
				valueStart = eq + 1
			}
			cur.WriteByte(c)
			i++
		}
	}
	finish()
	return words, nil
}

// readDoubleQuoted reads the body of a double-quoted string (s starts after
// the opening quote) into b and returns how many bytes of s it consumed,
// including the closing quote.
func readDoubleQuoted(s string, b *strings.Builder) (int, error) {
	for i := 0; i < len(s); {
		switch c := s[i]; c {
		case '"':
			return i + 1, nil
		case '\\':
			if i+1 >= len(s) {
				return 0, kerr.Argument(`unterminated quoted string: missing " at the end`)
			}
			switch e := s[i+1]; e {
			case '\\', '"':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'x':
				if i+3 >= len(s) || unhex(s[i+2]) < 0 || unhex(s[i+3]) < 0 {
					return 0, kerr.Argument(`invalid escape in quoted string: \x needs two hex digits`)
				}
				b.WriteByte(byte(unhex(s[i+2])<<4 | unhex(s[i+3])))
				i += 2
			default:
				return 0, kerr.Argument(`invalid escape \%c in quoted string (use \\ for a backslash)`, e)
			}
			i += 2
		default:
			b.WriteByte(c)
			i++
		}
	}
	return 0, kerr.Argument(`unterminated quoted string: missing " at the end`)
}

// Quote renders s as one word that Split reads back as s. Plain words are
// returned as they are; anything else is double-quoted with escapes.
func Quote(s string) string {
	if isPlain(s) {
		return s
	}
	return forceQuote(s)
}

// forceQuote always double-quotes s.
func forceQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteByte(byte(r))
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < utf8.RuneSelf && !unicode.IsPrint(r):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !unicode.IsPrint(r) && r != ' ':
			for j := 0; j < size; j++ {
				fmt.Fprintf(&b, `\x%02x`, s[i+j])
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

// isPlain reports whether s can be written without quotes: non-empty, no
// blanks, quotes, backslashes or '=', not starting with '#', and printable.
func isPlain(s string) bool {
	if s == "" || s[0] == '#' {
		return false
	}
	for _, r := range s {
		if r == utf8.RuneError || r == '"' || r == '\'' || r == '\\' || r == '=' || r <= ' ' || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// validKey reports whether s can be the key of a key=value word.
func validKey(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func isBlank(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// unhex returns the value of a hex digit, or -1.
func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
