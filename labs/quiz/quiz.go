// Package quiz holds the questions that end each chapter: a file beside the
// chapter (chapters/NN-slug.quiz, and chapters/LANG/NN-slug.quiz for a
// translation) with multiple-choice and short-answer questions, each with
// its answer and the reasoning behind it.
//
// Load finds a chapter's quiz, Question.Check judges one answer, Run asks a
// whole quiz on a terminal or from piped answers and explains every answer,
// and Record writes the outcome into the learner's progress file. A REPL
// command can use the same pieces: Check for one answer, Record to keep it.
//
// The format, for authors:
//
//	# title: Check your understanding
//
//	question: leo-vs-hw
//	ask: Broker 1 leads with LEO 5, follower 2 has LEO 3. What does a
//	  consumer get for offset 4?
//	choice a: the record at offset 4
//	choice b: nothing, and no error
//	answer: b
//	explain: The HW is min(5, 3) = 3; offsets from 3 on are not visible yet.
//	wrong a: the leader has it, but it is above the HW.
//
// A question with "choice" lines is multiple choice: its answer is one of
// the choice letters, and every other letter needs a "wrong X:" line that
// says why it is wrong. A question without choices is a short answer: its
// answer lists the accepted values separated by " | ", compared without
// regard to case, spaces and a final period; "wrong VALUE:" lines explain
// common wrong values. Lines indented by two spaces continue the value
// above; '#' lines are comments. Values are Markdown (inline code,
// emphasis).
package quiz

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/minikafka-lab/minikafka/internal/lazyre"
	"github.com/minikafka-lab/minikafka/labs"
)

// Quiz is one chapter's questions in one language.
type Quiz struct {
	Path      string // file name used in messages
	Chapter   int
	Lang      labs.Language
	Title     string
	Questions []*Question
}

// Question is one question of a quiz.
type Question struct {
	ID      string // unique in the quiz, the same in every language
	Line    int    // of its "question:" line
	Ask     string
	Choices []Choice // empty for a short answer
	// Answers are the accepted answers: one choice letter, or the accepted
	// values of a short answer (the first is the model answer).
	Answers []string
	Explain string
	// Wrong explains wrong answers: by choice letter, or by the
	// normalized value of a short answer.
	Wrong map[string]string
}

// Choice is one option of a multiple-choice question.
type Choice struct {
	Key  string // "a", "b", ...
	Text string
}

// MultipleChoice reports whether the question has choices.
func (q *Question) MultipleChoice() bool { return len(q.Choices) > 0 }

// ModelAnswer is the answer as shown to the learner: "b) the text" for a
// choice, the first accepted value for a short answer.
func (q *Question) ModelAnswer() string {
	if q.MultipleChoice() {
		for _, c := range q.Choices {
			if c.Key == q.Answers[0] {
				return c.Key + ") " + c.Text
			}
		}
	}
	return q.Answers[0]
}

var (
	idRe     = lazyre.New(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)
	keyRe    = lazyre.New(`^(question|ask|answer|explain|choice [a-z]|wrong [^:]+):(?:\s+(.*))?$`)
	headerRe = lazyre.New(`^#\s*([a-z]+):\s*(.*)$`)
)

