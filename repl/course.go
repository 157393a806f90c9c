package repl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/labs"
	"github.com/minikafka-lab/minikafka/labs/quiz"
	"github.com/minikafka-lab/minikafka/repl/markdown"
)

// The course inside the REPL: read, lab, exercise, progress and quiz work
// without leaving the session (the learner's cluster stays), and every
// chapter, lab and exercise ends with what comes next.

// course is the teaching material and the learner's progress, loaded once.
type course struct {
	cat      *labs.Catalog
	progress *labs.Progress
}

// tryingExercise is the exercise `exercise try` set up in this session.
type tryingExercise struct {
	ex *labs.Exercise
}

// theCourse loads the material (Options.Content) and the progress file
// (Options.ProgressPath; in memory when there is none).
func (s *Session) theCourse() (*course, error) {
	if s.course != nil {
		return s.course, nil
	}
	if s.opts.Content == nil {
		return nil, kerr.New(kerr.IllegalState, "this session has no teaching material (chapters and labs come with the minikafka program)")
	}
	cat, err := labs.Load(s.opts.Content, "")
	if err != nil {
		return nil, kerr.Wrap(kerr.StorageError, err, "reading the teaching material")
	}
	cat.InREPL = true
	p := &labs.Progress{}
	if s.opts.ProgressPath != "" {
		if p, err = labs.LoadProgress(s.opts.ProgressPath); err != nil {
			return nil, kerr.Wrap(kerr.StorageError, err, "reading the progress file")
		}
	}
	s.course = &course{cat: cat, progress: p}
	return s.course, nil
}

// lang is the course's language.
func (s *Session) lang() labs.Language {
	if s.opts.Lang == "" {
		return labs.English
	}
	return s.opts.Lang
}

// messages are the catalog's messages in the session's language.
func (c *course) messages(lang labs.Language) *labs.Messages {
	if lang == labs.English {
		return nil
	}
	return c.cat.Messages[lang]
}

// save writes the progress file (a session without one keeps it in memory).
func (c *course) save() error {
	if c.progress.Path == "" {
		return nil
	}
	if err := c.progress.Save(); err != nil {
		return kerr.Wrap(kerr.StorageError, err, "writing the progress file")
	}
	return nil
}

// courseError turns the catalog's "no lab ..." errors into usage errors.
func courseError(a *Args, err error) error {
	return a.usage("%s", err.Error())
}

// text is a command's text output, for the course commands: they print
// through the material's own renderers. In JSON it is {"text": "..."}.
type text string

func (t text) writeText(w io.Writer, _ *style) error {
	_, err := io.WriteString(w, string(t))
	return err
}

// MarshalJSON writes the text as an object's only field.
func (t text) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Text string `json:"text"`
	}{string(t)})
}

var readCommand = &Command{
	Name:    "read",
	Args:    "[CHAPTER [SECTION]]",
	Summary: "read a chapter (or one section of it) without leaving the session; alone, list the chapters",
	Detail: `read N renders chapter N (its number or its slug) in the session's
language, with its questions at the end, and says what comes next. read
N SECTION renders one section: its number among the chapter's ## headings
(read 5 2) or a word of its heading (read 5 watermark). Your cluster is
not touched: go on where you were after reading. On a terminal the
chapter goes through $PAGER.`,
	Group:      "Course",
	Positional: []Param{{Name: "CHAPTER", Optional: true, Values: liveChapters}, {Name: "SECTION", Optional: true, Rest: true}},
	Run:        runRead,
}

// liveFromCourse is a completion list taken from the session's course
// (none when the course cannot be loaded): one name per item.
func liveFromCourse[T any](items func(c *course) []T, name func(T) string) func(*Session) []string {
	return func(s *Session) []string {
		c, err := s.theCourse()
		if err != nil {
			return nil
		}
		var out []string
		for _, it := range items(c) {
			out = append(out, name(it))
		}
		return out
	}
}

// emitCourseText runs write with the session's course and emits what it
// wrote as text.
func (s *Session) emitCourseText(w io.Writer, write func(c *course, b *bytes.Buffer) error) error {
	c, err := s.theCourse()
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := write(c, &b); err != nil {
		return err
	}
	return s.emit(w, text(b.String()))
}

