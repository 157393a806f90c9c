package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/minikafka-lab/minikafka/repl"
)

// stopper turns the shutdown signals into a graceful end of a REPL session.
// In a script every shutdown signal stops the session after the command
// that is running; interactively, SIGINT (Ctrl-C while a command runs: the
// line editor has the terminal in raw mode otherwise, where Ctrl-C cancels
// the line without a signal) interrupts that command and the session goes
// on, while SIGTERM, SIGHUP and SIGPIPE stop it. Stopping also calls wake,
// which ends a wait for input (it closes the line editor or the stdin
// reader). Either way runRepl then closes the session, which closes the
// cluster gracefully: producers flushed, logs synced, clean-shutdown
// markers written.
type stopper struct {
	sigs chan os.Signal
	done chan struct{}
	wg   sync.WaitGroup

	mu   sync.Mutex
	got  os.Signal // the signal that stopped the session
	why  error     // or the output error that did
	wake func()
	s    *repl.Session
}

// notifyShutdown starts catching the shutdown signals now, before the
// session exists, so that none is missed while the cluster opens.
func notifyShutdown() *stopper {
	st := &stopper{sigs: make(chan os.Signal, 4), done: make(chan struct{})}
	signal.Notify(st.sigs, shutdownSignals...)
	return st
}

// run delivers the signals to s until release; wake is called when the
// session is stopped.
func (st *stopper) run(s *repl.Session, interactive bool, wake func()) {
	st.mu.Lock()
	st.s, st.wake = s, wake
	early := st.got != nil || st.why != nil
	st.mu.Unlock()
	if early { // stopped before the session was handed over
		s.Stop()
		go wake()
	}
	st.wg.Add(1)
	go func() {
		defer st.wg.Done()
		for {
			select {
			case sig := <-st.sigs:
				if interactive && sig == os.Interrupt {
					s.Interrupt()
					continue
				}
				st.stop(sig, nil)
			case <-st.done:
				return
			}
		}
	}()
}

// stop stops the session once, for a signal or an output error.
func (st *stopper) stop(sig os.Signal, why error) {
	st.mu.Lock()
	first := st.got == nil && st.why == nil
	if first {
		st.got, st.why = sig, why
	}
	s, wake := st.s, st.wake
	st.mu.Unlock()
	if !first || s == nil {
		return
	}
	s.Stop()
	if wake != nil {
		// Not waited for: closing the line editor while it reads can
		// block inside the library after it has let ReadLine return.
		go wake()
	}
}

// release stops delivering signals (the default actions apply again).
func (st *stopper) release() {
	signal.Stop(st.sigs)
	close(st.done)
	st.wg.Wait()
}

// report says why the session stopped, if it did, and returns the exit
// status for it: 128 plus the signal's number, as a shell reports a
// process that a signal ended, or 1 for an output error.
func (st *stopper) report(stderr io.Writer) (int, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	switch {
	case st.got != nil:
		fmt.Fprintf(stderr, "minikafka repl: %v: the cluster was closed gracefully\n", st.got)
		if n, ok := st.got.(syscall.Signal); ok {
			return 128 + int(n), true
		}
		return 1, true
	case st.why != nil:
		fmt.Fprintf(stderr, "minikafka repl: %v: the cluster was closed gracefully\n", st.why)
		return 1, true
	}
	return 0, false
}

// stopOnWriteError is the session's output: the first failed write (the
// reader of a pipe went away: EPIPE) stops the session gracefully, as
// SIGPIPE does.
type stopOnWriteError struct {
	w  io.Writer
	st *stopper
}

func (o *stopOnWriteError) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	if err != nil {
		o.st.stop(nil, fmt.Errorf("writing the output: %w", err))
	}
	return n, err
}

// errInputStopped ends the script's input when the session was stopped.
var errInputStopped = errors.New("input stopped")

// stoppableReader reads a script from in on its own goroutine, so that a
// stop ends a read that would otherwise wait for input forever (a pipe
// whose writer keeps it open).
type stoppableReader struct {
	stop    chan struct{}
	once    sync.Once
	data    chan []byte
	err     error // the input's error, set before data is closed
	pending []byte
}

func newStoppableReader(in io.Reader) *stoppableReader {
	r := &stoppableReader{stop: make(chan struct{}), data: make(chan []byte)}
	go func() {
		defer close(r.data)
		for {
			buf := make([]byte, 32<<10)
			n, err := in.Read(buf)
			if n > 0 {
				select {
				case r.data <- buf[:n]:
				case <-r.stop:
					return
				}
			}
			if err != nil {
				r.err = err
				return
			}
		}
	}()
	return r
}

// Stop makes Read return errInputStopped from now on.
func (r *stoppableReader) Stop() { r.once.Do(func() { close(r.stop) }) }

func (r *stoppableReader) Read(p []byte) (int, error) {
	if len(r.pending) == 0 {
		select {
		case <-r.stop:
			return 0, errInputStopped
		default:
		}
		select {
		case chunk, ok := <-r.data:
			if !ok {
				if r.err == nil {
					return 0, io.EOF
				}
				return 0, r.err
			}
			r.pending = chunk
		case <-r.stop:
			return 0, errInputStopped
		}
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}
