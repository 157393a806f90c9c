package storage

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// The shutdown state comes back after a clean close, and only when the log
// is exactly as it was when the state was set.
func TestShutdownStateRoundTrip(t *testing.T) {
	mem := vfs.NewMem()
	o := opts(1<<20, 4096)
	o.FS = mem
	open := func() *Log {
		t.Helper()
		l, _, err := Open("/log", o, 0)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	l := open()
	if _, _, err := l.Append(values(0, "a")); err != nil {
		t.Fatal(err)
	}
	l.SetShutdownState([]byte("state-1"))
	l.Close()
	l = open()
	if got := l.TakeShutdownState(); string(got) != "state-1" {
		t.Fatalf("state %q after a clean close", got)
	}
	if got := l.TakeShutdownState(); got != nil {
		t.Fatalf("state %q taken twice", got)
	}
	// Set, then appended to: stale, not written.
	l.SetShutdownState([]byte("stale"))
	if _, _, err := l.Append(values(0, "b")); err != nil {
		t.Fatal(err)
	}
	l.Close()
	l = open()
	if got := l.TakeShutdownState(); got != nil {
		t.Fatalf("stale state %q came back", got)
	}
	// A crash writes no marker, so no state.
	l.SetShutdownState([]byte("crashed"))
	l.Crash(true)
	l = open()
	if got := l.TakeShutdownState(); got != nil {
		t.Fatalf("state %q after a crash", got)
	}
	// Deliberate damage: the next open must read the log.
	l.SetShutdownState([]byte("damaged"))
	before := l.Rewrites()
	if _, err := l.Corrupt(-1, Flip, 1); err != nil {
		t.Fatal(err)
	}
	if l.Rewrites() == before {
		t.Fatal("Corrupt did not count as a rewrite")
	}
	l.SetShutdownState([]byte("damaged"))
	l.Close()
	l, _, _ = Open("/log", o, 0)
	if l != nil {
		if got := l.TakeShutdownState(); got != nil {
			t.Fatalf("state %q after Corrupt", got)
		}
		l.Crash(true)
	}
}

// A marker written before version 2 (no shutdown state) is still trusted.
func TestMarkerVersion1StillOpensClean(t *testing.T) {
	dir := t.TempDir()
	o := opts(1<<20, 4096)
	l, _, err := Open(dir, o, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.Append(values(0, "a", "b")); err != nil {
		t.Fatal(err)
	}
	m := l.marker()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	v1 := encodeMarkerV1(m)
	if err := os.WriteFile(filepath.Join(dir, MarkerFileName), v1, 0o644); err != nil {
		t.Fatal(err)
	}
	l, rep, err := Open(dir, o, 0)
	if err != nil || !rep.CleanShutdown || l.LEO() != 2 || l.TakeShutdownState() != nil {
		t.Fatalf("open: %v %+v", err, rep)
	}
	l.Close()
}

// encodeMarkerV2 is the marker as version 2 wrote it: no CRC of the
// active index.
func encodeMarkerV2(m marker) []byte {
	b := appendMarkerSegments(nil, 2, m)
	b = binary.BigEndian.AppendUint32(b, uint32(len(m.state)))
	b = append(b, m.state...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// encodeMarkerV1 is the marker as version 1 wrote it.
func encodeMarkerV1(m marker) []byte {
	b := appendMarkerSegments(nil, 1, m)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// FuzzMarkerDecode: any bytes decode without panicking; what decodes
// encodes back to the same bytes (version 3).
func FuzzMarkerDecode(f *testing.F) {
	seg := markerSegment{base: 0, next: 3, size: 243, maxTs: 7, maxEpoch: 1, indexEntries: 1}
	f.Add(encodeMarker(marker{maxEpoch: 1, segs: []markerSegment{seg}}))
	f.Add(encodeMarker(marker{maxEpoch: 1, segs: []markerSegment{seg}, state: []byte("producer state")}))
	f.Add(encodeMarkerV1(marker{maxEpoch: -1}))
	f.Add(encodeMarkerV2(marker{maxEpoch: 1, segs: []markerSegment{seg}, state: []byte("producer state")}))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeMarker(b)
		if err != nil || binary.BigEndian.Uint16(b[4:]) != markerVersion {
			return
		}
		if again := encodeMarker(m); !bytes.Equal(again, b) {
			t.Fatalf("re-encoded %x, want %x", again, b)
		}
	})
}
