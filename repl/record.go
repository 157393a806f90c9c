package repl

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/internal/lazyre"
	"github.com/minikafka-lab/minikafka/labs"
)

// recording is a session being written down as a lab (record start ...
// record stop): every command that succeeds and changes or inspects the
// cluster becomes a block, its output the expected output; a comment typed
// in between is the next block's narration.
type recording struct {
	path    string
	title   string
	chapter int
	// startSteps is the length of the timeline when recording started: undo
	// may not go back before it.
	startSteps int
	// prefix are the blocks that rebuild the state recording started in.
	prefix []recBlock
	// header is the lab's narration under its title (nil: the words of
	// record start about the prefix).
	header []string
	blocks []recBlock
	// pending is narration typed since the last block.
	pending []string
	// outside lists commands left out because they reach outside the
	// session (their effect cannot be replayed by a lab).
	outside []string
	// saved is the session's style, given back at record stop.
	saved *style
}

// recBlock is one block of the recorded lab.
type recBlock struct {
	narration []string
	command   string
	output    []string
	steps     int // the timeline's length once it ran
}

// add records a command that ran.
func (r *recording) add(s *Session, eff Effect, ok bool, text, out string, steps int) {
	switch {
	case !ok:
		return
	case eff == EffectOutside:
		r.outside = append(r.outside, text)
		return
	case eff != EffectChange && eff != EffectRead:
		return
	}
	r.blocks = append(r.blocks, recBlock{narration: r.pending, command: text, output: labOutput(out), steps: steps})
	r.pending = nil
}

// narrate keeps a comment line as narration for the next block.
func (r *recording) narrate(text string) {
	t := strings.TrimPrefix(text, "#")
	r.pending = append(r.pending, strings.TrimPrefix(t, " "))
}

// trim drops the blocks of commands that undo took back.
func (r *recording) trim(steps int) {
	r.blocks = slices.DeleteFunc(r.blocks, func(b recBlock) bool { return b.steps > steps })
}

// ansi matches the SGR colour sequences style writes.
var ansi = lazyre.New("\x1b\\[[0-9;]*m")

// labOutput is output as a lab compares it: no colour, no trailing
// spaces, no trailing blank lines.
func labOutput(out string) []string {
	out = ansi().ReplaceAllString(out, "")
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// source is the lab file.
func (r *recording) source() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# title: %s\n# chapter: %d\n", r.title, r.chapter)
	switch {
	case r.header != nil:
		b.WriteString("#\n")
		for _, l := range r.header {
			b.WriteString(strings.TrimRight("# "+l, " ") + "\n")
		}
	case len(r.prefix) > 0:
		b.WriteString("#\n# Recorded with record start. The first steps rebuild the state the\n# session was in when the recording started.\n")
	}
	writeBlock := func(bl recBlock) {
		b.WriteString("\n")
		for _, n := range bl.narration {
			if n == "" {
				b.WriteString("#\n")
				continue
			}
			b.WriteString("# " + n + "\n")
		}
		b.WriteString(bl.command + "\n----\n")
		double := slices.Contains(bl.output, "") || len(bl.output) == 0
		if double {
			b.WriteString("----\n")
		}
		for _, l := range bl.output {
			b.WriteString(l + "\n")
		}
		if double {
			b.WriteString("----\n----\n")
		}
	}
	for _, bl := range r.prefix {
		writeBlock(bl)
	}
	for _, bl := range r.blocks {
		writeBlock(bl)
	}
	if len(r.pending) > 0 {
		b.WriteString("\n")
		for _, n := range r.pending {
			b.WriteString(strings.TrimRight("# "+n, " ") + "\n")
		}
	}
	return b.Bytes()
}

var recordCommand = &Command{
	Name:    "record",
	Summary: "write this session down as a lab: record start FILE.lab ... record stop",
	Detail: `record start FILE.lab begins a recording; record stop writes FILE.lab, a
lab that lab run replays and checks. Every command that succeeds and
changes or inspects the cluster becomes a step, with its output as the
expected output; failed commands and session commands (help, history,
undo, ...) are left out. A line starting with # that you type is
narration: it is shown before the next step in lab step. While
recording, output is drawn as the lab will check it: no colour, 80
columns.

If the session already changed the cluster, the lab starts with the
commands that built that state (they must be replayable: nothing that
reached outside the session since the last fresh cluster open). Undo
while recording takes the undone steps out of the lab too.

The title defaults to the file's name; the chapter to the NN of its
directory (labs/05-replication-basics/07-mine.lab is chapter 5), else 1.
A teacher's way to author labs: record, then lab run --dir DIR to check
(the lab must sit in DIR/NN-chapter/MM-slug.lab), or lab run FILE.lab.`,
	Group:   "Session",
	Default: "status",
	Sub: []*Command{
		{
			Name:       "start",
			Args:       "FILE.lab [title=TITLE] [chapter=N]",
			Summary:    "start recording the session into FILE.lab",
			Positional: []Param{{Name: "FILE.lab"}},
			Keys:       []Param{{Name: "title"}, {Name: "chapter"}},
			Run:        runRecordStart,
		},
		{
			Name:    "stop",
			Summary: "stop recording and write the lab",
			Run:     runRecordStop,
		},
		{
			Name:    "status",
			Summary: "whether the session is recording, where, and how many steps so far (record alone does the same)",
			Run:     runRecordStatus,
		},
	},
}

