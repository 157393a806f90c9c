package labs

import (
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
)

// CourseItem is one thing to do in the course: read a chapter, step
// through a lab, solve an exercise, take a chapter's quiz.
type CourseItem struct {
	Kind    string // "read", "lab", "exercise" or "quiz"
	Chapter int
	ID      string // the lab's or exercise's ID ("" for read and quiz)
	Title   string
}

// The kinds of course item.
const (
	ItemRead     = "read"
	ItemLab      = "lab"
	ItemExercise = "exercise"
	ItemQuiz     = "quiz"
)

// Command is the command that does the item, as typed in the REPL:
// "read 5", "lab step 05-01", "exercise try 05-01", "quiz 5".
func (it CourseItem) Command() string {
	switch it.Kind {
	case ItemLab:
		return "lab step " + it.ID
	case ItemExercise:
		return "exercise try " + it.ID
	}
	return it.Kind + " " + strconv.Itoa(it.Chapter)
}

// Course is the order the material is meant to be done in: each chapter,
// then its labs, its exercises and its quiz. Titles are in lang where a
// translation exists.
func (c *Catalog) Course(lang Language) []CourseItem {
	var items []CourseItem
	tc := c.In(lang)
	for _, ch := range c.Chapters {
		title := ch.Title
		if tr, err := c.ChapterIn(strconv.Itoa(ch.Number), lang); err == nil {
			title = tr.Title
		}
		items = append(items, CourseItem{Kind: ItemRead, Chapter: ch.Number, Title: title})
		for _, l := range tc.Labs {
			if l.Chapter == ch.Number && l.ID != "" {
				items = append(items, CourseItem{Kind: ItemLab, Chapter: ch.Number, ID: l.ID, Title: l.Title})
			}
		}
		for _, e := range tc.Exercises {
			if e.Chapter == ch.Number && e.ID != "" {
				items = append(items, CourseItem{Kind: ItemExercise, Chapter: ch.Number, ID: e.ID, Title: e.Title})
			}
		}
		if _, err := fs.Stat(c.FS, strings.TrimSuffix(ch.FSPath, ".md")+".quiz"); err == nil {
			items = append(items, CourseItem{Kind: ItemQuiz, Chapter: ch.Number, Title: title})
		}
	}
	return items
}

// Done reports whether the learner did the item: read the chapter, stepped
// through the lab to its end, solved the exercise, answered the quiz.
func (c *Catalog) Done(p *Progress, it CourseItem) bool {
	switch it.Kind {
	case ItemRead:
		return p.Read(it.Chapter)
	case ItemLab:
		l, err := c.Lab(it.ID)
		return err == nil && p.LabDone(l)
	case ItemExercise:
		e, err := c.Exercise(it.ID)
		return err == nil && p.Entry(e).Status == StatusSolved
	case ItemQuiz:
		for _, q := range p.QuizEntries() {
			if q.Chapter == it.Chapter {
				return true
			}
		}
	}
	return false
}

// Next is what to do next: the first thing not done in the chapter of the
// last thing done (its labs before its exercises, so that a learner who
// skipped ahead is pointed at what the chapter still holds), else the first
// thing not done after it, else the first thing not done at all; ok is
// false when everything is done.
func (c *Catalog) Next(p *Progress, lang Language) (CourseItem, bool) {
	items := c.Course(lang)
	done := make([]bool, len(items))
	last := -1
	for i, it := range items {
		if done[i] = c.Done(p, it); done[i] {
			last = i
		}
	}
	if last >= 0 {
		for i, it := range items {
			if it.Chapter == items[last].Chapter && !done[i] {
				return it, true
			}
		}
	}
	for i := last + 1; i < len(items); i++ {
		if !done[i] {
			return items[i], true
		}
	}
	for i, it := range items {
		if !done[i] {
			return it, true
		}
	}
	return CourseItem{}, false
}

// NextLine is the "Next: ..." line that ends every lab, exercise and
// chapter: the command to type (written the way the learner runs the
// program, see Suggest) and what it is; "" for material without chapters.
func (c *Catalog) NextLine(p *Progress, lang Language, m *Messages) string {
	if len(c.Chapters) == 0 {
		return "" // material without chapters has no course to follow
	}
	it, ok := c.Next(p, lang)
	if !ok {
		return m.T("Next: you have done every chapter, lab, exercise and quiz. Try your own what-ifs (fork, undo), or write a lab (record start).")
	}
	return m.Sprintf("Next: `%s` (%s)", c.Suggest(it.Command()), it.Title)
}

// WriteProgress prints the learner's progress: per chapter, whether it was
// read, the labs stepped through, the exercises solved and whether the
// quiz was taken, then the totals and the next step.
func (c *Catalog) WriteProgress(w io.Writer, p *Progress, lang Language, m *Messages) {
	items := c.Course(lang)
	if len(items) == 0 {
		fmt.Fprintln(w, m.T("No chapters."))
		return
	}
	type tally struct{ done, total int }
	kinds := []string{ItemRead, ItemLab, ItemExercise, ItemQuiz}
	totals := map[string]*tally{}
	for _, k := range kinds {
		totals[k] = &tally{}
	}
	const titleWidth = 38
	heads := []string{m.T("READ"), m.T("LABS"), m.T("EXERCISES"), m.T("QUIZ")}
	fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("      %s  %s  %s  %s  %s", pad(m.T("CHAPTER"), titleWidth), pad(heads[0], 4), pad(heads[1], 5), pad(heads[2], 9), heads[3]), " "))
	for i := 0; i < len(items); {
		ch := items[i].Chapter
		per := map[string]*tally{}
		for _, k := range kinds {
			per[k] = &tally{}
		}
		title := ""
		for ; i < len(items) && items[i].Chapter == ch; i++ {
			it := items[i]
			if it.Kind == ItemRead {
				title = it.Title
			}
			per[it.Kind].total++
			totals[it.Kind].total++
			if c.Done(p, it) {
				per[it.Kind].done++
				totals[it.Kind].done++
			}
		}
		if displayWidth(title) > titleWidth {
			title = widths.Truncate(title, titleWidth-1, "") + "~"
		}
		mark := func(t *tally) string {
			switch {
			case t.total == 0:
				return ""
			case t.done > 0:
				return "✓"
			}
			return "-"
		}
		count := func(t *tally) string {
			if t.total == 0 {
				return "-"
			}
			return fmt.Sprintf("%d/%d", t.done, t.total)
		}
		line := fmt.Sprintf("  %2d  %s  %s  %s  %s  %s", ch, pad(title, titleWidth), pad(mark(per[ItemRead]), 4),
			pad(count(per[ItemLab]), 5), pad(count(per[ItemExercise]), 9), mark(per[ItemQuiz]))
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, m.Sprintf("Chapters read %d/%d, labs completed %d/%d, exercises solved %d/%d, quizzes taken %d/%d.",
		totals[ItemRead].done, totals[ItemRead].total, totals[ItemLab].done, totals[ItemLab].total,
		totals[ItemExercise].done, totals[ItemExercise].total, totals[ItemQuiz].done, totals[ItemQuiz].total))
	fmt.Fprintln(w, c.NextLine(p, lang, m))
}
