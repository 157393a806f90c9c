package repl

import (
	"bytes"
	"embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/minikafka-lab/minikafka/engine/explore"
	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// The narration of the labs explore save= writes: templates per step
// kind and per change, one file per language (narration/LANG.txt), entry
// for entry.

//go:embed narration/*.txt
var narrationFiles embed.FS

// narration is one language's templates by name.
type narration map[string]string

// loadNarration reads narration/LANG.txt: "== NAME" lines, each followed
// by its text; '#' lines before the first entry are comments.
func loadNarration(lang string) (narration, error) {
	src, err := narrationFiles.ReadFile("narration/" + lang + ".txt")
	if err != nil {
		return nil, kerr.New(kerr.Internal, "narration %s: %v", lang, err)
	}
	n := narration{}
	name := ""
	var text []string
	flush := func() {
		if name != "" {
			n[name] = strings.TrimSpace(strings.Join(text, "\n"))
		}
	}
	for _, line := range strings.Split(string(src), "\n") {
		switch {
		case strings.HasPrefix(line, "== "):
			flush()
			name, text = strings.TrimSpace(line[3:]), nil
		case name == "" && strings.HasPrefix(line, "#"):
		default:
			text = append(text, line)
		}
	}
	flush()
	return n, nil
}

// fill is the template name with each {key} replaced by its value.
func (n narration) fill(name string, kv ...string) string {
	t := n[name]
	for i := 0; i+1 < len(kv); i += 2 {
		t = strings.ReplaceAll(t, "{"+kv[i]+"}", kv[i+1])
	}
	return t
}

// lines reflows a filled template into narration lines of at most 76
// columns: its lines are joined into one paragraph (with a space between
// two ASCII ends) and cut between words, or between any two characters of
// a script written without spaces.
func lines(text string) []string {
	var para string
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		l = strings.TrimSpace(l)
		if para != "" && isASCIIEnd(para, true) && isASCIIEnd(l, false) {
			para += " "
		}
		para += l
	}
	// tokens: ASCII words with the spaces after them, or single runes.
	var tokens []string
	for i := 0; i < len(para); {
		r, n := utf8.DecodeRuneInString(para[i:])
		if r >= utf8.RuneSelf {
			tokens = append(tokens, para[i:i+n])
			i += n
			continue
		}
		j := i
		for j < len(para) && para[j] < utf8.RuneSelf && para[j] != ' ' {
			j++
		}
		for j < len(para) && para[j] == ' ' {
			j++
		}
		if j == i {
			j++
		}
		tokens = append(tokens, para[i:j])
		i = j
	}
	var out []string
	cur := ""
	for _, t := range tokens {
		if cur != "" && textWidth(strings.TrimRight(cur+t, " ")) > 76 {
			out = append(out, strings.TrimRight(cur, " "))
			cur = ""
		}
		cur += t
	}
	return append(out, strings.TrimRight(cur, " "))
}

// isASCIIEnd reports whether s ends (end) or starts (!end) with an ASCII
// character.
func isASCIIEnd(s string, end bool) bool {
	if s == "" {
		return false
	}
	if end {
		return s[len(s)-1] < utf8.RuneSelf
	}
	return s[0] < utf8.RuneSelf
}

// why is the narration of step i of the schedule: why it is allowed.
func (n narration) why(i int, op explore.Op, before stepState, faults int) string {
	leader := ""
	for _, p := range before.parts {
		if p.TP == op.TP {
			leader = strconv.Itoa(int(p.Leader))
		}
	}
	return n.fill(op.Kind.String(), "n", strconv.Itoa(i+1), "tp", op.TP.String(), "broker", strconv.Itoa(int(op.Broker)),
		"leader", leader, "value", op.Value, "acks", op.Acks.String(), "ms", strconv.FormatInt(op.Ms, 10), "knob", op.Knob,
		"faults", strconv.Itoa(faults))
}

// changed is the narration of what a step changed: leaders, epochs, HWs,
// ISRs, LEOs and brokers up or down.
func (n narration) changed(st [2]stepState) string {
	var out []string
	from := func(name string, a, b any, kv ...string) {
		if fmt.Sprint(a) != fmt.Sprint(b) {
			out = append(out, n.fill(name, append(kv, "from", fmt.Sprint(a), "to", fmt.Sprint(b))...))
		}
	}
	for i, p := range st[0].parts {
		if i >= len(st[1].parts) {
			break
		}
		q := st[1].parts[i]
		from("leader", p.Leader, q.Leader)
		from("epoch", p.LeaderEpoch, q.LeaderEpoch)
		from("hw", p.HW, q.HW)
		from("isr", brokerSet(p.ISR), brokerSet(q.ISR))
		for j, r := range p.Replicas {
			if j < len(q.Replicas) {
				from("leo", r.LEO, q.Replicas[j].LEO, "broker", strconv.Itoa(int(r.Broker)))
			}
		}
	}
	for i, b := range st[0].brokers {
		if i < len(st[1].brokers) && b.Up != st[1].brokers[i].Up {
			name := "down"
			if st[1].brokers[i].Up {
				name = "up"
			}
			out = append(out, n.fill(name, "broker", strconv.Itoa(int(b.ID))))
		}
	}
	if len(out) == 0 {
		return n["unchanged"]
	}
	return n.fill("changed", "changes", strings.Join(out, ", "))
}

// lab is the source of the lab (zh: of its translation) for the schedule
// found: the blocks that rebuild the start, each step with its narration,
// and the pictures around the last step.
func (n narration) lab(path, args string, res *explore.Result, tr *trace, faults int, zh bool) ([]byte, error) {
	rec := &recording{path: path, title: n.fill("title", "property", res.Property), chapter: chapterFromDir(path), prefix: tr.prefix}
	rec.header = lines(n.fill("intro", "args", args, "states", strconv.Itoa(res.States), "steps", strconv.Itoa(len(res.Schedule)), "property", res.Property))
	for i, op := range res.Schedule {
		b := tr.blocks[i]
		b.narration = append(lines(n.why(i, op, tr.states[i][0], faults)), lines(n.changed(tr.states[i]))...)
		last := i == len(res.Schedule)-1
		if last && tr.before.command != "" {
			before := tr.before
			before.narration = lines(n["before"])
			rec.blocks = append(rec.blocks, before)
			b.narration = append(b.narration, lines(n.fill("broken", "property", res.Property, "violation", res.Violation.String()))...)
		}
		rec.blocks = append(rec.blocks, b)
		if last && tr.after.command != "" {
			after := tr.after
			after.narration = lines(n["after"])
			rec.blocks = append(rec.blocks, after)
		}
	}
	if !zh {
		src := rec.source()
		if err := checkRecorded(rec, src); err != nil {
			return nil, err
		}
		return src, nil
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# title: %s\n#\n", rec.title)
	for _, l := range rec.header {
		b.WriteString(strings.TrimRight("# "+l, " ") + "\n")
	}
	for _, bl := range slices.Concat(rec.prefix, rec.blocks) {
		b.WriteString("\n")
		for _, l := range bl.narration {
			b.WriteString(strings.TrimRight("# "+l, " ") + "\n")
		}
		b.WriteString(bl.command + "\n")
	}
	return b.Bytes(), nil
}