// recordStatus is the result of the record commands.
type recordStatus struct {
	Recording bool     `json:"recording"`
	File      string   `json:"file,omitempty"`
	Title     string   `json:"title,omitempty"`
	Chapter   int      `json:"chapter,omitempty"`
	Steps     int      `json:"steps"`
	Prefix    int      `json:"prefix_steps,omitempty"`
	Written   bool     `json:"written,omitempty"`
	Outside   []string `json:"left_out,omitempty"`
	verb      string
}

func (r recordStatus) writeText(w io.Writer, _ *style) error {
	switch {
	case r.verb == "start":
		fmt.Fprintf(w, "recording to %s (%q, chapter %d)\n", r.File, r.Title, r.Chapter)
		if r.Prefix > 0 {
			fmt.Fprintf(w, "the lab starts with the %s that built the current state\n", plural(r.Prefix, "command", "commands"))
		}
		fmt.Fprintln(w, "every command that succeeds and changes or inspects the cluster becomes a step;")
		fmt.Fprintln(w, "# lines are narration; output is shown as the lab will check it (no colour, 80 columns)")
		fmt.Fprintln(w, "`record stop` writes the file")
	case r.Written:
		fmt.Fprintf(w, "wrote %s: %s\n", r.File, plural(r.Steps+r.Prefix, "step", "steps"))
		if len(r.Outside) > 0 {
			fmt.Fprintf(w, "left out (they reach outside the session, a lab cannot replay them): %s\n", strings.Join(r.Outside, "; "))
		}
		fmt.Fprintf(w, "check it with `lab run %s`\n", r.File)
	case r.Recording:
		fmt.Fprintf(w, "recording to %s: %s so far\n", r.File, plural(r.Steps, "step", "steps"))
	default:
		fmt.Fprintln(w, "not recording (`record start FILE.lab` starts)")
	}
	return nil
}

func runRecordStart(s *Session, w io.Writer, a *Args) error {
	path := a.Pos(0)
	title := a.String("title", "")
	chapter := int(a.Int("chapter", 0, 1, 99))
	if err := a.Err(); err != nil {
		return err
	}
	if s.tl.rec != nil {
		return kerr.New(kerr.IllegalState, "already recording to %s; `record stop` first", s.tl.rec.path)
	}
	if !strings.HasSuffix(path, ".lab") || strings.TrimSuffix(filepath.Base(path), ".lab") == "" {
		return a.usage("the file must end in .lab: record start labs/01-mine/01-first.lab")
	}
	if title == "" {
		title = titleFromFile(path)
	}
	if chapter == 0 {
		chapter = chapterFromDir(path)
	}
	prefix, err := s.prefixBlocks()
	if err != nil {
		return err
	}
	s.tl.rec = &recording{path: path, title: title, chapter: chapter, startSteps: len(s.tl.cur.steps), prefix: prefix, saved: s.st}
	s.st = newStyle(false)
	return s.emit(w, recordStatus{Recording: true, File: path, Title: title, Chapter: chapter, Prefix: len(prefix), verb: "start"})
}

// titleFromFile makes "First record" of ".../01-first-record.lab".
func titleFromFile(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), ".lab")
	if i := strings.IndexByte(base, '-'); i > 0 {
		if _, err := strconv.Atoi(base[:i]); err == nil {
			base = base[i+1:]
		}
	}
	t := strings.ReplaceAll(base, "-", " ")
	if t == "" {
		return "Recorded lab"
	}
	return strings.ToUpper(t[:1]) + t[1:]
}

// chapterFromDir is NN of a file in an NN-slug directory, else 1.
func chapterFromDir(path string) int {
	dir := filepath.Base(filepath.Dir(path))
	if i := strings.IndexByte(dir, '-'); i == 2 {
		if n, err := strconv.Atoi(dir[:2]); err == nil && n >= 1 {
			return n
		}
	}
	return 1
}

