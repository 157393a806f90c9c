package labs

import (
	"errors"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

func TestLanguage(t *testing.T) {
	for in, want := range map[string]Language{"zh": Chinese, "ZH": Chinese, "zh-CN": Chinese, "zh_Hans": Chinese, "en": English, "en_US.UTF-8": English} {
		if got, err := ParseLanguage(in); err != nil || got != want {
			t.Errorf("ParseLanguage(%q) = %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "fr", "chinese"} {
		if _, err := ParseLanguage(bad); err == nil {
			t.Errorf("ParseLanguage(%q) accepted", bad)
		}
	}
	tests := []struct {
		env  map[string]string
		want Language
	}{
		{map[string]string{}, English},
		{map[string]string{"LANG": "zh_CN.UTF-8"}, Chinese},
		{map[string]string{"LANG": "zh_TW.UTF-8", "LC_ALL": "C"}, English},
		{map[string]string{"LANG": "en_US.UTF-8", "LC_MESSAGES": "zh_CN.UTF-8"}, Chinese},
		{map[string]string{"LC_ALL": "zh_SG.UTF-8", "LANG": "en_GB.UTF-8"}, Chinese},
	}
	for _, tt := range tests {
		if got := LanguageFromEnv(func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.env, got, tt.want)
		}
	}
}

// TestLabTextIn: the Chinese text of the fixture lab replaces the title,
// every narration and the epilogue, and nothing else.
func TestLabTextIn(t *testing.T) {
	cat := content(t)
	l, err := cat.Lab("01-01")
	if err != nil {
		t.Fatal(err)
	}
	zh, err := l.In(Chinese)
	if err != nil {
		t.Fatal(err)
	}
	if zh.Title != "数数" || zh.Lang != Chinese || zh.Epilogue[0] != "就这些：计数器会数数。" {
		t.Errorf("%q %q %q", zh.Title, zh.Lang, zh.Epilogue)
	}
	for i, b := range zh.Blocks {
		if b.Command != l.Blocks[i].Command || b.Line != l.Blocks[i].Line || strings.Join(b.Expected, "\n") != strings.Join(l.Blocks[i].Expected, "\n") {
			t.Errorf("step %d changed: %+v", i+1, b)
		}
		if len(l.Blocks[i].Narration) > 0 && (len(b.Narration) == 0 || b.Narration[0] == l.Blocks[i].Narration[0]) {
			t.Errorf("step %d narration not translated: %q", i+1, b.Narration)
		}
	}
	if l.Title != "Counting up" || l.Blocks[1].Narration[0] != "Each incr adds one and prints the new value." {
		t.Error("In changed the English lab")
	}
	if en, err := l.In(English); err != nil || en != l {
		t.Errorf("English: %v", err)
	}
	other, _ := cat.Lab("01-02")
	if got, err := other.In(Chinese); !errors.Is(err, ErrNoTranslation) || got != other || !strings.Contains(err.Error(), "02-escapes.lab.zh") {
		t.Errorf("missing translation: %v", err)
	}
}

// TestLabTextMismatch: a translation whose commands, narration or epilogue
// do not match its lab is refused with the translation's FILE:LINE.
func TestLabTextMismatch(t *testing.T) {
	l := mustLab(t, "labs/01-a/01-x.lab", "# title: X\n# chapter: 1\n\n# First.\nset x 1\n----\nok\n\nincr x\n----\nx=2\n\n# The end.\n")
	tests := []struct{ src, want string }{
		{"# title: 甲\n\n# 一。\nset x 1\n\nincr x\n\n# 完。\n", ""},
		{"# title: 甲\n\n# 一。\nset x 2\n\nincr x\n\n# 完。\n", `x.lab.zh:4: step 1 is "set x 2", but labs/01-a/01-x.lab:5 has "set x 1"`},
		{"# title: 甲\n\nset x 1\n\nincr x\n\n# 完。\n", "x.lab.zh:3: step 1 has no narration"},
		{"# title: 甲\n\n# 一。\nset x 1\n\n# 完。\n", "1 commands, but labs/01-a/01-x.lab has 2 steps"},
		{"# title: 甲\n\n# 一。\nset x 1\n\nincr x\n", "no epilogue"},
		{"# title: 甲\n\n# 一。\nset x 1\n----\nok\n", "x.lab.zh:5: ---- in a translation"},
		{"# chapter: 1\n", "unknown header \"chapter\""},
		{"\n# 一。\nset x 1\n", "missing header line '# title: ...'"},
	}
	for _, tt := range tests {
		text, err := ParseLabText("labs/01-a/01-x.lab.zh", Chinese, []byte(tt.src))
		if err == nil {
			err = l.CheckText(text)
		}
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%q: %v", tt.src, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%q: got %v, want %q", tt.src, err, tt.want)
		}
	}
}

