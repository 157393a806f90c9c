package labs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Status is how far a learner got with an exercise.
type Status string

// The statuses, in order of progress.
const (
	StatusNew       Status = "new"       // hints seen, never checked
	StatusAttempted Status = "attempted" // checked, not yet passing
	StatusSolved    Status = "solved"    // passed every check once
)

// ProgressEntry is one line of the progress file.
type ProgressEntry struct {
	ID         string // "05-01", or "-" for an exercise outside labs/NN-slug/
	Slug       string
	Status     Status
	HintsShown int
}

// QuizStatus is how a learner did on one quiz question.
type QuizStatus string

// The quiz statuses: correct once answered right (it stays so), wrong while
// every answer so far was wrong.
const (
	QuizCorrect QuizStatus = "correct"
	QuizWrong   QuizStatus = "wrong"
)

// QuizEntry is one quiz line of the progress file.
type QuizEntry struct {
	Chapter  int
	Question string // the question's ID in the quiz file
	Status   QuizStatus
	Tries    int // answers given, right or wrong
}

// Progress is the learner's plain-text progress file: one line per
// exercise, "ID SLUG STATUS hints=N", then one line per quiz question
// answered, "quiz CHAPTER QUESTION STATUS tries=N", sorted, with '#'
// comments allowed. It holds no dates, so the same steps always write the
// same file.
type Progress struct {
	Path    string
	entries []ProgressEntry
	quiz    []QuizEntry
	// read are the chapters read (read N, to the end); labs the labs
	// stepped through to their last step, by ID.
	read map[int]bool
	labs map[string]string // ID -> slug
}

// ProgressPath is where the progress file lives:
// $XDG_STATE_HOME/minikafka/progress, or ~/.local/state/minikafka/progress.
func ProgressPath(getenv func(string) string) (string, error) {
	if dir := getenv("XDG_STATE_HOME"); dir != "" && filepath.IsAbs(dir) {
		return filepath.Join(dir, "minikafka", "progress"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("cannot locate the progress file: neither XDG_STATE_HOME nor HOME is set")
	}
	return filepath.Join(home, ".local", "state", "minikafka", "progress"), nil
}

// LoadProgress reads the progress file at path; a missing file is empty
// progress. A malformed line is an error with its FILE:LINE.
func LoadProgress(path string) (*Progress, error) {
	p := &Progress{Path: path}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return nil, err
	}
	if err := p.parse(data); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Progress) parse(data []byte) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || isComment(line) {
			continue
		}
		f := strings.Fields(line)
		bad := func(why string) error {
			return errorAt(p.Path, n, "%s in the progress file (fix the line or delete the file to start over)", why)
		}
		switch f[0] {
		case "quiz":
			e, err := parseQuizLine(f)
			if err != nil {
				return bad(err.Error())
			}
			p.SetQuiz(e)
			continue
		case "read":
			ch, err := strconv.Atoi(f[len(f)-1])
			if len(f) != 2 || err != nil || ch < 1 || ch > 99 {
				return bad("expected \"read CHAPTER\"")
			}
			p.MarkRead(ch)
			continue
		case "lab":
			if len(f) != 4 || f[3] != "done" {
				return bad("expected \"lab ID SLUG done\"")
			}
			p.MarkLab(f[1], f[2])
			continue
		}
		if len(f) != 4 {
			return bad("expected \"ID SLUG STATUS hints=N\"")
		}
		st := Status(f[2])
		if st != StatusNew && st != StatusAttempted && st != StatusSolved {
			return bad(fmt.Sprintf("unknown status %q", f[2]))
		}
		hints, ok := strings.CutPrefix(f[3], "hints=")
		h, err := strconv.Atoi(hints)
		if !ok || err != nil || h < 0 {
			return bad(fmt.Sprintf("bad hint count %q", f[3]))
		}
		p.Set(ProgressEntry{ID: f[0], Slug: f[1], Status: st, HintsShown: h})
	}
	return sc.Err()
}

func progressID(e *Exercise) string {
	if e.ID == "" {
		return "-"
	}
	return e.ID
}

// Entry is the learner's progress on an exercise (status "" when none).
func (p *Progress) Entry(e *Exercise) ProgressEntry {
	id := progressID(e)
	for _, x := range p.entries {
		if x.ID == id && x.Slug == e.Slug {
			return x
		}
	}
	return ProgressEntry{ID: id, Slug: e.Slug}
}

// Set records an entry, replacing the one with the same ID and slug.
func (p *Progress) Set(entry ProgressEntry) {
	for i, x := range p.entries {
		if x.ID == entry.ID && x.Slug == entry.Slug {
			p.entries[i] = entry
			return
		}
	}
	p.entries = append(p.entries, entry)
	slices.SortFunc(p.entries, func(a, b ProgressEntry) int {
		if c := strings.Compare(a.ID, b.ID); c != 0 {
			return c
		}
		return strings.Compare(a.Slug, b.Slug)
	})
}

