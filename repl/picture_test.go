package repl

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func dataCells(from, to int64) []cell {
	var cs []cell
	for o := from; o < to; o++ {
		cs = append(cs, cell{Offset: o, Kind: cellData, Text: string(rune('a' + o%26))})
	}
	return cs
}

func TestPictureShort(t *testing.T) {
	p := &picture{TP: "events-0", Leader: 1, Online: true, HW: 1, LSO: 1, ISR: []int32{1, 2}, First: 0, End: 3,
		Rows: []pictureRow{
			{Broker: 1, Leader: true, InISR: true, Up: true, LEO: 3, Cells: dataCells(0, 3)},
			{Broker: 2, InISR: true, Up: true, LEO: 1, Cells: dataCells(0, 1)},
			{Broker: 3, Up: false, LEO: 0},
		}}
	var buf bytes.Buffer
	if err := p.writeText(&buf, newStyle(false)); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"events-0  leader=1 epoch=0  HW=1  LSO=1  log-start=0  ISR=[1 2]\n" +
		"         0        1        2\n" +
		"  b1*  | a      : b      : c      :  LEO=3\n" +
		"  b2   | a      |                    LEO=1\n" +
		"  b3                                 LEO=0, not in ISR, crashed (last known LEO)\n" +
		"                ^HW\n"
	if buf.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", buf.String(), want)
	}
}

func TestPictureLongIsElided(t *testing.T) {
	p := &picture{TP: "big-0", Leader: 1, Online: true, HW: 40, LSO: 40, LogStart: 0, ISR: []int32{1}, First: 0, End: 100,
		Rows: []pictureRow{
			{Broker: 1, Leader: true, InISR: true, Up: true, LEO: 100, Cells: dataCells(0, 100)},
			{Broker: 2, Up: true, LEO: 41, Cells: dataCells(0, 41)},
		}}
	var buf bytes.Buffer
	_ = p.writeText(&buf, newStyle(false))
	if !strings.Contains(buf.String(), "| …      |") || !strings.Contains(buf.String(), ": …      :") {
		t.Errorf("the middle of a long log must be elided:\n%s", buf.String())
	}
	cols := pictureColumns(0, 100, p.marks(), p.maxColumns())
	if len(cols) > 20 {
		t.Errorf("%d columns drawn for 100 offsets: %v", len(cols), cols)
	}
}

// TestPictureFitsThePage draws long logs for pages of 60, 80 and 120
// columns: no line is wider than the page, and ^HW and ^LSO stand under
// the boundary before the offset they name (the offsets line shows that
// offset two columns to the right of the caret).
func TestPictureFitsThePage(t *testing.T) {
	for _, width := range []int{60, 80, 120} {
		for _, n := range []int64{5, 9, 14, 40, 300} {
			for _, hw := range []int64{0, n / 3, n - 1, n} {
				lso := max(0, hw-2)
				p := &picture{TP: "big-0", Leader: 1, Online: true, HW: hw, LSO: lso, ISR: []int32{1, 2}, First: 0, End: n, width: width,
					Rows: []pictureRow{
						{Broker: 1, Leader: true, InISR: true, Up: true, LEO: n, Cells: dataCells(0, n)},
						{Broker: 2, InISR: true, Up: true, LEO: hw, Cells: dataCells(0, hw)},
						{Broker: 3, Up: false, LEO: 1},
					}}
				var buf bytes.Buffer
				_ = p.writeText(&buf, newStyle(false))
				lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
				for i, l := range lines {
					// The first line is the partition's header, not the grid.
					if textWidth(l) > width && (i > 0 || width >= 80) {
						t.Errorf("width %d, %d offsets: %d columns: %q", width, n, textWidth(l), l)
					}
				}
				header := []rune(lines[1]) // "…" is one column, three bytes
				for _, l := range lines[2:] {
					for _, m := range []struct {
						label string
						off   int64
					}{{"^HW", hw}, {"^LSO", lso}} {
						x := strings.Index(l, m.label)
						if x < 0 || strings.HasPrefix(l[x:], "^HW") != (m.label == "^HW") {
							continue
						}
						if m.off == n { // after the last column
							if x < len(strings.TrimRight(string(header), " ")) {
								t.Errorf("width %d, n %d: %s=%d stands before the end:\n%s", width, n, m.label, m.off, buf.String())
							}
							continue
						}
						if x+2 >= len(header) || !strings.HasPrefix(string(header[x+2:]), fmt.Sprint(m.off)) {
							t.Errorf("width %d, n %d: %s=%d stands under the wrong column:\n%s", width, n, m.label, m.off, buf.String())
						}
					}
				}
			}
		}
	}
}