// Parse reads a quiz file. name is used in messages ("NAME:LINE: ...").
// chapter and lang are the chapter and language it belongs to.
func Parse(name string, chapter int, lang labs.Language, src []byte) (*Quiz, error) {
	z := &Quiz{Path: name, Chapter: chapter, Lang: lang}
	fail := func(line int, format string, args ...any) error {
		return &labs.SourceError{File: name, Line: line, Err: fmt.Errorf(format, args...)}
	}
	var q *Question
	var more func(string) // continues the value above with an indented line
	finish := func() error {
		if q == nil {
			return nil
		}
		if err := q.validate(); err != nil {
			return fail(q.Line, "question %s: %v", q.ID, err)
		}
		z.Questions = append(z.Questions, q)
		return nil
	}
	lines := strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")
	for i, raw := range lines {
		n := i + 1
		line := strings.TrimRight(raw, " \t")
		switch {
		case line == "":
			more = nil
			continue
		case strings.HasPrefix(line, "#"):
			more = nil
			if m := headerRe().FindStringSubmatch(line); m != nil && q == nil {
				if m[1] != "title" {
					return nil, fail(n, "unknown header %q (a quiz's header has a title)", m[1])
				}
				z.Title = strings.TrimSpace(m[2])
			}
			continue
		case strings.HasPrefix(line, "  ") || strings.HasPrefix(line, "\t"):
			if more == nil {
				return nil, fail(n, "an indented line continues the value above it, but there is none")
			}
			more(strings.TrimSpace(line))
			continue
		}
		m := keyRe().FindStringSubmatch(line)
		if m == nil {
			return nil, fail(n, "%q: expected question:, ask:, choice X:, answer:, explain: or wrong X:", line)
		}
		key, value := m[1], strings.TrimSpace(m[2])
		if value == "" {
			return nil, fail(n, "empty %s", key)
		}
		if key == "question" {
			if err := finish(); err != nil {
				return nil, err
			}
			if !idRe().MatchString(value) {
				return nil, fail(n, "question id %q: use lower-case words joined by dashes", value)
			}
			for _, other := range z.Questions {
				if other.ID == value {
					return nil, fail(n, "question id %q is taken (line %d)", value, other.Line)
				}
			}
			q = &Question{ID: value, Line: n, Wrong: map[string]string{}}
			more = nil
			continue
		}
		if q == nil {
			return nil, fail(n, "%s: before the first question:", key)
		}
		switch {
		case key == "ask" || key == "explain":
			p := &q.Ask
			if key == "explain" {
				p = &q.Explain
			}
			if *p != "" {
				return nil, fail(n, "%s given twice in question %s", key, q.ID)
			}
			*p = value
			more = func(s string) { *p += "\n" + s }
		case key == "answer":
			if len(q.Answers) > 0 {
				return nil, fail(n, "answer given twice in question %s", q.ID)
			}
			for _, a := range strings.Split(value, " | ") {
				if a = strings.TrimSpace(a); a != "" {
					q.Answers = append(q.Answers, a)
				}
			}
			more = nil
		case strings.HasPrefix(key, "choice "):
			k := strings.TrimPrefix(key, "choice ")
			if want := string(rune('a' + len(q.Choices))); k != want {
				return nil, fail(n, "choice %s: choices are lettered a, b, c, ... in order (expected %s)", k, want)
			}
			q.Choices = append(q.Choices, Choice{Key: k, Text: value})
			c, i := q, len(q.Choices)-1
			more = func(s string) { c.Choices[i].Text += "\n" + s }
		default: // wrong X
			k := Normalize(strings.TrimPrefix(key, "wrong "))
			if _, dup := q.Wrong[k]; dup {
				return nil, fail(n, "wrong %s given twice in question %s", k, q.ID)
			}
			q.Wrong[k] = value
			c := q
			more = func(s string) { c.Wrong[k] += "\n" + s }
		}
	}
	if err := finish(); err != nil {
		return nil, err
	}
	if z.Title == "" {
		return nil, fail(1, "missing header line '# title: ...'")
	}
	if len(z.Questions) == 0 {
		return nil, fail(len(lines), "no questions")
	}
	return z, nil
}

// validate checks one question's parts against each other.
func (q *Question) validate() error {
	switch {
	case q.Ask == "":
		return errors.New("no ask: line")
	case len(q.Answers) == 0:
		return errors.New("no answer: line")
	case q.Explain == "":
		return errors.New("no explain: (every answer is explained)")
	}
	for _, a := range q.Answers {
		if Normalize(a) == "" {
			return fmt.Errorf("answer %q cannot be typed: it is empty once case, quotes and spaces are ignored", a)
		}
	}
	if !q.MultipleChoice() {
		for k := range q.Wrong {
			for _, a := range q.Answers {
				if Normalize(a) == k {
					return fmt.Errorf("wrong %s: that value is an accepted answer", k)
				}
			}
		}
		return nil
	}
	if len(q.Choices) < 2 {
		return errors.New("a multiple-choice question needs at least two choices")
	}
	if len(q.Answers) != 1 {
		return errors.New("a multiple-choice question has one answer, a choice letter")
	}
	answer := q.Answers[0]
	found := false
	for _, c := range q.Choices {
		if c.Key == answer {
			found = true
			if _, ok := q.Wrong[c.Key]; ok {
				return fmt.Errorf("wrong %s: that is the answer", c.Key)
			}
			continue
		}
		if q.Wrong[c.Key] == "" {
			return fmt.Errorf("choice %s has no wrong %s: line saying why it is wrong", c.Key, c.Key)
		}
	}
	if !found {
		return fmt.Errorf("answer %q is not one of the choices", answer)
	}
	for k := range q.Wrong {
		if !slices.ContainsFunc(q.Choices, func(c Choice) bool { return c.Key == k }) {
			return fmt.Errorf("wrong %s: there is no choice %s", k, k)
		}
	}
	return nil
}

