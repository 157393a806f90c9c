package dumplog

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
)

// FuzzFrameScannerMatchesScan: the streaming scanner dump-log uses sees
// exactly what record.Scan sees in the same bytes: the same frames at the
// same positions, and the same damaged tail with the same reason.
func FuzzFrameScannerMatchesScan(f *testing.F) {
	for _, name := range []string{"clean", "torn-tail", "flipped-byte", "corrupt-closed"} {
		if data, err := os.ReadFile(filepath.Join(fixtureRoot, name, "00000000000000000000.log")); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("MKB1"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		frames, valid, reason := record.Scan(data, record.DefaultMaxBatchBytes)
		sc := &frameScanner{r: bufio.NewReaderSize(bytes.NewReader(data), 16), size: int64(len(data)), next: -1}
		var got []Frame
		for {
			fr, ok := sc.scan()
			if !ok {
				break
			}
			fr.Bytes = append([]byte(nil), fr.Bytes...)
			got = append(got, fr)
		}
		if sc.err != nil {
			t.Fatalf("read error on a byte slice: %v", sc.err)
		}
		if len(got) != len(frames) {
			t.Fatalf("%d frames, Scan found %d", len(got), len(frames))
		}
		for i, fr := range got {
			if fr.Position != frames[i].Position || fr.Meta != frames[i].Meta {
				t.Fatalf("frame %d: %+v, Scan: %+v", i, fr, frames[i])
			}
		}
		switch {
		case reason == nil && sc.invalid != nil:
			t.Fatalf("a damaged tail Scan does not see: %+v", sc.invalid)
		case reason != nil && sc.invalid == nil:
			t.Fatalf("Scan stops at %d (%v), the scanner does not", valid, reason)
		case reason != nil:
			want := Invalid{Position: int64(valid), Bytes: int64(len(data) - valid), Reason: kerr.MessageOf(reason)}
			if got := *sc.invalid; got.Position != want.Position || got.Bytes != want.Bytes || got.Reason != want.Reason {
				t.Fatalf("tail %+v, Scan %+v", *sc.invalid, want)
			}
		}
	})
}
