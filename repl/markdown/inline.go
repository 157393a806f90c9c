package markdown

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// style is a set of inline styles.
type style uint8

const (
	styleBold style = 1 << iota
	styleItalic
	styleCode
	styleLink
	styleDim
)

// piece is a run of text in one style.
type piece struct {
	text  string
	style style
}

// word is what wrapping moves around: pieces with no break opportunity
// inside. Latin words are separated by spaces; around East Asian wide
// characters a line may break between any two characters, except before
// closing punctuation and after opening punctuation. space reports whether a
// space separated the word from the one before: it is written as one space
// inside a line and dropped at a line break.
type word struct {
	pieces []piece
	space  bool
}

func (w word) width() int {
	n := 0
	for _, p := range w.pieces {
		n += displayWidth(p.text)
	}
	return n
}

// widths measures text in terminal columns: wide characters (CJK) take
// two. Ambiguous characters count one whatever the locale, so that the
// layout does not depend on the environment.
var widths = &runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true}

// displayWidth is the number of terminal columns s takes.
func displayWidth(s string) int { return widths.StringWidth(s) }

func isWide(r rune) bool { return widths.RuneWidth(r) == 2 }

// wideMark reports whether r is full-width punctuation (，。、：（ and the
// like), which needs no space next to Latin text.
func wideMark(r rune) bool { return isWide(r) && unicode.IsPunct(r) }

// noBreakBefore are the characters a line must not start with (closing
// punctuation, Chinese and Latin); noBreakAfter those it must not end with.
const (
	noBreakBefore = "，。、；：！？）」』》〉】”’…—·％,.;:!?)]}%"
	noBreakAfter  = "（「『《〈【“‘([{"
)

// breakBetween reports whether a line may break between a and b when no
// space separates them: only next to a wide character, and never before
// closing or after opening punctuation.
func breakBetween(a, b rune) bool {
	if !isWide(a) && !isWide(b) {
		return false
	}
	return !strings.ContainsRune(noBreakBefore, b) && !strings.ContainsRune(noBreakAfter, a)
}

// parseInline turns Markdown inline syntax into styled pieces. In plain mode
// code spans keep their backticks (so that commands stand out without
// colour) and emphasis markers are dropped.
func parseInline(s string, plain bool) []piece {
	var out []piece
	var b strings.Builder
	cur := style(0)
	flush := func() {
		if b.Len() > 0 {
			out = append(out, piece{b.String(), cur})
			b.Reset()
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && strings.IndexByte("\\`*_{}[]()#+-.!|<>", s[i+1]) >= 0:
			b.WriteByte(s[i+1])
			i += 2
		case c == '`':
			n := run(s, i, '`')
			end := strings.Index(s[i+n:], strings.Repeat("`", n))
			if end < 0 {
				b.WriteString(s[i : i+n])
				i += n
				continue
			}
			code := s[i+n : i+n+end]
			if len(code) > 2 && code[0] == ' ' && code[len(code)-1] == ' ' {
				code = code[1 : len(code)-1]
			}
			flush()
			if plain {
				code = "`" + code + "`"
			}
			out = append(out, piece{code, cur | styleCode})
			i += n + end + n
		case (c == '*' || c == '_') && emphasisOpens(s, i):
			n := min(run(s, i, c), 2)
			closeAt := findClose(s, i+n, c, n)
			if closeAt < 0 {
				b.WriteString(s[i : i+n])
				i += n
				continue
			}
			flush()
			st := styleItalic
			if n == 2 {
				st = styleBold
			}
			for _, p := range parseInline(s[i+n:closeAt], plain) {
				p.style |= cur | st
				out = append(out, p)
			}
			i = closeAt + n
		case c == '[':
			text, url, next, ok := link(s, i)
			if !ok {
				b.WriteByte(c)
				i++
				continue
			}
			flush()
			for _, p := range parseInline(text, plain) {
				p.style |= cur | styleLink
				out = append(out, p)
			}
			if url != "" && url != text && !strings.HasPrefix(url, "#") {
				out = append(out, piece{" (" + url + ")", cur | styleDim})
			}
			i = next
		case c == '<' && strings.HasPrefix(s[i:], "<http"):
			end := strings.IndexByte(s[i:], '>')
			if end < 0 {
				b.WriteByte(c)
				i++
				continue
			}
			flush()
			out = append(out, piece{s[i+1 : i+end], cur | styleLink})
			i += end + 1
		default:
			b.WriteByte(c)
			i++
		}
	}
	flush()
	return out
}

func run(s string, i int, c byte) int {
	n := 0
	for i+n < len(s) && s[i+n] == c {
		n++
	}
	return n
}

// emphasisOpens: a * or _ run followed by a non-space; for _ also preceded by
// a non-word character, so that snake_case stays as it is.
func emphasisOpens(s string, i int) bool {
	c := s[i]
	n := run(s, i, c)
	if i+n >= len(s) || s[i+n] == ' ' {
		return false
	}
	if c == '_' && i > 0 && isWordByte(s[i-1]) {
		return false
	}
	return true
}

// findClose finds the closing run of n c's after from: preceded by a
// non-space (and for _ not followed by a word character).
func findClose(s string, from int, c byte, n int) int {
	marker := strings.Repeat(string(c), n)
	for j := from; j < len(s); {
		k := strings.Index(s[j:], marker)
		if k < 0 {
			return -1
		}
		at := j + k
		if at > from && s[at-1] != ' ' && (c != '_' || at+n >= len(s) || !isWordByte(s[at+n])) {
			return at
		}
		j = at + 1
	}
	return -1
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// link reads [text](url) at i.
func link(s string, i int) (text, url string, next int, ok bool) {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				if j+1 < len(s) && s[j+1] == '(' {
					end := strings.IndexByte(s[j+2:], ')')
					if end < 0 {
						return "", "", 0, false
					}
					return s[i+1 : j], s[j+2 : j+2+end], j + 2 + end + 1, true
				}
				return "", "", 0, false
			}
		}
	}
	return "", "", 0, false
}

// words splits pieces into words: at spaces, and between characters where
// breakBetween allows a break.
func words(pieces []piece) []word {
	var out []word
	var cur word
	space := false
	var last rune // the last character added to cur; 0 when cur is empty
	flush := func() {
		if len(cur.pieces) > 0 {
			out = append(out, cur)
		}
		cur, last = word{}, 0
	}
	for _, p := range pieces {
		for _, r := range p.text {
			if r == ' ' {
				flush()
				space = true
				continue
			}
			if last != 0 && breakBetween(last, r) {
				flush()
			}
			if len(cur.pieces) == 0 {
				cur.space, space = space, false
			}
			if n := len(cur.pieces); n > 0 && cur.pieces[n-1].style == p.style {
				cur.pieces[n-1].text += string(r)
			} else {
				cur.pieces = append(cur.pieces, piece{string(r), p.style})
			}
			last = r
		}
	}
	flush()
	return out
}

// JoinLines joins lines of text into one line the way a paragraph's lines
// are joined: with a space, except between two wide characters (Chinese
// text has no spaces between words) and next to full-width punctuation.
func JoinLines(parts []string) string { return joinLines(parts) }

func joinLines(parts []string) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			prev, _ := utf8.DecodeLastRuneInString(parts[i-1])
			next, _ := utf8.DecodeRuneInString(p)
			if !(isWide(prev) && isWide(next)) && !wideMark(prev) && !wideMark(next) {
				b.WriteByte(' ')
			}
		}
		b.WriteString(p)
	}
	return b.String()
}
