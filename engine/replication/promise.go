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

// ListenerKind says what a Listener does when its promise settles. The
// kinds are the engine's continuations, one per kind of waiting: each is
// handled by the cluster that owns the promise, through its Dispatcher.
type ListenerKind uint8

// The listener kinds (0 is no kind).
const (
	// ListenKeyless: a keyless record's acknowledgement moves the
	// cluster partitioner's sticky partition once it is done (engine,
	// Produce). Ref is the ack's id.
	ListenKeyless ListenerKind = iota + 1
	// ListenBatch: a producer batch's acknowledgement settles the batch's
	// record futures (engine/producer). Owner is the producer's number in
	// its cluster, Ref the batch's number in its producer.
	ListenBatch
	// ListenMarker: a transaction marker's acknowledgement counts towards
	// its commit or abort (engine, TxnCompletion). Owner is the
	// completion's id, Ref the marker's position in its Acks.
	ListenMarker
)

// Listener is a continuation as plain data: what to do (Kind) for whom
// (Owner) about what (Ref) when a promise settles. Unlike a closure it names
// its owner by id, not by pointer, so a copy of the promise (a cluster
// snapshot restored, engine.Restore) is heard by the copy of the owner: the
// restored cluster's Dispatcher finds it by id.
type Listener struct {
	Kind  ListenerKind
	Owner int64
	Ref   int64
}

// Dispatcher runs listeners: the cluster that owns the promises finds each
// listener's owner by id and runs what its kind says. Every cluster is its
// own dispatcher, so a restored cluster owns its waiters. A Dispatcher must
// be comparable (a pointer): Listen checks that a promise's listeners all
// go to one.
type Dispatcher interface {
	Dispatch(Listener)
}

// Promise is a deterministic, single-threaded promise: nothing blocks, and a
// later explicit step (a follower fetch, a promotion, a close) settles it.
// Listeners registered with Listen run synchronously, in registration
// order, at the moment the promise settles (or at once if it already has).
// A settled promise never changes again, so copies of a cluster may share
// it; a pending one is copied (clonePending).
//
// The zero value is not usable; create promises with NewPromise.
type Promise[T any] struct {
	id        int64
	state     HandleState
	value     T
	err       error
	listeners []Listener
	d         Dispatcher // the listeners' dispatcher, nil without listeners
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

// Listen registers l, to be run by d when the promise settles. If it
// already has, d runs l now. Every listener of one promise goes through
// the same dispatcher (its cluster's): another one panics.
func (p *Promise[T]) Listen(d Dispatcher, l Listener) {
	if p.state != Pending {
		d.Dispatch(l)
		return
	}
	if p.d != nil && p.d != d {
		panic("replication: a promise's listeners belong to one dispatcher")
	}
	p.d = d
	p.listeners = append(p.listeners, l)
}

// Resolve completes a pending promise with v and runs its listeners. It
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
	ls, d := p.listeners, p.d
	p.listeners, p.d = nil, nil
	for _, l := range ls {
		d.Dispatch(l)
	}
}
