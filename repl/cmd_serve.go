package repl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/minikafka-lab/minikafka/adapters/jsontcp"
	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/internal/lazyre"
)

var serveCommand = &Command{
	Name:    "serve",
	Summary: "serve this session's cluster over the JSON/TCP adapter (chapter 10)",
	Detail: `serve start runs the newline-JSON/TCP adapter (adapters/jsontcp) on this
session's own cluster, so that the REPL's commands and TCP requests
(remote, or nc from another terminal) act on the same brokers, topics and
groups. The cluster is single-threaded: while serving, each REPL command
and each request runs in turn on the server's goroutine. The server
follows cluster open and cluster restart; exit stops it.

The REPL's clock is manual, so nothing replicates behind your back: an
acks=all produce request whose ISR has more than the leader answers at
once REQUEST_TIMED_OUT ("not acknowledged yet"); the record stays in the
leader's log, and replicate commits it (its ack resolves there). Only
127.0.0.1, localhost and [::1] are served.

serve start reaches outside the session: clients change the cluster in
ways the history does not hold, so it cannot be undone, and undo, fork
and record cannot go back past it.`,
	Chapter: 10,
	Group:   "JSON/TCP adapter",
	Default: "status",
	Sub: []*Command{
		{
			Name:    "start",
			Args:    "[listen=127.0.0.1:0] [max.frame.bytes=N]",
			Summary: "start serving JSON/TCP on this session's cluster and print the bound address",
			Detail: `listen defaults to 127.0.0.1:0 (port 0: any free port; the address is
printed). max.frame.bytes is the longest request line accepted, newline
included (default 1048576): a longer line is answered FRAME_TOO_LARGE
and the connection is closed.`,
			Keys:    []Param{{Name: "listen", Values: choices("127.0.0.1:0", "127.0.0.1:9093")}, {Name: "max.frame.bytes"}},
			Outside: true,
			Run:     runServeStart,
		},
		{
			Name:    "stop",
			Summary: "stop serving: close the listener and every connection",
			Outside: true,
			Run:     runServeStop,
		},
		{
			Name:    "status",
			Summary: "whether this session serves JSON/TCP, and where (serve alone does the same)",
			Outside: true,
			Run:     runServeStatus,
		},
	},
}

var remoteCommand = &Command{
	Name:    "remote",
	Args:    "[ADDR] JSON",
	Summary: "send one request line over TCP, verbatim, and print the response line",
	Detail: `Connects to ADDR (default: this session's server, serve start), sends the
rest of the line exactly as typed plus a newline, prints the one response
line and closes the connection. Nothing is parsed or re-encoded, so the
frame is the bytes you typed: {"operation":"metadata","topic":"events"}
is 41 bytes, 42 with the newline. remote alone sends an empty line. The
text is never split into words: quotes, # and = are part of it.

ADDR is HOST:PORT with HOST 127.0.0.1, localhost or [::1]; a first word
of any other shape is part of the request. A response with "ok":false
fails the command: the line is printed, then error: CODE: message.
remote reaches outside the session: it cannot be undone, and undo and
fork cannot go back past it.

When the server closes the connection itself (after FRAME_TOO_LARGE, or
without answering), remote prints (connection closed by server). To
know it without waiting, remote sends one empty line after the answer: a
server that kept the connection answers it (not shown), one that hung up
does not.

Example: remote {"operation":"produce","topic":"events","value_b64":"aGk="}`,
	Chapter:    10,
	Group:      "JSON/TCP adapter",
	Positional: []Param{{Name: "JSON", Optional: true, Rest: true}},
	Raw:        true,
	Outside:    true,
	Run:        runRemote,
}

var dispatchCommand = &Command{
	Name:    "dispatch",
	Args:    "JSON",
	Summary: "serve one request line in process (no socket) and print the response line",
	Detail: `jsontcp.Dispatch on this session's cluster: the same decoding,
translation and error mapping as the TCP server, without framing (so no
FRAME_TOO_LARGE). The rest of the line is the request, as typed. A
response with "ok":false fails the command.

Example: dispatch {"operation":"metadata","topic":"events"}`,
	Chapter:    10,
	Group:      "JSON/TCP adapter",
	Positional: []Param{{Name: "JSON", Optional: true, Rest: true}},
	Raw:        true,
	Run:        runDispatch,
}

// served is the session's running JSON/TCP server.
type served struct {
	srv      *jsontcp.Server
	addr     string
	maxFrame int
}

// stopServing stops the server, if any; the cluster is the session's again.
func (s *Session) stopServing() {
	if s.server != nil {
		_ = s.server.srv.Close()
		s.server = nil
	}
}

// serveStatus is the result of serve start and serve status.
type serveStatus struct {
	Serving       bool    `json:"serving"`
	Address       *string `json:"address"`
	MaxFrameBytes *int    `json:"max_frame_bytes"`
	verb          string
}

