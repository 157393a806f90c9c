package labs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// closeLog records what the executors of TestRunLabsClosesWhileTheNextLabRuns
// did, in order.
type closeLog struct {
	mu      sync.Mutex
	events  []string
	started chan struct{} // closed when the second lab runs its first command
	once    sync.Once
}

func (c *closeLog) add(e string) {
	c.mu.Lock()
	c.events = append(c.events, e)
	c.mu.Unlock()
}

// overlapExec echoes its command; the first lab's Close waits until the
// second lab has started (or gives up after a while), the second's fails.
type overlapExec struct {
	log *closeLog
	n   int // which session: 1, 2, 3
}

func (x *overlapExec) Exec(w io.Writer, line string) error {
	x.log.add(fmt.Sprintf("exec %d", x.n))
	if x.n == 2 {
		x.log.once.Do(func() { close(x.log.started) })
	}
	fmt.Fprintln(w, strings.TrimPrefix(line, "echo "))
	return nil
}

var errCloseFailed = errors.New("close failed")

func (x *overlapExec) Close() error {
	switch x.n {
	case 1:
		select {
		case <-x.log.started:
			x.log.add("close 1 after lab 2 started")
		case <-time.After(10 * time.Second):
			x.log.add("close 1 alone")
		}
	case 2:
		x.log.add("close 2")
		return errCloseFailed
	default:
		x.log.add(fmt.Sprintf("close %d", x.n))
	}
	return nil
}

// TestRunLabsClosesWhileTheNextLabRuns: RunLabs closes a lab's session
// while the next lab runs (the first lab's close waits until the second lab
// has started), one at a time or side by side, starts the sessions in the
// list's order, and prints the lines in order, each with its own close's
// outcome.
func TestRunLabsClosesWhileTheNextLabRuns(t *testing.T) {
	for _, parallel := range []int{0, 3} {
		t.Run(fmt.Sprintf("parallel=%d", parallel), func(t *testing.T) {
			var list []*Lab
			for i := 1; i <= 3; i++ {
				list = append(list, mustLab(t, fmt.Sprintf("labs/01-a/0%d-l%d.lab", i, i),
					fmt.Sprintf("# title: L%d\n# chapter: 1\n\necho lab%d\n----\nlab%d\n", i, i, i)))
			}
			log := &closeLog{started: make(chan struct{})}
			n := 0
			newExec := func() (Executor, error) {
				n++ // not locked: RunLabs starts the sessions one after the other
				return &overlapExec{log: log, n: n}, nil
			}
			var out bytes.Buffer
			if failed := RunLabs(&out, list, newExec, RunOptions{Parallel: parallel}); failed != 1 {
				t.Errorf("failed = %d, want 1 (the lab whose close failed)", failed)
			}
			want := "✓ 01-01 l1 (1 step)\n" +
				"✗ 01-02 l2 (1 step, 0 blocks differ)\nlabs/01-a/02-l2.lab: close failed\n" +
				"✓ 01-03 l3 (1 step)\n\n3 labs: 2 passed, 1 failed\n"
			if got := out.String(); got != want {
				t.Errorf("output:\n%s\nwant:\n%s", got, want)
			}
			log.mu.Lock()
			defer log.mu.Unlock()
			if !slices.Contains(log.events, "close 1 after lab 2 started") || len(log.events) != 6 {
				t.Errorf("events: %q, want 3 execs and 3 closes, the first close after lab 2 started", log.events)
			}
		})
	}
}
