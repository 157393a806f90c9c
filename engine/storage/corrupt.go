package storage

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// CorruptMode is a kind of damage Corrupt does to a segment file.
type CorruptMode int

// The damage modes.
const (
	// Garbage appends n bytes after the last byte of the file, like a torn
	// write: the start of a frame header that promises more bytes than
	// follow, then a fixed filler.
	Garbage CorruptMode = iota
	// Truncate cuts n bytes off the end of the file.
	Truncate
	// Flip flips the lowest bit of the byte n bytes before the end.
	Flip
)

// String returns "garbage", "truncate" or "flip".
func (m CorruptMode) String() string {
	switch m {
	case Garbage:
		return "garbage"
	case Truncate:
		return "truncate"
	case Flip:
		return "flip"
	}
	return "unknown"
}

// ParseCorruptMode reads "garbage", "truncate" or "flip".
func ParseCorruptMode(s string) (CorruptMode, error) {
	for _, m := range []CorruptMode{Garbage, Truncate, Flip} {
		if strings.EqualFold(s, m.String()) {
			return m, nil
		}
	}
	return 0, kerr.Argument("corrupt mode must be garbage, truncate or flip, got %q", s)
}

// DefaultCorruptBytes is the n Corrupt uses when given 0: 1 for Flip (the
// last byte), 16 otherwise.
func DefaultCorruptBytes(m CorruptMode) int {
	if m == Flip {
		return 1
	}
	return 16
}

// CorruptReport says what Corrupt changed.
type CorruptReport struct {
	File       string // segment file name, e.g. 00000000000000000000.log
	Path       string
	Mode       CorruptMode
	Position   int64 // first byte changed (or the new end, for Truncate)
	Bytes      int   // bytes appended, cut or flipped (1)
	SizeBefore int64
	SizeAfter  int64
}

// garbagePattern is what Garbage appends (repeated as needed): a frame
// header claiming a 4 KiB payload, then filler.
var garbagePattern = func() []byte {
	p := []byte("MKB1")
	p = binary.BigEndian.AppendUint32(p, 4096)
	p = binary.BigEndian.AppendUint32(p, 0xDEADBEEF)
	return append(p, "torn-write-filler"...)
}()

// Corrupt damages a segment's log file on disk for teaching: segmentBase
// selects the segment (-1 = the active one), n the amount (0 = the
// default: 1 for Flip, 16 otherwise). The damage is real and immediate,
// even while the Log is open; the Log keeps its in-memory view and keeps
// writing at its own positions, so the next Open sees exactly what a disk
// would hold: a truncated or torn active tail is repaired and reported, a
// damaged closed segment stops the open. Reads that meet the damage before
// then fail with CORRUPT_BATCH or STORAGE_ERROR.
func (l *Log) Corrupt(segmentBase int64, mode CorruptMode, n int) (CorruptReport, error) {
	if err := l.usable(); err != nil {
		return CorruptReport{}, err
	}
	l.rewrites++
	l.damaged = true // a close writes no shutdown state: the next open must read the damage
	s, err := l.segmentByBase(segmentBase)
	if err != nil {
		return CorruptReport{}, err
	}
	if n < 0 {
		return CorruptReport{}, kerr.Argument("corrupt bytes cannot be negative, got %d", n)
	}
	if n == 0 {
		n = DefaultCorruptBytes(mode)
	}
	f, err := l.opts.FS.OpenFile(s.logPath, os.O_RDWR, 0)
	if err != nil {
		return CorruptReport{}, storageErr(err, "open segment to corrupt")
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return CorruptReport{}, storageErr(err, "stat segment")
	}
	rep := CorruptReport{File: filepath.Base(s.logPath), Path: s.logPath, Mode: mode, SizeBefore: st.Size()}
	switch mode {
	case Garbage:
		junk := make([]byte, n)
		for i := range junk {
			junk[i] = garbagePattern[i%len(garbagePattern)]
		}
		if _, err := f.WriteAt(junk, st.Size()); err != nil {
			return rep, storageErr(err, "corrupt segment")
		}
		rep.Position, rep.Bytes = st.Size(), n
	case Truncate:
		cut := min(int64(n), st.Size())
		if err := f.Truncate(st.Size() - cut); err != nil {
			return rep, storageErr(err, "corrupt segment")
		}
		rep.Position, rep.Bytes = st.Size()-cut, int(cut)
	case Flip:
		if int64(n) > st.Size() {
			return rep, kerr.Argument("segment %s has %d bytes, cannot flip the byte %d before the end", rep.File, st.Size(), n)
		}
		pos := st.Size() - int64(n)
		var b [1]byte
		if _, err := f.ReadAt(b[:], pos); err != nil {
			return rep, storageErr(err, "corrupt segment")
		}
		b[0] ^= 0x01
		if _, err := f.WriteAt(b[:], pos); err != nil {
			return rep, storageErr(err, "corrupt segment")
		}
		rep.Position, rep.Bytes = pos, 1
	default:
		return rep, kerr.Argument("unknown corrupt mode %d", int(mode))
	}
	st, err = f.Stat()
	if err != nil {
		return rep, storageErr(err, "stat segment")
	}
	rep.SizeAfter = st.Size()
	return rep, nil
}
