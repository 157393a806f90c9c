//go:build unix

package cli

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/minikafka-lab/minikafka/adapters/jsontcp"
	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
)

// The kill and signal tests' depth: the default run kills and stops the
// process a few times; .ci/run asks for the full counts and the real
// binary (-kills=24 -signal-runs=20 -build-binary).
var (
	killRuns    = flag.Int("kills", 6, "how many times TestServeSurvivesSIGKILL kills serve (CI: 24)")
	signalRuns  = flag.Int("signal-runs", 8, "how many times TestReplStopsGracefullyOnEverySignal stops the REPL, the signals in turn (CI: 20)")
	buildBinary = flag.Bool("build-binary", false, "run the kill tests on the real binary, built with go build (CI), instead of this test binary running Main")
)

// builtBinary is the binary the kill tests run, built once per test
// process into a temporary directory that TestMain removes.
var builtBinary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// minikafka is the program the kill tests start: the real binary, or this
// test binary running Main on the arguments after "--" (TestMain).
type minikafka struct {
	path   string
	helper bool
}

// command is the program's command line with args.
func (m minikafka) command(args ...string) *exec.Cmd {
	if !m.helper {
		return exec.Command(m.path, args...)
	}
	cmd := exec.Command(m.path, append([]string{"-test.run=^$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), cliHelperEnv+"=1")
	return cmd
}

// buildMinikafka is the program the kill tests run: this test binary
// running Main (the same command line, without the embedded material none
// of them reads), or with -build-binary the real binary (main.go), built
// with go build once; MINIKAFKA_KILL_TEST_BINARY names a binary to test
// instead.
func buildMinikafka(t *testing.T) minikafka {
	t.Helper()
	if bin := os.Getenv("MINIKAFKA_KILL_TEST_BINARY"); bin != "" {
		return minikafka{path: bin} // another build held to the same promise
	}
	if !*buildBinary {
		return minikafka{path: os.Args[0], helper: true}
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go tool to build the binary: %v", err)
	}
	b := &builtBinary
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "minikafka-kill-test-"); b.err != nil {
			return
		}
		b.path = filepath.Join(b.dir, "minikafka")
		cmd := exec.Command(goTool, "build", "-o", b.path, ".")
		cmd.Dir = ".." // the module root
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return minikafka{path: b.path}
}

// acked is one acknowledged record: where the process said it is.
type acked struct {
	partition int32
	offset    int64
	value     string
}

// sentBy is what one client sent: the records acknowledged, in order, and
// the one in flight when the process died (its outcome unknown), if any.
type sentBy struct {
	acked    []acked
	inFlight string
}

// verifyAfterKill reopens dir and checks the kill test's promise on every
// partition of topic: every acknowledged record is in the leader's log
// exactly once, at the offset it was acknowledged at, clients' records in
// the order they sent them; the only other records are a client's last,
// unacknowledged one; every follower's log is a prefix of the leader's.
func verifyAfterKill(t *testing.T, dir string, brokers []int32, topic string, partitions int32, clients []sentBy) {
	t.Helper()
	problems := 0
	errorf := func(format string, args ...any) {
		t.Helper()
		if problems++; problems <= 5 {
			t.Errorf(format, args...)
		}
	}
	defer func() {
		if problems > 5 {
			errorf("... %d problems in all", problems)
		}
	}()
	cfg := engine.DefaultConfig(dir)
	cfg.BrokerIDs = brokers
	c, _, err := engine.Open(cfg, clock.NewManual(0))
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer c.Close()
	allowed := map[string]bool{} // unacknowledged values that may be there
	for _, cl := range clients {
		if cl.inFlight != "" {
			allowed[cl.inFlight] = true
		}
	}
	where := map[string]acked{}
	for p := int32(0); p < partitions; p++ {
		tp := engine.TopicPartition{Topic: topic, Partition: p}
		md, err := c.PartitionMetadata(tp)
		if err != nil {
			t.Fatal(err)
		}
		logs := map[int32][]engine.LogRecord{}
		for _, b := range md.Replicas {
			batches, err := c.LogBatches(tp, b, 0, -1, 0)
			if err != nil {
				t.Fatalf("%s on broker %d: %v", tp, b, err)
			}
			for _, batch := range batches {
				recs, err := batch.Records()
				if err != nil {
					t.Fatal(err)
				}
				logs[b] = append(logs[b], recs...)
			}
		}
		leader := logs[md.Leader]
		for b, l := range logs {
			if len(l) > len(leader) {
				errorf("%s: broker %d holds %d records, the leader %d", tp, b, len(l), len(leader))
				continue
			}
			for i := range l {
				if l[i].Offset != leader[i].Offset || string(l[i].Value) != string(leader[i].Value) {
					errorf("%s: broker %d differs from the leader at offset %d", tp, b, l[i].Offset)
					break
				}
			}
		}
		for _, r := range leader {
			v := string(r.Value)
			if prev, dup := where[v]; dup {
				errorf("%q is in the log twice: %s@%d and %s@%d", v, topic, prev.offset, tp, r.Offset)
			}
			where[v] = acked{partition: p, offset: r.Offset, value: v}
		}
	}
	for i, cl := range clients {
		last := map[int32]int64{} // per partition
		for _, a := range cl.acked {
			got, ok := where[a.value]
			switch {
			case !ok:
				errorf("client %d: acknowledged %q at %s-%d@%d is gone", i, a.value, topic, a.partition, a.offset)
			case got.partition != a.partition || got.offset != a.offset:
				errorf("client %d: acknowledged %q at %s-%d@%d is at %s-%d@%d", i, a.value, topic, a.partition, a.offset, topic, got.partition, got.offset)
			case got.offset <= last[got.partition] && last[got.partition] != 0 || got.offset < 0:
				errorf("client %d: %q is out of order", i, a.value)
			}
			last[got.partition] = got.offset
			delete(where, a.value)
		}
	}
	for v, at := range where {
		if !allowed[v] {
			errorf("%q at %s-%d@%d was never acknowledged and was not the last record a client sent", v, topic, at.partition, at.offset)
		}
	}
}

// TestServeSurvivesSIGKILL: `minikafka serve --data D` under acks=all load
// from several clients is killed with SIGKILL at a random moment, -kills
// times (6 by default, 24 in CI); each reopen holds every acknowledged
// record exactly once, in order per partition, and nothing else but
// records whose acknowledgement never came.
func TestServeSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the program and kills it -kills times")
	}
	t.Parallel()
	bin := buildMinikafka(t)
	reps := *killRuns
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for rep := 0; rep < reps; rep++ {
		rng := rand.New(rand.NewPCG(seed, uint64(rep)))
		killAfter := time.Duration(20+rng.IntN(400)) * time.Millisecond
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			t.Run(fmt.Sprintf("kill-after-%v", killAfter), func(t *testing.T) {
				killServeOnce(t, bin, killAfter)
			})
		}()
	}
	wg.Wait()
}

