package labs_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/cli"
	"github.com/minikafka-lab/minikafka/labs"
	"github.com/minikafka-lab/minikafka/labs/quiz"
)

// TestContentQuizzes: every chapter ends with 3 to 6 questions, at least 40
// in all; every question's model answer is judged right and every wrong
// choice wrong, with its reason; and every translated quiz asks the same
// questions with the same answers (quiz.CheckTranslation).
func TestContentQuizzes(t *testing.T) {
	fsys := os.DirFS("..")
	cat, err := labs.Load(fsys, "")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, ch := range cat.Chapters {
		t.Run(ch.Name(), func(t *testing.T) {
			en, err := quiz.Load(fsys, ch)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(en.Questions); n < 3 || n > 6 {
				t.Errorf("%s: %d questions, want 3 to 6", en.Path, n)
			}
			total += len(en.Questions)
			for _, q := range en.Questions {
				if v := q.Check(q.Answers[0]); !v.Correct {
					t.Errorf("%s: %s: the model answer is judged wrong", en.Path, q.ID)
				}
				for _, c := range q.Choices {
					if v := q.Check(c.Key); c.Key != q.Answers[0] && (v.Correct || v.Why == "") {
						t.Errorf("%s: %s: choice %s is not explained as wrong", en.Path, q.ID, c.Key)
					}
				}
			}
			for _, lang := range labs.Translations {
				tch, err := cat.ChapterIn(ch.Slug, lang)
				if err != nil {
					t.Error(err)
					continue
				}
				tr, err := quiz.Load(fsys, tch)
				if err != nil {
					t.Errorf("%s quiz: %v", lang.Name(), err)
					continue
				}
				if err := quiz.CheckTranslation(en, tr); err != nil {
					t.Error(err)
				}
			}
		})
	}
	if total < 40 {
		t.Errorf("%d questions in all, want at least 40", total)
	}
}

// TestContentReadmeZh runs the transcript of README.zh-CN.md's first
// session, so the Chinese README never drifts from the program.
func TestContentReadmeZh(t *testing.T) {
	fsys := os.DirFS("..")
	if err := labs.CheckChapter(fsys, "README.zh-CN.md", cli.SessionExecutor(fsys)); err != nil {
		t.Error(err)
	}
	src, err := fs.ReadFile(fsys, "README.zh-CN.md")
	if err != nil || !bytes.Contains(src, []byte("```mk\nmk> topic create orders")) {
		t.Errorf("README.zh-CN.md has no first-session transcript (%v)", err)
	}
}

// TestContentMessages: every message that step mode, the exercise checker,
// the quiz and the command line pass through labs.Messages has a Chinese
// translation in labs/messages.zh. The messages are found in the source:
// the string literal given to a T or Sprintf method (not fmt.Sprintf).
// A Chinese step-mode session and quiz then run without asking for a
// message the file lacks.
func TestContentMessages(t *testing.T) {
	fsys := os.DirFS("..")
	cat, err := labs.Load(fsys, "")
	if err != nil {
		t.Fatal(err)
	}
	zh := cat.Messages[labs.Chinese]
	if zh == nil {
		t.Fatal("no labs/messages.zh")
	}
	used := map[string]string{"new": "status", "attempted": "status", "solved": "status"}
	for _, dir := range []string{".", "quiz", "../cli", "../repl"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) == 0 {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || (sel.Sel.Name != "T" && sel.Sel.Name != "Sprintf") {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "fmt" {
					return true
				}
				lit, ok := call.Args[0].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err == nil {
					used[s] = file
				}
				return true
			})
		}
	}
	if len(used) < 40 {
		t.Fatalf("found only %d messages in the source; the scan is broken", len(used))
	}
	for msg, file := range used {
		if zh.T(msg) == msg {
			t.Errorf("%s: %q has no Chinese translation in labs/messages.zh", file, msg)
		}
	}

	// A Chinese session of step mode and a quiz ask for nothing else.
	l, err := cat.Lab("01-01")
	if err != nil {
		t.Fatal(err)
	}
	zl, err := l.In(labs.Chinese)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	input := "back\n\nproduce orders key=zz value=zz\n\nback\nreset\n" + strings.Repeat("\n", len(zl.Blocks)+1) + "quit\n"
	if err := labs.Step(zl, cli.SessionExecutor(fsys), strings.NewReader(input), &out, labs.StepOptions{Echo: true, Messages: zh}); err != nil {
		t.Fatal(err)
	}
	ch, _ := cat.ChapterIn("5", labs.Chinese)
	z, err := quiz.Load(fsys, ch)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := quiz.Run(z, strings.NewReader("zz\n\nq\n"), &out, quiz.Options{Echo: true, Messages: zh}); err != nil {
		t.Fatal(err)
	}
	if miss := zh.Missing(); len(miss) > 0 {
		t.Errorf("messages asked for and not translated: %q", miss)
	}
	if !strings.Contains(out.String(), "── 第 1/") {
		t.Errorf("the session is not in Chinese:\n%s", out.String())
	}
}