func (r serveStatus) writeText(w io.Writer, _ *style) error {
	var err error
	switch {
	case r.verb == "stop":
		_, err = fmt.Fprintln(w, "stopped serving JSON/TCP")
	case r.Serving:
		_, err = fmt.Fprintf(w, "serving JSON/TCP on %s (max.frame.bytes=%d)\n", *r.Address, *r.MaxFrameBytes)
	default:
		_, err = fmt.Fprintln(w, "not serving JSON/TCP (serve start starts it)")
	}
	return err
}

func (s *Session) serveStatus() serveStatus {
	if s.server == nil {
		return serveStatus{}
	}
	addr, frame := s.server.addr, s.server.maxFrame
	return serveStatus{Serving: true, Address: &addr, MaxFrameBytes: &frame}
}

// loopbackHosts are the only hosts serve and remote use.
var loopbackHosts = []string{"127.0.0.1", "localhost", "::1"}

// loopbackAddr checks that addr is HOST:PORT on the loopback interface.
func loopbackAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not HOST:PORT such as 127.0.0.1:9093", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%q: the port must be 0 to 65535", addr)
	}
	for _, h := range loopbackHosts {
		if host == h {
			return nil
		}
	}
	return fmt.Errorf("%q: MiniKafka Lab only uses 127.0.0.1, localhost or [::1]", addr)
}

func runServeStart(s *Session, w io.Writer, a *Args) error {
	listen := a.String("listen", "127.0.0.1:0")
	frame := a.Int("max.frame.bytes", jsontcp.DefaultMaxFrameBytes, 1, math.MaxInt32)
	if err := a.Err(); err != nil {
		return err
	}
	if err := loopbackAddr(listen); err != nil {
		return a.usage("listen: %v", err)
	}
	if s.sandbox != nil {
		if err := s.sandbox.listen(listen); err != nil {
			return err
		}
	}
	if s.server != nil {
		return kerr.State("already serving on %s (serve stop first)", s.server.addr)
	}
	if s.kafka != nil {
		return kerr.State("this session serves the Kafka protocol (kafka stop first): one adapter owns the cluster at a time")
	}
	srv, err := jsontcp.Listen(listen, sessionBackend{s}, jsontcp.Options{
		MaxFrameBytes:  int(frame),
		ReplicateEvery: -1, // the manual clock: nothing replicates unless asked
	})
	if err != nil {
		return kerr.State("cannot listen on %s: %v", listen, err)
	}
	s.server = &served{srv: srv, addr: srv.Addr().String(), maxFrame: int(frame)}
	return s.emit(w, s.serveStatus())
}

func runServeStop(s *Session, w io.Writer, a *Args) error {
	if s.server == nil {
		return kerr.State("not serving JSON/TCP (serve start starts it)")
	}
	s.stopServing()
	return s.emit(w, serveStatus{verb: "stop"})
}

func runServeStatus(s *Session, w io.Writer, a *Args) error {
	return s.emit(w, s.serveStatus())
}

// addrWord is a first word of remote that names the server: HOST:PORT.
var addrWord = lazyre.New(`^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):[0-9]+$`)

// splitRemote separates remote's optional ADDR from the request text.
func splitRemote(raw string) (addr, request string) {
	first, rest := raw, ""
	if i := strings.IndexAny(raw, " \t"); i >= 0 {
		first, rest = raw[:i], strings.TrimLeft(raw[i:], " \t")
	}
	if addrWord().MatchString(first) {
		return first, rest
	}
	return "", raw
}

// response is the result of remote and dispatch: the server's answer.
type response struct {
	Response json.RawMessage `json:"response"`
	// Closed: the server closed the connection after answering.
	Closed bool `json:"connection_closed,omitempty"`
	line   string
}

// connectionClosed is the line remote prints when the server hung up.
const connectionClosed = "(connection closed by server)"

func (r response) writeText(w io.Writer, _ *style) error {
	fmt.Fprintln(w, r.line)
	if r.Closed {
		fmt.Fprintln(w, connectionClosed)
	}
	return nil
}

// answer prints a response line (and whether the server closed the
// connection after it) and fails the command when it says "ok":false.
func (s *Session) answer(w io.Writer, line string, closed bool) error {
	res := response{line: line, Response: json.RawMessage(line), Closed: closed}
	if !json.Valid([]byte(line)) {
		b, _ := json.Marshal(line)
		res.Response = b
	}
	if err := jsontcp.CheckResponse(line); err != nil {
		if s.format == FormatText {
			_ = res.writeText(w, s.st)
		}
		return err
	}
	return s.emit(w, res)
}

// remoteTimeout bounds one remote exchange.
const remoteTimeout = 10 * time.Second

