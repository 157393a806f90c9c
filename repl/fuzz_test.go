package repl

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/vfs"
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
		`check events-0 values@1 == [a "b c" null hex:00]`, "check events-0 value offset=0 == a", "check group g owner events-0 == none",
		"produce events value=z epoch=0", "produce events value=t timestamp=5", `dispatch {"operation":"fetch","topic":"events","partition":0,"offset":0}`,
		"producer create p transactional.id=w buffer.memory=80", "consumer create c isolation.level=read_committed", "consumer commit c events-0=1",
		"corrupt journal mode=garbage bytes=3", "group describe nosuch", "check group nosuch members == []",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.Contains(line, "dir=") || strings.Contains(line, "exit") || strings.Contains(line, "quit") {
			return // never let the fuzzer create directories outside the temporary one
		}
		if strings.Contains(line, "serve") || strings.Contains(line, "remote") {
			return // never let the fuzzer open sockets or talk to local services
		}
		s := newTestSession(t, Options{FS: vfs.NewMem()})
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
		// A request that times out may have appended (as in Kafka): the
		// one failure allowed to leave a trace.
		if err != nil && !errors.Is(err, kerr.RequestTimedOut) {
			if after := snapshot(); after != before {
				t.Fatalf("rejected %q changed the cluster:\n%s\n----\n%s", line, before, after)
			}
		}
	})
}
