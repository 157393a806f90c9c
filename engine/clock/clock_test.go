package clock

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// U1 and U2.
func TestManualClock(t *testing.T) {
	c := NewManual(100)
	if err := c.Advance(25); err != nil || c.NowMs() != 125 {
		t.Fatalf("advance 25: now=%d err=%v", c.NowMs(), err)
	}
	if err := c.Advance(0); err != nil || c.NowMs() != 125 {
		t.Fatalf("advance 0: now=%d err=%v", c.NowMs(), err)
	}
	err := c.Advance(-1)
	if !errors.Is(err, kerr.InvalidArgument) || !strings.Contains(err.Error(), "backwards") {
		t.Fatalf("advance -1: %v", err)
	}
	if c.NowMs() != 125 {
		t.Fatalf("a rejected advance moved the clock to %d", c.NowMs())
	}
}

// TestManualClockNeverWraps: an advance past the largest time is refused
// and leaves the clock where it was; reaching it exactly is allowed.
func TestManualClockNeverWraps(t *testing.T) {
	c := NewManual(0)
	if err := c.Advance(math.MaxInt64); err != nil || c.NowMs() != math.MaxInt64 {
		t.Fatalf("advance to the largest time: now=%d err=%v", c.NowMs(), err)
	}
	err := c.Advance(1)
	if !errors.Is(err, kerr.InvalidArgument) || !strings.Contains(err.Error(), "largest time") {
		t.Fatalf("advance 1 past the largest time: %v", err)
	}
	if c.NowMs() != math.MaxInt64 {
		t.Fatalf("a refused advance moved the clock to %d", c.NowMs())
	}
	if err := c.Advance(0); err != nil {
		t.Fatalf("advance 0 at the largest time: %v", err)
	}
	c = NewManual(10)
	if err := c.Advance(math.MaxInt64 - 9); err == nil || c.NowMs() != 10 {
		t.Fatalf("advance by one too many: now=%d err=%v", c.NowMs(), err)
	}
}

func TestSystemClockMoves(t *testing.T) {
	if (System{}).NowMs() < 1_600_000_000_000 {
		t.Fatal("system clock is not Unix milliseconds")
	}
}
