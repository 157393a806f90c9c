package jsontcp

import (
	"bytes"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"testing"
	"time"
)

// Any byte stream over a real socket, written in random pieces, gets exactly
// one answer per line in order (the same bytes Dispatch gives), then the frame
// error if §14.2's model says a line is too long, then EOF.
func TestServerAnswersEveryLineOfAnyStream(t *testing.T) {
	const max = 256
	s := startServer(t, newFake(), Options{MaxFrameBytes: max})
	rng := rand.New(rand.NewPCG(7, 24))
	pieces := []string{
		`{"operation":"metadata","topic":"missing"}`,
		`{"operation":"wat"}`,
		`[1]`,
		``,
		"\r",
		`{"operation":"fetch","topic":"x","partition":"0","offset":0}`,
		`{"operation":"produce","topic":"x","value_b64":"%%%"}`,
		"{\"operation\":\"metadata\",\"topic\":\"\xff\"}",
	}
	framed := map[bool]int{}
	for round := range 60 {
		var stream bytes.Buffer
		for range rng.IntN(12) {
			switch rng.IntN(6) {
			case 0: // random bytes, any of them a newline
				junk := make([]byte, rng.IntN(80))
				for i := range junk {
					junk[i] = byte(rng.IntN(256))
				}
				stream.Write(junk)
			case 1: // sometimes a line that is too long
				stream.WriteString(strings.Repeat("y", rng.IntN(2*max)))
			default:
				stream.WriteString(pieces[rng.IntN(len(pieces))])
			}
			if rng.IntN(5) > 0 {
				stream.WriteByte('\n')
			}
		}
		data := stream.Bytes()
		lines, tooLarge := frameModel(data, max)
		framed[tooLarge]++
		var want bytes.Buffer
		for _, line := range lines {
			want.Write(Dispatch(newFake(), []byte(line)))
		}
		if tooLarge {
			want.Write(frameTooLargeLine)
		}

		c, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		got := make(chan []byte, 1)
		go func() {
			b, _ := io.ReadAll(c)
			got <- b
		}()
		for rest := data; len(rest) > 0; {
			n := min(len(rest), 1+rng.IntN(64))
			if _, err := c.Write(rest[:n]); err != nil {
				break // the server hung up after a frame error
			}
			rest = rest[n:]
		}
		_ = c.(*net.TCPConn).CloseWrite()
		answer := <-got
		_ = c.Close()
		if !bytes.Equal(answer, want.Bytes()) {
			t.Fatalf("round %d, stream %q:\n got %q\nwant %q", round, data, answer, want.Bytes())
		}
	}
	if framed[true] == 0 || framed[false] == 0 {
		t.Fatalf("the streams should cover both endings: %v", framed)
	}
}