var liveChapters = liveFromCourse(func(c *course) []labs.ChapterFile { return c.cat.Chapters },
	func(ch labs.ChapterFile) string { return strconv.Itoa(ch.Number) })

func runRead(s *Session, w io.Writer, a *Args) error {
	if err := a.Err(); err != nil {
		return err
	}
	c, err := s.theCourse()
	if err != nil {
		return err
	}
	lang, msg := s.lang(), c.messages(s.lang())
	if a.Len() == 0 {
		var b strings.Builder
		fmt.Fprintln(&b, msg.T("Chapters (read one with `minikafka read N`):"))
		for _, ch := range c.cat.Chapters {
			if tr, err := c.cat.ChapterIn(strconv.Itoa(ch.Number), lang); err == nil {
				ch = tr
			}
			fmt.Fprintf(&b, "  %2d  %s\n", ch.Number, ch.Title)
		}
		return s.emit(w, text(strings.ReplaceAll(b.String(), "minikafka read N", "read N")))
	}
	ch, err := c.cat.ChapterIn(a.Pos(0), lang)
	if errors.Is(err, labs.ErrNoTranslation) {
		fmt.Fprintf(w, "note: %v; showing the English text\n", err)
		ch, err = c.cat.Chapter(a.Pos(0))
		msg = nil
	}
	if err != nil {
		return courseError(a, err)
	}
	src, err := fs.ReadFile(c.cat.FS, ch.FSPath)
	if err != nil {
		return kerr.Wrap(kerr.StorageError, err, "reading %s", ch.Path)
	}
	whole := a.Len() == 1
	if !whole {
		sec, err := markdown.Section(src, strings.Join(a.Rest(1), " "))
		if err != nil {
			return a.usage("%v", err)
		}
		src = sec
	} else if z, err := quiz.Load(c.cat.FS, ch); err == nil {
		src = append(src, quiz.Markdown(z, msg, "quiz")...)
	}
	var page bytes.Buffer
	if err := markdown.Render(&page, src, markdown.Options{Color: s.st.on, Width: min(s.width(), 100)}); err != nil {
		return kerr.Wrap(kerr.Internal, err, "rendering %s", ch.Path)
	}
	var out strings.Builder
	if s.format == FormatJSON || s.opts.Page == nil || !s.opts.Page(page.Bytes()) {
		out.Write(page.Bytes())
	}
	if whole {
		en, _ := c.cat.Chapter(strconv.Itoa(ch.Number))
		c.progress.MarkRead(en.Number)
		if next := c.cat.NextLine(c.progress, lang, msg); next != "" {
			fmt.Fprintf(&out, "\n%s\n", next)
		}
		if err := c.save(); err != nil {
			return err
		}
	}
	return s.emit(w, text(out.String()))
}

var labCommand = &Command{
	Name:    "lab",
	Summary: "the labs inside the session: list them, run them, step through one",
	Detail: `lab step ID walks through a lab on a cluster of its own (yours is left as
it is): Enter runs the next step (shown as next: ...), your own commands
are welcome, back goes one step back, reset replays up to the current
step, quit (or Ctrl-D) comes back here; Ctrl-C clears the line. Tab
completes commands and the lab's live names. from=N starts at step N.
lab run ID... replays labs and compares their output; lab run FILE.lab
runs a lab file (one you recorded, say).`,
	Group: "Course",
	Sub: []*Command{
		{
			Name:    "list",
			Summary: "the labs: ID, slug, chapter, steps, title",
			Run:     runLabList,
		},
		{
			Name:       "step",
			Args:       "ID [from=N]",
			Summary:    "step through a lab on a cluster of its own, with narration",
			Positional: []Param{{Name: "ID", Values: liveLabs}},
			Keys:       []Param{{Name: "from"}},
			Run:        runLabStep,
		},
		{
			Name:       "run",
			Args:       "ID...|FILE.lab...|all",
			Summary:    "replay labs and compare their output (all: every lab)",
			Positional: []Param{{Name: "ID", Rest: true, Values: liveLabs}},
			Run:        runLabRun,
		},
	},
}

