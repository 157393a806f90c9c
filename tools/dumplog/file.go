package dumplog

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/storage"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// Format is an output format: "text" (Kafka's shape), "kafka" (Kafka
// 4.0's lines, KafkaText) or "json".
type Format string

// The output formats.
const (
	FormatText  Format = "text"
	FormatKafka Format = "kafka"
	FormatJSON  Format = "json"
)

// ParseFormat reads "text", "kafka" or "json".
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case FormatText, FormatKafka, FormatJSON:
		return f, nil
	}
	return "", fmt.Errorf("unknown format %q (want text, kafka or json)", s)
}

// ReadSegmentFile reads a segment log file and splits it into valid frames
// and a damaged tail, as recovery would see it. The name printed is path as
// given; the base offset comes from the file name, which must be a segment
// name (20 digits, .log). It holds the whole file; DumpFile streams it.
func ReadSegmentFile(path string) (Segment, error) { return ReadSegment(vfs.OS, path) }

// ReadSegment is ReadSegmentFile on the file system fsys: a cluster's
// (engine.Config.FS), which may be in memory.
func ReadSegment(fsys vfs.FS, path string) (Segment, error) {
	f, sc, base, err := openSegment(fsys, path)
	if err != nil {
		return Segment{}, err
	}
	defer f.Close()
	seg := Segment{Name: path, BaseOffset: base}
	for {
		fr, ok := sc.scan()
		if !ok {
			break
		}
		fr.Bytes = append([]byte(nil), fr.Bytes...)
		seg.Frames = append(seg.Frames, fr)
	}
	if sc.err != nil {
		return Segment{}, fmt.Errorf("%s: %w", path, unwrapPath(sc.err))
	}
	if inv := sc.invalid; inv != nil {
		// KafkaText reads on past a damaged batch by its length field.
		inv.Data = make([]byte, inv.Bytes)
		if _, err := f.ReadAt(inv.Data, inv.Position); err != nil && err != io.EOF {
			return Segment{}, fmt.Errorf("%s: %w", path, unwrapPath(err))
		}
	}
	seg.Invalid = sc.invalid
	return seg, nil
}

// DumpFile writes the dump of a .log file (batches, and records when
// records is set) or of a .index file (its entries) in the given format.
// It reads the file one frame (or one index entry) at a time, so its
// memory does not grow with the file. Missing files, directories, files
// that are not regular (a device, a pipe) and other file names are errors
// that say so.
func DumpFile(w io.Writer, path string, format Format, records bool) error {
	if strings.HasSuffix(path, storage.IndexFileSuffix) {
		return dumpIndex(w, path, format)
	}
	f, sc, base, err := openSegment(vfs.OS, path)
	if err != nil {
		return err
	}
	defer f.Close()
	var d dumper = newTextDumper(w, records)
	switch format {
	case FormatJSON:
		d = newJSONDumper(w, records)
	case FormatKafka:
		d = newKafkaDumper(w, records, f)
	}
	d.header(path, base)
	for {
		fr, ok := sc.scan()
		if !ok {
			break
		}
		if err := d.frame(fr); err != nil {
			return err
		}
	}
	if sc.err != nil {
		return fmt.Errorf("%s: %w", path, unwrapPath(sc.err))
	}
	d.tail(path, sc.invalid)
	return d.err()
}

// openSegment opens a segment file of fsys for scanning.
func openSegment(fsys vfs.FS, path string) (vfs.File, *frameScanner, int64, error) {
	base, err := checkFile(fsys, path, storage.LogFileSuffix)
	if err != nil {
		return nil, nil, 0, err
	}
	f, err := vfs.Open(fsys, path)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, 0, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	return f, &frameScanner{r: bufio.NewReaderSize(f, 64<<10), size: st.Size(), next: -1}, base, nil
}

// frameScanner walks a segment file frame by frame as record.Scan walks a
// buffer (the same checks, the same reasons), holding one frame at a time.
type frameScanner struct {
	r       *bufio.Reader
	size    int64 // the file's size when it was opened
	pos     int64
	next    int64 // the previous batch's next offset, -1 before the first
	buf     []byte
	invalid *Invalid // set when the scan stopped at a damaged frame
	err     error    // a read error (not damage)
}

