package kafkawire

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/minikafka-lab/minikafka/engine"
)

// kcat runs the kcat binary (Debian package kcat, librdkafka 2.x) against
// the listener with a time bound, feeding stdin, and returns stdout.
func kcat(t *testing.T, tc *testCluster, stdin string, args ...string) string {
	t.Helper()
	path, err := exec.LookPath("kcat")
	if err != nil {
		t.Skip("kcat is not installed (Debian package kcat; .ci/run installs it): skipping the kcat scenarios")
	}
	cx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(cx, path, append([]string{"-b", tc.srv.Bootstrap()}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("kcat %v: %v\n%s", args, err, errOut.String())
	}
	return out.String()
}

func sortedLines(s string) []string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	slices.Sort(lines)
	return lines
}

// TestKcatListProduceConsumeGroupIdempotent: kcat -L lists the three
// brokers at their own ports and the topic's leaders; kcat -P with keys
// (plain and with enable.idempotence=true) appends records the engine
// holds; kcat -C -o beginning -e and kcat -G read them all back; the
// results are compared with what the engine stores.
func TestKcatListProduceConsumeGroupIdempotent(t *testing.T) {
	tc := startCluster(t, 3)
	if _, err := exec.LookPath("kcat"); err != nil {
		t.Skip("kcat is not installed (Debian package kcat; .ci/run installs it): skipping the kcat scenarios")
	}
	tc.createTopic("events", 3, 3)

	meta := kcat(t, tc, "", "-L")
	for id, addr := range tc.srv.Addrs() {
		if !strings.Contains(meta, fmt.Sprintf("broker %d at %s", id, addr)) {
			t.Errorf("kcat -L does not list broker %d at %s:\n%s", id, addr, meta)
		}
	}
	if !strings.Contains(meta, `topic "events" with 3 partitions`) {
		t.Errorf("kcat -L does not list the topic:\n%s", meta)
	}

	kcat(t, tc, "alice:created\nbob:paid\ncarol:shipped\n", "-P", "-t", "events", "-K:")
	kcat(t, tc, "dave:one\nerin:two\n", "-P", "-t", "events", "-K:", "-X", "enable.idempotence=true")

	// What the engine holds, as kcat prints it.
	var want []string
	idempotent := 0
	tc.do(func(c *engine.Cluster) error {
		for p := int32(0); p < 3; p++ {
			tp := engine.TopicPartition{Topic: "events", Partition: p}
			recs, err := c.Fetch(tp, 0, 100, engine.ReadUncommitted)
			if err != nil {
				return err
			}
			for _, r := range recs {
				want = append(want, fmt.Sprintf("%s@%d %s=%s", tp, r.Offset, r.Key, r.Value))
			}
			st, err := c.PartitionState(tp)
			if err != nil {
				return err
			}
			idempotent += len(st.Producers)
		}
		return nil
	})
	slices.Sort(want)
	if len(want) != 5 {
		t.Fatalf("the engine holds %d records: %v", len(want), want)
	}
	if idempotent == 0 {
		t.Error("enable.idempotence=true left no producer state: the batches carried no producer id")
	}

	got := sortedLines(kcat(t, tc, "", "-C", "-t", "events", "-o", "beginning", "-e", "-q", "-f", `%t-%p@%o %k=%s\n`))
	if !slices.Equal(got, want) {
		t.Errorf("kcat -C read\n%v\nthe engine holds\n%v", got, want)
	}
	got = sortedLines(kcat(t, tc, "", "-G", "g1", "events", "-o", "beginning", "-e", "-q", "-f", `%t-%p@%o %k=%s\n`))
	if !slices.Equal(got, want) {
		t.Errorf("kcat -G read\n%v\nthe engine holds\n%v", got, want)
	}
	tc.do(func(c *engine.Cluster) error {
		d, err := c.DescribeGroup("g1")
		if err != nil {
			return err
		}
		if len(d.Partitions) == 0 {
			t.Error("kcat -G committed nothing")
		}
		return nil
	})
}