var liveLabs = liveFromCourse(func(c *course) []*labs.Lab { return c.cat.Labs },
	func(l *labs.Lab) string { return l.ID })

func runLabList(s *Session, w io.Writer, a *Args) error {
	return s.emitCourseText(w, func(c *course, b *bytes.Buffer) error {
		labs.ListLabs(b, c.cat, s.lang())
		return nil
	})
}

// labOptions are the options of the sessions labs run on: the material,
// the language.
func (s *Session) labOptions() Options {
	return Options{Content: s.opts.Content, Lang: s.opts.Lang}
}

func runLabStep(s *Session, w io.Writer, a *Args) error {
	from := int(a.Int("from", 1, 1, 1<<20))
	if err := a.Err(); err != nil {
		return err
	}
	c, err := s.theCourse()
	if err != nil {
		return err
	}
	if s.input == nil {
		return kerr.New(kerr.IllegalState, "lab step reads your lines, and this session has none (a terminal, or a script's next lines); try lab run %s", a.Pos(0))
	}
	l, err := c.cat.Lab(a.Pos(0))
	if err != nil {
		return courseError(a, err)
	}
	if tl, err := l.In(s.lang()); err == nil {
		l = tl
	} else {
		fmt.Fprintf(w, "note: %v; showing the English text\n", err)
	}
	msg := c.messages(l.Lang)
	sc := &StepCompleter{}
	s.stepping = sc
	defer func() { s.stepping = nil }()
	opt := labs.StepOptions{
		Input:    s.input,
		From:     from,
		Messages: msg,
		Attach:   sc.Attach,
		Finished: func(w io.Writer) {
			en, err := c.cat.Lab(l.ID)
			if err != nil {
				return
			}
			c.progress.MarkLab(en.ID, en.Slug)
			if err := c.save(); err != nil {
				fmt.Fprintf(w, "note: %v\n", err)
			}
			if next := c.cat.NextLine(c.progress, s.lang(), msg); next != "" {
				fmt.Fprintln(w, next)
			}
		},
	}
	if err := labs.Step(l, LabExecutor(s.labOptions()), nil, w, opt); err != nil {
		return kerr.New(kerr.IllegalState, "%v", err)
	}
	fmt.Fprintln(w, msg.T("Back in your session: your cluster is as you left it."))
	return nil
}

func runLabRun(s *Session, w io.Writer, a *Args) error {
	if err := a.Err(); err != nil {
		return err
	}
	ids := a.Rest(0)
	if len(ids) == 0 {
		return a.usage("lab run takes lab IDs, lab files (FILE.lab) or all")
	}
	var list []*labs.Lab
	for _, id := range ids {
		if strings.HasSuffix(id, ".lab") {
			src, err := os.ReadFile(id)
			if err != nil {
				return a.usage("%v", err)
			}
			l, err := labs.ParseLab(filepath.ToSlash(id), src)
			if err != nil {
				return a.usage("%v", err)
			}
			list = append(list, l)
			continue
		}
		c, err := s.theCourse()
		if err != nil {
			return err
		}
		if id == "all" {
			list = append(list, c.cat.Labs...)
			continue
		}
		l, err := c.cat.Lab(id)
		if err != nil {
			return courseError(a, err)
		}
		list = append(list, l)
	}
	var b bytes.Buffer
	failed := labs.RunLabs(&b, list, LabExecutor(s.labOptions()), labs.RunOptions{})
	if err := s.emit(w, text(b.String())); err != nil {
		return err
	}
	if failed > 0 {
		return kerr.New(kerr.IllegalState, "%s failed", plural(failed, "lab", "labs"))
	}
	return nil
}

