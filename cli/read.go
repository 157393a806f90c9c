package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"strconv"
	"strings"

	"github.com/minikafka-lab/minikafka/labs"
	"github.com/minikafka-lab/minikafka/labs/quiz"
	"github.com/minikafka-lab/minikafka/repl/markdown"
)

var readCommand = &Subcommand{
	Name:     "read",
	Synopsis: "read [CHAPTER] [--dir DIR] [--lang en|zh]",
	Summary:  "read a chapter in the terminal (without CHAPTER: list them)",
	Usage:    readUsage,
	Run:      runRead,
}

const readUsage = `usage:
  minikafka read [--dir DIR] [--lang en|zh]
      list the chapters
  minikafka read N [SECTION] [--dir DIR] [--lang en|zh]
      render chapter N (number or slug) and its questions, or one section
      of it (its number or a word of its heading); on a terminal it is
      paged with $PAGER (default: less -R)
--lang zh reads the Chinese edition (default: zh when LC_ALL, LC_MESSAGES
or LANG starts with zh). Colour only on a terminal, never with NO_COLOR.
`

func runRead(env *Env, args []string) int {
	a, err := parseMaterialArgs(args)
	if err != nil || a.help {
		return usageError(env, "read", readUsage, err, a)
	}
	cat, ok := loadCatalog(env, "read", a.dir)
	if !ok {
		return 1
	}
	lang := language(env, a)
	msg := messages(cat, lang)
	if len(a.pos) == 0 {
		if len(cat.Chapters) == 0 {
			fmt.Fprintln(env.Stdout, msg.T("No chapters."))
			return 0
		}
		fmt.Fprintln(env.Stdout, env.say(msg.T("Chapters (read one with `minikafka read N`):")))
		for _, ch := range cat.Chapters {
			if tr, err := cat.ChapterIn(strconv.Itoa(ch.Number), lang); err == nil {
				ch = tr
			}
			fmt.Fprintf(env.Stdout, "  %2d  %s\n", ch.Number, ch.Title)
		}
		return 0
	}
	ch, err := cat.ChapterIn(a.pos[0], lang)
	if errors.Is(err, labs.ErrNoTranslation) {
		fmt.Fprintf(env.Stderr, "minikafka read: %v; showing the English text\n", err)
		ch, err = cat.Chapter(a.pos[0])
		msg = nil
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "minikafka read: %v\n", err)
		return 1
	}
	src, err := fs.ReadFile(cat.FS, ch.FSPath)
	if err != nil {
		fmt.Fprintf(env.Stderr, "minikafka read: %v\n", err)
		return 1
	}
	whole := len(a.pos) == 1
	if !whole {
		if src, err = markdown.Section(src, strings.Join(a.pos[1:], " ")); err != nil {
			fmt.Fprintf(env.Stderr, "minikafka read: %v\n", err)
			return 1
		}
	} else if z, err := quiz.Load(cat.FS, ch); err == nil {
		src = append(src, quiz.Markdown(z, msg, env.prog()+" quiz")...)
	} else if !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(env.Stderr, "minikafka read: %v\n", err)
		return 1
	}
	var page bytes.Buffer
	opt := markdown.Options{Color: env.StdoutIsTerminal && env.Getenv("NO_COLOR") == "", Width: readWidth(env)}
	if err := markdown.Render(&page, src, opt); err != nil {
		fmt.Fprintf(env.Stderr, "minikafka read: %v\n", err)
		return 1
	}
	if !env.StdoutIsTerminal || !pageOut(env, page.Bytes()) {
		if _, err := env.Stdout.Write(page.Bytes()); err != nil {
			return 1
		}
	}
	if !whole {
		return 0
	}
	// A chapter read to the end counts, and says what comes next.
	progress := progressOrMemory(env, "read")
	progress.MarkRead(ch.Number)
	if err := progress.Save(); err != nil {
		fmt.Fprintf(env.Stderr, "minikafka read: %v (progress is not recorded)\n", err)
	}
	fmt.Fprintln(env.Stdout)
	fmt.Fprintln(env.Stdout, cat.NextLine(progress, lang, msg))
	return 0
}

// readWidth is the wrapping width: $COLUMNS when it is a sensible number,
// else 80 (never wider than 100, for reading comfort).
func readWidth(env *Env) int {
	if n, err := strconv.Atoi(env.Getenv("COLUMNS")); err == nil && n >= 40 {
		return min(n, 100)
	}
	return 80
}

// pageOut sends the page through $PAGER (run by the shell, as git does) or
// `less -R`. It reports false when the pager could not show the page: it
// did not start, or it failed (a $PAGER that names no program exits 127
// without printing anything); the caller then prints the page itself, so
// that a broken pager never leaves the learner with nothing.
func pageOut(env *Env, page []byte) bool {
	name := "less -R"
	var cmd *exec.Cmd
	if p := env.Getenv("PAGER"); p != "" {
		name = p
		cmd = exec.Command("sh", "-c", p)
	} else {
		cmd = exec.Command("less", "-R")
	}
	cmd.Stdin = bytes.NewReader(page)
	cmd.Stdout = env.Stdout
	cmd.Stderr = env.Stderr
	if err := cmd.Run(); err != nil {
		// Quitting less early exits 0; a failure means nothing was shown.
		fmt.Fprintf(env.Stderr, "minikafka read: the pager %q failed (%v); printing the chapter instead\n", name, err)
		return false
	}
	return true
}