// scan returns the next valid frame, whose Bytes are valid until the next
// call; false at the end of the file, at the first damaged frame (invalid
// is set) or on a read error (err is set).
func (s *frameScanner) scan() (Frame, bool) {
	if s.invalid != nil || s.err != nil {
		return Frame{}, false
	}
	var header [record.FrameHeaderSize]byte
	n, err := io.ReadFull(s.r, header[:])
	switch {
	case n == 0 && err == io.EOF:
		return Frame{}, false
	case err == io.ErrUnexpectedEOF:
		return s.damaged(record.FrameHeaderSize - 1) // FrameLength's "shorter than frame header"
	case err != nil:
		s.err = err
		return Frame{}, false
	}
	total, ferr := record.FrameLength(header[:], record.DefaultMaxBatchBytes)
	if ferr != nil {
		return s.stop(ferr)
	}
	if cap(s.buf) < total {
		s.buf = make([]byte, total)
	}
	frame := s.buf[:total]
	copy(frame, header[:])
	if _, err := io.ReadFull(s.r, frame[record.FrameHeaderSize:]); err != nil {
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			return s.stop(kerr.New(kerr.CorruptBatch, "batch length does not match frame"))
		}
		s.err = err
		return Frame{}, false
	}
	m, ierr := record.Inspect(frame, record.DefaultMaxBatchBytes)
	if ierr != nil {
		return s.stop(ierr)
	}
	if s.next >= 0 && m.BaseOffset < s.next {
		return s.stop(kerr.New(kerr.CorruptBatch, "segment batch offsets overlap or move backwards"))
	}
	s.next = m.NextOffset()
	fr := Frame{Position: s.pos, Bytes: frame, Meta: m}
	s.pos += int64(total)
	return fr, true
}

// damaged stops at a header cut short: the reason FrameLength gives for it.
func (s *frameScanner) damaged(short int) (Frame, bool) {
	_, err := record.FrameLength(make([]byte, short), record.DefaultMaxBatchBytes)
	return s.stop(err)
}

// stop records the damaged tail that starts at the current frame.
func (s *frameScanner) stop(reason error) (Frame, bool) {
	s.invalid = &Invalid{Position: s.pos, Bytes: max(s.size-s.pos, 0), Reason: kerr.MessageOf(reason)}
	return Frame{}, false
}

// dumpIndex writes an index file's entries: `offset: O position: P` lines
// after a `Dumping FILE` line, or one JSON object per entry. The file is
// read twice, one entry at a time: first to validate it (a damaged index
// prints nothing but the error), then to print it.
func dumpIndex(w io.Writer, path string, format Format) error {
	base, err := checkFile(vfs.OS, path, storage.IndexFileSuffix)
	if err != nil {
		return err
	}
	if err := eachIndexEntry(path, base, func(storage.IndexEntry) error { return nil }); err != nil {
		return err
	}
	if format == FormatJSON {
		enc := json.NewEncoder(w)
		return eachIndexEntry(path, base, func(e storage.IndexEntry) error {
			return enc.Encode(map[string]int64{"offset": e.Offset, "position": e.Position})
		})
	}
	ew := &errWriter{w: w}
	ew.printf("Dumping %s\n", path)
	if err := eachIndexEntry(path, base, func(e storage.IndexEntry) error {
		ew.printf("offset: %d position: %d\n", e.Offset, e.Position)
		return ew.err
	}); err != nil {
		return err
	}
	return ew.err
}

// eachIndexEntry calls fn for each entry of an index file, checking what
// storage.ReadIndexFile checks (whole 12-byte entries, strictly increasing
// offsets and positions) as it goes.
func eachIndexEntry(path string, base int64, fn func(storage.IndexEntry) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	var raw [storage.IndexEntrySize]byte
	prev := storage.IndexEntry{Offset: -1, Position: -1}
	for {
		n, err := io.ReadFull(r, raw[:])
		switch {
		case n == 0 && err == io.EOF:
			return nil
		case err == io.ErrUnexpectedEOF:
			return fmt.Errorf("%s: partial index entry in %s", path, path)
		case err != nil:
			return fmt.Errorf("%s: %w", path, unwrapPath(err))
		}
		rel := int64(binary.BigEndian.Uint32(raw[:4]))
		pos := binary.BigEndian.Uint64(raw[4:])
		e := storage.IndexEntry{Offset: base + rel, Position: int64(pos)}
		if pos > 1<<62 || base > 1<<62 || e.Offset <= prev.Offset || e.Position <= prev.Position {
			return fmt.Errorf("%s: non-monotonic index entries in %s", path, path)
		}
		prev = e
		if err := fn(e); err != nil {
			return err
		}
	}
}

// checkFile rejects what cannot be dumped, with a message for people, and
// returns the base offset from the file name.
func checkFile(fsys vfs.FS, path, suffix string) (int64, error) {
	st, err := fsys.Stat(path)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	if st.IsDir() {
		return 0, fmt.Errorf("%s is a directory, not a segment file", path)
	}
	if !st.Mode().IsRegular() {
		return 0, fmt.Errorf("%s is not a regular file (%s), not a segment file", path, st.Mode().Type())
	}
	name := filepath.Base(path)
	if !strings.HasSuffix(name, storage.LogFileSuffix) && !strings.HasSuffix(name, storage.IndexFileSuffix) {
		return 0, fmt.Errorf("%s is not a segment file: dump-log reads .log and .index files", path)
	}
	base, ok := storage.ParseSegmentFileName(name)
	if !ok || !strings.HasSuffix(name, suffix) {
		return 0, fmt.Errorf("%s is not a segment file name: want the 20-digit base offset, like %s", path, storage.SegmentFileName(0))
	}
	return base, nil
}

// unwrapPath drops the *fs.PathError wrapper (its path is already printed).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