var exerciseCommand = &Command{
	Name:    "exercise",
	Summary: "the checked exercises inside the session: try one here, check it, get hints",
	Detail: `exercise try ID opens a fresh cluster with the exercise's setup applied
and shows the goal; then type commands, and check (alone) or exercise
check judges the live state: ✓/✗ per check with expected and actual, and
the hint for the first check that fails. undo takes a command back.
exercise check ID FILE judges a file of commands on a cluster of its own,
as minikafka exercise check does. Progress is kept in the progress file.`,
	Group: "Course",
	Sub: []*Command{
		{
			Name:    "list",
			Summary: "your progress on every exercise, chapter by chapter",
			Run:     runExerciseList,
		},
		{
			Name:       "show",
			Args:       "ID",
			Summary:    "an exercise's goal and setup",
			Positional: []Param{{Name: "ID", Values: liveExercises}},
			Run:        runExerciseShow,
		},
		{
			Name:       "try",
			Args:       "ID",
			Summary:    "a fresh cluster with the exercise's setup applied: type commands, then check",
			Positional: []Param{{Name: "ID", Values: liveExercises}},
			Run:        runExerciseTry,
		},
		{
			Name:       "check",
			Args:       "[ID [FILE]]",
			Summary:    "judge the exercise you are trying (the live state), or a file of commands",
			Positional: []Param{{Name: "ID", Optional: true, Values: liveExercises}, {Name: "FILE", Optional: true}},
			Run:        runExerciseCheck,
		},
		{
			Name:       "hint",
			Args:       "ID",
			Summary:    "the exercise's next hint",
			Positional: []Param{{Name: "ID", Values: liveExercises}},
			Run:        runExerciseHint,
		},
	},
}

var liveExercises = liveFromCourse(func(c *course) []*labs.Exercise { return c.cat.Exercises },
	func(e *labs.Exercise) string { return e.ID })

// coach is the exercise coach of the session, writing to w.
func (s *Session) coach(c *course, w io.Writer, lang labs.Language) *labs.Coach {
	return &labs.Coach{Out: w, Progress: c.progress, Command: "exercise", Messages: c.messages(lang), Course: c.cat, Lang: s.lang()}
}

// exercise finds an exercise in the session's language.
func (s *Session) findExercise(a *Args, c *course, id string, w io.Writer) (*labs.Exercise, error) {
	e, err := c.cat.Exercise(id)
	if err != nil {
		return nil, courseError(a, err)
	}
	te, err := e.In(s.lang())
	if err != nil {
		fmt.Fprintf(w, "note: %v; showing the English text\n", err)
	}
	return te, nil
}

func runExerciseList(s *Session, w io.Writer, a *Args) error {
	return s.emitCourseText(w, func(c *course, b *bytes.Buffer) error {
		s.coach(c, b, s.lang()).List(c.cat.In(s.lang()))
		return nil
	})
}

func runExerciseShow(s *Session, w io.Writer, a *Args) error {
	return s.emitCourseText(w, func(c *course, b *bytes.Buffer) error {
		e, err := s.findExercise(a, c, a.Pos(0), w)
		if err != nil {
			return err
		}
		s.coach(c, b, e.Lang).Show(e)
		return nil
	})
}

func runExerciseHint(s *Session, w io.Writer, a *Args) error {
	return s.emitCourseText(w, func(c *course, b *bytes.Buffer) error {
		e, err := s.findExercise(a, c, a.Pos(0), w)
		if err != nil {
			return err
		}
		if err := s.coach(c, b, e.Lang).Hint(e); err != nil {
			return kerr.Wrap(kerr.StorageError, err, "exercise hint")
		}
		return nil
	})
}

