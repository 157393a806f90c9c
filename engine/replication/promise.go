package replication

// HandleState is where a pending handle (an Ack or a producer's record future)
// stands. A handle leaves Pending exactly once.
type HandleState uint8

// Handle states.
const (
	Pending HandleState = iota
	Done
	Failed
	Cancelled
)

// String returns "pending", "done", "failed" or "cancelled".
func (s HandleState) String() string {
	switch s {
	case Pending:
		return "pending"
	case Done:
		return "done"
	case Failed:
		return "failed"
	case Cancelled:
		return "cancelled"
	}
	return "unknown"
}

// IDSource hands out handle ids: small integers from 1, one source per
// cluster, shared by acks and producer futures so that every handle a learner
// sees has a distinct number.
type IDSource struct{ last int64 }

// Next returns the next id.
func (s *IDSource) Next() int64 {
	s.last++
	return s.last
}

// Promise is a deterministic, single-threaded promise: nothing blocks, and a
// later explicit step (a follower fetch, a promotion, a close) settles it.
// Continuations registered with OnSettle run synchronously, in registration
// order, at the moment the promise settles (or at once if it already has).
//
// The zero value is not usable; create promises with NewPromise.
type Promise[T any] struct {
	id    int64
	state HandleState
	value T
	err   error
	then  []func()
}

// NewPromise returns a pending promise with the given id.
func NewPromise[T any](id int64) *Promise[T] { return &Promise[T]{id: id} }

// ID is the handle's number (from 1, per cluster).
func (p *Promise[T]) ID() int64 { return p.id }

// State reports pending, done, failed or cancelled.
func (p *Promise[T]) State() HandleState { return p.state }

// Settled reports whether the promise left Pending.
func (p *Promise[T]) Settled() bool { return p.state != Pending }

// Value returns the result; it is meaningful only when State is Done.
func (p *Promise[T]) Value() T { return p.value }

// Err returns the failure when State is Failed, nil otherwise.
func (p *Promise[T]) Err() error { return p.err }

// OnSettle registers fn to run when the promise settles. If it already has,
// fn runs now.
func (p *Promise[T]) OnSettle(fn func()) {
	if p.state != Pending {
		fn()
		return
	}
	p.then = append(p.then, fn)
}

// Resolve completes a pending promise with v and runs its continuations. It
// returns false (and does nothing) when the promise had already settled.
func (p *Promise[T]) Resolve(v T) bool {
	if p.state != Pending {
		return false
	}
	p.state, p.value = Done, v
	p.run()
	return true
}

// Fail settles a pending promise with err.
func (p *Promise[T]) Fail(err error) bool {
	if p.state != Pending {
		return false
	}
	p.state, p.err = Failed, err
	p.run()
	return true
}

// Cancel settles a pending promise without a result or an error (a crash
// cancels: the outcome is unknown, not failed).
func (p *Promise[T]) Cancel() bool {
	if p.state != Pending {
		return false
	}
	p.state = Cancelled
	p.run()
	return true
}

func (p *Promise[T]) run() {
	then := p.then
	p.then = nil
	for _, fn := range then {
		fn()
	}
}
