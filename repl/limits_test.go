package repl

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// TestClockNeverWraps: advancing the clock to the largest time works,
// one more millisecond is refused and leaves the clock there, and a
// consumer that joins at that time keeps its session (its deadline
// saturates instead of wrapping to a negative time).
func TestClockNeverWraps(t *testing.T) {
	s := newTestSession(t, Options{})
	for _, l := range []string{"topic create t", "clock advance 9223372036854775807"} {
		if out, err := run(t, s, l); err != nil {
			t.Fatalf("%s: %v\n%s", l, err, out)
		}
	}
	out, err := run(t, s, "clock advance 1")
	if err == nil || !strings.Contains(out, "error: INVALID_ARGUMENT: clock cannot advance 1 ms") {
		t.Fatalf("advance past the largest time: %v\n%s", err, out)
	}
	if out, _ := run(t, s, "clock"); !strings.Contains(out, "9223372036854775807") {
		t.Fatalf("the refused advance moved the clock: %s", out)
	}
	for _, l := range []string{"consumer create c group=g", "consumer subscribe c t", "clock advance 0"} {
		if out, err := run(t, s, l); err != nil {
			t.Fatalf("%s: %v\n%s", l, err, out)
		}
	}
	if out, err := run(t, s, "check group g members == [member-1]"); err != nil {
		t.Fatalf("the member expired at once (a wrapped deadline): %v\n%s", err, out)
	}
}

// TestIntegerLimitMessages: a number above an argument's range says the
// range, even when it does not fit in 64 bits; nothing is started.
func TestIntegerLimitMessages(t *testing.T) {
	s := newTestSession(t, Options{})
	for line, want := range map[string]string{
		"serve start max.frame.bytes=9223372036854775807":  "max.frame.bytes: 9223372036854775807 is outside [1, 2147483647]",
		"serve start max.frame.bytes=99999999999999999999": "max.frame.bytes: 99999999999999999999 is outside [1, 2147483647]",
		"serve start max.frame.bytes=0":                    "max.frame.bytes: 0 must be at least 1",
	} {
		out, err := run(t, s, line)
		if err == nil || !strings.Contains(out, want) {
			t.Errorf("%s: %v\n%s", line, err, out)
		}
	}
	if out, _ := run(t, s, "serve status"); !strings.Contains(out, "not serving") {
		t.Errorf("a refused serve start serves: %s", out)
	}
}

// longLine is a reader of a script whose second line has n bytes; it makes
// them as they are read, so the test holds none of them.
type longLine struct {
	head, tail string
	n          int
	pos        int
}

func (l *longLine) Read(p []byte) (int, error) {
	total := len(l.head) + l.n + len(l.tail)
	if l.pos >= total {
		return 0, io.EOF
	}
	i := 0
	for i < len(p) && l.pos < total {
		var k int
		switch {
		case l.pos < len(l.head):
			k = copy(p[i:], l.head[l.pos:])
		case l.pos < len(l.head)+l.n:
			k = min(len(p)-i, len(l.head)+l.n-l.pos)
			fill := p[i : i+k]
			for j := range fill {
				fill[j] = 'x'
			}
		default:
			k = copy(p[i:], l.tail[l.pos-len(l.head)-l.n:])
		}
		i, l.pos = i+k, l.pos+k
	}
	return i, nil
}

// TestScriptLineTooLong: a line longer than MaxLineBytes is one failed
// command with INVALID_ARGUMENT and a hint (not INTERNAL), it is never held
// in memory whole, and --keep-going runs the next line; without it the
// script stops there.
func TestScriptLineTooLong(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 65 MiB")
	}
	t.Parallel()
	script := func() io.Reader {
		return &longLine{head: "topic create t\nproduce t value=", n: MaxLineBytes + 1<<20, tail: "\ntopic list\n"}
	}
	for _, keepGoing := range []bool{true, false} {
		s := newTestSession(t, Options{FS: vfs.NewMem()})
		var out bytes.Buffer
		status := RunScript(s, script(), &out, ScriptOptions{KeepGoing: keepGoing})
		text := out.String()
		if status != 1 {
			t.Errorf("keep-going=%v: status %d", keepGoing, status)
		}
		if strings.Contains(text, "INTERNAL") || !strings.Contains(text, "error: INVALID_ARGUMENT: line 2 has 68157456 bytes, more than the 67108864 a command line may hold") || !strings.Contains(text, "\nhint: ") {
			t.Errorf("keep-going=%v: the long line's error:\n%.2000s", keepGoing, text)
		}
		if len(text) > 4096 {
			t.Errorf("keep-going=%v: %d bytes of output: the long line was echoed whole", keepGoing, len(text))
		}
		ran := strings.Contains(text, "> topic list\nt\n")
		if ran != keepGoing {
			t.Errorf("keep-going=%v: the next line ran=%v:\n%s", keepGoing, ran, text)
		}
	}
}

// TestScriptLargeValueLine: a line under the limit whose value is larger
// than a batch may be (20 MiB) is the domain's INVALID_RECORD, and
// --keep-going goes on.
func TestScriptLargeValueLine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 20 MiB record")
	}
	t.Parallel()
	s := newTestSession(t, Options{FS: vfs.NewMem()})
	var out bytes.Buffer
	in := &longLine{head: "topic create t\nproduce t value=", n: 20 << 20, tail: "\ntopic list\n"}
	if status := RunScript(s, in, &out, ScriptOptions{KeepGoing: true}); status != 1 {
		t.Errorf("status %d", status)
	}
	text := out.String()
	if !strings.Contains(text, "error: INVALID_RECORD: ") || !strings.Contains(text, "> topic list\nt\n") {
		t.Errorf("output:\n%.3000s", text)
	}
}

// FuzzScriptReader: the script reader splits input into the same lines as
// strings.Split on '\n' (a final newline ends the last line, it does not
// start an empty one), for lines of any length, and marks exactly the lines
// longer than its limit, returning at most 256 bytes of them.
func FuzzScriptReader(f *testing.F) {
	for _, s := range []string{"", "a", "a\n", "a\nb", "\n\n", "0123456789abc\nx\n", "short\n0123456789\n", "\r\n"} {
		f.Add(s, 8)
	}
	f.Fuzz(func(t *testing.T, in string, max int) {
		if max < 1 || max > 64 {
			return
		}
		want := strings.Split(in, "\n")
		if strings.HasSuffix(in, "\n") || in == "" {
			want = want[:len(want)-1]
		}
		lr := &scriptReader{r: bufio.NewReaderSize(strings.NewReader(in), 16), max: max}
		for i := 0; ; i++ {
			line, err := lr.next()
			if err == io.EOF {
				if i != len(want) {
					t.Fatalf("%d lines, want %d", i, len(want))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if i >= len(want) {
				t.Fatalf("extra line %q", line)
			}
			switch {
			case len(want[i]) > max:
				if lr.tooLong != len(want[i]) || line != want[i][:min(len(want[i]), max, 256)] {
					t.Fatalf("line %d: tooLong %d, %q; want %d, a prefix of %q", i, lr.tooLong, line, len(want[i]), want[i])
				}
			case lr.tooLong != 0 || line != want[i]:
				t.Fatalf("line %d: %q (tooLong %d), want %q", i, line, lr.tooLong, want[i])
			}
		}
	})
}
