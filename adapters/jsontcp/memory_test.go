package jsontcp

import (
	"bytes"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// heapInUse is the heap in use after a collection, in bytes.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestLongLinesMemoryIsBounded: 120 connections that each send almost a
// whole frame (1 MiB) without a newline hold at most the long-line budget
// plus a small buffer each (not 120 MiB), and once they close the memory
// is free again; a connection with a short request is still answered while
// they wait.
func TestLongLinesMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("120 connections of 1 MiB")
	}
	s := startServer(t, newFake(), Options{})
	base := heapInUse()
	const conns = 120
	payload := bytes.Repeat([]byte("x"), DefaultMaxFrameBytes-16)
	var wg sync.WaitGroup
	clients := make([]net.Conn, conns)
	for i := range clients {
		c, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		clients[i] = c
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.SetWriteDeadline(time.Now().Add(20 * time.Second))
			_, _ = c.Write(payload) // blocks while the server is not reading it
		}()
	}
	// Let the server read what it will: poll until the heap stops growing.
	var peak uint64
	for stable, last := 0, uint64(0); stable < 5; {
		time.Sleep(50 * time.Millisecond)
		h := heapInUse()
		peak = max(peak, h)
		if h <= last+1<<20 {
			stable++
		} else {
			stable = 0
		}
		last = h
	}
	limit := base + longLineBudget + conns*smallLineBytes + 16<<20
	if peak > limit {
		t.Errorf("%d connections with a long line held %d MiB (base %d MiB, limit %d MiB)", conns, (peak-base)>>20, base>>20, (limit-base)>>20)
	}
	t.Logf("heap: base %d MiB, peak %d MiB with %d long lines", base>>20, peak>>20, conns)

	rc := dialRaw(t, s)
	if got := rc.call(`{"operation":"metadata","topic":"none"}`); !strings.HasPrefix(got, `{"ok":false,"code":"UNKNOWN_TOPIC"`) {
		t.Errorf("a short request while long lines wait: %s", got)
	}

	for _, c := range clients {
		_ = c.Close()
	}
	wg.Wait()
	deadline := time.Now().Add(30 * time.Second) // generous: a loaded machine closes 120 connections slowly
	// A connection's goroutine gives its token back as it ends, which can
	// be after the heap has shrunk: wait for both.
	for {
		after, held := heapInUse(), len(s.long.tokens)
		if after <= base+8<<20 && held == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the connections closed the heap is %d MiB (base %d MiB) and %d long-line tokens are still held", after>>20, base>>20, held)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestLongLineTokenReturned: a connection that sent one long request and
// then short ones gives its long-line token back, so other connections can
// send long lines after it; with a single token, a second long line waits
// until the first connection's line is served.
func TestLongLineTokenReturned(t *testing.T) {
	s := startServer(t, newFake(), Options{MaxFrameBytes: longLineBudget})
	if cap(s.long.tokens) != 1 {
		t.Fatalf("%d tokens for a frame of the whole budget, want 1", cap(s.long.tokens))
	}
	long := `{"operation":"metadata","topic":"` + strings.Repeat("x", 200<<10) + `"}`
	for i := 0; i < 3; i++ {
		rc := dialRaw(t, s)
		if got := rc.call(long); !strings.HasPrefix(got, `{"ok":false`) {
			t.Fatalf("long request %d: %.200s", i, got)
		}
		if got := rc.call(`{"operation":"metadata","topic":"none"}`); !strings.HasPrefix(got, `{"ok":false,"code":"UNKNOWN_TOPIC"`) {
			t.Fatalf("short request %d: %s", i, got)
		}
		if n := len(s.long.tokens); n != 0 {
			t.Fatalf("after a long line was served the token is still held (%d)", n)
		}
	}
}
