package storage

import (
	"encoding/binary"
	"hash/crc32"
	"sort"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// IndexEntrySize is the size of one offset-index entry on disk: a u32
// offset relative to the segment base and a u64 byte position, big-endian.
const IndexEntrySize = 12

// IndexEntry is one sparse-index entry with an absolute offset: the batch
// with base offset Offset starts at byte Position of its segment.
type IndexEntry struct {
	Offset   int64
	Position int64
}

// offsetIndex is a segment's sparse offset index held in memory (§6.3). The
// file is derived data: it is written from memory on flush, roll and close,
// and rebuilt from the log when it cannot be trusted.
type offsetIndex struct {
	base    int64
	entries []IndexEntry
}

// append adds an entry. The relative offset must fit in a u32, the position
// must be non-negative, and both must be strictly greater than the previous
// entry's (argument errors, as in the reference).
func (x *offsetIndex) append(offset, position int64) error {
	rel := offset - x.base
	if rel < 0 || rel > 0xFFFFFFFF {
		return kerr.Argument("relative offset %d is outside [0, 4294967295]", rel)
	}
	if position < 0 {
		return kerr.Argument("index position cannot be negative, got %d", position)
	}
	if n := len(x.entries); n > 0 {
		last := x.entries[n-1]
		if offset <= last.Offset || position <= last.Position {
			return kerr.Argument("index entries must be monotonic: (%d, %d) after (%d, %d)", offset, position, last.Offset, last.Position)
		}
	}
	x.entries = append(x.entries, IndexEntry{Offset: offset, Position: position})
	return nil
}

// floor returns the position of the last entry whose offset is <= offset,
// or 0 when there is none.
func (x *offsetIndex) floor(offset int64) int64 {
	i := sort.Search(len(x.entries), func(i int) bool { return x.entries[i].Offset > offset })
	if i == 0 {
		return 0
	}
	return x.entries[i-1].Position
}

// truncateTo keeps only the entries whose offset is < offset. The list's
// capacity is clipped, so the next append moves it: an entry, once
// written, is never written again, which lets copies of the log share the
// list (Log.Clone).
func (x *offsetIndex) truncateTo(offset int64) {
	i := sort.Search(len(x.entries), func(i int) bool { return x.entries[i].Offset >= offset })
	x.entries = x.entries[:i:i]
}

// shouldIndex applies the index rule: a batch at position is indexed when the
// index is empty or position - last indexed position >= interval.
func (x *offsetIndex) shouldIndex(position, interval int64) bool {
	n := len(x.entries)
	return n == 0 || position-x.entries[n-1].Position >= interval
}

// encodeIndex appends the on-disk form of entries (relative to base) to dst.
func encodeIndex(dst []byte, base int64, entries []IndexEntry) []byte {
	for _, e := range entries {
		dst = binary.BigEndian.AppendUint32(dst, uint32(e.Offset-base))
		dst = binary.BigEndian.AppendUint64(dst, uint64(e.Position))
	}
	return dst
}

// indexCRC is the CRC-32/IEEE of the index file holding entries, encoded
// one entry at a time (encodeIndex) without building the file.
func indexCRC(base int64, entries []IndexEntry) uint32 {
	var crc uint32
	var e [IndexEntrySize]byte
	for i := range entries {
		crc = crc32.Update(crc, crc32.IEEETable, encodeIndex(e[:0], base, entries[i:i+1]))
	}
	return crc
}

// parseIndex is the validating open of §6.3: the length must be a multiple
// of 12 (CORRUPT_INDEX "partial index entry in {path}") and entries must be
// strictly increasing in both fields (CORRUPT_INDEX "non-monotonic index
// entries in {path}"). Positions above 2^63-1 are non-monotonic garbage too.
func parseIndex(data []byte, base int64, path string) ([]IndexEntry, error) {
	if len(data)%IndexEntrySize != 0 {
		return nil, kerr.New(kerr.CorruptIndex, "partial index entry in %s", path)
	}
	entries := make([]IndexEntry, 0, len(data)/IndexEntrySize)
	for p := 0; p < len(data); p += IndexEntrySize {
		rel := int64(binary.BigEndian.Uint32(data[p:]))
		pos := binary.BigEndian.Uint64(data[p+4:])
		if pos > 1<<62 || base > 1<<62 {
			return nil, kerr.New(kerr.CorruptIndex, "non-monotonic index entries in %s", path)
		}
		e := IndexEntry{Offset: base + rel, Position: int64(pos)}
		if n := len(entries); n > 0 && (e.Offset <= entries[n-1].Offset || e.Position <= entries[n-1].Position) {
			return nil, kerr.New(kerr.CorruptIndex, "non-monotonic index entries in %s", path)
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// ReadIndexFile opens an index file on the real file system (vfs.OS) with
// validation and returns its entries with absolute offsets. base is the
// segment's base offset (from the file name). A damaged file is
// CORRUPT_INDEX; a missing or unreadable one is STORAGE_ERROR.
func ReadIndexFile(path string, base int64) ([]IndexEntry, error) {
	return readIndexFile(vfs.OS, path, base)
}

func readIndexFile(fsys vfs.FS, path string, base int64) ([]IndexEntry, error) {
	data, err := fsys.ReadFile(path)
	if err != nil {
		return nil, storageErr(err, "read index %s", path)
	}
	return parseIndex(data, base, path)
}

// writeIndexFile replaces the index file with entries (not fsynced: the index
// is derived data).
func writeIndexFile(fsys vfs.FS, path string, base int64, entries []IndexEntry) error {
	if err := vfs.WriteFile(fsys, path, encodeIndex(nil, base, entries), 0o644); err != nil {
		return storageErr(err, "write index %s", path)
	}
	return nil
}

// storageErr wraps an I/O failure as STORAGE_ERROR.
func storageErr(err error, format string, args ...any) error {
	return kerr.Wrap(kerr.StorageError, err, format, args...)
}