// runExerciseTry opens a fresh cluster, as a fresh session has (brokers
// 1,2,3, the defaults), and runs the exercise's setup on it: the state
// `exercise check` judges starts exactly where a checked file's commands
// would.
func runExerciseTry(s *Session, w io.Writer, a *Args) error {
	if err := a.Err(); err != nil {
		return err
	}
	c, err := s.theCourse()
	if err != nil {
		return err
	}
	e, err := s.findExercise(a, c, a.Pos(0), w)
	if err != nil {
		return err
	}
	if s.server != nil {
		return &hintedError{err: kerr.New(kerr.IllegalState, "exercise try opens a fresh cluster, and this session serves JSON/TCP"), hint: "`serve stop` first"}
	}
	if err := s.Exec(io.Discard, "cluster open brokers=1,2,3"); err != nil {
		return err
	}
	for _, cmd := range e.Setup {
		var out bytes.Buffer
		if err := s.Exec(&out, cmd.Text); err != nil {
			return kerr.New(kerr.IllegalState, "the setup of %s failed at %q: %s", e.Name(), cmd.Text, strings.TrimSpace(out.String()))
		}
	}
	s.exercise = &tryingExercise{ex: e}
	var b strings.Builder
	msg := c.messages(e.Lang)
	fmt.Fprintln(&b, msg.Sprintf("%s: %s (chapter %d)", e.Name(), e.Title, e.Chapter))
	fmt.Fprintln(&b, "\n"+msg.T("Goal:"))
	for _, l := range strings.Split(e.Goal, "\n") {
		fmt.Fprintln(&b, "  "+l)
	}
	if len(e.Setup) > 0 {
		fmt.Fprintln(&b, "\n"+msg.Sprintf("The setup ran on a fresh cluster (%d commands):", len(e.Setup)))
		for _, cmd := range e.Setup {
			fmt.Fprintln(&b, "  "+cmd.Text)
		}
	}
	fmt.Fprintln(&b, "\n"+msg.T("Now type your commands; `check` judges the state (undo takes a command back, exercise hint gives a hint)."))
	return s.emit(w, text(b.String()))
}

func runExerciseCheck(s *Session, w io.Writer, a *Args) error {
	if err := a.Err(); err != nil {
		return err
	}
	c, err := s.theCourse()
	if err != nil {
		return err
	}
	switch a.Len() {
	case 0:
		return s.judgeLive(w, a, c)
	case 1:
		if s.exercise != nil {
			if e, err := c.cat.Exercise(a.Pos(0)); err == nil && e.Path == s.exercise.ex.Path {
				return s.judgeLive(w, a, c)
			}
		}
		return a.usage("exercise check %s judges the exercise you are trying: `exercise try %s` first, or give a FILE of commands", a.Pos(0), a.Pos(0))
	}
	e, err := s.findExercise(a, c, a.Pos(0), w)
	if err != nil {
		return err
	}
	file := a.Pos(1)
	attempt, err := os.ReadFile(file)
	if err != nil {
		return a.usage("%v", err)
	}
	var b bytes.Buffer
	passed, err := s.coach(c, &b, e.Lang).Check(e, file, attempt, LabExecutor(s.labOptions()))
	if werr := s.emit(w, text(b.String())); werr != nil {
		return werr
	}
	if err != nil {
		return kerr.New(kerr.IllegalState, "%v", err)
	}
	if !passed {
		return &unsolvedError{id: e.ID}
	}
	return nil
}

// unsolvedError is an exercise check that did not pass: the verdict above
// it says why; its code is CHECK_FAILED, so that a script stops there.
type unsolvedError struct {
	id            string
	failed, total int
}

func (e *unsolvedError) Error() string { return CheckFailed + ": " + e.message() }

func (e *unsolvedError) message() string {
	if e.total == 0 {
		return fmt.Sprintf("%s is not solved yet", e.id)
	}
	return fmt.Sprintf("%s is not solved yet (%d of %d checks failed)", e.id, e.failed, e.total)
}

// judgeLive judges the exercise this session is trying against the live
// state: every check runs here, without changing anything.
func (s *Session) judgeLive(w io.Writer, a *Args, c *course) error {
	if s.exercise == nil {
		return a.usage("no exercise to judge: `exercise try ID` starts one (check EXPR checks one quantity)")
	}
	e := s.exercise.ex
	r := &labs.CheckReport{Exercise: e}
	for _, ch := range e.Checks {
		var out bytes.Buffer
		s.tl.depth++
		err := s.Exec(&out, ch.Text)
		s.tl.depth--
		if IsInternal(err) {
			return err
		}
		r.Checks = append(r.Checks, labs.CheckResult{Check: ch, Passed: err == nil, Output: out.String()})
	}
	var b bytes.Buffer
	msg := c.messages(e.Lang)
	fmt.Fprintln(&b, msg.Sprintf("Checking %s: %s", e.Name(), e.Title))
	passed, err := s.coach(c, &b, e.Lang).Verdict(e, r, labs.LiveName)
	if werr := s.emit(w, text(b.String())); werr != nil {
		return werr
	}
	if err != nil {
		return kerr.Wrap(kerr.StorageError, err, "writing the progress file")
	}
	if !passed {
		return &unsolvedError{id: e.ID, failed: r.Failed(), total: len(r.Checks)}
	}
	return nil
}