func killServeOnce(t *testing.T, bin minikafka, killAfter time.Duration) {
	dir := t.TempDir()
	const partitions, clientsN = 4, 6
	brokers := []int32{1, 2, 3}
	cmd := bin.command("serve", "--data", dir, "--listen", "127.0.0.1:0", "--brokers", "1,2,3", "--replicate-every", "1ms", "--request-timeout", "30s")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stdout)
	addr := ""
	for sc.Scan() {
		if a, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
			addr = a
			break
		}
	}
	if addr == "" {
		t.Fatal("serve printed no address")
	}
	go io.Copy(io.Discard, stdout)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	admin, err := jsontcp.Dial(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := admin.Do(ctx, fmt.Sprintf(`{"operation":"create_topic","topic":"orders","partitions":%d,"replication_factor":3}`, partitions)); err != nil || !strings.Contains(resp, `"ok":true`) {
		t.Fatalf("create_topic: %s %v", resp, err)
	}
	admin.Close()

	clients := make([]sentBy, clientsN)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := jsontcp.Dial(ctx, addr)
			if err != nil {
				return
			}
			defer c.Close()
			for seq := 0; ; seq++ {
				value := fmt.Sprintf("c%d-%d", i, seq)
				p := int32((i + seq) % partitions)
				clients[i].inFlight = value
				resp, err := c.Do(ctx, fmt.Sprintf(`{"operation":"produce","topic":"orders","partition":%d,"value_b64":%q,"acks":"all"}`,
					p, base64.StdEncoding.EncodeToString([]byte(value))))
				if err != nil {
					return // the process died: this one's outcome is unknown
				}
				var r struct {
					OK        bool  `json:"ok"`
					Partition int32 `json:"partition"`
					Offset    int64 `json:"offset"`
				}
				if json.Unmarshal([]byte(resp), &r) != nil || !r.OK || r.Partition != p {
					return // refused or timed out: stop, its outcome is unknown
				}
				clients[i].acked = append(clients[i].acked, acked{partition: p, offset: r.Offset, value: value})
				clients[i].inFlight = ""
			}
		}()
	}
	time.Sleep(killAfter)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	wg.Wait()
	n := 0
	for _, c := range clients {
		n += len(c.acked)
	}
	t.Logf("%d records acknowledged before the kill", n)
	verifyAfterKill(t, dir, brokers, "orders", partitions, clients)
}

