package dumplog

import (
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
// name (20 digits, .log).
func ReadSegmentFile(path string) (Segment, error) {
	base, err := checkFile(path, storage.LogFileSuffix)
	if err != nil {
		return Segment{}, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Segment{}, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	scanned, valid, reason := record.Scan(data, record.DefaultMaxBatchBytes)
	seg := Segment{Name: path, BaseOffset: base, Frames: make([]Frame, len(scanned))}
	for i, s := range scanned {
		seg.Frames[i] = Frame{Position: s.Position, Bytes: data[s.Position : s.Position+int64(s.Size)], Meta: s.Meta}
	}
	if reason != nil {
		seg.Invalid = &Invalid{Position: int64(valid), Bytes: int64(len(data) - valid), Reason: kerr.MessageOf(reason), Data: data[valid:]}
	}
	return seg, nil
}

// DumpFile writes the dump of a .log file (batches, and records when
// records is set) or of a .index file (its entries) in the given format.
// Missing files, directories and other file names are errors that say so.
func DumpFile(w io.Writer, path string, format Format, records bool) error {
	if strings.HasSuffix(path, storage.IndexFileSuffix) {
		return dumpIndex(w, path, format)
	}
	seg, err := ReadSegmentFile(path)
	if err != nil {
		return err
	}
	switch format {
	case FormatJSON:
		return JSON(w, seg, records)
	case FormatKafka:
		return KafkaText(w, seg, records)
	}
	return Text(w, seg, records)
}

// dumpIndex writes an index file's entries: `offset: O position: P` lines
// after a `Dumping FILE` line, or one JSON object per entry.
func dumpIndex(w io.Writer, path string, format Format) error {
	base, err := checkFile(path, storage.IndexFileSuffix)
	if err != nil {
		return err
	}
	entries, err := storage.ReadIndexFile(path, base)
	if err != nil {
		return fmt.Errorf("%s: %s", path, kerr.MessageOf(err))
	}
	ew := &errWriter{w: w}
	if format == FormatJSON {
		enc := json.NewEncoder(w)
		for _, e := range entries {
			if err := enc.Encode(map[string]int64{"offset": e.Offset, "position": e.Position}); err != nil {
				return err
			}
		}
		return nil
	}
	ew.printf("Dumping %s\n", path)
	for _, e := range entries {
		ew.printf("offset: %d position: %d\n", e.Offset, e.Position)
	}
	return ew.err
}

// checkFile rejects what cannot be dumped, with a message for people, and
// returns the base offset from the file name.
func checkFile(path, suffix string) (int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	if st.IsDir() {
		return 0, fmt.Errorf("%s is a directory, not a segment file", path)
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
