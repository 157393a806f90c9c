package repl

import (
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/chzyer/readline"

	"github.com/minikafka-lab/minikafka/labs"
)

// ErrInterrupt is returned by a LineEditor when the learner pressed Ctrl-C:
// the line is cancelled and the REPL asks for the next one. It is the
// labs package's, so that lab step reads through the same editor.
var ErrInterrupt = labs.ErrInterrupt

// LineEditor reads command lines from a terminal with editing, history and
// completion. ReadLine returns io.EOF when the learner pressed Ctrl-D on an
// empty line and ErrInterrupt for Ctrl-C. The REPL uses exactly one editor
// per process, on one goroutine, so that the library behind it can be
// swapped without touching the loop.
type LineEditor interface {
	ReadLine(prompt string) (string, error)
	Close() error
}

// Completer completes the text left of the cursor (Session implements it).
type Completer interface {
	Complete(line string) (prefix string, candidates []string)
}

// EditorConfig configures the terminal line editor.
type EditorConfig struct {
	HistoryFile string // persistent history; "" keeps history in memory only
	Completer   Completer
	Stdout      io.Writer
	Stderr      io.Writer
}

// NewReadlineEditor returns the chzyer/readline line editor on the process's
// terminal: persistent history, Ctrl-R search, tab completion.
func NewReadlineEditor(cfg EditorConfig) (LineEditor, error) {
	if cfg.HistoryFile != "" {
		// A history file we cannot create is not worth failing the REPL for.
		if err := os.MkdirAll(filepath.Dir(cfg.HistoryFile), 0o700); err != nil {
			cfg.HistoryFile = ""
		}
	}
	rc := &readline.Config{
		Prompt:            "mk> ",
		HistoryFile:       cfg.HistoryFile,
		HistoryLimit:      1000,
		HistorySearchFold: true,
		InterruptPrompt:   "^C",
		EOFPrompt:         "exit",
		Stdout:            cfg.Stdout,
		Stderr:            cfg.Stderr,
		// Ctrl-Z would suspend the process behind the editor's raw mode.
		FuncFilterInputRune: func(r rune) (rune, bool) { return r, r != readline.CharCtrlZ },
	}
	if cfg.Completer != nil {
		rc.AutoComplete = readlineCompleter{cfg.Completer}
	}
	rl, err := readline.NewEx(rc)
	if err != nil {
		return nil, err
	}
	return &readlineEditor{rl: rl}, nil
}

type readlineEditor struct {
	rl *readline.Instance
}

func (e *readlineEditor) ReadLine(prompt string) (string, error) {
	e.rl.SetPrompt(prompt)
	line, err := e.rl.Readline()
	switch {
	case errors.Is(err, readline.ErrInterrupt):
		return "", ErrInterrupt
	case err != nil:
		return "", err
	}
	return line, nil
}

func (e *readlineEditor) Close() error { return e.rl.Close() }

// Print writes text above the prompt while a line is being read, and
// redraws the prompt and what was typed below it.
func (e *readlineEditor) Print(text string) { _, _ = e.rl.Stdout().Write([]byte(text)) }

// livePrinter is a LineEditor that can print while it waits for a line.
type livePrinter interface {
	Print(text string)
}

// readlineCompleter adapts a Completer to readline's AutoCompleter, which
// wants the suffixes of the candidates and the length of the typed prefix.
type readlineCompleter struct{ c Completer }

func (r readlineCompleter) Do(line []rune, pos int) ([][]rune, int) {
	prefix, cands := r.c.Complete(string(line[:pos]))
	out := make([][]rune, 0, len(cands))
	for _, c := range cands {
		out = append(out, []rune(c[len(prefix):]))
	}
	return out, len([]rune(prefix))
}

// TerminalWidth is the width of the terminal on standard output in
// columns, or 0 when it is not a terminal (for Options.Width).
func TerminalWidth() int {
	return max(0, readline.GetScreenWidth())
}
