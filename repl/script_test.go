package repl

import (
	"bufio"
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/vfs"
)

var update = flag.Bool("update", false, "rewrite testdata/scripts/*.golden and docs/commands.md")

// TestScripts runs every testdata/scripts/*.mk transcript through a fresh
// session exactly as `minikafka repl < FILE --keep-going` would, twice —
// on the disk, then on an in-memory file system (vfs.Mem), which must print
// the same — and compares the output with FILE's .golden (rewritten with
// -update; review the diff). Files named *.json.mk run with --format json.
// A panic in any command fails the test.
func TestScripts(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/scripts/*.mk")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".mk")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			format := FormatText
			if strings.HasSuffix(name, ".json") {
				format = FormatJSON
			}
			first := runTranscript(t, file, Options{Format: format})
			if second := runTranscript(t, file, Options{Format: format, FS: vfs.NewMem()}); second != first {
				t.Fatalf("the runs of %s on the disk and in memory differ (the engine or a renderer is not deterministic, or a command reads the disk behind the cluster's file system):\n%s", file, lineDiff(first, second))
			}
			golden := strings.TrimSuffix(file, ".mk") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(first), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./repl -update to create it)", err)
			}
			if string(want) != first {
				t.Errorf("%s is stale (go test ./repl -update, then review the diff):\n%s", golden, lineDiff(string(want), first))
			}
		})
	}
}

// runTranscript runs a script file in a fresh session and returns the
// transcript: "> cmd" before each command's output.
func runTranscript(t *testing.T, file string, opts Options) string {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// The course commands read the repository's material; progress stays
	// in memory.
	opts.Content = os.DirFS("..")
	s := newTestSession(t, opts)
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(src))
	for sc.Scan() {
		line := sc.Text()
		if words, err := Split(line); err == nil && len(words) == 0 {
			continue
		}
		out.WriteString("> " + strings.TrimSpace(line) + "\n")
		if err := s.Exec(&out, line); IsInternal(err) {
			t.Errorf("%s: %q panicked: %v\n%s", file, line, err, err.(*InternalError).Stack)
		}
		if s.Exited() {
			break
		}
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasSuffix(l, " ") || strings.Contains(l, "\x1b[") {
			t.Errorf("%s: output line has trailing spaces or ANSI codes: %q", file, l)
		}
	}
	return boundPort.ReplaceAllString(out.String(), "127.0.0.1:PORT")
}

// boundPort matches the address serve start prints: the ephemeral port the
// system chose (five digits) differs between runs.
var boundPort = regexp.MustCompile(`127\.0\.0\.1:[1-9][0-9]{4}\b`)

// newTestSession opens a session that the end of the test closes.
//
// A session on the disk (opts.FS nil) does not fsync: what the engine knows
// of its files does not depend on it (it models the page cache itself),
// only a machine crash would tell, and the fsyncs of thousands of small
// writes are most of a disk test's time on a busy machine. The kill tests
// (cli) and the engine's disk tests keep real fsyncs.
func newTestSession(t testing.TB, opts Options) *Session {
	t.Helper()
	if opts.FS == nil {
		opts.FS = vfs.NoSync(vfs.OS)
	}
	s, err := NewSession(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// lineDiff shows the first differing lines of two texts.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			lo := max(0, i-3)
			var b strings.Builder
			for j := lo; j < i; j++ {
				b.WriteString("  " + w[j] + "\n")
			}
			b.WriteString("- " + wl + "\n+ " + gl + "\n")
			return b.String()
		}
	}
	return ""
}

// TestCommandsDoc fails when docs/commands.md does not match the registry.
func TestCommandsDoc(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteCommandsMarkdown(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "docs", "commands.md")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(have, buf.Bytes()) {
		t.Fatalf("docs/commands.md is stale; regenerate it with go test ./repl -update\n%s", lineDiff(string(have), buf.String()))
	}
}

// TestReadmeFirstSession runs the README's "First session" transcript and
// compares it with what the REPL prints, so the README never drifts.
func TestReadmeFirstSession(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "## First session")
	if !ok {
		t.Fatal(`README.md has no "## First session" section`)
	}
	_, block, ok := strings.Cut(after, "```\n")
	block, _, ok2 := strings.Cut(block, "```\n")
	if !ok || !ok2 {
		t.Fatal("the First session section has no transcript block")
	}
	s := newTestSession(t, Options{})
	var got strings.Builder
	for _, line := range strings.Split(block, "\n") {
		cmd, isCmd := strings.CutPrefix(line, "mk> ")
		if !isCmd {
			continue
		}
		got.WriteString(line + "\n")
		if err := s.Exec(&got, cmd); err != nil {
			t.Errorf("%s: %v", cmd, err)
		}
	}
	if got.String() != block {
		t.Errorf("README.md's first session differs from the REPL:\n%s", lineDiff(block, got.String()))
	}
}

// TestScriptsCoverEveryCommand: every command of the table runs in some
// transcript under testdata/scripts.
func TestScriptsCoverEveryCommand(t *testing.T) {
	files, _ := filepath.Glob("testdata/scripts/*.mk")
	var lines []string
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Split(string(src), "\n")...)
	}
	for _, c := range theRegistry().All() {
		name := c.FullName()
		found := false
		for _, l := range lines {
			if l == name || strings.HasPrefix(l, name+" ") {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no transcript in testdata/scripts runs %q", name)
		}
	}
}
