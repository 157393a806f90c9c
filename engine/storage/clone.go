package storage

import (
	"path/filepath"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// Clone returns a copy of the log as it stands, for a copy of its files:
// fsys holds, in dir, the same files as the log's directory (a vfs.Mem
// clone, or a directory tree copied with vfs.CopyTree). The copy has the
// same segments, offsets, sizes, flushed and index-written positions,
// leader epoch, compaction count and state (open or closed), and changes
// independently of the log: neither ever sees the other's changes. It
// opens no file: its segments open theirs on fsys at first use, as closed
// segments always do. The scratch buffers (encode, scan and read windows)
// start empty. The log itself is not changed, so several copies of one log
// may be taken at once, from several goroutines.
//
// The index entries are shared, not copied: an entry, once written, is
// never written again (a log appends entries past its own and only ever
// shortens its list by replacing it or by clipping its capacity), and a
// copy's list has no spare capacity, so its first append moves it.
//
// A log with a test's fault hook on Compact cannot be copied faithfully
// (the hook is a closure): ILLEGAL_STATE.
func (l *Log) Clone(fsys vfs.FS, dir string) (*Log, error) {
	var sl Slab
	return sl.Clone(l, fsys, dir)
}

// Slab is memory for the copies of many logs (a whole cluster's): Clone
// carves each copy, its segments and its segment list from a few large
// allocations instead of several small ones per log. Reserve sizes it; it
// grows by itself past a reservation. The zero value is ready to use.
type Slab struct {
	logs []Log
	segs []segment
	ptrs []*segment
}

// Reserve makes room for the copies of logs logs with segments segments
// in all, past what the slab holds already.
func (sl *Slab) Reserve(logs, segments int) {
	if cap(sl.logs)-len(sl.logs) < logs {
		sl.logs = make([]Log, 0, max(logs, 2*cap(sl.logs)))
	}
	if cap(sl.segs)-len(sl.segs) < segments {
		sl.segs = make([]segment, 0, max(segments, 2*cap(sl.segs)))
	}
	if cap(sl.ptrs)-len(sl.ptrs) < segments {
		sl.ptrs = make([]*segment, 0, max(segments, 2*cap(sl.ptrs)))
	}
}

// Clone is Log.Clone with the copy's memory taken from the slab.
func (sl *Slab) Clone(l *Log, fsys vfs.FS, dir string) (*Log, error) {
	if l.faults != nil {
		return nil, kerr.State("log %s has a compaction fault hook: it cannot be copied", l.dir)
	}
	n := len(l.segs)
	sl.Reserve(1, n)
	// A copy by value (a new field of a plain kind comes along by
	// itself), then what must differ: the file system, the directory, the
	// segments, the scratch buffers.
	sl.logs = append(sl.logs, *l)
	cp := &sl.logs[len(sl.logs)-1]
	cp.dir, cp.opts.FS = dir, fsys
	cp.frameBuf, cp.scanBuf, cp.readBuf = nil, nil, nil
	for _, s := range l.segs {
		sl.segs = append(sl.segs, *s)
		c := &sl.segs[len(sl.segs)-1]
		c.fsys, c.f = fsys, nil
		if dir != l.dir {
			c.logPath = filepath.Join(dir, SegmentFileName(s.base))
			c.indexPath = filepath.Join(dir, IndexFileName(s.base))
		}
		c.index.entries = c.index.entries[:len(c.index.entries):len(c.index.entries)]
		sl.ptrs = append(sl.ptrs, c)
	}
	cp.segs = sl.ptrs[len(sl.ptrs)-n : len(sl.ptrs) : len(sl.ptrs)]
	return cp, nil
}

// SegmentCount is the number of segments of the log.
func (l *Log) SegmentCount() int { return len(l.segs) }
