package repl

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// argsCommand is a command declaration used only to test Args.
var argsCommand = &Command{
	Name:       "demo",
	Args:       "TOPIC [N] [key=K] [value=V | tombstone] [n=N] [d=DURATION] [acks=0|1|all] [brokers=1,2]",
	Positional: []Param{{Name: "TOPIC"}, {Name: "N", Optional: true}},
	Keys:       []Param{{Name: "key"}, {Name: "value"}, {Name: "n"}, {Name: "d"}, {Name: "acks"}, {Name: "brokers"}},
	Flags:      []Param{{Name: "tombstone"}},
	Run:        func(*Session, io.Writer, *Args) error { return nil },
}

func parseDemo(t *testing.T, line string) (*Args, error) {
	t.Helper()
	words, err := Split(line)
	if err != nil {
		t.Fatalf("Split(%q): %v", line, err)
	}
	return newArgs(argsCommand, line, words)
}

func TestArgsShape(t *testing.T) {
	bad := map[string]string{
		"":                           "missing TOPIC",
		"orders 1 2":                 `unexpected argument "2"`,
		"orders colour=red":          `unknown key "colour"`,
		"orders vaule=x":             `did you mean value=?`,
		"orders n=1 n=2":             `key "n" given twice`,
		"orders tombstone tombstone": `flag "tombstone" given twice`,
	}
	for line, want := range bad {
		_, err := parseDemo(t, line)
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(ue.Msg, want) {
			t.Errorf("%q: error %v, want usage error containing %q", line, err, want)
			continue
		}
		if ue.Usage != "demo "+argsCommand.Args || !errors.Is(err, kerr.InvalidArgument) {
			t.Errorf("%q: usage %q, errors.Is INVALID_ARGUMENT %v", line, ue.Usage, errors.Is(err, kerr.InvalidArgument))
		}
	}
}

func TestArgsValues(t *testing.T) {
	a, err := parseDemo(t, `orders 7 key="" value=hex:6869 n=42 d=2s acks=all brokers=3,1 tombstone`)
	if err != nil {
		t.Fatal(err)
	}
	if a.Pos(0) != "orders" || a.PosInt(1, "N", 0, 10) != 7 || a.Pos(2) != "" {
		t.Errorf("positionals: %q %q", a.Pos(0), a.Pos(1))
	}
	if k := a.Bytes("key"); k == nil || len(k) != 0 {
		t.Errorf(`key="" gave %#v, want empty non-nil`, k)
	}
	if v := a.Bytes("value"); string(v) != "hi" {
		t.Errorf("value=hex:6869 gave %q", v)
	}
	if a.Int("n", 0, 0, 100) != 42 || a.Duration("d", 0) != 2000 || a.Choice("acks", "1", "0", "1", "all") != "all" {
		t.Error("typed values wrong")
	}
	if b := a.BrokerList("brokers"); len(b) != 2 || b[0] != 3 || b[1] != 1 {
		t.Errorf("brokers = %v", b)
	}
	if !a.Flag("tombstone") || a.Err() != nil {
		t.Errorf("flag %v err %v", a.Flag("tombstone"), a.Err())
	}

	a, _ = parseDemo(t, `orders value="hex:6869"`)
	if v := a.Bytes("value"); string(v) != "hex:6869" {
		t.Errorf("quoted hex: prefix must stay text, got %q", v)
	}
	if a.Bytes("key") != nil {
		t.Error("a missing key= must be null")
	}
	a, _ = parseDemo(t, `orders "tombstone"`)
	if a.Flag("tombstone") || a.Pos(1) != "tombstone" {
		t.Error(`a quoted "tombstone" is a word, not the flag`)
	}
}

func TestArgsBadValues(t *testing.T) {
	for line, want := range map[string]string{
		"orders n=x":          `n: "x" is not an integer`,
		"orders n=101":        "n: 101 is outside [0, 100]",
		"orders d=5d":         "d: \"5d\" is not a duration",
		"orders acks=2":       "acks must be one of 0|1|all",
		"orders value=hex:zz": "value: hex:",
		"orders value=b64:!!": "value: b64:",
		"orders brokers=1,1":  "broker 1 listed twice",
		"orders brokers=a":    "brokers: broker ids are written 1,2,3",
	} {
		a, err := parseDemo(t, line)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		a.Int("n", 0, 0, 100)
		a.Duration("d", 0)
		a.Choice("acks", "1", "0", "1", "all")
		a.Bytes("value")
		a.BrokerList("brokers")
		if a.Err() == nil || !strings.Contains(a.Err().Error(), want) {
			t.Errorf("%q: Err() = %v, want %q", line, a.Err(), want)
		}
	}
}

func TestArgsTP(t *testing.T) {
	a, _ := parseDemo(t, "my-topic-12")
	if tp := a.TP(0); tp.Topic != "my-topic" || tp.Partition != 12 || a.Err() != nil {
		t.Errorf("TP = %v, %v", tp, a.Err())
	}
	a, _ = parseDemo(t, "orders")
	a.TP(0)
	if a.Err() == nil || !strings.Contains(a.Err().Error(), "TOPIC-PARTITION") {
		t.Errorf("TP(orders) error = %v", a.Err())
	}
}
