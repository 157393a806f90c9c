package repl

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzExec runs one random line on a live session: Exec must never panic,
// and a rejected line must leave the cluster as it was (offsets and topic
// describe print the same before and after).
func FuzzExec(f *testing.F) {
	for _, s := range []string{
		"produce events value=x acks=all", "produce events key=k tombstone partition=0",
		"fetch events-0 offset=-1 max=-1", "replicate events-0 follower=2 rounds=3",
		"promote events-0 2", "rejoin events-0 1", "broker crash 2 keep-unflushed",
		"check events-0 isr == [1 2]", "log dump events-0 segment=99", "corrupt events-0 mode=flip bytes=999999",
		"retention events-0 retention.bytes=1", "compact events-0 delete.retention.ms=0",
		"producer create p linger.ms=5", "config set min.insync.replicas=3", "topic create x partitions=99999999999",
		"show events-0 keys", `produce events value="unterminated`, "clock advance 9223372036854775807ms",
		"help produce", "offsets nosuch-0", "cluster restart",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.Contains(line, "dir=") || strings.Contains(line, "exit") || strings.Contains(line, "quit") {
			return // never let the fuzzer create directories outside the temporary one
		}
		s := newTestSession(t, Options{})
		setup := []string{"cluster open brokers=1,2", "topic create events rf=2", "produce events value=a acks=1"}
		for _, l := range setup {
			if err := s.Exec(&bytes.Buffer{}, l); err != nil {
				t.Fatalf("%s: %v", l, err)
			}
		}
		snapshot := func() string {
			var b bytes.Buffer
			_ = s.Exec(&b, "offsets events-0")
			_ = s.Exec(&b, "topic describe")
			return b.String()
		}
		before := snapshot()
		var out bytes.Buffer
		err := s.Exec(&out, line)
		if IsInternal(err) {
			t.Fatalf("%q panicked: %v\n%s", line, err, err.(*InternalError).Stack)
		}
		if err != nil {
			if after := snapshot(); after != before {
				t.Fatalf("rejected %q changed the cluster:\n%s\n----\n%s", line, before, after)
			}
		}
	})
}
