package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/minikafka-lab/minikafka/adapters/jsontcp"
	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/repl"
)

var serveCommand = &Subcommand{
	Name:     "serve",
	Synopsis: "serve [--listen 127.0.0.1:9093] [--data DIR] [--brokers 1,2,3] [--set key=value]... [--replicate-every 10ms] [--request-timeout 5s] [--max-frame-bytes N] [--allow-remote] [--topic NAME[:P[:RF]]]... [--kafka 127.0.0.1:9092 [--kafka-ports P,P,P]]",
	Summary:  "serve a cluster over the newline-JSON/TCP adapter (chapter 10), or the Kafka protocol with --kafka (chapter 11), until interrupted",
	Run:      runServe,
}

// serveSignalContext returns the context whose end stops the server
// gracefully: SIGINT, SIGTERM, SIGHUP or SIGPIPE (shutdownSignals). Tests
// replace it to stop the server without a signal.
var serveSignalContext = func() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), shutdownSignals...)
}

// serveFlags are the parsed options of `minikafka serve`.
type serveFlags struct {
	listen         string
	data           string
	brokers        []int32
	settings       [][2]string
	replicateEvery time.Duration
	requestTimeout time.Duration
	maxFrameBytes  int
	// kafka and kafkaPorts select the Kafka wire listener (serve_kafka.go)
	// instead of JSON/TCP; allowRemote lets either listen on an address
	// that is not loopback.
	kafka       string
	kafkaPorts  string
	allowRemote bool
	// topics are created at start when missing (--topic NAME[:P[:RF]]).
	topics [][3]string
}

func parseServeFlags(args []string, stderr io.Writer) (*serveFlags, error) {
	f := &serveFlags{}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.listen, "listen", "127.0.0.1:9093", "listen on `host:port` (port 0: any free port)")
	fs.StringVar(&f.data, "data", "", "keep the cluster in `DIR` (reopened with recovery if it exists); default: a temporary directory removed on exit")
	brokers := fs.String("brokers", "1,2,3", "broker ids, comma-separated")
	fs.Func("set", "cluster config `key=value` by Kafka name (repeatable)", func(v string) error {
		k, val, ok := strings.Cut(v, "=")
		if !ok || k == "" {
			return fmt.Errorf("expected key=value, got %q", v)
		}
		f.settings = append(f.settings, [2]string{k, val})
		return nil
	})
	fs.DurationVar(&f.replicateEvery, "replicate-every", jsontcp.DefaultReplicateEvery, "run a follower fetch on every partition this often, so acks=all completes (0: never)")
	fs.DurationVar(&f.requestTimeout, "request-timeout", jsontcp.DefaultRequestTimeout, "answer REQUEST_TIMED_OUT when acks=all is not acknowledged within this `duration`")
	fs.IntVar(&f.maxFrameBytes, "max-frame-bytes", jsontcp.DefaultMaxFrameBytes, "longest request line in bytes, newline included")
	fs.StringVar(&f.kafka, "kafka", "", "serve the Kafka protocol instead of JSON/TCP: the first broker on `host:port`, the next ones on the following ports")
	fs.StringVar(&f.kafkaPorts, "kafka-ports", "", "with --kafka: one port per broker, comma-separated, in broker id order")
	fs.BoolVar(&f.allowRemote, "allow-remote", false, "allow a listen address (--listen or --kafka) that is not loopback (the adapters have no authentication or TLS)")
	fs.Func("topic", "create `NAME[:PARTITIONS[:RF]]` at start unless it exists (repeatable; default 1 partition, rf min(3, brokers))", func(v string) error {
		parts := strings.Split(v, ":")
		if parts[0] == "" || len(parts) > 3 {
			return fmt.Errorf("expected NAME[:PARTITIONS[:RF]], got %q", v)
		}
		for len(parts) < 3 {
			parts = append(parts, "")
		}
		f.topics = append(f.topics, [3]string{parts[0], parts[1], parts[2]})
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	var err error
	if f.brokers, err = repl.ParseBrokerList(*brokers); err != nil {
		return nil, fmt.Errorf("--brokers: %w", err)
	}
	switch {
	case f.replicateEvery < 0:
		return nil, fmt.Errorf("--replicate-every must not be negative, got %v", f.replicateEvery)
	case f.requestTimeout <= 0:
		return nil, fmt.Errorf("--request-timeout must be positive, got %v", f.requestTimeout)
	case f.maxFrameBytes <= 0 || f.maxFrameBytes > math.MaxInt32:
		return nil, fmt.Errorf("--max-frame-bytes must be 1 to %d, got %d", math.MaxInt32, f.maxFrameBytes)
	}
	if err := checkLoopback("--listen", f.listen, f.allowRemote); err != nil {
		return nil, err
	}
	return f, nil
}

// lockedWriter serialises writes from the server's goroutines and this one.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, format, args...)
}

