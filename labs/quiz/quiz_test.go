package quiz

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/minikafka-lab/minikafka/labs"
)

func sample(t *testing.T) *Quiz {
	t.Helper()
	src, err := os.ReadFile("testdata/sample.quiz")
	if err != nil {
		t.Fatal(err)
	}
	z, err := Parse("sample.quiz", 5, labs.English, src)
	if err != nil {
		t.Fatal(err)
	}
	return z
}

func TestParse(t *testing.T) {
	z := sample(t)
	if z.Title != "Check your understanding" || len(z.Questions) != 2 {
		t.Fatalf("%+v", z)
	}
	q := z.Questions[0]
	if q.ID != "hw-gap" || len(q.Choices) != 3 || q.Answers[0] != "b" || !strings.Contains(q.Ask, "\nLEO 3") {
		t.Errorf("%+v", q)
	}
	if q.ModelAnswer() != "b) nothing, and no error" {
		t.Errorf("model answer %q", q.ModelAnswer())
	}
	if z.Questions[1].MultipleChoice() || len(z.Questions[1].Answers) != 2 {
		t.Errorf("%+v", z.Questions[1])
	}
}

// TestParseErrors: every broken quiz is refused with its line, and a
// multiple-choice question must explain every wrong choice.
func TestParseErrors(t *testing.T) {
	head := "# title: T\n\n"
	tests := []struct{ src, want string }{
		{"question: a\nask: x\nanswer: 1\nexplain: e\n", "sample.quiz:1: missing header"},
		{head + "question: a\nask: x\nanswer: 1\n", "no explain"},
		{head + "question: a\nask: x\nchoice a: p\nchoice b: q\nanswer: a\nexplain: e\n", "choice b has no wrong b"},
		{head + "question: a\nask: x\nchoice a: p\nchoice c: q\n", "lettered a, b, c"},
		{head + "question: a\nask: x\nchoice a: p\nchoice b: q\nanswer: z\nexplain: e\nwrong a: w\nwrong b: w\n", "not one of the choices"},
		{head + "question: a\nask: x\nchoice a: p\nchoice b: q\nanswer: a\nexplain: e\nwrong a: w\nwrong b: w\n", "wrong a: that is the answer"},
		{head + "question: a\nask: x\nanswer: 3\nexplain: e\nwrong 3: no\n", "an accepted answer"},
		{head + "question: A b\n", "lower-case words"},
		{head + "question: a\nask: x\nanswer: 1\nexplain: e\nquestion: a\n", `question id "a" is taken`},
		{head + "  stray\n", "continues the value above"},
		{head + "ask: x\n", "before the first question"},
		{head + "colour: red\n", "expected question:"},
		{head, "no questions"},
	}
	for _, tt := range tests {
		_, err := Parse("sample.quiz", 1, labs.English, []byte(tt.src))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want %q", tt.src, err, tt.want)
		}
	}
}

func TestCheck(t *testing.T) {
	z := sample(t)
	choice, value := z.Questions[0], z.Questions[1]
	tests := []struct {
		q                         *Question
		in                        string
		correct, invalid, skipped bool
		why                       string
	}{
		{choice, "b", true, false, false, ""},
		{choice, " B) ", true, false, false, ""},
		{choice, "a", false, false, false, "above the HW"},
		{choice, "c.", false, false, false, "beyond the LEO"},
		{choice, "d", false, true, false, ""},
		{choice, "", false, false, true, ""},
		{value, "3", true, false, false, ""},
		{value, "03", true, false, false, ""},
		{value, "Three.", true, false, false, ""},
		{value, "2", false, false, false, "last offset stored"},
		{value, "4", false, false, false, ""},
	}
	for _, tt := range tests {
		v := tt.q.Check(tt.in)
		if v.Correct != tt.correct || v.Invalid != tt.invalid || v.Skipped != tt.skipped || !strings.Contains(v.Why, tt.why) || (tt.why == "" && v.Why != "") {
			t.Errorf("%s %q: %+v", tt.q.ID, tt.in, v)
		}
		if !v.Skipped && !v.Invalid && v.Explain == "" {
			t.Errorf("%s %q: no explanation", tt.q.ID, tt.in)
		}
	}
}

// TestRunPiped: answers piped on stdin are echoed, judged and explained; a
// wrong answer says why and gives the answer; an invalid choice asks again.
func TestRunPiped(t *testing.T) {
	z := sample(t)
	var out bytes.Buffer
	r, err := Run(z, strings.NewReader("x\na\n3\n"), &out, Options{Echo: true})
	if err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"Check your understanding (chapter 5, 2 questions)",
		"Question 1/2",
		"  - a) the record at offset 4, since the leader has it",
		"answer> x\nAnswer with one of a, b, c (or Enter to skip).",
		"answer> a\n✗ Not a.\nThe leader has it, but it is above the HW.\nThe answer: b) nothing, and no error\nThe HW is",
		"answer> 3\n✓ Right.\nThe LEO is the offset the next append gets.",
		"Score: 1 of 2 answered correctly (2 questions).",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if c, n := r.Score(); c != 1 || n != 2 || r.Quit {
		t.Errorf("score %d/%d quit=%v", c, n, r.Quit)
	}
}