// replAck is an acknowledgement line of the REPL: orders-P@OFFSET (acks=1).
var replAck = regexp.MustCompile(`^orders-(\d+)@(\d+) \(acks=1\)$`)

// TestReplStopsGracefullyOnEverySignal: `minikafka repl --data D` reading
// a script from a pipe is stopped by SIGINT, SIGTERM, SIGHUP or SIGPIPE
// (its reader goes away) at different moments, -signal-runs times (8 by
// default, 20 in CI); it closes the cluster gracefully every time: the
// reopen finds a clean-shutdown marker
// on every replica, every acknowledged record, and nothing else but the
// records after the last acknowledgement read.
func TestReplStopsGracefullyOnEverySignal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the program and stops it -signal-runs times")
	}
	t.Parallel()
	bin := buildMinikafka(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	sigs := []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE}
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for rep := 0; rep < *signalRuns; rep++ {
		sig := sigs[rep%len(sigs)]
		rng := rand.New(rand.NewPCG(seed, uint64(rep)))
		after := 1 + rng.IntN(300) // acknowledgements read before the signal
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			t.Run(fmt.Sprintf("%v-after-%d", sig, after), func(t *testing.T) {
				stopReplOnce(t, bin, sig, after)
			})
		}()
	}
	wg.Wait()
}

