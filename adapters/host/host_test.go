package host

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

type counter struct{ n int }

func TestDoRunsJobsInOrderOnOneGoroutine(t *testing.T) {
	h := Start(&counter{}, Options[*counter]{})
	defer h.Close()
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := h.Do(func(c *counter) error { c.n++; return nil }); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	var got int
	if err := h.Do(func(c *counter) error { got = c.n; return nil }); err != nil {
		t.Fatal(err)
	}
	if got != 50 {
		t.Fatalf("n = %d, want 50 (every job ran once)", got)
	}
}

func TestDoReturnsPanicsAsInternal(t *testing.T) {
	h := Start(&counter{}, Options[*counter]{})
	defer h.Close()
	err := h.Do(func(*counter) error { panic("boom") })
	if !errors.Is(err, kerr.Internal) {
		t.Fatalf("err = %v, want INTERNAL", err)
	}
	if err := h.Do(func(*counter) error { return nil }); err != nil {
		t.Fatalf("the host must survive a panic: %v", err)
	}
}

func TestParkedWaiterAnswersWhenReadyOrAtDeadline(t *testing.T) {
	h := Start(&counter{}, Options[*counter]{})
	defer h.Close()
	ready := make(chan int, 1)
	expired := make(chan struct{}, 1)
	err := h.Do(func(c *counter) error {
		h.Park(Waiter[*counter]{Ready: func(c *counter) bool {
			if c.n < 2 {
				return false
			}
			ready <- c.n
			return true
		}})
		h.Park(Waiter[*counter]{
			Ready:    func(*counter) bool { return false },
			Deadline: time.Now().Add(20 * time.Millisecond),
			Expire:   func(*counter) { expired <- struct{}{} },
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := h.Do(func(c *counter) error { c.n++; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case n := <-ready:
		if n != 2 {
			t.Fatalf("ready at n = %d, want 2", n)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter was never asked again after the jobs")
	}
	select {
	case <-expired:
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter with a deadline never expired")
	}
	var left int
	h.Do(func(*counter) error { left = h.Parked(); return nil })
	if left != 0 {
		t.Fatalf("%d waiters left, want 0", left)
	}
}

func TestPumpRunsAndFailuresAreLoggedOnce(t *testing.T) {
	var mu sync.Mutex
	var logs []string
	pumped := make(chan struct{}, 100)
	h := Start(&counter{}, Options[*counter]{
		PumpEvery: time.Millisecond,
		Pump: func(c *counter) error {
			pumped <- struct{}{}
			return errors.New("same failure")
		},
		Logf: func(format string, args ...any) {
			mu.Lock()
			logs = append(logs, format)
			mu.Unlock()
		},
	})
	for range 5 {
		select {
		case <-pumped:
		case <-time.After(5 * time.Second):
			t.Fatal("the pump never ran")
		}
	}
	h.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(logs) != 1 {
		t.Fatalf("logged %d times, want once for a repeated failure", len(logs))
	}
}

func TestCloseDropsWaitersAndRefusesJobs(t *testing.T) {
	h := Start(&counter{}, Options[*counter]{})
	h.Do(func(*counter) error {
		h.Park(Waiter[*counter]{Ready: func(*counter) bool { return false }})
		return nil
	})
	h.Close()
	h.Close() // idempotent
	if err := h.Do(func(*counter) error { return nil }); !errors.Is(err, ErrClosed) {
		t.Fatalf("Do after Close = %v, want ErrClosed", err)
	}
	select {
	case <-h.Closing():
	default:
		t.Fatal("Closing must be closed after Close")
	}
}
