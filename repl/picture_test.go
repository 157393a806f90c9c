package repl

import (
	"bytes"
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
	cols := pictureColumns(0, 100, p.marks())
	if len(cols) > 20 {
		t.Errorf("%d columns drawn for 100 offsets: %v", len(cols), cols)
	}
}