func runServe(env *Env, args []string) int {
	f, err := parseServeFlags(args, env.Stderr)
	if err != nil {
		if err != flag.ErrHelp {
			fmt.Fprintf(env.Stderr, "minikafka serve: %v\n", err)
		}
		return 2
	}
	stdout := &lockedWriter{w: env.Stdout}
	stderr := &lockedWriter{w: env.Stderr}
	fail := func(format string, args ...any) int {
		stderr.printf("minikafka serve: "+format+"\n", args...)
		return 1
	}

	dataDir, temporary := f.data, f.data == ""
	if temporary {
		if dataDir, err = os.MkdirTemp("", "minikafka-serve-"); err != nil {
			return fail("%v", err)
		}
		defer os.RemoveAll(dataDir)
	}
	cfg := engine.DefaultConfig(dataDir)
	cfg.BrokerIDs = f.brokers
	// rules= first: it sets every rule knob, and a single rule named
	// beside it changes that one.
	for _, rulesFirst := range []bool{true, false} {
		for _, kv := range f.settings {
			if (kv[0] == engine.RulesKey) != rulesFirst {
				continue
			}
			if err := cfg.Set(kv[0], kv[1]); err != nil {
				stderr.printf("minikafka serve: --set %s=%s: %v\n", kv[0], kv[1], err)
				return 2
			}
		}
	}
	cluster, report, err := engine.Open(cfg, clock.System{})
	if err != nil {
		return fail("opening the cluster: %v", err)
	}
	for _, note := range recoveryNotes(report) {
		stdout.printf("recovery: %s\n", note)
	}

	if err := createTopics(cluster, f.topics, len(f.brokers)); err != nil {
		_ = cluster.Close()
		stderr.printf("minikafka serve: --topic: %v\n", err)
		return 2
	}
	ctx, stop := serveSignalContext()
	defer stop()
	if f.kafka != "" {
		return serveKafka(ctx, f, cluster, where(dataDir, temporary), stdout, stderr)
	}
	replicateEvery := f.replicateEvery
	if replicateEvery == 0 {
		replicateEvery = -1 // jsontcp: negative turns the pump off
	}
	srv, err := jsontcp.Listen(f.listen, jsontcp.NewClusterBackend(cluster), jsontcp.Options{
		MaxFrameBytes:  f.maxFrameBytes,
		RequestTimeout: f.requestTimeout,
		ReplicateEvery: replicateEvery,
		Logf:           func(format string, args ...any) { stderr.printf("minikafka serve: "+format+"\n", args...) },
	})
	if err != nil {
		_ = cluster.Close()
		return fail("%v", err)
	}
	stdout.printf("listening on %s\n", srv.Addr())
	stdout.printf("data dir %s, brokers %s; one JSON request per line; Ctrl-C stops\n", where(dataDir, temporary), joinIDs(f.brokers))
	if host, _, err := net.SplitHostPort(srv.Addr().String()); err == nil {
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			stderr.printf("minikafka serve: warning: %s is reachable from other machines; the adapter has no authentication or TLS\n", srv.Addr())
		}
	}

	<-ctx.Done()
	stdout.printf("shutting down\n")
	status := 0
	if err := srv.Close(); err != nil {
		stderr.printf("minikafka serve: closing the listener: %v\n", err)
		status = 1
	}
	if err := cluster.Close(); err != nil {
		stderr.printf("minikafka serve: closing the cluster: %v\n", err)
		status = 1
	}
	if status == 0 {
		stdout.printf("cluster closed cleanly\n")
	}
	return status
}

// createTopics creates each --topic that does not exist yet.
func createTopics(c *engine.Cluster, topics [][3]string, brokers int) error {
	for _, t := range topics {
		if _, err := c.Topic(t[0]); err == nil {
			continue
		}
		parts, rf := 1, min(3, brokers)
		var err error
		if t[1] != "" {
			if parts, err = strconv.Atoi(t[1]); err != nil {
				return fmt.Errorf("%s: partitions %q is not a number", t[0], t[1])
			}
		}
		if t[2] != "" {
			if rf, err = strconv.Atoi(t[2]); err != nil {
				return fmt.Errorf("%s: replication factor %q is not a number", t[0], t[2])
			}
		}
		if _, err := c.CreateTopic(t[0], parts, rf); err != nil {
			return fmt.Errorf("%s: %w", t[0], err)
		}
	}
	return nil
}

// where describes the data directory for the banner.
func where(dataDir string, temporary bool) string {
	if temporary {
		return dataDir + " (temporary, removed on exit)"
	}
	return dataDir
}

func joinIDs(ids []int32) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.Itoa(int(id))
	}
	return strings.Join(parts, ",")
}
