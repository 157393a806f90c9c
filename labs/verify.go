package labs

import (
	"errors"
	"io/fs"
	"slices"
	"testing"
	"time"
)

// RunAll is the content test for labs: it loads every lab of fsys (whose
// root holds labs/), and for each one, as a subtest named by its ID and
// slug, runs it twice on fresh executors, requiring that both runs reach the
// end, match every block and print byte-identical transcripts. A file that
// does not parse fails the test with its FILE:LINE. It logs the total replay
// time (all labs together should replay in well under 3 s).
//
//	func TestLabs(t *testing.T) { labs.RunAll(t, content, newSession) }
func RunAll(t *testing.T, fsys fs.FS, newExec NewExecutor) {
	t.Helper()
	RunAllWith(t, fsys, func(*Lab) NewExecutor { return newExec })
}

// RunAllWith is RunAll with each lab's executor chosen by pick (see
// DiskOncePerChapter).
func RunAllWith(t *testing.T, fsys fs.FS, pick func(l *Lab) NewExecutor) {
	t.Helper()
	cat := mustLoad(t, fsys)
	start := time.Now()
	for _, l := range cat.Labs {
		newExec := pick(l)
		t.Run(l.ID+"-"+l.Slug, func(t *testing.T) {
			if err := CheckLab(l, newExec); err != nil {
				t.Error(err)
			}
		})
	}
	t.Logf("%d labs replayed twice in %v", len(cat.Labs), time.Since(start).Round(time.Millisecond))
}

// VerifyExercises is the content test for exercises: for every exercise of
// fsys, as a subtest, its reference solution (NAME.solution beside
// NAME.exercise) must exist, run without a failing command and pass every
// check, and an empty attempt must fail at least one check (see
// VerifyExercise).
//
//	func TestExercises(t *testing.T) { labs.VerifyExercises(t, content, newSession) }
func VerifyExercises(t *testing.T, fsys fs.FS, newExec NewExecutor) {
	t.Helper()
	cat := mustLoad(t, fsys)
	for _, e := range cat.Exercises {
		t.Run(e.ID+"-"+e.Slug, func(t *testing.T) {
			if err := VerifyExercise(e, newExec); err != nil {
				t.Error(err)
			}
		})
	}
}

// CheckChapters is the content test for chapters: every chapters/NN-slug.md
// of fsys and every translation chapters/LANG/NN-slug.md, as a subtest, must
// have transcripts that match the program (see CheckChapter).
//
//	func TestChapters(t *testing.T) { labs.CheckChapters(t, content, newSession) }
func CheckChapters(t *testing.T, fsys fs.FS, newExec NewExecutor) {
	t.Helper()
	cat := mustLoad(t, fsys)
	for _, ch := range append(slices.Clone(cat.Chapters), cat.Translated...) {
		t.Run(ch.Name(), func(t *testing.T) {
			if err := CheckChapter(fsys, ch.FSPath, newExec); err != nil {
				t.Error(err)
			}
		})
	}
}

// CheckTranslations is the content test for translations: for every
// language of Translations, as a subtest, every lab, exercise and chapter of
// fsys must have its text in that language, and the messages file must
// exist (see Catalog.MissingTexts; that each text matches its original is
// checked when the catalog loads); and every translated chapter must carry
// the English chapter's transcripts byte for byte (see CompareTranscripts).
func CheckTranslations(t *testing.T, fsys fs.FS) {
	t.Helper()
	cat := mustLoad(t, fsys)
	for _, lang := range Translations {
		t.Run(string(lang), func(t *testing.T) {
			for _, err := range cat.MissingTexts(lang) {
				t.Error(err)
			}
			for _, tr := range cat.Translated {
				if tr.Lang != lang {
					continue
				}
				en, err := cat.Chapter(tr.Slug)
				if err != nil {
					continue // reported by MissingTexts
				}
				a, errA := fs.ReadFile(fsys, en.FSPath)
				b, errB := fs.ReadFile(fsys, tr.FSPath)
				if err := errors.Join(errA, errB); err != nil {
					t.Error(err)
					continue
				}
				if err := CompareTranscripts(en.Path, a, tr.Path, b); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

func mustLoad(t *testing.T, fsys fs.FS) *Catalog {
	t.Helper()
	cat, err := Load(fsys, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range cat.Problems {
		t.Error(p)
	}
	return cat
}