func TestExerciseText(t *testing.T) {
	cat := content(t)
	e, err := cat.Exercise("01-01")
	if err != nil {
		t.Fatal(err)
	}
	zh, err := e.In(Chinese)
	if err != nil {
		t.Fatal(err)
	}
	if zh.Title != "让 x 等于二" || !strings.Contains(zh.Goal, "\nsetup 已经") || len(zh.Hints) != 2 || !strings.HasSuffix(zh.Hints[1], "\n然后 incr x。") {
		t.Errorf("%+v", zh)
	}
	if len(zh.Setup) != len(e.Setup) || len(zh.Checks) != len(e.Checks) || e.Title != "Make x two" {
		t.Error("In changed the setup, the checks or the English exercise")
	}
	for _, tt := range []struct{ src, want string }{
		{"# title: 甲\n# goal: 乙\n# hint: 丙\n", "1 hints, but x.exercise has 2"},
		{"# title: 甲\n# hint: 丙\n# hint: 丁\n", "missing header line '# goal: ...'"},
		{"# title: 甲\n# goal: 乙\nset x 1\n", "a translation holds only the title, goal and hints"},
		{"# title: 甲\n# goal: 乙\n# goal: 丙\n", `header "goal" given twice`},
	} {
		text, err := ParseExerciseText("x.exercise.zh", Chinese, []byte(tt.src))
		if err == nil {
			err = (&Exercise{Path: "x.exercise", Hints: []string{"a", "b"}}).CheckText(text)
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want %q", tt.src, err, tt.want)
		}
	}
}

func TestMessages(t *testing.T) {
	m, err := ParseMessages("m.zh", Chinese, []byte("# c\n\nHint %d/%d:\n= 提示 %d/%d：\n\nSkipped.\n= 已跳过。\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Sprintf("Hint %d/%d:", 1, 2); got != "提示 1/2：" {
		t.Errorf("%q", got)
	}
	if got := m.T("Not there"); got != "Not there" {
		t.Errorf("%q", got)
	}
	if miss := m.Missing(); len(miss) != 1 || miss[0] != "Not there" {
		t.Errorf("missing %q", miss)
	}
	var english *Messages
	if english.T("Skipped.") != "Skipped." || english.Missing() != nil {
		t.Error("nil messages are English")
	}
	for _, tt := range []struct{ src, want string }{
		{"Hint %d/%d:\n= 提示 %s：\n", "m.zh:2: the translation has the verbs [%s], the English [%d %d]"},
		{"Hint\n\n= 提示\n", `m.zh:1: "Hint" has no translation`},
		{"= 提示\n", "m.zh:1: a translation without an English line"},
		{"A\n= 甲\nA\n= 乙\n", `"A" is translated twice`},
		{"A\nB\n", `m.zh:1: "A" has no translation`},
	} {
		if _, err := ParseMessages("m.zh", Chinese, []byte(tt.src)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want %q", tt.src, err, tt.want)
		}
	}
}

// TestCatalogTranslations: the loader attaches translations to their
// files, reports broken and orphan ones, and finds translated chapters.
func TestCatalogTranslations(t *testing.T) {
	cat := content(t)
	if cat.Messages[Chinese] == nil || cat.Messages[Chinese].Len() == 0 {
		t.Error("messages.zh not loaded")
	}
	ch, err := cat.ChapterIn("1", Chinese)
	if err != nil || ch.Title != "计数基础" || ch.Name() != "zh/01-basics" || ch.Lang != Chinese {
		t.Errorf("%+v %v", ch, err)
	}
	if _, err := cat.ChapterIn("2", Chinese); !errors.Is(err, ErrNoTranslation) || !strings.Contains(err.Error(), "chapters/zh/02-more.md") {
		t.Errorf("missing chapter: %v", err)
	}
	missing := cat.MissingTexts(Chinese)
	var names []string
	for _, m := range missing {
		names = append(names, m.Error())
	}
	if len(missing) != 3 || !strings.Contains(strings.Join(names, "\n"), "02-escapes.lab.zh") {
		t.Errorf("missing texts:\n%s", strings.Join(names, "\n"))
	}

	src := func(p string) *fstest.MapFile {
		data, err := os.ReadFile("testdata/content/" + p)
		if err != nil {
			t.Fatal(err)
		}
		return &fstest.MapFile{Data: data}
	}
	fsys := fstest.MapFS{
		"labs/01-basics/01-counting.lab":      src("labs/01-basics/01-counting.lab"),
		"labs/01-basics/01-counting.lab.zh":   {Data: []byte("# title: 甲\nset x 2\n")},
		"labs/01-basics/09-orphan.lab.zh":     {Data: []byte("# title: 甲\n")},
		"labs/01-basics/01-set-x.exercise.zh": {Data: []byte("# title: 甲\n# goal: 乙\n")},
		"labs/01-basics/01-counting.lab.fr":   {Data: []byte("ignored: not a translation language")},
		"labs/messages.zh":                    {Data: []byte("A\n")},
	}
	cat, err = Load(fsys, "")
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	for _, p := range cat.Problems {
		problems = append(problems, p.Error())
	}
	all := strings.Join(problems, "\n")
	for _, want := range []string{
		`01-counting.lab.zh:2: step 1 is "set x 2"`,
		"09-orphan.lab.zh: a translation without a lab",
		"01-set-x.exercise.zh: a translation without an exercise",
		`messages.zh:1: "A" has no translation`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("problems lack %q:\n%s", want, all)
		}
	}
	if len(problems) != 4 {
		t.Errorf("%d problems:\n%s", len(problems), all)
	}
	if l := cat.Labs[0]; l.Texts != nil {
		t.Error("a mismatching translation was attached")
	}
}

