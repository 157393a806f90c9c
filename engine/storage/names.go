package storage

import (
	"fmt"
	"path/filepath"
	"strings"
)

// File name extensions of a segment's two files.
const (
	LogFileSuffix   = ".log"
	IndexFileSuffix = ".index"
)

// SegmentFileName is the log file name of the segment with this base offset:
// the base as a 20-digit zero-padded decimal, then ".log"
// (base 2 → "00000000000000000002.log").
func SegmentFileName(base int64) string { return fmt.Sprintf("%020d%s", base, LogFileSuffix) }

// IndexFileName is the index file name of the segment with this base offset.
func IndexFileName(base int64) string { return fmt.Sprintf("%020d%s", base, IndexFileSuffix) }

// ParseSegmentFileName returns the base offset encoded in a segment log or
// index file name (the base name only, or a path). It accepts exactly the
// names SegmentFileName and IndexFileName produce: 20 decimal digits and the
// suffix.
func ParseSegmentFileName(name string) (base int64, ok bool) {
	name = filepath.Base(name)
	stem, found := strings.CutSuffix(name, LogFileSuffix)
	if !found {
		stem, found = strings.CutSuffix(name, IndexFileSuffix)
	}
	if !found || len(stem) != 20 {
		return 0, false
	}
	var v int64
	for _, c := range []byte(stem) {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := int64(c - '0')
		if v > (1<<63-1-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}
