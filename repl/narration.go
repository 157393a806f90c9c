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

// lines splits a filled template into narration lines, each paragraph
// wrapped at 76 columns where it has spaces (a filled value may make a
// line long).
func lines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		for utf8.RuneCountInString(l) > 76 {
			cut := strings.LastIndexByte(l[:76], ' ')
			if cut <= 0 {
				break
			}
			out = append(out, l[:cut])
			l = l[cut+1:]
		}
		out = append(out, l)
	}
	return out
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
func (n narration) lab(path, args string, res *explore.Result, tr *trace, zh bool) ([]byte, error) {
	faults := 0
	for _, op := range res.Schedule {
		if op.Kind == explore.Crash || op.Kind == explore.CrashKeep {
			faults++
		}
	}
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
