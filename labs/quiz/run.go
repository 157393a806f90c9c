package quiz

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/minikafka-lab/minikafka/labs"
	"github.com/minikafka-lab/minikafka/repl/markdown"
)

// Options control Run.
type Options struct {
	// Echo writes every answer after the prompt, so that a transcript of
	// piped answers reads like a session (a terminal echoes otherwise).
	Echo bool
	// Width is the wrapping width of questions and explanations (80 when
	// zero); Color adds ANSI styles.
	Width int
	Color bool
	// Messages translate the quiz's own texts (nil: English); use the
	// catalog's messages for the quiz's language.
	Messages *labs.Messages
	// Command is how the learner runs the quiz (for "minikafka quiz N"
	// in messages); "minikafka quiz" when empty.
	Command string
}

// Answer is the outcome of one question in a run.
type Answer struct {
	Question *Question
	Verdict  Verdict
}

// Result is a run of a quiz: the questions answered or skipped, in order,
// and whether the learner quit before the end.
type Result struct {
	Quiz    *Quiz
	Answers []Answer
	Quit    bool
}

// Score is the number of correct answers and of questions answered.
func (r *Result) Score() (correct, answered int) {
	for _, a := range r.Answers {
		if a.Verdict.Skipped {
			continue
		}
		answered++
		if a.Verdict.Correct {
			correct++
		}
	}
	return correct, answered
}

// Run asks every question of z, reading one answer per line from in: a
// choice letter or a value; an empty line skips the question; "q" or
// "quit" stops. Each answer is judged and explained at once, a wrong one
// with the reason it is wrong. End of input stops like quit. The result
// is for Record.
func Run(z *Quiz, in io.Reader, out io.Writer, opt Options) (*Result, error) {
	m := opt.Messages
	r := &Result{Quiz: z}
	fmt.Fprintln(out, m.Sprintf("%s (chapter %d, %d questions)", z.Title, z.Chapter, len(z.Questions)))
	fmt.Fprintln(out, m.T("Answer with a letter or a value. Enter skips a question, q quits."))
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for i, q := range z.Questions {
		fmt.Fprintln(out)
		fmt.Fprintln(out, m.Sprintf("Question %d/%d", i+1, len(z.Questions)))
		if err := Show(out, q, opt); err != nil {
			return r, err
		}
		for {
			fmt.Fprint(out, m.T("answer>")+" ")
			if !sc.Scan() {
				if opt.Echo {
					fmt.Fprintln(out)
				}
				r.Quit = true
				return r, finish(out, r, opt, sc.Err())
			}
			line := strings.TrimSpace(sc.Text())
			if opt.Echo {
				fmt.Fprintln(out, line)
			}
			if l := strings.ToLower(line); l == "q" || l == "quit" {
				r.Quit = true
				return r, finish(out, r, opt, nil)
			}
			v := q.Check(line)
			if v.Invalid {
				keys := make([]string, len(q.Choices))
				for k, c := range q.Choices {
					keys[k] = c.Key
				}
				fmt.Fprintln(out, m.Sprintf("Answer with one of %s (or Enter to skip).", strings.Join(keys, ", ")))
				continue
			}
			r.Answers = append(r.Answers, Answer{Question: q, Verdict: v})
			if err := Explain(out, q, v, opt); err != nil {
				return r, err
			}
			break
		}
	}
	return r, finish(out, r, opt, sc.Err())
}

func finish(out io.Writer, r *Result, opt Options, err error) error {
	correct, answered := r.Score()
	fmt.Fprintln(out)
	fmt.Fprintln(out, opt.Messages.Sprintf("Score: %d of %d answered correctly (%d questions).", correct, answered, len(r.Quiz.Questions)))
	return err
}

