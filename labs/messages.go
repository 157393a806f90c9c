package labs

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/minikafka-lab/minikafka/internal/lazyre"
)

// Messages translate the fixed texts that step mode, the exercise checker
// and the quiz print around the material (headings, prompts, verdicts).
// They are read from labs/messages.LANG, pairs of lines:
//
//	── Step %d/%d ──
//	= ── 第 %d/%d 步 ──
//
// an English format string, then "= " and its translation with the same
// verbs in the same order. Blank lines and '#' comments separate pairs.
// The code keeps the English strings; T looks them up. A nil *Messages is
// English.
type Messages struct {
	Lang Language
	text map[string]string

	mu      sync.Mutex
	missing map[string]bool
}

// verbRe matches the fmt verbs a message may hold.
var verbRe = lazyre.New(`%[-+# 0-9.*]*[a-zA-Z%]`)

// ParseMessages reads a messages file. Every translation must use the same
// fmt verbs as its English string, in the same order.
func ParseMessages(name string, lang Language, src []byte) (*Messages, error) {
	m := &Messages{Lang: lang, text: map[string]string{}}
	key, keyLine := "", 0
	for i, raw := range splitLines(string(src)) {
		line := strings.TrimRight(raw, "\r")
		n := i + 1
		switch {
		case strings.TrimSpace(line) == "" || isComment(line):
			if key != "" {
				return nil, errorAt(name, keyLine, "%q has no translation: the next line must start with \"= \"", key)
			}
		case strings.HasPrefix(line, "= "):
			if key == "" {
				return nil, errorAt(name, n, "a translation without an English line above it")
			}
			tr := strings.TrimPrefix(line, "= ")
			if a, b := verbRe().FindAllString(key, -1), verbRe().FindAllString(tr, -1); !slices.Equal(a, b) {
				return nil, errorAt(name, n, "the translation has the verbs %v, the English %v: they must match, in order", b, a)
			}
			if _, dup := m.text[key]; dup {
				return nil, errorAt(name, keyLine, "%q is translated twice", key)
			}
			m.text[key] = tr
			key = ""
		default:
			if key != "" {
				return nil, errorAt(name, keyLine, "%q has no translation: the next line must start with \"= \"", key)
			}
			key, keyLine = line, n
		}
	}
	if key != "" {
		return nil, errorAt(name, keyLine, "%q has no translation: the next line must start with \"= \"", key)
	}
	return m, nil
}

// T is the translation of an English message (a fmt format string, or
// plain text). A message without a translation is returned unchanged and
// remembered (see Missing), so that a test can find it.
func (m *Messages) T(english string) string {
	if m == nil {
		return english
	}
	if tr, ok := m.text[english]; ok {
		return tr
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.missing == nil {
		m.missing = map[string]bool{}
	}
	m.missing[english] = true
	return english
}

// Sprintf formats the translation of format.
func (m *Messages) Sprintf(format string, args ...any) string {
	return fmt.Sprintf(m.T(format), args...)
}

// Missing lists the messages T was asked for and could not translate,
// sorted.
func (m *Messages) Missing() []string {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for k := range m.missing {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Len is the number of translated messages.
func (m *Messages) Len() int {
	if m == nil {
		return 0
	}
	return len(m.text)
}

// loadMessages reads labs/messages.LANG (or messages.LANG at the root of a
// teacher's directory) when it exists.
func (c *Catalog) loadMessages(dir string, lang Language) {
	p := path.Join(dir, "messages."+string(lang))
	src, err := fs.ReadFile(c.FS, p)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.Problems = append(c.Problems, fmt.Errorf("%s: %w", c.name(p), err))
		}
		return
	}
	m, err := ParseMessages(c.name(p), lang, src)
	if err != nil {
		c.Problems = append(c.Problems, err)
		return
	}
	if c.Messages == nil {
		c.Messages = map[Language]*Messages{}
	}
	c.Messages[lang] = m
}