// parseQuizLine reads "quiz CHAPTER QUESTION STATUS tries=N".
func parseQuizLine(f []string) (QuizEntry, error) {
	if len(f) != 5 {
		return QuizEntry{}, errors.New("expected \"quiz CHAPTER QUESTION STATUS tries=N\"")
	}
	ch, err := strconv.Atoi(f[1])
	if err != nil || ch < 1 || ch > 99 {
		return QuizEntry{}, fmt.Errorf("bad quiz chapter %q", f[1])
	}
	st := QuizStatus(f[3])
	if st != QuizCorrect && st != QuizWrong {
		return QuizEntry{}, fmt.Errorf("unknown quiz status %q", f[3])
	}
	tries, ok := strings.CutPrefix(f[4], "tries=")
	n, err := strconv.Atoi(tries)
	if !ok || err != nil || n < 0 {
		return QuizEntry{}, fmt.Errorf("bad try count %q", f[4])
	}
	return QuizEntry{Chapter: ch, Question: f[2], Status: st, Tries: n}, nil
}

// Quiz is the learner's progress on a quiz question (status "" when never
// answered).
func (p *Progress) Quiz(chapter int, question string) QuizEntry {
	for _, q := range p.quiz {
		if q.Chapter == chapter && q.Question == question {
			return q
		}
	}
	return QuizEntry{Chapter: chapter, Question: question}
}

// SetQuiz records a quiz entry, replacing the one for the same question.
func (p *Progress) SetQuiz(entry QuizEntry) {
	for i, q := range p.quiz {
		if q.Chapter == entry.Chapter && q.Question == entry.Question {
			p.quiz[i] = entry
			return
		}
	}
	p.quiz = append(p.quiz, entry)
	slices.SortFunc(p.quiz, func(a, b QuizEntry) int {
		if a.Chapter != b.Chapter {
			return a.Chapter - b.Chapter
		}
		return strings.Compare(a.Question, b.Question)
	})
}

// QuizEntries are all quiz entries, sorted by chapter and question.
func (p *Progress) QuizEntries() []QuizEntry { return slices.Clone(p.quiz) }

// Entries are all entries, sorted by ID and slug.
func (p *Progress) Entries() []ProgressEntry { return slices.Clone(p.entries) }

// MarkRead records that chapter n was read.
func (p *Progress) MarkRead(n int) {
	if p.read == nil {
		p.read = map[int]bool{}
	}
	p.read[n] = true
}

// Read reports whether chapter n was read.
func (p *Progress) Read(n int) bool { return p.read[n] }

// MarkLab records that the lab was stepped through to its end.
func (p *Progress) MarkLab(id, slug string) {
	if p.labs == nil {
		p.labs = map[string]string{}
	}
	p.labs[id] = slug
}

// LabDone reports whether the lab was stepped through to its end.
func (p *Progress) LabDone(l *Lab) bool {
	slug, ok := p.labs[labID(l)]
	return ok && slug == l.Slug
}

func labID(l *Lab) string {
	if l.ID == "" {
		return "-"
	}
	return l.ID
}

// Bytes is the file's text.
func (p *Progress) Bytes() []byte {
	var b bytes.Buffer
	b.WriteString("# minikafka exercise progress: ID SLUG STATUS hints=N (edit or delete freely)\n")
	for _, e := range p.entries {
		status := e.Status
		if status == "" {
			status = StatusNew
		}
		fmt.Fprintf(&b, "%s %s %s hints=%d\n", e.ID, e.Slug, status, e.HintsShown)
	}
	if len(p.read) > 0 || len(p.labs) > 0 {
		b.WriteString("# chapters read (read CHAPTER) and labs stepped through (lab ID SLUG done)\n")
	}
	for _, n := range sortedInts(p.read) {
		fmt.Fprintf(&b, "read %02d\n", n)
	}
	for _, id := range sortedKeys(p.labs) {
		fmt.Fprintf(&b, "lab %s %s done\n", id, p.labs[id])
	}
	if len(p.quiz) > 0 {
		b.WriteString("# quiz answers: quiz CHAPTER QUESTION STATUS tries=N\n")
	}
	for _, q := range p.quiz {
		fmt.Fprintf(&b, "quiz %02d %s %s tries=%d\n", q.Chapter, q.Question, q.Status, q.Tries)
	}
	return b.Bytes()
}

// Save writes the file (creating its directory), replacing it atomically.
// A progress without a Path is kept in memory only: Save does nothing.
func (p *Progress) Save() error {
	if p.Path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p.Path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p.Path), ".progress-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(p.Bytes())
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), p.Path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

func sortedInts(m map[int]bool) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func sortedKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
