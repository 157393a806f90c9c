package jsontcp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

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
var ErrServerClosed = kerr.State("server is closed")

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
	case o.MaxFrameBytes < 0:
		return o, kerr.Argument("max frame bytes must be positive, got %d", o.MaxFrameBytes)
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
// goroutine per connection, an accept goroutine, and the goroutine that owns
// the backend (every backend call happens there).
type Server struct {
	opts    Options
	backend Backend
	ln      net.Listener

	jobs chan job
	quit chan struct{} // closed by Close
	wg   sync.WaitGroup

	mu      sync.Mutex
	closing bool
	conns   map[net.Conn]struct{}

	closeOnce sync.Once
	closeErr  error
}

// job is one unit of work for the owning goroutine: a decoded request, or a
// direct call.
type job struct {
	req   *request
	reply chan []byte // buffered: the owner never blocks on it

	direct func(Backend) error
	done   chan error // buffered
}

// waiter is a produce whose acks=all acknowledgement is pending.
type waiter struct {
	pending   PendingAck
	partition int32
	deadline  time.Time
	reply     chan []byte
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
		opts:    opts,
		backend: b,
		ln:      ln,
		jobs:    make(chan job),
		quit:    make(chan struct{}),
		conns:   map[net.Conn]struct{}{},
	}
	s.wg.Add(2)
	go s.own()
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
		for _, c := range conns {
			_ = c.Close()
		}
		s.wg.Wait()
	})
	return s.closeErr
}

// Direct runs fn on the goroutine that owns the backend, between requests, and
// returns its error: the way to use the backend directly (a test's direct
// check, a REPL command) while the server runs. It returns ErrServerClosed
// once the server is closed; a panic in fn is returned as an error.
func (s *Server) Direct(fn func(Backend) error) error {
	done := make(chan error, 1)
	select {
	case s.jobs <- job{direct: fn, done: done}:
	case <-s.quit:
		return ErrServerClosed
	}
	return <-done // an accepted job always completes
}

// own is the only goroutine that calls the backend.
func (s *Server) own() {
	defer s.wg.Done()
	var pump <-chan time.Time
	if s.opts.ReplicateEvery > 0 {
		t := time.NewTicker(s.opts.ReplicateEvery)
		defer t.Stop()
		pump = t.C
	}
	expiry := time.NewTimer(time.Hour)
	expiry.Stop()
	defer expiry.Stop()
	var waiters []waiter
	var lastPumpErr string
	for {
		select {
		case <-s.quit:
			return
		case j := <-s.jobs:
			if j.direct != nil {
				j.done <- s.runDirect(j.direct)
				break
			}
			out := execute(s.backend, j.req)
			switch {
			case out.pending != nil:
				waiters = append(waiters, waiter{
					pending:   out.pending,
					partition: out.produced.Partition,
					deadline:  time.Now().Add(s.opts.RequestTimeout),
					reply:     j.reply,
				})
			default:
				s.logInternal(j.req.op, out.line)
				j.reply <- out.line
			}
		case <-pump:
			err := s.pump()
			switch {
			case err == nil:
				lastPumpErr = ""
			case err.Error() != lastPumpErr:
				lastPumpErr = err.Error()
				s.opts.Logf("pump: %v", err)
			}
		case <-expiry.C:
		}
		if len(waiters) == 0 {
			continue
		}
		waiters = s.settleWaiters(waiters, time.Now())
		if len(waiters) > 0 {
			expiry.Reset(time.Until(waiters[0].deadline))
		} else {
			expiry.Stop()
		}
	}
}

// settleWaiters answers every waiter whose acknowledgement is settled or whose
// deadline has passed, and keeps the rest in deadline order.
func (s *Server) settleWaiters(waiters []waiter, now time.Time) []waiter {
	kept := waiters[:0]
	for _, w := range waiters {
		if resp, done := settle(w.pending); done {
			s.logInternal(opProduce, resp)
			w.reply <- resp
			continue
		}
		if !now.Before(w.deadline) {
			w.reply <- errorLine(kerr.RequestTimedOut, fmt.Sprintf(
				"acks=all was not acknowledged within %v; the record is in the leader log of partition %d and may still be committed",
				s.opts.RequestTimeout, w.partition))
			continue
		}
		kept = append(kept, w)
	}
	clear(waiters[len(kept):])
	return kept
}

func (s *Server) runDirect(fn func(Backend) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = kerr.New(kerr.Internal, "panic in direct call: %v", p)
		}
	}()
	return fn(s.backend)
}

func (s *Server) pump() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = kerr.New(kerr.Internal, "panic during the pump: %v", p)
		}
	}()
	return s.backend.Pump()
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
	lr := newLineReader(c, s.opts.MaxFrameBytes)
	w := bufio.NewWriterSize(c, 32<<10)
	for {
		line, err := lr.next()
		if errors.Is(err, errFrameTooLarge) {
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
	reply := make(chan []byte, 1)
	select {
	case s.jobs <- job{req: r, reply: reply}:
	case <-s.quit:
		return nil
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