// prefixBlocks are the blocks that rebuild the current state in a lab's
// fresh session: the commands that changed it since the last reset (or
// the session's start, then after a cluster open that repeats the
// session's own brokers and settings when they are not the defaults), run
// again with their outputs.
func (s *Session) prefixBlocks() ([]recBlock, error) {
	lab, out, err := s.prefixSession("record")
	if lab != nil {
		lab.Close()
	}
	return out, err
}

// prefixSession opens a lab's fresh session and runs in it the commands
// that rebuild the current state (prefixBlocks), for the command verb
// (named in the error when the state cannot be replayed). The caller
// closes the session.
func (s *Session) prefixSession(verb string) (*Session, []recBlock, error) {
	steps := s.tl.cur.steps
	from, err := s.replayStart(verb, steps)
	if err != nil {
		return nil, nil, err
	}
	var lines []string
	if (len(steps) == 0 || !steps[from].reset) && !s.defaultStart() {
		lines = append(lines, s.startLine())
	}
	for _, st := range steps[from:] {
		if st.effect == EffectChange {
			lines = append(lines, st.line)
		}
	}
	lab, err := openSession(Options{Format: FormatText, Content: s.opts.Content, Lang: s.opts.Lang})
	if err != nil {
		return nil, nil, err
	}
	var out []recBlock
	for _, l := range lines {
		b, err := lab.block(l)
		if err != nil {
			lab.Close()
			return nil, nil, err
		}
		out = append(out, b)
	}
	return lab, out, nil
}

// block runs line as a lab's step: its output as a lab checks it. Only an
// internal error is returned (a command that fails is a step too).
func (s *Session) block(line string) (recBlock, error) {
	var buf bytes.Buffer
	if err := s.Exec(&buf, line); IsInternal(err) {
		return recBlock{}, err
	}
	return recBlock{command: line, output: labOutput(buf.String())}, nil
}

// defaultStart reports whether the session started like a lab's: brokers
// 1,2,3 and no settings.
func (s *Session) defaultStart() bool {
	return slices.Equal(s.opts.Brokers, []int32{1, 2, 3}) && len(s.opts.Settings) == 0
}

// startLine is the cluster open that gives a fresh session the cluster
// this one started with.
func (s *Session) startLine() string {
	parts := []string{"cluster open", "brokers=" + joinIDs(s.opts.Brokers, ",")}
	for _, k := range sortedKeys(s.opts.Settings) {
		parts = append(parts, k+"="+Quote(s.opts.Settings[k]))
	}
	return strings.Join(parts, " ")
}

func runRecordStop(s *Session, w io.Writer, a *Args) error {
	r := s.tl.rec
	if r == nil {
		return kerr.New(kerr.IllegalState, "not recording (`record start FILE.lab` starts)")
	}
	src := r.source()
	if err := checkRecorded(r, src); err != nil {
		return err
	}
	if dir := filepath.Dir(r.path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return kerr.Wrap(kerr.StorageError, err, "record stop")
		}
	}
	if err := os.WriteFile(r.path, src, 0o644); err != nil {
		return kerr.Wrap(kerr.StorageError, err, "record stop")
	}
	s.tl.rec = nil
	s.st = r.saved
	return s.emit(w, recordStatus{File: r.path, Steps: len(r.blocks), Prefix: len(r.prefix), Written: true, Outside: r.outside})
}

// checkRecorded parses the lab it is about to write and checks that each
// block matches the output it was recorded with (an output line that reads
// like one of the lab format's escapes would not).
func checkRecorded(r *recording, src []byte) error {
	l, err := labs.ParseLab(r.path, src)
	if err != nil {
		return kerr.New(kerr.Internal, "the recorded lab does not parse: %v", err)
	}
	all := append(slices.Clone(r.prefix), r.blocks...)
	if len(all) == 0 {
		return kerr.New(kerr.IllegalState, "nothing recorded yet: a lab needs at least one command that changes or inspects the cluster")
	}
	for i, b := range l.Blocks {
		if i < len(all) && !b.Matches(strings.Join(all[i].output, "\n")+"\n") {
			return kerr.New(kerr.IllegalState, "step %d (%s) has output the lab format cannot hold as it is (a line reads ... or ends in (re)); undo it or record stop after a different command", i+1, b.Command)
		}
	}
	return nil
}

func runRecordStatus(s *Session, w io.Writer, a *Args) error {
	r := s.tl.rec
	if r == nil {
		return s.emit(w, recordStatus{})
	}
	return s.emit(w, recordStatus{Recording: true, File: r.path, Title: r.title, Chapter: r.chapter, Steps: len(r.blocks), Prefix: len(r.prefix)})
}