var progressCommand = &Command{
	Name:    "progress",
	Summary: "chapters read, labs completed, exercises solved, quizzes taken, and what to do next",
	Detail: `Reads the progress file ($XDG_STATE_HOME/minikafka/progress): a chapter
counts as read after read N, a lab as completed when lab step reached its
last step, an exercise as solved when its checks passed once, a quiz as
taken when you answered it. Next names the first thing not done after the
last thing you did.`,
	Group: "Course",
	Run:   runProgress,
}

func runProgress(s *Session, w io.Writer, a *Args) error {
	return s.emitCourseText(w, func(c *course, b *bytes.Buffer) error {
		c.cat.WriteProgress(b, c.progress, s.lang(), c.messages(s.lang()))
		return nil
	})
}

var quizCommand = &Command{
	Name:    "quiz",
	Args:    "[CHAPTER]",
	Summary: "answer a chapter's questions here (alone: how you did on each quiz)",
	Detail: `quiz N asks chapter N's questions one by one: type a letter or a value,
Enter skips, q (or Ctrl-C) stops. Every answer is checked, explained and
kept in the progress file.`,
	Group:      "Course",
	Positional: []Param{{Name: "CHAPTER", Optional: true, Values: liveChapters}},
	Run:        runQuiz,
}

func runQuiz(s *Session, w io.Writer, a *Args) error {
	if err := a.Err(); err != nil {
		return err
	}
	c, err := s.theCourse()
	if err != nil {
		return err
	}
	lang, msg := s.lang(), c.messages(s.lang())
	if a.Len() == 0 {
		var b strings.Builder
		any := false
		for _, en := range c.cat.Chapters {
			ch := en
			if tr, err := c.cat.ChapterIn(strconv.Itoa(en.Number), lang); err == nil {
				ch = tr
			}
			z, err := quiz.Load(c.cat.FS, ch)
			if err != nil {
				continue
			}
			if !any {
				fmt.Fprintln(&b, msg.Sprintf("Quizzes (answer one with `%s N`):", "quiz"))
				any = true
			}
			correct, wrong, total := quiz.Tally(c.progress, z)
			fmt.Fprintf(&b, "  %2d  %s  %s\n", ch.Number, ch.Title, msg.Sprintf("%d/%d correct, %d wrong", correct, total, wrong))
		}
		if !any {
			fmt.Fprintln(&b, msg.T("No quizzes."))
		}
		return s.emit(w, text(b.String()))
	}
	if s.input == nil {
		return kerr.New(kerr.IllegalState, "quiz reads your answers, and this session has none (a terminal, or a script's next lines)")
	}
	ch, err := c.cat.ChapterIn(a.Pos(0), lang)
	if errors.Is(err, labs.ErrNoTranslation) {
		ch, err = c.cat.Chapter(a.Pos(0))
		msg = nil
	}
	if err != nil {
		return courseError(a, err)
	}
	z, err := quiz.Load(c.cat.FS, ch)
	if err != nil {
		return a.usage("chapter %s has no quiz", ch.Name())
	}
	pw := &promptWriter{w: w}
	in := &sourceReader{src: s.input, out: pw}
	r, err := quiz.Run(z, in, pw, quiz.Options{Width: min(s.width(), 100), Color: s.st.on, Messages: msg, Command: "quiz"})
	pw.flush()
	quiz.Record(c.progress, r)
	if err != nil {
		return kerr.New(kerr.IllegalState, "%v", err)
	}
	fmt.Fprintln(w, c.cat.NextLine(c.progress, lang, msg))
	return c.save()
}
