package jsontcp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"sync"
	"time"

	"github.com/minikafka-lab/minikafka/adapters/host"
	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// Defaults of Options.
const (
	DefaultRequestTimeout = 5 * time.Second
	DefaultReplicateEvery = 10 * time.Millisecond
)

// After FRAME_TOO_LARGE the server half-closes the connection and discards
// what the client still sends, for at most this long and this many bytes, so
// that closing does not reset the connection before the client has read the
// answer.
const (
	drainAfterFrameError      = 2 * time.Second
	drainBytesAfterFrameError = 4 << 20
)

// ErrServerClosed is returned by Server.Direct once the server is closed.
var ErrServerClosed = host.ErrClosed

// Options configures a Server. The zero value gives the defaults.
type Options struct {
	// MaxFrameBytes is max_frame_bytes, the longest request line accepted,
	// newline included; 0 means DefaultMaxFrameBytes.
	MaxFrameBytes int
	// RequestTimeout bounds how long an acks=all produce waits for its
	// acknowledgement before REQUEST_TIMED_OUT; 0 means DefaultRequestTimeout.
	RequestTimeout time.Duration
	// ReplicateEvery is how often the server runs Backend.Pump so that
	// acks=all produces complete; 0 means DefaultReplicateEvery and a negative
	// value turns the pump off (acks=all on a replicated partition then times out).
	ReplicateEvery time.Duration
	// Logf, when set, receives operator messages: accept and replication
	// failures and every INTERNAL answer.
	Logf func(format string, args ...any)
}

