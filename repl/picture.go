package repl

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// picture is what `show TP` draws: one row per replica, one column per
// offset, with the partition's markers.
type picture struct {
	TP     string `json:"-"`
	Topic  string `json:"topic"`
	Part   int32  `json:"partition"`
	Leader int32  `json:"leader"`
	Online bool   `json:"online"`
	// Leaderless: the KRaft controller fenced the leader and elected nobody.
	Leaderless bool    `json:"leaderless,omitempty"`
	Epoch      int32   `json:"leader_epoch"`
	HW         int64   `json:"high_watermark"`
	LSO        int64   `json:"last_stable_offset"`
	LogStart   int64   `json:"log_start_offset"`
	ISR        []int32 `json:"isr"`
	// First and End bound the offsets drawn: [First, End).
	First int64        `json:"first_offset"`
	End   int64        `json:"end_offset"`
	Rows  []pictureRow `json:"replicas"`
	// cols are the offsets drawn (-1 for an elision), chosen once by
	// runShow; columns computes them when a picture is built by hand.
	cols []int64
}

// columns returns the offsets drawn: p.cols, or the elided columns around
// every mark.
func (p *picture) columns() []int64 {
	if p.cols != nil {
		return p.cols
	}
	return pictureColumns(p.First, p.End, p.marks())
}

// pictureRow is one replica.
type pictureRow struct {
	Broker   int32  `json:"broker"`
	Leader   bool   `json:"leader"`
	InISR    bool   `json:"in_isr"`
	Up       bool   `json:"up"`
	Diverged bool   `json:"diverged"`
	LEO      int64  `json:"leo"`
	LogStart int64  `json:"log_start_offset"`
	Cells    []cell `json:"records"` // the visible offsets it holds, ascending
	// Offline says why the broker is down when its log directory failed.
	Offline string `json:"log_dir_failure,omitempty"`
	// HW is the HW this replica knows, shown under follower.hw=fetch.
	HW *int64 `json:"hw,omitempty"`
	// Reconciling: it asks the leader (OffsetsForLeaderEpoch) before its
	// next fetch.
	Reconciling bool `json:"reconciling,omitempty"`
}

// cell is one offset of one replica's log.
type cell struct {
	Offset int64    `json:"offset"`
	Kind   cellKind `json:"kind"`
	Text   string   `json:"value"` // a short preview of the value
	// Differs: a diverged replica holds another batch here than the
	// leader does (drawn framed by '!').
	Differs bool `json:"differs_from_leader,omitempty"`
}

// cellKind says what an offset holds.
type cellKind string

// The kinds of cell.
const (
	cellData      cellKind = "data"
	cellTombstone cellKind = "tombstone"
	cellCommit    cellKind = "commit_marker"
	cellAbort     cellKind = "abort_marker"
	cellAborted   cellKind = "aborted"
	cellOpen      cellKind = "open_txn"
)

const (
	// cellWidth is the width of a cell's text; longer values are cut with '~'.
	cellWidth = 6
	// colWidth is a column: a separator, a space, the text, a space.
	colWidth = cellWidth + 3
	// elideAbove is the number of columns above which the middle is elided.
	elideAbove = 14
)

// columns returns the offsets to draw for the range [first, end): all of
// them for a short log; for a long one, the first two, the last three and
// the neighbourhood of every marker, with the gaps between them elided. A
// gap is returned as -1.
func pictureColumns(first, end int64, marks []int64) []int64 {
	if end-first <= elideAbove {
		var cols []int64
		for o := first; o < end; o++ {
			cols = append(cols, o)
		}
		return cols
	}
	keep := map[int64]bool{}
	add := func(o int64) {
		if o >= first && o < end {
			keep[o] = true
		}
	}
	for o := first; o < first+2; o++ {
		add(o)
	}
	for o := end - 3; o < end; o++ {
		add(o)
	}
	for _, m := range marks {
		for o := m - 2; o <= m+1; o++ {
			add(o)
		}
	}
	offsets := make([]int64, 0, len(keep))
	for o := range keep {
		offsets = append(offsets, o)
	}
	slices.Sort(offsets)
	var cols []int64
	for i, o := range offsets {
		if i > 0 {
			switch gap := o - offsets[i-1]; {
			case gap == 2: // one hidden column costs no more than the ellipsis
				cols = append(cols, o-1)
			case gap > 2:
				cols = append(cols, -1)
			}
		}
		cols = append(cols, o)
	}
	return cols
}