func runRemote(s *Session, w io.Writer, a *Args) error {
	addr, request := splitRemote(a.Raw())
	if addr == "" {
		if s.server == nil {
			return kerr.State("this session is not serving JSON/TCP: serve start, or name a server: remote 127.0.0.1:9093 {...}")
		}
		addr = s.server.addr
	} else if err := loopbackAddr(addr); err != nil {
		return a.usage("%v", err)
	} else if s.sandbox != nil {
		own := ""
		if s.server != nil {
			own = s.server.addr
		}
		if err := s.sandbox.remote(addr, own); err != nil {
			return err
		}
	}
	ctx, cancel := s.interruptible(remoteTimeout) // Ctrl-C stops the wait
	defer cancel()
	c, err := jsontcp.Dial(ctx, addr)
	if err != nil {
		return kerr.State("cannot connect to %s: %v", addr, unwrapNet(err))
	}
	defer c.Close()
	line, err := c.Do(ctx, request)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		if s.format == FormatText {
			fmt.Fprintln(w, connectionClosed)
		}
		return kerr.State("the server closed the connection without an answer")
	case err != nil && s.interrupted():
		return kerr.State("interrupted while waiting for an answer from %s", addr)
	case err != nil:
		return kerr.State("no answer from %s: %v", addr, unwrapNet(err))
	}
	return s.answer(w, line, hungUp(ctx, c))
}

// hungUp reports whether the server closed the connection after its
// answer (as it does after FRAME_TOO_LARGE). Waiting for a close that may
// never come would not be deterministic, so it asks instead: it sends an
// empty line, which a server still listening answers at once with
// INVALID_REQUEST (not shown), and a server that hung up answers with
// end of stream.
func hungUp(ctx context.Context, c *jsontcp.Client) bool {
	_, err := c.Do(ctx, "")
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// unwrapNet keeps the last part of a network error ("connection refused").
func unwrapNet(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err
	}
	return err
}

func runDispatch(s *Session, w io.Writer, a *Args) error {
	out := jsontcp.Dispatch(sessionBackend{s}, []byte(a.Raw()))
	return s.answer(w, strings.TrimSuffix(string(out), "\n"), false)
}

// sessionBackend is the adapter's backend over the session's current
// cluster (so it follows cluster open and restart). The events each
// request causes go to the session's backlog, and the next command prints
// them. Produce never waits: see Produce.
type sessionBackend struct{ s *Session }

func (b sessionBackend) cluster() *jsontcp.ClusterBackend {
	return &jsontcp.ClusterBackend{Cluster: b.s.cluster, KeepEvents: true}
}

func (b sessionBackend) collect() { b.s.peekEvents() }

// CreateTopic creates a topic.
func (b sessionBackend) CreateTopic(name string, partitions, rf int) error {
	defer b.collect()
	return b.cluster().CreateTopic(name, partitions, rf)
}

// Metadata describes a topic.
func (b sessionBackend) Metadata(name string) (jsontcp.TopicMetadata, error) {
	defer b.collect()
	return b.cluster().Metadata(name)
}

// Produce appends one record. An acks=all acknowledgement still waiting for
// followers is answered at once REQUEST_TIMED_OUT: on the manual clock
// nothing replicates while a request waits, so waiting would only hang.
// The record stays in the leader log and its ack stays pending.
func (b sessionBackend) Produce(p jsontcp.ProduceRequest) (jsontcp.ProduceResult, jsontcp.PendingAck, error) {
	defer b.collect()
	res, pending, err := b.cluster().Produce(p)
	if err != nil || pending == nil {
		return res, nil, err
	}
	tp := engine.TopicPartition{Topic: p.Topic, Partition: res.Partition}
	at := "the record"
	if st, serr := b.s.cluster.PartitionState(tp); serr == nil {
		at = fmt.Sprintf("offset %d", st.LEO-1)
	}
	return jsontcp.ProduceResult{}, nil, kerr.New(kerr.RequestTimedOut,
		"acks=all not acknowledged yet: %s of %s is in the leader log, waiting for the ISR; nothing replicates until you run replicate", at, tp)
}

// Fetch reads committed records.
func (b sessionBackend) Fetch(f jsontcp.FetchRequest) ([]jsontcp.Record, error) {
	defer b.collect()
	return b.cluster().Fetch(f)
}

// JoinGroup joins a member chosen by the client.
func (b sessionBackend) JoinGroup(groupID, memberID string, topics []string) (jsontcp.JoinResult, error) {
	defer b.collect()
	return b.cluster().JoinGroup(groupID, memberID, topics)
}

// Heartbeat renews a member's session.
func (b sessionBackend) Heartbeat(groupID, memberID string, generation int32) error {
	defer b.collect()
	return b.cluster().Heartbeat(groupID, memberID, generation)
}

// CommitOffsets commits a member's offsets, fenced.
func (b sessionBackend) CommitOffsets(groupID, memberID string, generation int32, offsets []jsontcp.OffsetCommit) error {
	defer b.collect()
	return b.cluster().CommitOffsets(groupID, memberID, generation, offsets)
}

// Pump does nothing: the server runs with the pump off (the manual clock).
func (b sessionBackend) Pump() error { return nil }