func stopReplOnce(t *testing.T, bin minikafka, sig syscall.Signal, after int) {
	dir := t.TempDir()
	cmd := bin.command("repl", "--data", dir, "--brokers", "1,2")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = stdoutW
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdoutW.Close()
	defer cmd.Process.Kill()
	const partitions = 2
	go func() {
		w := bufio.NewWriter(stdin)
		fmt.Fprintln(w, "topic create orders partitions=2 rf=2")
		for i := 0; ; i++ {
			fmt.Fprintf(w, "produce orders value=v%d partition=%d acks=1\n", i, i%partitions)
			if i%10 == 9 {
				fmt.Fprintln(w, "replicate")
				if w.Flush() != nil {
					return
				}
			}
		}
	}()
	var got []acked
	r := bufio.NewReader(stdoutR)
	for len(got) < after {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("output ended after %d acknowledgements: %v\n%s", len(got), err, stderr.String())
		}
		if m := replAck.FindStringSubmatch(strings.TrimRight(line, "\n")); m != nil {
			p, _ := strconv.Atoi(m[1])
			off, _ := strconv.ParseInt(m[2], 10, 64)
			got = append(got, acked{partition: int32(p), offset: off, value: fmt.Sprintf("v%d", len(got))})
		}
	}
	if sig == syscall.SIGPIPE {
		stdoutR.Close() // the reader goes away, as `| head` does
	} else {
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		go io.Copy(io.Discard, r)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatalf("repl did not stop after %v", sig)
	}
	stdoutR.Close()
	if !strings.Contains(stderr.String(), "the cluster was closed gracefully") {
		t.Errorf("stderr: %s", stderr.String())
	}
	// The records the script sent are v0, v1, ... in order, alternating
	// partitions; the first `after` were acknowledged. Reopen: clean.
	cfg := engine.DefaultConfig(dir)
	cfg.BrokerIDs = []int32{1, 2}
	c, report, err := engine.Open(cfg, clock.NewManual(0))
	if err != nil {
		t.Fatal(err)
	}
	for _, rr := range report.Replicas {
		if !rr.Report.CleanShutdown {
			t.Errorf("%s on broker %d reopened without a clean-shutdown marker", rr.TP, rr.Broker)
		}
	}
	c.Close()
	// Every record after the acknowledged ones was sent by the script, so
	// each may be there (its acknowledgement was not read): the unread
	// suffix.
	clients := []sentBy{{acked: got}}
	var extra []sentBy
	for i := len(got); i < len(got)+100000; i++ {
		extra = append(extra, sentBy{inFlight: fmt.Sprintf("v%d", i)})
	}
	verifyAfterKill(t, dir, []int32{1, 2}, "orders", partitions, append(clients, extra...))
}

// TestSecondProcessIsRefused: while `minikafka serve --data D` runs, a
// second process on D (repl --data D, another serve --data D) is refused
// with a message naming the first one's pid and changes nothing; the first
// one's acknowledged records are all there after it stops.
func TestSecondProcessIsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the program")
	}
	t.Parallel()
	bin := buildMinikafka(t)
	dir := t.TempDir()
	first := bin.command("serve", "--data", dir, "--listen", "127.0.0.1:0", "--brokers", "1,2")
	stdout, err := first.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer first.Process.Kill()
	sc := bufio.NewScanner(stdout)
	addr := ""
	for sc.Scan() {
		if a, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
			addr = a
			break
		}
	}
	go io.Copy(io.Discard, stdout)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := jsontcp.Dial(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if resp, err := c.Do(ctx, `{"operation":"create_topic","topic":"orders","partitions":1,"replication_factor":2}`); err != nil || !strings.Contains(resp, `"ok":true`) {
		t.Fatalf("create_topic: %s %v", resp, err)
	}
	var acks []acked
	for i := 0; i < 20; i++ {
		v := fmt.Sprintf("first-%d", i)
		resp, err := c.Do(ctx, fmt.Sprintf(`{"operation":"produce","topic":"orders","partition":0,"value_b64":%q,"acks":"all"}`, base64.StdEncoding.EncodeToString([]byte(v))))
		var r struct {
			OK     bool  `json:"ok"`
			Offset int64 `json:"offset"`
		}
		if err != nil || json.Unmarshal([]byte(resp), &r) != nil || !r.OK {
			t.Fatalf("produce: %s %v", resp, err)
		}
		acks = append(acks, acked{partition: 0, offset: r.Offset, value: v})
	}
	holder := fmt.Sprintf("process %d", first.Process.Pid)
	for _, args := range [][]string{
		{"repl", "--data", dir, "--brokers", "1,2"},
		{"repl", "--data", dir + "/.", "--brokers", "1,2"},
		{"serve", "--data", dir, "--listen", "127.0.0.1:0", "--brokers", "1,2"},
	} {
		second := bin.command(args...)
		second.Stdin = strings.NewReader("produce orders value=second acks=1\n")
		out, err := second.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "in use by "+holder) {
			t.Errorf("%v while the first process runs: %v\n%s", args, err, out)
		}
	}
	if err := first.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := first.Wait(); err != nil {
		t.Fatalf("the first process did not stop cleanly: %v", err)
	}
	verifyAfterKill(t, dir, []int32{1, 2}, "orders", 1, []sentBy{{acked: acks}})
}