// Show prints a question: its text and, for a multiple choice, the
// choices, wrapped to the width.
func Show(out io.Writer, q *Question, opt Options) error {
	var src strings.Builder
	src.WriteString(q.Ask + "\n")
	if q.MultipleChoice() {
		src.WriteString("\n")
		for _, c := range q.Choices {
			fmt.Fprintf(&src, "- %s) %s\n", c.Key, oneLine(c.Text))
		}
	}
	return render(out, src.String(), opt)
}

// Explain prints the verdict on an answer: right or wrong, why a wrong
// answer is wrong, the model answer and the question's reasoning. A skipped
// question prints only that it was skipped.
func Explain(out io.Writer, q *Question, v Verdict, opt Options) error {
	m := opt.Messages
	switch {
	case v.Skipped:
		fmt.Fprintln(out, m.T("Skipped."))
		return nil
	case v.Correct:
		fmt.Fprintln(out, m.T("✓ Right."))
	default:
		fmt.Fprintln(out, m.Sprintf("✗ Not %s.", v.Given))
		if v.Why != "" {
			if err := render(out, v.Why, opt); err != nil {
				return err
			}
		}
		fmt.Fprintln(out, m.Sprintf("The answer: %s", oneLine(q.ModelAnswer())))
	}
	return render(out, v.Explain, opt)
}

// oneLine joins a multi-line value into one line, with or without spaces
// as the text's language wants (see markdown.JoinLines).
func oneLine(s string) string { return markdown.JoinLines(strings.Split(s, "\n")) }

// render writes Markdown text wrapped for the terminal.
func render(out io.Writer, text string, opt Options) error {
	var b bytes.Buffer
	if err := markdown.Render(&b, []byte(text), markdown.Options{Color: opt.Color, Width: opt.Width}); err != nil {
		return err
	}
	_, err := out.Write(b.Bytes())
	return err
}

// Record writes a run into the progress file: each answered question's
// try count goes up, and its status becomes correct (for good) or, while
// it has never been answered right, wrong. Skipped questions are not
// recorded. The caller saves the file.
func Record(p *labs.Progress, r *Result) {
	for _, a := range r.Answers {
		if a.Verdict.Skipped {
			continue
		}
		RecordOne(p, r.Quiz.Chapter, a.Question, a.Verdict)
	}
}

// RecordOne records one judged answer (see Record), for callers that ask a
// single question.
func RecordOne(p *labs.Progress, chapter int, q *Question, v Verdict) {
	if v.Skipped || v.Invalid {
		return
	}
	e := p.Quiz(chapter, q.ID)
	e.Tries++
	switch {
	case v.Correct:
		e.Status = labs.QuizCorrect
	case e.Status != labs.QuizCorrect:
		e.Status = labs.QuizWrong
	}
	p.SetQuiz(e)
}

// Tally is the learner's standing on a quiz: questions answered right at
// least once, answered but never right, and the total.
func Tally(p *labs.Progress, z *Quiz) (correct, wrong, total int) {
	for _, q := range z.Questions {
		switch p.Quiz(z.Chapter, q.ID).Status {
		case labs.QuizCorrect:
			correct++
		case labs.QuizWrong:
			wrong++
		}
	}
	return correct, wrong, len(z.Questions)
}

// Markdown is the quiz's questions, without answers, as a Markdown section
// to append to the chapter when it is read: the title as a heading, the
// questions numbered, their choices lettered, and how to answer them.
func Markdown(z *Quiz, m *labs.Messages, command string) string {
	if command == "" {
		command = "minikafka quiz"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n## %s\n\n", z.Title)
	for i, q := range z.Questions {
		fmt.Fprintf(&b, "%d. %s\n", i+1, oneLine(q.Ask))
		for _, c := range q.Choices {
			fmt.Fprintf(&b, "   - %s) %s\n", c.Key, oneLine(c.Text))
		}
		b.WriteString("\n")
	}
	b.WriteString(m.Sprintf("`%s %d` asks these questions and explains every answer.", command, z.Chapter) + "\n")
	return b.String()
}