// marks are the offsets the picture must keep visible around an elision.
func (p *picture) marks() []int64 {
	m := []int64{p.HW, p.LSO, p.LogStart}
	for _, r := range p.Rows {
		m = append(m, r.LEO, r.LogStart)
	}
	return m
}

func (p *picture) writeText(w io.Writer, st *style) error {
	fmt.Fprintln(w, p.header())
	cols := p.columns()
	width := 0
	for _, r := range p.Rows {
		width = max(width, len(rowLabel(r)))
	}
	indent := width + 4 // "  b1*  "
	if len(cols) > 0 {
		var b strings.Builder
		b.WriteString(strings.Repeat(" ", indent))
		for _, c := range cols {
			if c < 0 {
				b.WriteString("  " + padRunes("…", colWidth-2))
				continue
			}
			fmt.Fprintf(&b, "  %-*d", colWidth-2, c)
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	rowWidth := indent + len(cols)*colWidth + 1
	if len(cols) == 0 {
		rowWidth = indent + len("(empty)")
	}
	for _, r := range p.Rows {
		fmt.Fprintln(w, p.row(st, cols, width, rowWidth, r))
	}
	for _, line := range markerLines(p.markers(cols, indent)) {
		fmt.Fprintln(w, st.paint(st.marker, line))
	}
	return nil
}

// header is the first line: the partition's state in one line.
func (p *picture) header() string {
	return partitionHeader(p.TP, p.Leader, p.Online, p.Leaderless, p.Epoch, p.HW, p.LSO, p.LogStart, p.ISR)
}

func rowLabel(r pictureRow) string {
	l := fmt.Sprintf("b%d", r.Broker)
	if r.Leader {
		l += "*"
	}
	return l
}

// row draws one replica: "| a    | b    : c    :   LEO=3". A committed
// offset (below the HW) is framed by '|', the uncommitted tail by ':', a
// diverged replica's batch that is not the leader's by '!'; an elided
// stretch is drawn as "…".
func (p *picture) row(st *style, cols []int64, width, rowWidth int, r pictureRow) string {
	var b strings.Builder
	lab := fmt.Sprintf("%-*s", width, rowLabel(r))
	if r.Leader {
		lab = st.paint(st.leader, lab)
	}
	b.WriteString("  " + lab + "  ")
	visible := width + 4 // printed width, without colour codes
	cells := map[int64]cell{}
	for _, c := range r.Cells {
		cells[c.Offset] = c
	}
	holds := func(o int64) bool { return r.Up && o >= r.LogStart && o < r.LEO }
	if len(cols) == 0 && r.Up {
		b.WriteString("(empty)")
		visible += len("(empty)")
	}
	closing := "" // the separator that closes the last drawn cell
	differs := false
	for i, o := range cols {
		text, held := "", false
		switch {
		case o < 0: // elided: held when the replica holds both neighbours
			if i > 0 && i+1 < len(cols) && holds(cols[i-1]) && holds(cols[i+1]) {
				held, o, text = true, cols[i-1]+1, "…"
			}
		case holds(o):
			held, text = true, "·" // "·" is an offset removed by compaction
			if c, ok := cells[o]; ok {
				text = cellText(c)
			}
		}
		if !held {
			b.WriteString(closing)
			b.WriteString(strings.Repeat(" ", colWidth-len(closing)))
			closing = ""
			visible += colWidth
			continue
		}
		sep, paint := "|", st.committed
		if o >= p.HW {
			sep, paint = ":", st.tail
		}
		if c, ok := cells[o]; ok && c.Differs {
			sep, paint, differs = "!", st.tail, true
		}
		b.WriteString(sep + " ")
		b.WriteString(st.paint(paint, padRunes(text, cellWidth)) + " ")
		closing = sep
		visible += colWidth
	}
	b.WriteString(closing)
	visible += len(closing)
	b.WriteString(strings.Repeat(" ", max(0, rowWidth-visible)+2))
	notes := []string{fmt.Sprintf("LEO=%d", r.LEO)}
	if r.HW != nil {
		notes = append(notes, fmt.Sprintf("HW=%d", *r.HW))
	}
	if !r.InISR {
		notes = append(notes, "not in ISR")
	}
	switch {
	case !r.Up && r.Offline != "":
		notes = append(notes, "offline: its log directory failed (last known LEO)")
	case !r.Up:
		notes = append(notes, "crashed (last known LEO)")
	}
	switch {
	case r.Diverged && r.Reconciling:
		notes = append(notes, "diverged: asks the leader where its log ends (OffsetsForLeaderEpoch) before its next fetch")
	case r.Diverged:
		notes = append(notes, "diverged: truncates to HW before its next fetch")
	case r.Reconciling:
		notes = append(notes, "asks the leader where its log ends (OffsetsForLeaderEpoch) before its next fetch")
	}
	if differs {
		notes = append(notes, "! differs from the leader's log")
	}
	return b.String() + strings.Join(notes, ", ")
}

// cellText is the short text of a cell.
func cellText(c cell) string {
	switch c.Kind {
	case cellTombstone:
		return "∅"
	case cellCommit:
		return "COMMIT"
	case cellAbort:
		return "ABORT"
	case cellAborted:
		return "✗" + c.Text
	case cellOpen:
		return "?" + c.Text
	}
	return c.Text
}

// marker is a label placed under the boundary where an offset begins.
type marker struct {
	pos   int
	label string
}

// padRunes cuts or pads s to exactly n runes; a cut is marked with '~'.
func padRunes(s string, n int) string {
	count := utf8.RuneCountInString(s)
	if count > n {
		r := []rune(s)
		return string(r[:n-1]) + "~"
	}
	return s + strings.Repeat(" ", n-count)
}

// markers places ^HW, ^LSO and ^log-start under the boundary before the
// offset they name, in the order they are laid out (most important first).
func (p *picture) markers(cols []int64, indent int) []marker {
	pos := func(off int64) (int, bool) {
		x := indent
		for _, c := range cols {
			if c == off {
				return x, true
			}
			x += colWidth
		}
		if len(cols) > 0 && off == cols[len(cols)-1]+1 {
			return x, true
		}
		return 0, false
	}
	var ms []marker
	add := func(off int64, label string) {
		if x, ok := pos(off); ok {
			ms = append(ms, marker{x, label})
		}
	}
	if p.LSO == p.HW {
		add(p.HW, "^HW")
	} else {
		add(p.HW, "^HW")
		add(p.LSO, "^LSO")
	}
	if p.LogStart > 0 {
		add(p.LogStart, "^log-start")
	}
	return ms
}

// markerLines lays markers out in order on as few lines as possible, each
// on the first line where it does not touch another.
func markerLines(ms []marker) []string {
	var lines [][]marker
	fits := func(line []marker, m marker) bool {
		for _, o := range line {
			lo, hi := o.pos, o.pos+utf8.RuneCountInString(o.label)
			if m.pos <= hi && m.pos+utf8.RuneCountInString(m.label) >= lo {
				return false
			}
		}
		return true
	}
	for _, m := range ms {
		placed := false
		for i := range lines {
			if fits(lines[i], m) {
				lines[i] = append(lines[i], m)
				placed = true
				break
			}
		}
		if !placed {
			lines = append(lines, []marker{m})
		}
	}
	out := make([]string, len(lines))
	for i, line := range lines {
		slices.SortFunc(line, func(a, b marker) int { return a.pos - b.pos })
		var b strings.Builder
		col := 0
		for _, m := range line {
			b.WriteString(strings.Repeat(" ", m.pos-col) + m.label)
			col = m.pos + utf8.RuneCountInString(m.label)
		}
		out[i] = b.String()
	}
	return out
}

// brokerSet renders broker ids as [1 2], as the engine's events do.
func brokerSet(ids []int32) string { return "[" + joinIDs(ids, " ") + "]" }
