package cli

import (
	"os"
	"strings"
	"testing"
)

// TestReadLanguage: `read --lang zh` renders the Chinese edition and its
// questions; the global flag and the locale choose it too; --lang en wins
// over the locale; a chapter without a Chinese text says so and shows the
// English one.
func TestReadLanguage(t *testing.T) {
	zhEnv := func() *Env {
		return &Env{Getenv: func(k string) string { return map[string]string{"LANG": "zh_CN.UTF-8"}[k] }}
	}
	for _, tc := range []struct {
		env  *Env
		args []string
	}{
		{&Env{}, []string{"read", "1", "--lang", "zh", "--dir", content}},
		{&Env{}, []string{"--lang", "zh", "read", "1", "--dir", content}},
		{&Env{}, []string{"--lang=zh-CN", "read", "1", "--dir", content}},
		{zhEnv(), []string{"read", "1", "--dir", content}},
	} {
		r := run(t, tc.env, tc.args...)
		if r.status != 0 || !strings.HasPrefix(r.stdout, "计数基础\n========\n") || !strings.Contains(r.stdout, "检查理解") ||
			!strings.Contains(r.stdout, "1. 执行 `set x 1`") || !strings.Contains(r.stdout, "`minikafka quiz 1` 会逐题提问") {
			t.Errorf("%v: %+v", tc.args, r)
		}
	}
	if r := run(t, zhEnv(), "read", "1", "--lang", "en", "--dir", content); r.status != 0 || !strings.HasPrefix(r.stdout, "Basics of counting") || !strings.Contains(r.stdout, "Check your understanding") {
		t.Errorf("--lang en: %+v", r)
	}
	r := run(t, &Env{}, "read", "2", "--lang", "zh", "--dir", content)
	if r.status != 0 || !strings.Contains(r.stderr, "chapter 02-more has no Chinese text") || !strings.HasPrefix(r.stdout, "More") {
		t.Errorf("missing translation: %+v", r)
	}
	r = run(t, &Env{}, "read", "--lang", "zh", "--dir", content)
	if want := "章节（用 `minikafka read N` 阅读其中一章）：\n   1  计数基础\n   2  More\n"; r.stdout != want {
		t.Errorf("list:\n%s", r.stdout)
	}
	for _, args := range [][]string{{"read", "--lang", "fr"}, {"--lang", "fr", "read"}, {"--lang"}} {
		if r := run(t, &Env{}, args...); r.status != 2 || !strings.Contains(r.stderr, "en or zh") {
			t.Errorf("%v: %+v", args, r)
		}
	}
}

// TestQuizPiped: answers piped to `minikafka quiz N` are checked and
// explained, and recorded in the progress file; `minikafka quiz` lists the
// scores; the same questions in Chinese share the progress.
func TestQuizPiped(t *testing.T) {
	env, progress := exerciseEnv(t)
	env.Stdin = strings.NewReader("2\nb\n")
	r := run(t, env, "quiz", "1", "--dir", content)
	for _, want := range []string{
		"Question 1/2", "answer> 2\n✗ Not 2.\nThat is after one `incr`.\nThe answer: 3\nEach `incr` adds one: 1, 2, 3.",
		"answer> b\n✗ Not b.\nLength does not matter; blank lines do.\nThe answer: a) because it contains a blank line",
		"Score: 0 of 2 answered correctly (2 questions).",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("lacks %q:\n%s", want, r.stdout)
		}
	}
	env.Stdin = strings.NewReader("3\n")
	r = run(t, env, "quiz", "1", "--lang", "zh", "--dir", content)
	if r.status != 0 || !strings.Contains(r.stdout, "答案> 3\n✓ 正确。\n每次 `incr` 加一：1、2、3。") || !strings.Contains(r.stdout, "得分：答对 1 题，共作答 1 题（本测验 2 题）。") {
		t.Errorf("zh: %+v", r)
	}
	data, err := os.ReadFile(progress)
	if err != nil || !strings.Contains(string(data), "quiz 01 after-two-incr correct tries=2\nquiz 01 para-fence wrong tries=1\n") {
		t.Errorf("progress: %v\n%s", err, data)
	}
	r = run(t, env, "quiz", "--dir", content)
	if !strings.Contains(r.stdout, "   1  Basics of counting  1/2 correct, 1 wrong") {
		t.Errorf("list: %+v", r)
	}
	if r := run(t, env, "quiz", "2", "--dir", content); r.status != 1 || !strings.Contains(r.stderr, "has no quiz (expected chapters/02-more.quiz)") {
		t.Errorf("no quiz: %+v", r)
	}
}

// TestLabAndExerciseChinese: step mode and the exercise checker in Chinese.
func TestLabAndExerciseChinese(t *testing.T) {
	useFakeSessions(t)
	env := &Env{Stdin: strings.NewReader("\nquit\n")}
	r := run(t, env, "lab", "step", "01-01", "--lang", "zh", "--dir", content)
	if r.status != 0 || !strings.Contains(r.stdout, "实验 01-01 counting：数数（第 1 章，5 步）") || !strings.Contains(r.stdout, "从一个已知的值开始。") {
		t.Errorf("step: %+v", r)
	}
	r = run(t, &Env{}, "lab", "list", "--lang", "zh", "--dir", content)
	if !strings.Contains(r.stdout, "01-01  counting        1      5  数数\n") || !strings.Contains(r.stdout, "Escapes for the unpredictable") {
		t.Errorf("list: %+v", r)
	}
	r = run(t, &Env{Stdin: strings.NewReader("\n")}, "lab", "step", "01-02", "--lang", "zh", "--dir", content)
	if !strings.Contains(r.stderr, "lab 01-02 escapes has no Chinese text") {
		t.Errorf("missing translation: %+v", r)
	}
	env, _ = exerciseEnv(t)
	r = run(t, env, "exercise", "show", "01-01", "--lang", "zh", "--dir", content)
	if r.status != 0 || !strings.Contains(r.stdout, "让 x 等于二") || !strings.Contains(r.stdout, "运行你的命令之后") {
		t.Errorf("show: %+v", r)
	}
	r = run(t, env, "exercise", "hint", "01-01", "--lang", "zh", "--dir", content)
	if !strings.Contains(r.stdout, "incr 给变量加一。") {
		t.Errorf("hint: %+v", r)
	}
}

func TestUsageMentionsLang(t *testing.T) {
	r := run(t, &Env{}, "help")
	if !strings.Contains(r.stdout, "usage: minikafka [--lang en|zh] [COMMAND") || !strings.Contains(r.stdout, "\n  quiz ") {
		t.Errorf("%s", r.stdout)
	}
}
