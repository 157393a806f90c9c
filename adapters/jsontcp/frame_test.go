package jsontcp

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// readAll drains a lineReader: the lines it returns, then the error that
// stopped it (io.EOF or errFrameTooLarge).
func readAll(r io.Reader, max int) ([]string, error) {
	lr := newLineReader(r, max, nil)
	var lines []string
	for {
		line, err := lr.next()
		if err != nil {
			return lines, err
		}
		lines = append(lines, string(line))
	}
}

func TestLineReaderSplitsLines(t *testing.T) {
	input := "a\nbb\r\n\nccc" // CRLF kept for JSON to ignore; empty line; final line without newline
	want := []string{"a", "bb\r", "", "ccc"}
	for name, r := range map[string]io.Reader{
		"one read":        strings.NewReader(input),
		"one byte a read": iotest.OneByteReader(strings.NewReader(input)),
		"half reads":      iotest.HalfReader(strings.NewReader(input)),
		"data with EOF":   iotest.DataErrReader(strings.NewReader(input)),
	} {
		t.Run(name, func(t *testing.T) {
			lines, err := readAll(r, 100)
			if !errors.Is(err, io.EOF) {
				t.Fatalf("err = %v, want EOF", err)
			}
			if strings.Join(lines, "|") != strings.Join(want, "|") {
				t.Fatalf("lines = %q, want %q", lines, want)
			}
		})
	}
}

// E7 at the framer: the limit counts the newline.
func TestLineReaderLimitCountsNewline(t *testing.T) {
	const max = 200
	line := strings.Repeat("x", max-1) + "\n" // exactly max bytes
	lines, err := readAll(strings.NewReader(line+line), max)
	if !errors.Is(err, io.EOF) || len(lines) != 2 || len(lines[0]) != max-1 {
		t.Fatalf("a %d-byte line: lines %d, err %v", max, len(lines), err)
	}
	lines, err = readAll(strings.NewReader("ok\n"+strings.Repeat("x", max)+"\nnext\n"), max)
	if !errors.Is(err, errFrameTooLarge) || len(lines) != 1 || lines[0] != "ok" {
		t.Fatalf("a %d-byte line: lines %q, err %v; want [ok] then frame too large", max+1, lines, err)
	}
}

func TestLineReaderNoNewlineWithinLimit(t *testing.T) {
	const max = 200
	r := &countingReader{r: strings.NewReader(strings.Repeat("y", 1000))}
	lines, err := readAll(r, max)
	if !errors.Is(err, errFrameTooLarge) || len(lines) != 0 {
		t.Fatalf("lines %q, err %v", lines, err)
	}
	if r.n > max+1 {
		t.Fatalf("read %d bytes before giving up, want at most max+1 = %d", r.n, max+1)
	}
}

// An unterminated final line is judged by its own length: up to max bytes is
// served, max+1 is too large.
func TestLineReaderFinalLineAtLimit(t *testing.T) {
	const max = 50
	lines, err := readAll(strings.NewReader(strings.Repeat("z", max)), max)
	if !errors.Is(err, io.EOF) || len(lines) != 1 {
		t.Fatalf("final %d bytes: lines %d, err %v", max, len(lines), err)
	}
	_, err = readAll(strings.NewReader(strings.Repeat("z", max+1)), max)
	if !errors.Is(err, errFrameTooLarge) {
		t.Fatalf("final %d bytes: err %v, want frame too large", max+1, err)
	}
}

func TestLineReaderBufferStaysBounded(t *testing.T) {
	const max = 1000
	var in bytes.Buffer
	for i := range 500 {
		in.WriteString(strings.Repeat("q", i%max))
		in.WriteByte('\n')
	}
	lr := newLineReader(iotest.HalfReader(&in), max, nil)
	for {
		_, err := lr.next()
		if len(lr.buf) > max+1 {
			t.Fatalf("buffer grew to %d bytes, limit %d", len(lr.buf), max+1)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			break
		}
	}
}

func TestLineReaderReportsReadError(t *testing.T) {
	boom := errors.New("boom")
	lines, err := readAll(io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(boom)), 10)
	if !errors.Is(err, boom) || strings.Join(lines, ",") != "a,b" {
		t.Fatalf("lines %q err %v", lines, err)
	}
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// FuzzLineReader checks the framer against a plain model of §14.2 for any
// input and any split into reads: the same lines, then EOF or the frame error
// exactly where the model puts it, never more than max+1 bytes buffered.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("{\"operation\":\"metadata\"}\n\n{}\r\n"), uint16(30), uint8(3))
	f.Add([]byte(strings.Repeat("a", 40)), uint16(40), uint8(1))
	f.Add([]byte(strings.Repeat("a", 41)+"\n"), uint16(40), uint8(7))
	f.Add([]byte("\n\n\n"), uint16(1), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, max16 uint16, chunk uint8) {
		max := int(max16%4096) + 1
		wantLines, wantTooLarge := frameModel(data, max)
		r := &chunkReader{data: data, chunk: int(chunk%17) + 1}
		lr := newLineReader(r, max, nil)
		var got []string
		var err error
		for {
			var line []byte
			line, err = lr.next()
			if len(lr.buf) > max+1 {
				t.Fatalf("buffer %d > max+1 = %d", len(lr.buf), max+1)
			}
			if err != nil {
				break
			}
			got = append(got, string(line))
		}
		if wantTooLarge != errors.Is(err, errFrameTooLarge) {
			t.Fatalf("frame error %v, model says %v", err, wantTooLarge)
		}
		if !wantTooLarge && !errors.Is(err, io.EOF) {
			t.Fatalf("err %v, want EOF", err)
		}
		if len(got) != len(wantLines) {
			t.Fatalf("%d lines, model %d", len(got), len(wantLines))
		}
		for i := range got {
			if got[i] != wantLines[i] {
				t.Fatalf("line %d = %q, model %q", i, got[i], wantLines[i])
			}
		}
	})
}

// frameModel is §14.2 written plainly over the whole input.
func frameModel(data []byte, max int) (lines []string, tooLarge bool) {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			if len(data) > max {
				return lines, true
			}
			return append(lines, string(data)), false
		}
		if i+1 > max {
			return lines, true
		}
		lines = append(lines, string(data[:i]))
		data = data[i+1:]
	}
	return lines, false
}

// chunkReader returns at most chunk bytes per Read.
type chunkReader struct {
	data  []byte
	chunk int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.chunk)], c.data)
	c.data = c.data[n:]
	return n, nil
}
