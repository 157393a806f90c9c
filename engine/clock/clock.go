// Package clock is the engine's only source of time. Every time-dependent rule
// (linger, ISR time lag, session expiry, retention, tombstone age) reads a
// Clock, in integer milliseconds. The tool uses a Manual clock everywhere; the
// System clock exists for servers (`minikafka serve`).
package clock

import "github.com/minikafka-lab/minikafka/engine/kerr"

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
// negative step is an argument error and leaves the clock unchanged.
func (m *Manual) Advance(ms int64) error {
	if ms < 0 {
		return kerr.Argument("clock cannot move backwards (advance %d ms)", ms)
	}
	m.now += ms
	return nil
}