// TestPictureWidensCells: a value longer than the narrowest cell is shown
// whole while the picture fits, cut with '~' when it does not.
func TestPictureWidensCells(t *testing.T) {
	s := newTestSession(t, Options{})
	runLines(t, s, "topic create orders partitions=1 rf=2", "produce orders value=created acks=1", "replicate")
	if got := runLines(t, s, "show orders-0"); !strings.Contains(got, "| created |") {
		t.Errorf("created is cut:\n%s", got)
	}
	for i := range 8 {
		runLines(t, s, fmt.Sprintf("produce orders value=a-rather-long-value-%d acks=1", i))
	}
	got := runLines(t, s, "show orders-0")
	if !strings.Contains(got, "a-rat~") {
		t.Errorf("long values on a full page are not cut:\n%s", got)
	}
	for _, l := range strings.Split(got, "\n") {
		if textWidth(l) > 80 {
			t.Errorf("%d columns: %q", textWidth(l), l)
		}
	}
	// A terminal 200 columns wide has room for them all.
	wide := newTestSession(t, Options{Width: func() int { return 200 }})
	runLines(t, wide, "topic create orders partitions=1 rf=1")
	for i := range 3 {
		runLines(t, wide, fmt.Sprintf("produce orders value=a-rather-long-value-%d", i))
	}
	if got := runLines(t, wide, "show orders-0"); !strings.Contains(got, "| a-rather-long-value-2 |") {
		t.Errorf("a wide terminal cuts values:\n%s", got)
	}
}

// TestPictureKeepsACrashedBrokersCells: a crashed broker's row keeps what
// its replica held, framed by '¦' (and dimmed in colour), until it
// restarts.
func TestPictureKeepsACrashedBrokersCells(t *testing.T) {
	s := newTestSession(t, Options{Color: true})
	runLines(t, s, "topic create e partitions=1 rf=2", "produce e value=a acks=1", "replicate", "produce e value=b acks=1", "broker crash 1")
	got := ansi().ReplaceAllString(runLines(t, s, "show e-0"), "")
	if !strings.Contains(got, "b1*  ¦ a      ¦ b      ¦  LEO=2, crashed (last known log)") {
		t.Errorf("the crashed leader's cells:\n%s", got)
	}
	if raw := runLines(t, s, "show e-0"); !strings.Contains(raw, "\x1b[2m") {
		t.Errorf("not dimmed:\n%q", raw)
	}
	runLines(t, s, "promote e-0 2", "broker restart 1", "replicate")
	got = ansi().ReplaceAllString(runLines(t, s, "show e-0"), "")
	if strings.Contains(got, "¦") || strings.Contains(got, " b ") {
		t.Errorf("after the restart the row is live again (b was truncated):\n%s", got)
	}
}

// TestPictureEpochs: show TP epochs draws each batch's leader epoch.
func TestPictureEpochs(t *testing.T) {
	s := newTestSession(t, Options{})
	runLines(t, s, "topic create e partitions=1 rf=2", "produce e value=a acks=1", "replicate", "promote e-0 2", "produce e value=b acks=1",
		"txn begin t", "txn send t e value=c", "replicate", "txn commit t", "replicate")
	got := runLines(t, s, "show e-0 epochs")
	if !strings.Contains(got, "| e0     | e1     | e1     | e1 C   |") {
		t.Errorf("epochs:\n%s", got)
	}
	var out bytes.Buffer
	if err := s.Exec(&out, "show e-0 keys epochs"); err == nil {
		t.Errorf("keys and epochs together: %s", out.String())
	}
}