func (o Options) withDefaults() (Options, error) {
	switch {
	case o.MaxFrameBytes < 0 || o.MaxFrameBytes > math.MaxInt32:
		return o, kerr.Argument("max frame bytes must be 1 to %d, got %d", math.MaxInt32, o.MaxFrameBytes)
	case o.MaxFrameBytes == 0:
		o.MaxFrameBytes = DefaultMaxFrameBytes
	}
	switch {
	case o.RequestTimeout < 0:
		return o, kerr.Argument("request timeout must be positive, got %v", o.RequestTimeout)
	case o.RequestTimeout == 0:
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.ReplicateEvery == 0 {
		o.ReplicateEvery = DefaultReplicateEvery
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	return o, nil
}

// Server serves the JSON/TCP protocol for one Backend. It owns a listener, one
// goroutine per connection, an accept goroutine, and a host.Host: the
// goroutine that owns the backend (every backend call happens there).
type Server struct {
	opts Options
	host *host.Host[Backend]
	ln   net.Listener

	quit chan struct{} // closed by Close
	wg   sync.WaitGroup
	long *longLines // the long-line tokens every connection shares

	mu      sync.Mutex
	closing bool
	conns   map[net.Conn]struct{}

	closeOnce sync.Once
	closeErr  error
	// detach ends the server's attachment to the cluster it serves
	// (engine.Cluster.Attach: its parked produces are state the engine's
	// snapshots cannot copy); nil for other backends.
	detach func()
}

// Listen binds addr (host:port; port 0 lets the system choose) and starts
// serving b. The caller must not touch b until Close returns, except through
// Direct.
func Listen(addr string, b Backend, opts Options) (*Server, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{
		opts:  opts,
		ln:    ln,
		quit:  make(chan struct{}),
		conns: map[net.Conn]struct{}{},
	}
	s.long = newLongLines(opts.MaxFrameBytes, s.quit)
	if cb, ok := b.(*ClusterBackend); ok && cb.Cluster != nil {
		s.detach = cb.Cluster.Attach("the JSON/TCP server on " + ln.Addr().String())
	}
	s.host = host.Start(b, host.Options[Backend]{
		PumpEvery: opts.ReplicateEvery,
		Pump:      Backend.Pump,
		Logf:      opts.Logf,
	})
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Addr is the bound address (with the chosen port when Listen got port 0).
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Close stops accepting, closes every connection (an acks=all produce still
// waiting gets no answer), and returns once every goroutine the server started
// has finished. It is idempotent. It does not close the backend.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closing = true
		conns := make([]net.Conn, 0, len(s.conns))
		for c := range s.conns {
			conns = append(conns, c)
		}
		s.mu.Unlock()
		s.closeErr = s.ln.Close()
		close(s.quit)
		s.host.Close()
		for _, c := range conns {
			_ = c.Close()
		}
		s.wg.Wait()
		if s.detach != nil {
			s.detach()
		}
	})
	return s.closeErr
}

// Direct runs fn on the goroutine that owns the backend, between requests, and
// returns its error: the way to use the backend directly (a test's direct
// check, a REPL command) while the server runs. It returns ErrServerClosed
// once the server is closed; a panic in fn is returned as an error.
func (s *Server) Direct(fn func(Backend) error) error { return s.host.Do(fn) }

// serve executes a decoded request on the owning goroutine. An acks=all
// produce whose acknowledgement is pending is parked until it settles or
// RequestTimeout passes; everything else answers at once.
func (s *Server) serve(b Backend, r *request, reply chan<- []byte) {
	out := execute(b, r)
	if out.pending == nil {
		s.logInternal(r.op, out.line)
		reply <- out.line
		return
	}
	partition := out.produced.Partition
	s.host.Park(host.Waiter[Backend]{
		Ready: func(Backend) bool {
			resp, done := settle(out.pending)
			if done {
				s.logInternal(opProduce, resp)
				reply <- resp
			}
			return done
		},
		Deadline: time.Now().Add(s.opts.RequestTimeout),
		Expire: func(Backend) {
			reply <- errorLine(kerr.RequestTimedOut, fmt.Sprintf(
				"acks=all was not acknowledged within %v; the record is in the leader log of partition %d and may still be committed",
				s.opts.RequestTimeout, partition))
		},
	})
}

// logInternal reports INTERNAL answers to the operator: they are bugs.
func (s *Server) logInternal(op string, line []byte) {
	const prefix = `{"ok":false,"code":"INTERNAL"`
	if len(line) >= len(prefix) && string(line[:len(prefix)]) == prefix {
		s.opts.Logf("internal error during %s: %s", op, line[:len(line)-1])
	}
}

// accept runs the accept loop until the listener is closed.
func (s *Server) accept() {
	defer s.wg.Done()
	backoff := 5 * time.Millisecond
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			s.opts.Logf("accept: %v", err)
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
		if s.closing {
			s.mu.Unlock()
			_ = c.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serveConn(c)
	}
}

// serveConn serves one connection sequentially: read a line, answer it, and
// repeat until EOF, an I/O error, a frame error or Close.
func (s *Server) serveConn(c net.Conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		_ = c.Close()
	}()
	lr := newLineReader(c, s.opts.MaxFrameBytes, s.long)
	defer lr.close()
	w := bufio.NewWriterSize(c, 32<<10)
	for {
		line, err := lr.next()
		if errors.Is(err, errFrameTooLarge) {
			lr.close() // the draining below needs no buffer or token
			if _, err := w.Write(frameTooLargeLine); err == nil && w.Flush() == nil {
				hangUp(c)
			}
			return
		}
		if err != nil {
			return
		}
		resp := s.handle(line)
		if resp == nil {
			return // closing
		}
		if _, err := w.Write(resp); err != nil {
			return
		}
		// Pipelined requests: answer them together, flushing once nothing
		// complete is left to read.
		if !lr.hasLine() {
			if err := w.Flush(); err != nil {
				return
			}
		}
	}
}

// handle decodes a line here and executes it on the owning goroutine. It
// returns nil when the server is closing.
func (s *Server) handle(line []byte) []byte {
	r, err := decodeRequest(line)
	if err != nil {
		return errorResponse(err)
	}
	reply := make(chan []byte, 1) // buffered: the owner never blocks on it
	if err := s.host.Do(func(b Backend) error { s.serve(b, r, reply); return nil }); err != nil {
		if errors.Is(err, host.ErrClosed) {
			return nil
		}
		return errorResponse(err)
	}
	select {
	case resp := <-reply:
		return resp
	case <-s.quit:
		return nil
	}
}

// hangUp ends a connection after FRAME_TOO_LARGE: it sends FIN so the client
// reads the answer and then EOF, and discards what the client still sends for
// a bounded time, since closing with unread bytes would reset the connection
// and could destroy the answer in flight.
func hangUp(c net.Conn) {
	if hc, ok := c.(interface{ CloseWrite() error }); ok {
		if hc.CloseWrite() != nil {
			return
		}
	}
	if c.SetReadDeadline(time.Now().Add(drainAfterFrameError)) != nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(c, drainBytesAfterFrameError))
}
