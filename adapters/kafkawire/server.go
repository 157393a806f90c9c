package kafkawire

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/minikafka-lab/minikafka/adapters/host"
	"github.com/minikafka-lab/minikafka/engine"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ErrClosed is returned by Server.Direct once the server is closed.
var ErrClosed = host.ErrClosed

// Listener is one simulated broker's address: the broker id and the
// host:port to bind (port 0 lets the system choose).
type Listener struct {
	Broker int32
	Addr   string
}

// Options configures a Server.
type Options struct {
	// Listeners are the brokers to serve, one address each. Every broker
	// of the cluster that should be reachable needs one; Metadata
	// advertises these (bound) addresses.
	Listeners []Listener
	// Cluster returns the cluster to serve. It is called on the owning
	// goroutine for every request, so a REPL may replace its cluster
	// (cluster open) while the listener runs.
	Cluster func() *engine.Cluster
	// PumpEvery and Pump are the periodic work under a real clock (a
	// follower fetch round and what is due); zero or nil means none, as
	// under the REPL's manual clock.
	PumpEvery time.Duration
	Pump      func(*engine.Cluster) error
	// AfterRequest runs on the owning goroutine after each request and
	// each pump, with the cluster: a server drains the cluster's events
	// there, a REPL collects them. Nil drains them.
	AfterRequest func(*engine.Cluster)
	// Trace receives one Event per request outcome, on the owning
	// goroutine, in the order they happen. Nil discards them.
	Trace func(Event)
	// MaxRequestBytes bounds a request frame; 0 means
	// DefaultMaxRequestBytes.
	MaxRequestBytes int
	// ClusterID is Metadata's cluster id; "" means "minikafka".
	ClusterID string
	// Logf receives operator messages (accept and pump failures).
	Logf func(format string, args ...any)
	// InProgress, when set, counts the requests read and not answered yet
	// (parked ones included): with Parked, a REPL can tell that every
	// request in flight is waiting for something only the learner can do.
	InProgress *atomic.Int64
	// Unanswered, when set, counts the requests served that get no
	// answer (acks=0 produces, served or hung up on), once served: a
	// client's count of such requests written can be matched against it,
	// since nothing comes back to tell it they were read.
	Unanswered *atomic.Int64
}

// Server serves the Kafka protocol for one cluster on one listener per
// broker. One goroutine (a host.Host) owns the cluster and the adapter's
// group rounds; connection goroutines only frame, decode and encode.
type Server struct {
	opts  Options
	host  *host.Host[*state]
	st    *state
	lns   []*brokerListener
	quit  chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns map[net.Conn]struct{}
	once  sync.Once
}

// brokerListener is one broker's socket and the address Metadata
// advertises for it.
type brokerListener struct {
	broker int32
	ln     net.Listener
	host   string
	port   int32
}

