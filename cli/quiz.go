package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"

	"github.com/minikafka-lab/minikafka/labs"
	"github.com/minikafka-lab/minikafka/labs/quiz"
)

var quizCommand = &Subcommand{
	Name:     "quiz",
	Synopsis: "quiz [CHAPTER] [--dir DIR] [--lang en|zh]",
	Summary:  "questions that check what you understood of a chapter (without CHAPTER: your scores)",
	Usage:    quizUsage,
	Run:      runQuiz,
}

const quizUsage = `usage:
  minikafka quiz [--dir DIR] [--lang en|zh]
      the quizzes and how you did on each
  minikafka quiz N [--dir DIR] [--lang en|zh]
      ask chapter N's questions: type a letter or a value, Enter skips,
      q quits; every answer is checked and explained, and kept in the
      progress file
Answers are read from standard input, so they can be piped. --lang zh
asks in Chinese (default: the locale).
`

func runQuiz(env *Env, args []string) int {
	a, err := parseMaterialArgs(args)
	if err != nil || a.help || len(a.pos) > 1 {
		if err == nil && !a.help {
			err = errors.New("quiz takes at most one chapter")
		}
		return usageError(env, "quiz", quizUsage, err, a)
	}
	cat, ok := loadCatalog(env, "quiz", a.dir)
	if !ok {
		return 1
	}
	progressPath, err := labs.ProgressPath(env.Getenv)
	if err != nil {
		fmt.Fprintf(env.Stderr, "minikafka quiz: %v\n", err)
		return 1
	}
	progress, err := labs.LoadProgress(progressPath)
	if err != nil {
		fmt.Fprintf(env.Stderr, "minikafka quiz: %v\n", err)
		return 1
	}
	lang := language(env, a)
	msg := messages(cat, lang)
	command := env.prog() + " quiz"
	if a.dir != "" {
		command += " --dir " + a.dir
	}
	if len(a.pos) == 0 {
		return quizList(env, cat, progress, lang, msg, command)
	}
	ch, err := cat.ChapterIn(a.pos[0], lang)
	if errors.Is(err, labs.ErrNoTranslation) {
		fmt.Fprintf(env.Stderr, "minikafka quiz: %v; asking in English\n", err)
		ch, err = cat.Chapter(a.pos[0])
		msg = nil
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "minikafka quiz: %v\n", err)
		return 1
	}
	z, err := quiz.Load(cat.FS, ch)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(env.Stderr, "minikafka quiz: chapter %s has no quiz (expected %s)\n", ch.Name(), quiz.PathFor(ch))
		return 1
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "minikafka quiz: %v\n", err)
		return 1
	}
	opt := quiz.Options{
		Echo:     !env.StdinIsTerminal,
		Width:    readWidth(env),
		Color:    env.StdoutIsTerminal && env.Getenv("NO_COLOR") == "",
		Messages: msg,
		Command:  command,
	}
	r, err := quiz.Run(z, env.Stdin, env.Stdout, opt)
	quiz.Record(progress, r)
	if err := errors.Join(err, progress.Save()); err != nil {
		fmt.Fprintf(env.Stderr, "minikafka quiz: %v\n", err)
		return 1
	}
	return 0
}

// quizList prints every chapter that has a quiz, with the learner's
// standing on it.
func quizList(env *Env, cat *labs.Catalog, progress *labs.Progress, lang labs.Language, msg *labs.Messages, command string) int {
	status, any := 0, false
	for _, en := range cat.Chapters {
		ch := en
		if tr, err := cat.ChapterIn(strconv.Itoa(en.Number), lang); err == nil {
			ch = tr
		}
		z, err := quiz.Load(cat.FS, ch)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			fmt.Fprintf(env.Stderr, "minikafka quiz: %v\n", err)
			status = 1
			continue
		}
		if !any {
			fmt.Fprintln(env.Stdout, msg.Sprintf("Quizzes (answer one with `%s N`):", command))
			any = true
		}
		correct, wrong, total := quiz.Tally(progress, z)
		fmt.Fprintf(env.Stdout, "  %2d  %s  %s\n", ch.Number, ch.Title, msg.Sprintf("%d/%d correct, %d wrong", correct, total, wrong))
	}
	if !any && status == 0 {
		fmt.Fprintln(env.Stdout, msg.T("No quizzes."))
	}
	return status
}