// Normalize is how answers are compared: lower case, inner spaces
// collapsed, surrounding spaces, quotes, backticks and a final period
// removed, and for a choice a trailing ")" ("b)").
func Normalize(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	s = strings.Trim(s, "`'\"“”‘’ ")
	s = strings.TrimSuffix(s, ".")
	s = strings.TrimSuffix(s, "。")
	if len(s) == 2 && s[1] == ')' {
		s = s[:1]
	}
	return strings.TrimSpace(s)
}

// Verdict is the judgement of one answer.
type Verdict struct {
	Given   string // the answer as typed
	Skipped bool   // nothing was typed
	Invalid bool   // not a choice of a multiple-choice question: ask again
	Correct bool
	// Why explains this wrong answer, when the quiz has an explanation for
	// it; Explain is the question's reasoning, given after every answer.
	Why     string
	Explain string
}

// Check judges an answer.
func (q *Question) Check(answer string) Verdict {
	v := Verdict{Given: strings.TrimSpace(answer), Explain: q.Explain}
	given := Normalize(answer)
	if given == "" {
		v.Skipped = true
		return v
	}
	if q.MultipleChoice() {
		if !slices.ContainsFunc(q.Choices, func(c Choice) bool { return c.Key == given }) {
			v.Invalid = true
			return v
		}
		v.Correct = given == q.Answers[0]
		if !v.Correct {
			v.Why = q.Wrong[given]
		}
		return v
	}
	for _, a := range q.Answers {
		if sameValue(given, Normalize(a)) {
			v.Correct = true
			return v
		}
	}
	v.Why = q.Wrong[given]
	return v
}

// sameValue compares normalized short answers; numbers compare as numbers
// ("03" is 3).
func sameValue(a, b string) bool {
	if a == b {
		return true
	}
	x, errA := strconv.ParseInt(a, 10, 64)
	y, errB := strconv.ParseInt(b, 10, 64)
	return errA == nil && errB == nil && x == y
}

// PathFor is the quiz file of a chapter file: the same name with the
// extension .quiz.
func PathFor(ch labs.ChapterFile) string { return strings.TrimSuffix(ch.FSPath, ".md") + ".quiz" }

// Load reads the quiz of a chapter (English or translated, as the catalog
// found it). A chapter without a quiz file is an error wrapping
// fs.ErrNotExist.
func Load(fsys fs.FS, ch labs.ChapterFile) (*Quiz, error) {
	p := PathFor(ch)
	src, err := fs.ReadFile(fsys, p)
	if err != nil {
		return nil, err
	}
	name := p
	if dir, _ := strings.CutSuffix(ch.Path, ch.FSPath); dir != ch.Path {
		name = dir + p
	}
	lang := ch.Lang
	if lang == "" {
		lang = labs.English
	}
	return Parse(name, ch.Number, lang, src)
}

// CheckTranslation reports how a translated quiz differs from its original
// in what must not differ: the questions, by id and in order; each one's
// number of choices; its accepted answers (short answers are
// language-neutral values, so that both editions accept the same); and the
// answers its wrong-answer explanations are for.
func CheckTranslation(orig, tr *Quiz) error {
	var errs []error
	at := func(q *Question, format string, args ...any) {
		errs = append(errs, &labs.SourceError{File: tr.Path, Line: q.Line, Err: fmt.Errorf(format, args...)})
	}
	if len(orig.Questions) != len(tr.Questions) {
		errs = append(errs, fmt.Errorf("%s: %d questions, but %s has %d", tr.Path, len(tr.Questions), orig.Path, len(orig.Questions)))
	}
	for i := range min(len(orig.Questions), len(tr.Questions)) {
		o, t := orig.Questions[i], tr.Questions[i]
		if o.ID != t.ID {
			at(t, "question %d is %s, but %s has %s there", i+1, t.ID, orig.Path, o.ID)
			continue
		}
		if len(o.Choices) != len(t.Choices) {
			at(t, "question %s has %d choices, the original %d", t.ID, len(t.Choices), len(o.Choices))
		}
		if !slices.Equal(normalized(o.Answers), normalized(t.Answers)) {
			at(t, "question %s accepts %q, the original %q", t.ID, t.Answers, o.Answers)
		}
		if a, b := wrongKeys(o), wrongKeys(t); !slices.Equal(a, b) {
			at(t, "question %s explains the wrong answers %q, the original %q", t.ID, b, a)
		}
	}
	return errors.Join(errs...)
}

func normalized(answers []string) []string {
	out := make([]string, len(answers))
	for i, a := range answers {
		out[i] = Normalize(a)
	}
	slices.Sort(out)
	return out
}

func wrongKeys(q *Question) []string {
	var keys []string
	for k := range q.Wrong {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
