package repl

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/mattn/go-runewidth"
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
	// Shows is what the cells show: value (the default), key or epoch.
	Shows string `json:"shows"`
	// cols are the offsets drawn (-1 for an elision), chosen once by
	// runShow; columns computes them when a picture is built by hand.
	cols []int64
	// width is the page's width in columns (0: defaultWidth).
	width int
}

// pictureRow is one replica.
type pictureRow struct {
	Broker   int32 `json:"broker"`
	Leader   bool  `json:"leader"`
	InISR    bool  `json:"in_isr"`
	Up       bool  `json:"up"`
	Diverged bool  `json:"diverged"`
	LEO      int64 `json:"leo"`
	LogStart int64 `json:"log_start_offset"`
	// LastKnown: the broker is down and Cells are what its replica held
	// when it crashed (drawn dimmed, framed by '¦').
	LastKnown bool   `json:"last_known,omitempty"`
	Cells     []cell `json:"records"` // the visible offsets it holds, ascending
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
	Text   string   `json:"value"` // a short preview of the value (or key)
	// Epoch is the leader epoch of the batch holding the offset.
	Epoch int32 `json:"leader_epoch"`
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
	// minCell is the narrowest cell text; a longer value widens its column
	// while the picture still fits the page, else it is cut with '~'.
	minCell = 6
	// maxCell is the widest a column grows for a long value.
	maxCell = 24
	// frame is what a column adds to its text: a separator and a space
	// before it, a space after it.
	frame = 3
	// defaultWidth is the page of a picture that is not drawn for a
	// terminal: scripts, labs, exercises, chapters and tests.
	defaultWidth = 80
	// minColumns is the fewest columns a picture draws, however narrow
	// the page.
	minColumns = 3
)

// widths measures text in terminal columns; ambiguous characters count
// one whatever the locale, so that a picture does not depend on it.
var widths = &runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true}

func textWidth(s string) int { return widths.StringWidth(s) }

// pageWidth is the picture's page, defaultWidth unless set.
func (p *picture) pageWidth() int {
	if p.width <= 0 {
		return defaultWidth
	}
	return p.width
}

// columns returns the offsets drawn: p.cols, or the columns that fit the
// page around every mark.
func (p *picture) columns() []int64 {
	if p.cols != nil {
		return p.cols
	}
	return pictureColumns(p.First, p.End, p.marks(), p.maxColumns())
}

// labelWidth is the width of the widest row label ("b1*").
func (p *picture) labelWidth() int {
	width := 0
	for _, r := range p.Rows {
		width = max(width, len(rowLabel(r)))
	}
	return width
}

// maxColumns is how many columns of the narrowest cells fit the page next
// to the row labels and the shortest row ends ("LEO=12").
func (p *picture) maxColumns() int {
	tail := 0
	for _, r := range p.Rows {
		tail = max(tail, len(r.leoNote()))
	}
	room := p.pageWidth() - (p.labelWidth() + 4) - 1 - 2 - tail
	return max(minColumns, room/(minCell+frame))
}

// pictureColumns returns the offsets to draw for the range [first, end),
// at most maxCols columns: all of them when they fit; else the offsets
// around every mark (where a marker's caret stands, a LEO ends, the log
// starts), the first and the last ones, and as many of their neighbours as
// fit, with each gap between them drawn as one elided column (-1). A gap
// of one offset is drawn as that offset: it costs no more than "…".
func pictureColumns(first, end int64, marks []int64, maxCols int) []int64 {
	if end-first <= int64(maxCols) {
		var cols []int64
		for o := first; o < end; o++ {
			cols = append(cols, o)
		}
		return cols
	}
	keep := map[int64]bool{}
	try := func(o int64) {
		if o < first || o >= end || keep[o] {
			return
		}
		keep[o] = true
		if len(layoutColumns(keep)) > maxCols {
			delete(keep, o)
		}
	}
	// What must show, most important first: the end, the boundary at each
	// mark (the offsets on both sides of its caret), the start.
	try(end - 1)
	for _, m := range marks {
		try(m - 1)
		try(m)
	}
	try(first)
	// Then context, ring by ring around the marks and the two ends, while
	// it fits.
	for d := int64(1); d <= 3; d++ {
		for _, m := range marks {
			try(m + d)
			try(m - 1 - d)
		}
		try(first + d)
		try(end - 1 - d)
	}
	return layoutColumns(keep)
}

