package repl

import (
	"context"
	"sync"
	"time"
)

// interrupts carries the process's requests to stop into a session, from
// the goroutine that receives signals: Interrupt ends the command that is
// running at its next step (Ctrl-C during a command in the interactive
// REPL), Stop also ends the loop that feeds the session (RunScript,
// RunInteractive) after that command, so that the caller closes the
// cluster gracefully.
type interrupts struct {
	mu      sync.Mutex
	ch      chan struct{} // closed by Interrupt; a fresh one for every command
	stopped bool
}

// current is the channel the running command watches.
func (in *interrupts) current() <-chan struct{} {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.ch == nil {
		in.ch = make(chan struct{})
	}
	return in.ch
}

// reset gives a new command a channel that is not closed, unless the
// session is stopping (then every command is interrupted at once).
func (in *interrupts) reset() {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.stopped {
		return
	}
	select {
	case <-in.ch:
		in.ch = nil
	default:
	}
}

func (in *interrupts) interrupt() {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.ch == nil {
		in.ch = make(chan struct{})
	}
	select {
	case <-in.ch:
	default:
		close(in.ch)
	}
}

// Interrupt asks the command that is running to stop at its next step:
// `replicate rounds=N` ends after the round in progress, `remote` and
// `kclient` stop waiting for their answers. A command that cannot be cut short finishes;
// either way the session and its cluster stay as they are after a
// completed command. It may be called from any goroutine.
func (s *Session) Interrupt() { s.intr.interrupt() }

// Stop interrupts the running command and makes RunScript and
// RunInteractive return after it; the caller then closes the session,
// which closes the cluster gracefully. It may be called from any
// goroutine.
func (s *Session) Stop() {
	s.intr.mu.Lock()
	s.intr.stopped = true
	s.intr.mu.Unlock()
	s.intr.interrupt()
}

// Stopped reports whether Stop was called.
func (s *Session) Stopped() bool {
	s.intr.mu.Lock()
	defer s.intr.mu.Unlock()
	return s.intr.stopped
}

// interrupted reports whether the running command was asked to stop.
func (s *Session) interrupted() bool {
	select {
	case <-s.intr.current():
		return true
	default:
		return false
	}
}

// interruptible is a context that ends after timeout or when the running
// command is interrupted, whichever comes first: commands that wait on the
// network use it, so that Ctrl-C stops the wait.
func (s *Session) interruptible(timeout time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	intr := s.intr.current()
	go func() {
		select {
		case <-intr:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}
