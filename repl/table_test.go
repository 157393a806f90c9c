package repl

import (
	"bytes"
	"testing"
)

func TestRenderTable(t *testing.T) {
	var buf bytes.Buffer
	err := renderTable(&buf, []string{"BROKER", "ROLE", "log-end-offset", "IN-ISR"}, [][]string{
		{"1", "leader", "3", "yes"},
		{"2", "follower", "12345", ""},
		{"3"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "" +
		"BROKER  ROLE      log-end-offset  IN-ISR\n" +
		"1       leader    3               yes\n" +
		"2       follower  12345           -\n" +
		"3       -         -               -\n"
	if buf.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", buf.String(), want)
	}
}
