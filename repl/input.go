package repl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// lineSource is where a command that asks the learner for lines itself
// (lab step, quiz) reads them: the terminal's line editor in an
// interactive session, the script's next lines in a piped one. It prints
// the prompt, returns ErrInterrupt for Ctrl-C and io.EOF at the end.
type lineSource interface {
	ReadLine(prompt string) (string, error)
}

// scriptSource reads a script's next lines for a command that asks for
// them: it writes the prompt and the line, so that the transcript reads
// like a session.
type scriptSource struct {
	lr  *scriptReader
	out io.Writer
}

func (src *scriptSource) ReadLine(prompt string) (string, error) {
	fmt.Fprint(src.out, prompt)
	line, err := src.lr.next()
	if err != nil {
		fmt.Fprintln(src.out)
		return "", err
	}
	fmt.Fprintln(src.out, strings.TrimSpace(line))
	return line, nil
}

// promptWriter passes output through, holding back the text after the
// last newline (a prompt a nested loop printed before it reads), so that
// a line editor can show it as its own prompt instead.
type promptWriter struct {
	w       io.Writer
	pending []byte
}

func (p *promptWriter) Write(b []byte) (int, error) {
	p.pending = append(p.pending, b...)
	if i := bytes.LastIndexByte(p.pending, '\n'); i >= 0 {
		if _, err := p.w.Write(p.pending[:i+1]); err != nil {
			return 0, err
		}
		p.pending = append(p.pending[:0], p.pending[i+1:]...)
	}
	return len(b), nil
}

// take returns the held-back text and forgets it.
func (p *promptWriter) take() string {
	s := string(p.pending)
	p.pending = p.pending[:0]
	return s
}

// flush writes what is held back.
func (p *promptWriter) flush() {
	if len(p.pending) > 0 {
		_, _ = p.w.Write(p.pending)
		p.pending = p.pending[:0]
	}
}

// sourceReader is an io.Reader over a line source, for a loop that reads
// with a scanner (the quiz): every line it reads is shown with the prompt
// the loop printed last. Ctrl-C reads as "q" (quit); Ctrl-D is the end.
type sourceReader struct {
	src  lineSource
	out  *promptWriter
	buf  []byte
	done bool
}

func (r *sourceReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if r.done {
			return 0, io.EOF
		}
		line, err := r.src.ReadLine(r.out.take())
		switch {
		case errors.Is(err, ErrInterrupt):
			line = "q"
		case err != nil:
			r.done = true
			return 0, io.EOF
		}
		r.buf = append(r.buf, line...)
		r.buf = append(r.buf, '\n')
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}