// layoutColumns turns a set of offsets into columns: sorted, a gap of one
// offset filled in, a longer gap elided (-1).
func layoutColumns(keep map[int64]bool) []int64 {
	offsets := make([]int64, 0, len(keep))
	for o := range keep {
		offsets = append(offsets, o)
	}
	slices.Sort(offsets)
	var cols []int64
	for i, o := range offsets {
		if i > 0 {
			switch gap := o - offsets[i-1]; {
			case gap == 2:
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

// holds reports whether a row draws a cell at offset o.
func (r pictureRow) holds(o int64) bool {
	return (r.Up || r.LastKnown) && o >= r.LogStart && o < r.LEO
}

// cellWidths is each column's text width: the widest text the column
// holds (and its offset's digits), at least minCell, widened only while
// the picture fits the page, at most maxCell.
func (p *picture) cellWidths(cols []int64, fixed int) []int {
	need := make([]int, len(cols))
	w := make([]int, len(cols))
	used := fixed
	for i, o := range cols {
		w[i] = minCell
		used += minCell + frame
		if o < 0 {
			continue
		}
		need[i] = len(strconv.FormatInt(o, 10))
		for _, r := range p.Rows {
			for _, c := range r.Cells {
				if c.Offset == o {
					need[i] = max(need[i], textWidth(p.cellText(c)))
				}
			}
		}
		need[i] = min(need[i], maxCell)
	}
	// Widen the columns that need the least first, each to its whole
	// value or not at all: most of them end up showing their whole value,
	// and a cut value is always cut at minCell.
	order := make([]int, len(cols))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return (need[a] - w[a]) - (need[b] - w[b]) })
	for _, i := range order {
		extra := need[i] - w[i]
		if extra <= 0 {
			continue
		}
		if used+extra > p.pageWidth() {
			break
		}
		w[i] += extra
		used += extra
	}
	return w
}

func (p *picture) writeText(w io.Writer, st *style) error {
	fmt.Fprintln(w, p.header())
	cols := p.columns()
	label := p.labelWidth()
	indent := label + 4 // "  b1*  "
	tail := 0
	for _, r := range p.Rows {
		tail = max(tail, len(r.leoNote()))
	}
	cw := p.cellWidths(cols, indent+1+2+tail)
	if len(cols) > 0 {
		var b strings.Builder
		b.WriteString(strings.Repeat(" ", indent))
		for i, c := range cols {
			if c < 0 {
				b.WriteString("  " + padCell("…", cw[i]+frame-2))
				continue
			}
			fmt.Fprintf(&b, "  %-*d", cw[i]+frame-2, c)
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	rowWidth := indent + 1
	for _, x := range cw {
		rowWidth += x + frame
	}
	if len(cols) == 0 {
		rowWidth = indent + len("(empty)")
	}
	var legend []string
	for _, r := range p.Rows {
		line, notes := p.row(st, cols, cw, label, rowWidth, r)
		fmt.Fprintln(w, line)
		if notes != "" {
			legend = append(legend, fmt.Sprintf("  %s: %s", strings.TrimSuffix(rowLabel(r), "*"), notes))
		}
	}
	for _, line := range markerLines(p.markers(cols, cw, indent)) {
		fmt.Fprintln(w, st.paint(st.marker, line))
	}
	for _, l := range legend {
		fmt.Fprintln(w, l)
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

// leoNote is the part of a row's end that always stays on the row: its
// LEO (and the HW it knows, under follower.hw=fetch).
func (r pictureRow) leoNote() string {
	if r.HW != nil {
		return fmt.Sprintf("LEO=%d, HW=%d", r.LEO, *r.HW)
	}
	return fmt.Sprintf("LEO=%d", r.LEO)
}

// notes are the rest of a row's end: not in ISR, crashed, diverged, ...
func (r pictureRow) notes(differs bool) []string {
	var notes []string
	if !r.InISR {
		notes = append(notes, "not in ISR")
	}
	switch {
	case !r.Up && r.Offline != "":
		notes = append(notes, "offline: its log directory failed (last known LEO)")
	case !r.Up && r.LastKnown && r.LEO > r.LogStart:
		notes = append(notes, "crashed (last known log)")
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
	return notes
}

// row draws one replica: "| a    | b    : c    :   LEO=3". A committed
// offset (below the HW) is framed by '|', the uncommitted tail by ':', a
// diverged replica's batch that is not the leader's by '!', a crashed
// replica's last known log by '¦' (and dimmed); an elided stretch is drawn
// as "…". Notes that do not fit the page after the row are returned, to be
// written under the picture.
func (p *picture) row(st *style, cols []int64, cw []int, label, rowWidth int, r pictureRow) (string, string) {
	var b strings.Builder
	lab := fmt.Sprintf("%-*s", label, rowLabel(r))
	if r.Leader {
		lab = st.paint(st.leader, lab)
	}
	b.WriteString("  " + lab + "  ")
	visible := label + 4 // printed width, without colour codes
	cells := map[int64]cell{}
	for _, c := range r.Cells {
		cells[c.Offset] = c
	}
	if len(cols) == 0 && r.Up {
		b.WriteString("(empty)")
		visible += len("(empty)")
	}
	closing := "" // the separator that closes the last drawn cell
	differs := false
	for i, o := range cols {
		width := cw[i] + frame
		text, held := "", false
		switch {
		case o < 0: // elided: held when the replica holds both neighbours
			if i > 0 && i+1 < len(cols) && r.holds(cols[i-1]) && r.holds(cols[i+1]) {
				held, o, text = true, cols[i-1]+1, "…"
			}
		case r.holds(o):
			held, text = true, "·" // "·" is an offset removed by compaction
			if c, ok := cells[o]; ok {
				text = p.cellText(c)
			}
		}
		if !held {
			b.WriteString(closing)
			b.WriteString(strings.Repeat(" ", width-len(closing)))
			closing = ""
			visible += width
			continue
		}
		sep, paint := "|", st.committed
		if o >= p.HW {
			sep, paint = ":", st.tail
		}
		if c, ok := cells[o]; ok && c.Differs {
			sep, paint, differs = "!", st.tail, true
		}
		if r.LastKnown {
			sep, paint = "¦", st.dim
		}
		b.WriteString(sep + " ")
		b.WriteString(st.paint(paint, padCell(text, cw[i])) + " ")
		closing = sep
		visible += width
	}
	b.WriteString(closing)
	visible += textWidth(closing)
	b.WriteString(strings.Repeat(" ", max(0, rowWidth-visible)+2))
	end := r.leoNote()
	notes := strings.Join(r.notes(differs), ", ")
	switch {
	case notes == "":
	case max(rowWidth, visible)+2+len(end)+2+textWidth(notes) <= p.pageWidth():
		end += ", " + notes
		notes = ""
	}
	return b.String() + end, notes
}

// cellText is the short text of a cell: its value (or key), or with show
// TP epochs its batch's leader epoch ("e3"; a marker "e3 C" or "e3 A").
func (p *picture) cellText(c cell) string {
	if p.Shows == "epoch" {
		text := fmt.Sprintf("e%d", c.Epoch)
		switch c.Kind {
		case cellCommit:
			return text + " C"
		case cellAbort:
			return text + " A"
		case cellAborted:
			return "✗" + text
		case cellOpen:
			return "?" + text
		}
		return text
	}
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

// padCell cuts or pads s to exactly n terminal columns; a cut is marked
// with '~'.
func padCell(s string, n int) string {
	if textWidth(s) > n {
		s = widths.Truncate(s, n-1, "") + "~"
	}
	return s + strings.Repeat(" ", max(0, n-textWidth(s)))
}

// markers places ^HW, ^LSO and ^log-start under the boundary before the
// offset they name, in the order they are laid out (most important first).
func (p *picture) markers(cols []int64, cw []int, indent int) []marker {
	pos := func(off int64) (int, bool) {
		x := indent
		for i, c := range cols {
			if c == off {
				return x, true
			}
			x += cw[i] + frame
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
			lo, hi := o.pos, o.pos+textWidth(o.label)
			if m.pos <= hi && m.pos+textWidth(m.label) >= lo {
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
			col = m.pos + textWidth(m.label)
		}
		out[i] = b.String()
	}
	return out
}

// brokerSet renders broker ids as [1 2], as the engine's events do.
func brokerSet(ids []int32) string { return "[" + joinIDs(ids, " ") + "]" }