// TestRecord: a right answer stays right; wrong answers count tries; skips
// and quitting record nothing more; the progress file round-trips.
func TestRecord(t *testing.T) {
	z := sample(t)
	path := filepath.Join(t.TempDir(), "progress")
	p, err := labs.LoadProgress(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, answers := range []string{"a\n2\n", "b\n\n", "a\nq\n"} {
		r, err := Run(z, strings.NewReader(answers), &bytes.Buffer{}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		Record(p, r)
	}
	if e := p.Quiz(5, "hw-gap"); e.Status != labs.QuizCorrect || e.Tries != 3 {
		t.Errorf("hw-gap: %+v", e)
	}
	if e := p.Quiz(5, "next-offset"); e.Status != labs.QuizWrong || e.Tries != 1 {
		t.Errorf("next-offset: %+v", e)
	}
	if c, w, n := Tally(p, z); c != 1 || w != 1 || n != 2 {
		t.Errorf("tally %d %d %d", c, w, n)
	}
	if err := p.Save(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if want := "quiz 05 hw-gap correct tries=3\nquiz 05 next-offset wrong tries=1\n"; !strings.HasSuffix(string(data), want) {
		t.Errorf("progress file:\n%s", data)
	}
	again, err := labs.LoadProgress(path)
	if err != nil || !bytes.Equal(again.Bytes(), p.Bytes()) {
		t.Errorf("reload: %v\n%s", err, again.Bytes())
	}
}

func TestLoadAndMarkdown(t *testing.T) {
	src, _ := os.ReadFile("testdata/sample.quiz")
	fsys := fstest.MapFS{
		"chapters/05-rep.md":   {Data: []byte("# 5. Rep\n")},
		"chapters/05-rep.quiz": {Data: src},
		"chapters/06-isr.md":   {Data: []byte("# 6. ISR\n")},
	}
	cat, err := labs.Load(fsys, "")
	if err != nil {
		t.Fatal(err)
	}
	z, err := Load(fsys, cat.Chapters[0])
	if err != nil || z.Chapter != 5 || z.Path != "chapters/05-rep.quiz" {
		t.Fatalf("%+v %v", z, err)
	}
	if _, err := Load(fsys, cat.Chapters[1]); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no quiz: %v", err)
	}
	md := Markdown(z, nil, "")
	for _, want := range []string{"## Check your understanding", "1. Broker 1 leads", "   - c) `OFFSET_OUT_OF_RANGE`", "2. A log holds", "`minikafka quiz 5` asks these questions"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "smallest LEO") || strings.Contains(md, "next append") || strings.Contains(md, "above the HW") {
		t.Errorf("markdown gives the answers away:\n%s", md)
	}
}

func FuzzParse(f *testing.F) {
	src, err := os.ReadFile("testdata/sample.quiz")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(src))
	f.Add("# title: T\nquestion: a\nask: x\n  y\nanswer: 1 | 2\nexplain: e\n")
	f.Fuzz(func(t *testing.T, src string) {
		z, err := Parse("f.quiz", 1, labs.English, []byte(src))
		if err != nil {
			return
		}
		for _, q := range z.Questions {
			if q.Ask == "" || q.Explain == "" || len(q.Answers) == 0 {
				t.Fatalf("accepted an incomplete question: %+v", q)
			}
			if v := q.Check(q.Answers[0]); !v.Correct {
				t.Fatalf("the model answer %q of %s is judged wrong: %+v", q.Answers[0], q.ID, v)
			}
		}
	})
}

func TestCheckTranslation(t *testing.T) {
	en := sample(t)
	src, _ := os.ReadFile("testdata/sample.quiz")
	same, err := Parse("zh.quiz", 5, labs.Chinese, src)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckTranslation(en, same); err != nil {
		t.Errorf("identical: %v", err)
	}
	for _, tt := range []struct{ from, to, want string }{
		{"answer: 3 | three", "answer: 3", `accepts ["3"]`},
		{"question: next-offset", "question: next", "question 2 is next"},
		{"choice c: `OFFSET_OUT_OF_RANGE`\n", "", "has 2 choices"},
		{"wrong 2: 2 is the last", "wrong 4: 2 is the last", "explains the wrong answers"},
	} {
		changed := strings.Replace(string(src), tt.from, tt.to, 1)
		if tt.from == "choice c: `OFFSET_OUT_OF_RANGE`\n" {
			changed = strings.Replace(changed, "wrong c: That error is for offsets beyond the LEO (5); offset 4 exists.\n", "", 1)
		}
		tr, err := Parse("zh.quiz", 5, labs.Chinese, []byte(changed))
		if err != nil {
			t.Fatalf("%s: %v", tt.to, err)
		}
		if err := CheckTranslation(en, tr); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q → %q: got %v, want %q", tt.from, tt.to, err, tt.want)
		}
	}
}
