// Package clock is the engine's only source of time. Every time-dependent rule
// (linger, ISR time lag, session expiry, retention, tombstone age) reads a
// Clock, in integer milliseconds. The tool uses a Manual clock everywhere; the
// System clock exists for servers (`minikafka serve`).
package clock

import (
	"math"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// Clock returns the current time in milliseconds.
type Clock interface {
	NowMs() int64
}

// Manual is a clock that moves only when told to. Its zero value reads 0.
type Manual struct {
	now int64
}

// NewManual returns a manual clock reading start milliseconds.
func NewManual(start int64) *Manual { return &Manual{now: start} }

// NowMs returns the clock's current reading.
func (m *Manual) NowMs() int64 { return m.now }

// Advance moves the clock forward by ms milliseconds. Zero is allowed; a
// negative step, or one that would pass the largest time the clock can
// hold (math.MaxInt64 ms), is an argument error and leaves the clock
// unchanged: time never wraps around to a negative reading.
func (m *Manual) Advance(ms int64) error {
	if ms < 0 {
		return kerr.Argument("clock cannot move backwards (advance %d ms)", ms)
	}
	if ms > math.MaxInt64-m.now {
		return kerr.Argument("clock cannot advance %d ms from %d ms: at most %d ms more fit before the largest time, %d ms", ms, m.now, math.MaxInt64-m.now, int64(math.MaxInt64))
	}
	m.now += ms
	return nil
}

// AddMs returns now + ms for a deadline, saturating at the largest time
// instead of wrapping to a negative one (ms is not negative).
func AddMs(now, ms int64) int64 {
	if ms > math.MaxInt64-now {
		return math.MaxInt64
	}
	return now + ms
}
