package repl

import "time"

// settleSignal wakes settleKafka and groupSettled when what they watch
// may have changed: a kclient request written or answered, an operation
// finished, a member given its partitions, a request served by the
// listener. It holds at most one wake-up; poking never blocks.
type settleSignal chan struct{}

func newSettleSignal() settleSignal { return make(settleSignal, 1) }

// poke wakes a waiter, or the next one to wait.
func (c settleSignal) poke() {
	select {
	case c <- struct{}{}:
	default:
	}
}

// drain forgets a pending wake-up.
func (c settleSignal) drain() {
	select {
	case <-c:
	default:
	}
}

// wait returns at the next poke, or after d.
func (c settleSignal) wait(d time.Duration) {
	t := time.NewTimer(d)
	select {
	case <-c:
	case <-t.C:
	}
	t.Stop()
}

// settleWake returns the session's settle signal, made on first use (on
// the session's goroutine, before any client or listener that pokes it).
func (s *Session) settleWake() settleSignal {
	if s.kwake == nil {
		s.kwake = newSettleSignal()
	}
	return s.kwake
}

const (
	// settleLimit bounds settleKafka and groupSettled.
	settleLimit = 10 * time.Second
	// settleCalm is how many checks in a row must find the clients at
	// rest; settleRecheck is the longest wait between two checks (a poke
	// ends it sooner).
	settleCalm    = 2
	settleRecheck = 250 * time.Microsecond
	// settleIdle is the longest wait for a poke while something is still
	// moving (a poke normally comes first).
	settleIdle = 5 * time.Millisecond
	// noAnswerGrace is how long an acks=0 produce written to the listener
	// may stay unread before settleKafka stops waiting for it (a request
	// written into a connection the listener had already closed is never
	// read).
	noAnswerGrace = 200 * time.Millisecond
)

// settleKafka waits, after a command, until what real clients do has come
// to rest: every kclient operation has finished, or every request in
// flight is parked on the listener (an acks=all produce waiting for
// replicate, a long-poll fetch), and every acks=0 produce written to the
// listener has been served. So the event lines a command prints do not
// depend on timing. The counters it reads move before the state they
// describe is left (a request is counted from its write until its answer
// is read, an operation until its result is reported), so it returns as
// soon as two checks in a row find them at rest, woken by every change
// rather than polling. It gives up after settleLimit (operations then
// stay pending and report later).
func (s *Session) settleKafka() {
	k, kc := s.kafka, s.kc
	if k == nil && kc == nil {
		return
	}
	wake := s.settleWake()
	wake.drain() // wake-ups from before the command are news no more
	deadline := time.Now().Add(settleLimit)
	var unreadSince time.Time
	calm := 0
	for {
		now := time.Now()
		ok := s.quiet(k, kc)
		unread := false // only an acks=0 produce not yet served keeps it moving
		if ok && k != nil {
			switch n := k.unreadNoAnswer(); {
			case n <= 0:
				unreadSince = time.Time{}
			case unreadSince.IsZero():
				unreadSince, ok, unread = now, false, true
			case now.Sub(unreadSince) < noAnswerGrace:
				ok, unread = false, true
			default:
				k.lostNoAnswer += n // never to be read
				unreadSince = time.Time{}
			}
		}
		if ok {
			calm++
			if calm >= settleCalm {
				return
			}
		} else {
			calm = 0
		}
		if !now.Before(deadline) {
			return
		}
		if ok || unread {
			// The listener's count of served acks=0 produces moves
			// after its poke: look again soon.
			wake.wait(settleRecheck)
		} else {
			wake.wait(settleIdle)
		}
	}
}

// quiet reports whether the clients are at rest: every request the
// listener holds is parked, every request a client waits for is one of
// those, and no kclient operation waits for anything else.
func (s *Session) quiet(k *kafkaListening, kc *kclients) bool {
	pending, outstanding := int64(0), int64(0)
	if kc != nil {
		pending, outstanding = kc.pending.Load(), kc.outstanding()
	}
	if k == nil {
		return pending == 0
	}
	parked := int64(k.srv.Parked())
	busy := k.inProgress.Load()
	if busy != parked || outstanding > parked {
		return false
	}
	return pending == 0 || outstanding > 0
}