func TestCompareTranscripts(t *testing.T) {
	en := []byte("# A\n\n## One\n\n```mk\nmk> set x 1\nok\n```\n\n## Two\n\n- item\n\n  ```mk\n  mk> get x\n  x=1\n  ```\n")
	ok := []byte("# 甲\n\n## 一\n\n```mk\nmk> set x 1\nok\n```\n\n## 二\n\n- 条目\n\n   ```mk\n   mk> get x\n   x=1\n   ```\n")
	if err := CompareTranscripts("en.md", en, "zh.md", ok); err != nil {
		t.Errorf("identical transcripts (indented differently): %v", err)
	}
	for _, tt := range []struct{ src, want string }{
		{"# 甲\n\n## 一\n\n```mk\nmk> set x 1\nOK\n```\n\n## 二\n\n```mk\nmk> get x\nx=1\n```\n", "zh.md:5: block 1 differs from en.md:5"},
		{"# 甲\n\n## 一\n\n```mk\nmk> set x 1\nok\n```\n\n## 二\n", "1 ```mk blocks, but en.md has 2"},
		{"# 甲\n\n## 一\n\n```mk\nmk> set x 1\nok\n```\n\n```mk\nmk> get x\nx=1\n```\n", `1 "## " sections, but en.md has 2`},
	} {
		if err := CompareTranscripts("en.md", en, "zh.md", []byte(tt.src)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("got %v, want %q", err, tt.want)
		}
	}
}

// TestStepChinese: step mode shows the Chinese title and narration, with
// the Chinese messages, and runs the same commands.
func TestStepChinese(t *testing.T) {
	cat := content(t)
	l, _ := cat.Lab("01-01")
	zh, err := l.In(Chinese)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	f := &fakeFactory{}
	if err := Step(zh, f.new, strings.NewReader("\n\nquit\n"), &out, StepOptions{Echo: true, Messages: cat.Messages[Chinese]}); err != nil {
		t.Fatal(err)
	}
	golden(t, "step-zh.golden", out.String())
	for _, want := range []string{"实验 01-01 counting：数数（第 1 章，5 步）", "── 第 2/5 步 ──\n每次 incr 加一，并打印新值。\n\n下一条：incr x", "停在第 3 步（共 5 步）。"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestProgressQuizLines(t *testing.T) {
	p := &Progress{Path: "progress"}
	if err := p.parse([]byte("01-01 set-x solved hints=1\nquiz 05 hw-gap correct tries=2\nquiz 5 next wrong tries=1\n")); err != nil {
		t.Fatal(err)
	}
	want := progressHeader + "01-01 set-x solved hints=1\n# quiz answers: quiz CHAPTER QUESTION STATUS tries=N\nquiz 05 hw-gap correct tries=2\nquiz 05 next wrong tries=1\n"
	if got := string(p.Bytes()); got != want {
		t.Errorf("got:\n%s", got)
	}
	for _, bad := range []string{"quiz 05 a maybe tries=1", "quiz x a correct tries=1", "quiz 05 a correct tries=-1", "quiz 05 a correct"} {
		if err := (&Progress{Path: "progress"}).parse([]byte(bad + "\n")); err == nil || !strings.Contains(err.Error(), "progress:1:") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
