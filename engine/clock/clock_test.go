package clock

import (
	"errors"
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

func TestSystemClockMoves(t *testing.T) {
	if (System{}).NowMs() < 1_600_000_000_000 {
		t.Fatal("system clock is not Unix milliseconds")
	}
}