// Listen binds every listener and starts serving. The caller must not use
// the cluster until Close returns, except through Direct.
func Listen(opts Options) (*Server, error) {
	if opts.Cluster == nil {
		return nil, errors.New("kafkawire: Options.Cluster is required")
	}
	if len(opts.Listeners) == 0 {
		return nil, errors.New("kafkawire: no listeners")
	}
	if opts.MaxRequestBytes <= 0 {
		opts.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if opts.ClusterID == "" {
		opts.ClusterID = "minikafka"
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.AfterRequest == nil {
		opts.AfterRequest = func(c *engine.Cluster) {
			if c != nil {
				c.TakeEvents()
			}
		}
	}
	s := &Server{opts: opts, quit: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	seen := map[int32]bool{}
	for _, l := range opts.Listeners {
		if seen[l.Broker] {
			s.closeListeners()
			return nil, fmt.Errorf("kafkawire: broker %d has two listeners", l.Broker)
		}
		seen[l.Broker] = true
		ln, err := net.Listen("tcp", l.Addr)
		if err != nil {
			s.closeListeners()
			return nil, err
		}
		bl := &brokerListener{broker: l.Broker, ln: ln}
		h, p, _ := net.SplitHostPort(ln.Addr().String())
		port, _ := strconv.Atoi(p)
		bl.host, bl.port = h, int32(port)
		s.lns = append(s.lns, bl)
	}
	s.st = newState(s)
	s.host = host.Start(s.st, host.Options[*state]{
		PumpEvery: opts.PumpEvery,
		Pump: func(st *state) error {
			c := opts.Cluster()
			if c == nil || opts.Pump == nil {
				return nil
			}
			defer opts.AfterRequest(c)
			return opts.Pump(c)
		},
		Logf: opts.Logf,
	})
	// The cluster served is attached from the start (state.serve).
	_ = s.host.Do(func(st *state) error {
		if c := opts.Cluster(); c != nil {
			st.serve(c)
		}
		return nil
	})
	for _, bl := range s.lns {
		s.wg.Add(1)
		go s.accept(bl)
	}
	return s, nil
}

func (s *Server) closeListeners() {
	for _, bl := range s.lns {
		_ = bl.ln.Close()
	}
}

// Addrs returns the bound address of each broker, by broker id.
func (s *Server) Addrs() map[int32]string {
	out := map[int32]string{}
	for _, bl := range s.lns {
		out[bl.broker] = bl.ln.Addr().String()
	}
	return out
}

// Bootstrap is the bound address of the first listener, a bootstrap
// address for clients.
func (s *Server) Bootstrap() string { return s.lns[0].ln.Addr().String() }

// Direct runs fn on the goroutine that owns the cluster, between requests:
// the way a REPL command or a test uses the cluster while the server runs.
// Parked requests (acks=all, long-poll fetches, group rounds) are checked
// after it. It returns ErrClosed once the server is closed.
func (s *Server) Direct(fn func() error) error {
	return s.host.Do(func(st *state) error {
		err := fn()
		st.afterJob()
		return err
	})
}

// Parked is the number of requests parked now (acks=all produces,
// long-poll fetches, group rounds); -1 once the server is closed.
func (s *Server) Parked() int {
	n := -1
	_ = s.host.Do(func(*state) error { n = s.host.Parked(); return nil })
	return n
}

// Close stops accepting, closes every connection (parked requests get no
// answer) and returns once every goroutine the server started has ended.
func (s *Server) Close() error {
	s.once.Do(func() {
		close(s.quit)
		s.closeListeners()
		s.mu.Lock()
		conns := make([]net.Conn, 0, len(s.conns))
		for c := range s.conns {
			conns = append(conns, c)
		}
		s.mu.Unlock()
		s.host.Close()
		for _, c := range conns {
			_ = c.Close()
		}
		s.wg.Wait()
		s.st.unserve() // the owning goroutine has ended
	})
	return nil
}

func (s *Server) accept(bl *brokerListener) {
	defer s.wg.Done()
	backoff := 5 * time.Millisecond
	for {
		c, err := bl.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			s.opts.Logf("broker %d: accept: %v", bl.broker, err)
			select {
			case <-time.After(backoff):
			case <-s.quit:
				return
			}
			backoff = min(2*backoff, time.Second)
			continue
		}
		backoff = 5 * time.Millisecond
		s.mu.Lock()
		select {
		case <-s.quit:
			s.mu.Unlock()
			_ = c.Close()
			return
		default:
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serveConn(bl, c)
	}
}

// conn is what a handler knows about the connection a request came on.
type conn struct {
	broker   int32
	clientID string
}

// reply is a handler's answer: a response to write, none (acks=0), or a
// hang-up (the broker is down, or the request cannot be served).
type reply struct {
	resp   kmsg.Response
	none   bool
	hangUp bool
}

// serveConn serves one connection in order: read a request, answer it,
// repeat, until EOF, an error, a hang-up or Close.
func (s *Server) serveConn(bl *brokerListener, c net.Conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		_ = c.Close()
	}()
	r := bufio.NewReaderSize(c, 64<<10)
	w := bufio.NewWriterSize(c, 64<<10)
	var buf, out []byte
	for {
		frame, err := readFrame(r, s.opts.MaxRequestBytes, buf)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				s.opts.Logf("broker %d: %v: closing the connection", bl.broker, err)
			}
			return
		}
		if cap(frame) <= 1<<20 {
			buf = frame[:0] // reuse moderate buffers only
		} else {
			buf = nil
		}
		rep, h := s.handleFrame(bl.broker, frame)
		if rep.hangUp {
			return
		}
		if rep.none {
			continue
		}
		out = appendResponse(out[:0], h.correlationID, rep.resp)
		if _, err := w.Write(out); err != nil {
			return
		}
		if r.Buffered() == 0 {
			if err := w.Flush(); err != nil {
				return
			}
		}
		if cap(out) > 4<<20 {
			out = nil
		}
	}
}

// handleFrame parses one request and runs it on the owning goroutine.
func (s *Server) handleFrame(broker int32, frame []byte) (reply, header) {
	h, body, err := parseHeader(frame)
	if err != nil && !errors.Is(err, errUnknownAPI) {
		s.opts.Logf("broker %d: %v: closing the connection", broker, err)
		return reply{hangUp: true}, h
	}
	if err != nil || !supported(h.key, h.version) {
		if h.key == int16(kmsg.ApiVersions) {
			// Kafka answers a version it does not know with a v0
			// response carrying UNSUPPORTED_VERSION and its key list,
			// so that the client can retry with a version it finds
			// there (KIP-511).
			return reply{resp: apiVersionsFallback()}, h
		}
		s.traceUnsupported(broker, h)
		return reply{hangUp: true}, h
	}
	req := kmsg.RequestForKey(h.key)
	req.SetVersion(h.version)
	if err := req.ReadFrom(body); err != nil {
		s.opts.Logf("broker %d: %s v%d from %q: %v: closing the connection", broker, kmsg.NameForKey(h.key), h.version, h.clientID, err)
		return reply{hangUp: true}, h
	}
	if n := s.opts.InProgress; n != nil {
		n.Add(1)
		defer n.Add(-1)
	}
	ch := make(chan reply, 1)
	cn := conn{broker: broker, clientID: h.clientID}
	if err := s.host.Do(func(st *state) error {
		st.handle(cn, req, func(r reply) { ch <- r })
		st.afterJob()
		return nil
	}); err != nil {
		return reply{hangUp: true}, h
	}
	var rep reply
	select {
	case rep = <-ch:
	case <-s.quit:
		rep = reply{hangUp: true}
	}
	if n := s.opts.Unanswered; n != nil && unanswered(req) {
		n.Add(1)
	}
	return rep, h
}

// unanswered reports whether req never gets a response: an acks=0
// produce.
func unanswered(req kmsg.Request) bool {
	p, ok := req.(*kmsg.ProduceRequest)
	return ok && p.Acks == 0
}

// traceUnsupported reports a request the listener does not serve; the
// connection is closed, as a Kafka broker closes it.
func (s *Server) traceUnsupported(broker int32, h header) {
	_ = s.host.Do(func(st *state) error {
		st.trace(Event{Client: h.clientID, Broker: broker, API: apiName(h.key), Version: h.version,
			Result: "not served here: connection closed", Error: "UNSUPPORTED_VERSION", Level: LevelData})
		return nil
	})
}

// apiName is the API's name, or "API n" for an unknown key.
func apiName(key int16) string {
	if n := kmsg.NameForKey(key); n != "" {
		return n
	}
	return fmt.Sprintf("API %d", key)
}
