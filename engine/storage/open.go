package storage

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// RecoveryReport says what Open found and repaired.
type RecoveryReport struct {
	Dir            string
	CleanShutdown  bool        // a marker was found and trusted
	Segments       int         // segments opened
	Scanned        int         // segments whose bytes were scanned
	IndexesRebuilt int         // index files rewritten (missing or stale)
	Truncation     *Truncation // set when the active tail was repaired
	// MarkerIgnored says why a clean-shutdown marker that was present was
	// not trusted (empty when there was none, or it was trusted).
	MarkerIgnored string
}

// Truncation describes the repair of a damaged active segment tail.
type Truncation struct {
	Segment      string // file name, e.g. 00000000000000000002.log
	Position     int64  // byte position of the first invalid byte (new file size)
	BytesDropped int64
	BatchesKept  int    // valid batches kept in that segment
	Reason       string // e.g. "batch CRC mismatch"
}

// String renders the report in one line for people, e.g.
// "3 segments, 3 scanned, 1 index rebuilt; truncated 00000000000000000002.log
// at byte 81: dropped 16 bytes, kept 1 batch (batch CRC mismatch)".
func (r RecoveryReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s, %d scanned, %d %s rebuilt", r.Segments, plural(r.Segments, "segment", "segments"), r.Scanned, r.IndexesRebuilt, plural(r.IndexesRebuilt, "index", "indexes"))
	if r.CleanShutdown {
		b.WriteString(", clean shutdown")
	} else if r.MarkerIgnored != "" {
		fmt.Fprintf(&b, ", clean-shutdown marker ignored (%s)", r.MarkerIgnored)
	}
	if t := r.Truncation; t != nil {
		fmt.Fprintf(&b, "; truncated %s at byte %d: dropped %d %s, kept %d %s (%s)",
			t.Segment, t.Position, t.BytesDropped, plural(int(t.BytesDropped), "byte", "bytes"),
			t.BatchesKept, plural(t.BatchesKept, "batch", "batches"), t.Reason)
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Open opens or creates the partition log in dir, on opts.FS (the real file
// system by default), and runs recovery (§6.5.1, §6.6).
//
// Without a trusted clean-shutdown marker every segment is scanned: damage in
// a closed segment is STORAGE_ERROR "corrupt closed segment {path}: {reason}",
// damage in the active segment is truncated away after the last valid frame
// and reported in RecoveryReport.Truncation, and every index is rebuilt from
// the frames (rewritten only when the file differs). With a valid marker it
// does not rescan closed segments and reuses their index files (validated);
// the active segment is still scanned. It always consumes (deletes) the
// marker. The leader epoch becomes max(leaderEpoch, every stored batch's
// epoch).
func Open(dir string, opts Options, leaderEpoch int32) (*Log, RecoveryReport, error) {
	return OpenWith(dir, opts, leaderEpoch, nil)
}

// OpenWith is Open with the clean-shutdown markers of the log's parent
// directory (TakeDirMarkers, written by ShutdownAll): when the log
// directory has no marker of its own, the log's entry there is its marker.
// The entry is taken in any case: each is used once. Nil markers: Open.
func OpenWith(dir string, opts Options, leaderEpoch int32, markers *DirMarkers) (*Log, RecoveryReport, error) {
	rep := RecoveryReport{Dir: dir}
	opts, err := opts.normalize()
	if err != nil {
		return nil, rep, err
	}
	fsys := opts.FS
	// Listed first: an existing directory (every open but the first) costs
	// no separate stat.
	bases, names, err := listSegments(fsys, dir)
	if vfs.IsNotExist(err) {
		if err := vfs.MkdirAllSynced(fsys, dir, 0o755); err != nil {
			return nil, rep, storageErr(err, "create log directory")
		}
		bases, names, err = listSegments(fsys, dir)
	}
	if err != nil {
		return nil, rep, err
	}
	mk, problem, removed, err := consumeMarker(fsys, dir, names)
	if err != nil {
		return nil, rep, err
	}
	// The parent directory's entry is taken in any case (used once); the
	// log's own marker, from a Close of this log alone, comes first.
	if dmk, dproblem := markers.take(dir); mk == nil && problem == "" {
		mk, problem = dmk, dproblem
	}
	rep.MarkerIgnored = problem
	l := &Log{dir: dir, opts: opts, epoch: leaderEpoch, dirDirty: removed}
	defer func() {
		if l.segs == nil && removed {
			l.syncDir(dir) // a failed open still consumes the marker durably
		}
	}()
	if len(bases) == 0 {
		s, err := createSegment(fsys, dir, 0)
		if err != nil {
			return nil, rep, err
		}
		if err := l.syncDir(dir); err != nil {
			s.remove()
			return nil, rep, err
		}
		s.durable = true
		l.segs = []*segment{s}
		l.dirDirty = false
		rep.Segments = 1
		return l, rep, nil
	}
	if mk != nil {
		if why := l.adoptMarker(*mk, bases, &rep); why != "" {
			rep.MarkerIgnored = why
			l.closeFiles()
			l.segs = nil
		} else {
			rep.CleanShutdown = true
			l.opened = mk.state
		}
	}
	if !rep.CleanShutdown {
		rep.Scanned, rep.IndexesRebuilt, rep.Truncation = 0, 0, nil
		for i, base := range bases {
			s, err := l.recoverSegment(base, i == len(bases)-1, &rep, nil)
			if err != nil {
				l.closeFiles()
				l.segs = nil
				return nil, rep, err
			}
			l.segs = append(l.segs, s)
			if i > 0 && s.base < l.segs[i-1].next {
				err := kerr.New(kerr.StorageError, "segment base offsets are not contiguous: %s starts at %d, below the previous segment's next offset %d", SegmentFileName(s.base), s.base, l.segs[i-1].next)
				l.closeFiles()
				l.segs = nil
				return nil, rep, err
			}
		}
		if err := l.checkGaps(); err != nil {
			l.closeFiles()
			l.segs = nil
			return nil, rep, err
		}
	}
	rep.Segments = len(l.segs)
	for _, s := range l.segs {
		l.epoch = max(l.epoch, s.maxEpoch)
	}
	return l, rep, nil
}

// listSegments returns the sorted base offsets of the *.log files in dir,
// and the names of the other entries (the marker, say), and deletes index
// files without a log (derived data of a deleted segment).
func listSegments(fsys vfs.FS, dir string) ([]int64, map[string]bool, error) {
	entries, err := fsys.ReadDir(dir)
	if err != nil {
		return nil, nil, storageErr(err, "list log directory")
	}
	names := map[string]bool{}
	var bases []int64
	logs := map[int64]bool{}
	var indexes []string
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasSuffix(name, LogFileSuffix):
			base, ok := ParseSegmentFileName(name)
			if !ok {
				return nil, nil, kerr.New(kerr.StorageError, "invalid segment filename %s", name)
			}
			if !e.Type().IsRegular() {
				return nil, nil, kerr.New(kerr.StorageError, "segment %s in %s is not a regular file", name, dir)
			}
			bases = append(bases, base)
			logs[base] = true
		case strings.HasSuffix(name, IndexFileSuffix):
			if !e.Type().IsRegular() {
				return nil, nil, kerr.New(kerr.StorageError, "index %s in %s is not a regular file", name, dir)
			}
			indexes = append(indexes, name)
		default:
			names[name] = true
		}
	}
	for _, name := range indexes {
		if base, ok := ParseSegmentFileName(name); !ok || !logs[base] {
			fsys.Remove(filepath.Join(dir, name))
		}
	}
	sort.Slice(bases, func(i, j int) bool { return bases[i] < bases[j] })
	return bases, names, nil
}

// closedActive is what a trusted clean-shutdown marker says of the active
// segment: its log file's size and its index file's entries and CRC.
type closedActive struct {
	size      int64
	entries   uint32
	indexCRC  uint32
	knowIndex bool // the marker recorded indexCRC (version 3)
}

// errSizeChanged is recoverSegment's answer when the active segment's log
// file does not have the size the marker recorded.
var errSizeChanged = errors.New("size changed")

// recoverSegment opens a segment by scanning it (§6.6). With closed (the
// active segment of a trusted marker) a log file of another size is
// errSizeChanged, and the index file is not read when the scan gives the
// entries the marker recorded and the file has their size.
func (l *Log) recoverSegment(base int64, active bool, rep *RecoveryReport, closed *closedActive) (*segment, error) {
	s := newSegment(l.opts.FS, l.dir, base)
	f, err := l.opts.FS.OpenFile(s.logPath, os.O_RDWR, 0)
	switch {
	case err == nil:
	case vfs.IsNotExist(err):
		return nil, storageErr(err, "missing segment log %s", s.logPath)
	case vfs.IsReadOnly(err):
		return nil, storageErr(err, "segment log %s cannot be opened for writing (a read-only file system, or no permission): recovery and appends write to it", s.logPath)
	default:
		return nil, storageErr(err, "open segment log %s", s.logPath)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, storageErr(err, "stat segment")
	}
	size := st.Size()
	if closed != nil && size != closed.size {
		f.Close()
		return nil, errSizeChanged
	}
	res, buf, err := scanSegment(f, base, size, l.opts.IndexIntervalBytes, l.opts.MaxBatchBytes, l.scanBuf)
	l.scanBuf = buf
	rep.Scanned++
	if err != nil {
		f.Close()
		return nil, err
	}
	if res.reason != nil {
		if !active {
			f.Close()
			return nil, kerr.New(kerr.StorageError, "corrupt closed segment %s: %s", s.logPath, kerr.MessageOf(res.reason))
		}
		if err := f.Truncate(res.valid); err != nil {
			f.Close()
			return nil, storageErr(err, "truncate damaged tail of %s", s.logPath)
		}
		rep.Truncation = &Truncation{
			Segment:      SegmentFileName(base),
			Position:     res.valid,
			BytesDropped: size - res.valid,
			BatchesKept:  res.batches,
			Reason:       kerr.MessageOf(res.reason),
		}
	}
	s.size, s.synced, s.hinted, s.durable = res.valid, res.valid, res.valid, true
	s.next, s.maxTs, s.maxEpoch = res.next, res.maxTs, res.maxEpoch
	s.index.entries = res.entries
	if closed.indexUnchanged(s) {
		s.indexWritten = len(s.index.entries)
	} else {
		rebuilt, err := reconcileIndex(s)
		if err != nil {
			f.Close()
			return nil, err
		}
		if rebuilt {
			rep.IndexesRebuilt++
		}
	}
	if active {
		s.f = f
	} else {
		f.Close()
	}
	return s, nil
}

// indexUnchanged says the index file of s (the active segment, just
// scanned) is the one the clean shutdown recorded: the scan gave the
// recorded number of entries with the recorded CRC, and the file has
// their size (a deleted or cut file is rewritten as before). Reading the
// file would compare the same bytes: a clean open skips it, as it takes
// the closed segments' log files at their recorded sizes. A crash has no
// marker, so its open always compares (reconcileIndex).
func (c *closedActive) indexUnchanged(s *segment) bool {
	if c == nil || !c.knowIndex || int(c.entries) != len(s.index.entries) || indexCRC(s.base, s.index.entries) != c.indexCRC {
		return false
	}
	st, err := s.fsys.Stat(s.indexPath)
	return err == nil && st.Mode().IsRegular() && st.Size() == int64(len(s.index.entries))*IndexEntrySize
}

// reconcileIndex makes the index file hold exactly the in-memory entries,
// rewriting it only when it differs, and reports whether it rewrote it.
func reconcileIndex(s *segment) (bool, error) {
	want := encodeIndex(nil, s.base, s.index.entries)
	have, err := s.fsys.ReadFile(s.indexPath)
	s.indexWritten = len(s.index.entries)
	if err == nil && bytes.Equal(have, want) {
		return false, nil
	}
	if len(want) == 0 && errors.Is(err, fs.ErrNotExist) {
		// An empty segment whose index file was never written: nothing to
		// rebuild; the file comes with the next flush.
		s.indexWritten = -1
		return false, nil
	}
	return true, writeIndexFile(s.fsys, s.indexPath, s.base, s.index.entries)
}

// adoptMarker builds the segments from a clean-shutdown marker: closed
// segments are taken as recorded (sizes checked, index files validated),
// the active one is scanned. It returns why the marker cannot be trusted,
// or "" when it was adopted.
func (l *Log) adoptMarker(mk marker, bases []int64, rep *RecoveryReport) string {
	if len(mk.segs) != len(bases) {
		return fmt.Sprintf("it lists %d %s, the directory has %d", len(mk.segs), plural(len(mk.segs), "segment", "segments"), len(bases))
	}
	for i, ms := range mk.segs {
		if ms.base != bases[i] {
			return fmt.Sprintf("it lists segment %d, the directory has %d", ms.base, bases[i])
		}
		if i > 0 && ms.base < mk.segs[i-1].next {
			return "its segments are not contiguous"
		}
	}
	changed := func(ms markerSegment) string {
		return fmt.Sprintf("%s changed size since the clean shutdown", SegmentFileName(ms.base))
	}
	for i, ms := range mk.segs {
		if i == len(mk.segs)-1 {
			// Its size is checked on the file the scan opens.
			as, err := l.recoverSegment(ms.base, true, rep, &closedActive{
				size: ms.size, entries: ms.indexEntries,
				indexCRC: mk.activeIndexCRC, knowIndex: mk.hasActiveIndexCRC,
			})
			if errors.Is(err, errSizeChanged) {
				return changed(ms)
			}
			if err != nil {
				return err.Error()
			}
			l.segs = append(l.segs, as)
			continue
		}
		s := newSegment(l.opts.FS, l.dir, ms.base)
		st, err := l.opts.FS.Stat(s.logPath)
		if err != nil || st.Size() != ms.size {
			return changed(ms)
		}
		entries, err := readIndexFile(l.opts.FS, s.indexPath, ms.base)
		if err != nil || len(entries) != int(ms.indexEntries) {
			return fmt.Sprintf("the index of %s does not match it", SegmentFileName(ms.base))
		}
		if ms.next < ms.base || (ms.size == 0) != (ms.next == ms.base) {
			return fmt.Sprintf("its record of %s is inconsistent", SegmentFileName(ms.base))
		}
		s.size, s.synced, s.hinted, s.durable = ms.size, ms.size, ms.size, true
		s.next, s.maxTs, s.maxEpoch = ms.next, ms.maxTs, ms.maxEpoch
		s.index.entries = entries
		s.indexWritten = len(entries)
		l.segs = append(l.segs, s)
	}
	l.epoch = max(l.epoch, mk.maxEpoch)
	return ""
}

// closeFiles closes every open segment file.
func (l *Log) closeFiles() {
	for _, s := range l.segs {
		s.closeFile()
	}
}
