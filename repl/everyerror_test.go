package repl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// badValues are the values the driver puts in every argument slot.
var badValues = []string{"", "x", "-1", "99999999999999999999", "nosuch-0", `"two words"`, "events-0"}

// badLines derives bad input for one command from its declaration: the
// command alone, each positional slot and each key filled with every bad
// value, an unknown key, an unknown flag and a stray positional word.
func badLines(c *Command) []string {
	name := c.FullName()
	lines := []string{name, name + " bogus=1", name + " bogusflag", name + " a b c d e f"}
	pos := make([]string, len(c.Positional))
	for i := range pos {
		pos[i] = "events-0"
		if strings.Contains(strings.ToUpper(c.Positional[i].Name), "ID") {
			pos[i] = "2"
		}
	}
	for i := range c.Positional {
		for _, v := range badValues {
			p := append([]string(nil), pos...)
			p[i] = v
			lines = append(lines, strings.TrimSpace(name+" "+strings.Join(p, " ")))
		}
	}
	base := strings.TrimSpace(name + " " + strings.Join(pos, " "))
	for _, k := range c.Keys {
		for _, v := range badValues {
			lines = append(lines, base+" "+k.Name+"="+v)
		}
	}
	for _, f := range c.Flags {
		lines = append(lines, base+" "+f.Name+" "+f.Name)
	}
	return lines
}

// states are the situations the bad lines run in: a running cluster with
// a topic, clients and a transaction; a crashed broker; a closed cluster.
var states = map[string][]string{
	"running": {"cluster open brokers=1,2", "topic create events rf=2", "produce events value=a acks=1",
		"producer create p idempotent", "consumer create c group=g", "txn begin t1"},
	"broker-down": {"cluster open brokers=1,2", "topic create events rf=2", "broker crash 1"},
	"closed":      {"cluster open brokers=1,2", "topic create events rf=2", "cluster close"},
}

// TestEveryErrorHasUsageOrHint drives the REPL with bad input for every
// command in every state and requires what docs/commands.md promises:
// every failure prints `error: CODE: message` and then a `usage:` or a
// `hint:` line (in JSON, a usage or hint field).
func TestEveryErrorHasUsageOrHint(t *testing.T) {
	if testing.Short() {
		t.Skip("thousands of bad lines")
	}
	t.Parallel()
	var lines []string
	for _, c := range theRegistry().All() {
		lines = append(lines, badLines(c)...)
	}
	lines = append(lines, "nosuch", "hepl", `produce events value="open`, "produce events\tvalue=a b",
		// Failed checks of every family, and state errors the slots above miss.
		"check events-0 hw == 99", "check events partitions == 9", "check clock == 100", "check broker 2 up == false",
		"check producer p acked == 9", "check group g state == stable", "check consumer c polled == 9", "check txn t1 state == ongoing",
		"broker restart 2", "producer retry p", "txn begin t1", "txn send t1 nosuch value=x", "corrupt journal mode=garbage bytes=999999",
		"serve stop", `remote {"operation":"metadata","topic":"events"}`, "consumer close c", "consumer poll c", "producer close p", "producer send p events value=x")
	type run struct {
		format Format
		state  string
	}
	runs := []run{{FormatText, "running"}, {FormatText, "broker-down"}, {FormatText, "closed"}, {FormatJSON, "running"}}
	var mu sync.Mutex
	total, lacking := 0, map[string][]string{}
	t.Run("drive", func(t *testing.T) {
		for _, r := range runs {
			t.Run(string(r.format)+"-"+r.state, func(t *testing.T) {
				t.Parallel()
				n, missing := driveBadLines(t, r.format, r.state, lines)
				mu.Lock()
				defer mu.Unlock()
				total += n
				for k, v := range missing {
					lacking[k] = append(lacking[k], v...)
				}
			})
		}
	})
	n := 0
	keys := make([]string, 0, len(lacking))
	for k, v := range lacking {
		keys = append(keys, k)
		n += len(v)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Errorf("%d× %s\n    e.g. %s", len(lacking[k]), k, lacking[k][0])
	}
	t.Logf("%d failed commands, %d without a usage or hint line", total, n)
}

// driveBadLines runs lines in a session in state st and returns how many
// failed and, by first error line, those without a usage or hint line.
func driveBadLines(t *testing.T, format Format, st string, lines []string) (int, map[string][]string) {
	total, lacking := 0, map[string][]string{}
	// In memory: the thousands of clusters opened here test messages, not
	// the disk.
	s := newTestSession(t, Options{Format: format, FS: vfs.NewMem()})
	setup := func() {
		for _, l := range states[st] {
			if err := s.Exec(&bytes.Buffer{}, l); err != nil {
				t.Fatalf("%s: %s: %v", st, l, err)
			}
		}
	}
	setup()
	for _, line := range lines {
		network := strings.HasPrefix(line, "serve start") || strings.HasPrefix(line, "kafka listen") || strings.Contains(line, "bootstrap=") ||
			strings.HasPrefix(line, "remote") && !strings.HasPrefix(line, "remote {")
		if strings.Contains(line, "exit") || strings.Contains(line, "quit") || network || strings.HasPrefix(line, "cluster open") && strings.Contains(line, "dir=") {
			continue
		}
		var out bytes.Buffer
		err := s.Exec(&out, line)
		if IsInternal(err) {
			t.Fatalf("%q panicked: %v", line, err)
		}
		if err == nil {
			setup() // a command that ran may have changed the state; a refused one changed nothing
			continue
		}
		total++
		if !hasUsageOrHint(format, out.String()) {
			key := fmt.Sprintf("%s %s", format, firstErrorLine(format, out.String()))
			lacking[key] = append(lacking[key], st+": "+line)
		}
	}
	return total, lacking
}

func hasUsageOrHint(format Format, out string) bool {
	if format == FormatJSON {
		var env struct {
			Error *struct {
				Usage, Hint string
			}
		}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if json.Unmarshal([]byte(l), &env) == nil && env.Error != nil {
				return env.Error.Usage != "" || env.Error.Hint != ""
			}
		}
		return false
	}
	return strings.Contains(out, "\nusage: ") || strings.HasPrefix(out, "usage: ") || strings.Contains(out, "\nhint: ")
}

func firstErrorLine(format Format, out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "error: ") || format == FormatJSON && strings.Contains(l, `"ok":false`) {
			if format == FormatJSON {
				var env struct {
					Error struct{ Code, Message string }
				}
				if json.Unmarshal([]byte(l), &env) == nil {
					return env.Error.Code + ": " + env.Error.Message
				}
			}
			return l
		}
	}
	return out
}
