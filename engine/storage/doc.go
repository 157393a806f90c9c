// Package storage is a partition replica's log on disk: segment files, the
// sparse offset index, recovery, retention, compaction and deliberate
// damage for teaching (§6 and §7 of the spec, decisions 2 and 9).
//
// A Log is a directory of segments. The last segment is active and takes
// appends; the others are closed and never change except by retention,
// compaction and truncation.
//
// # Files
//
//	<dir>/
//	  00000000000000000000.log     MKB1 frames, back to back (record package)
//	  00000000000000000000.index   sparse offset index of that segment
//	  00000000000000000042.log     next segment: its base offset is 42
//	  00000000000000000042.index
//	  cleanshutdown                only between Close and the next Open
//	<parent>/cleanshutdown.logs    only between ShutdownAll and the next open of its logs
//	  cleaner-offset-checkpoint    once compacted: the first offset Compact did not rewrite
//	<parent>/.<dirname>.compact-<hex>   only during Compact
//	<parent>/.<dirname>.backup-<hex>    only during Compact
//
// A segment is named by its base offset as 20 zero-padded decimal digits.
// Its log file holds whole MKB1 frames with base offsets at or above the
// base, never overlapping; compaction may leave gaps between them. Any
// other *.log name stops Open with STORAGE_ERROR "invalid segment filename".
//
// # Offset index
//
// The index maps some batch base offsets to their byte position in the log
// file. An entry is 12 bytes, big-endian:
//
//	+-------------------------+----------------------------------------+
//	| u32 offset - base (4 B) | u64 byte position in the .log (8 B)    |
//	+-------------------------+----------------------------------------+
//
// Entries grow strictly in both fields. A batch is indexed when the index
// is empty or when it starts index.interval.bytes or more after the last
// indexed batch. A lookup takes the floor entry and reads forward, so a
// read starts at most index.interval.bytes before the batch it needs.
//
// The index is derived data. It is kept in memory and written to its file
// (fsynced) on Flush and Close, and by truncation and compaction; a new
// segment's index file is created by the first of these. A roll fsyncs the
// old segment's log file and writes its index file without an fsync (as
// Kafka trims a rolled segment's index and leaves its flush to a later
// task): the next Flush fsyncs it, or Close with every other changed
// file, so a close creates no index file for a rolled segment and the
// append path pays no second fsync per roll. After a crash, a missing or stale index file is simply
// rebuilt (like Kafka's indexes beyond the recovery point). Open rebuilds every index from the log while
// scanning and rewrites a file only when it differs; after a clean shutdown
// it reuses the closed segments' files, checked by the validating open
// (CORRUPT_INDEX "partial" or "non-monotonic"), and rebuilds nothing.
//
// # Clean-shutdown marker
//
// Close writes the file "cleanshutdown": a temp file, fsynced together with
// the log's changed segment and index files (CloseAll does this for many
// logs at once, vfs.SyncAll), renamed into place, then the directory is
// fsynced. All integers big-endian:
//
//	 0   4  magic "MKCS"
//	 4   2  u16 version (3; Open also reads version 1, which ends after
//	         the segments, and 2, which ends after the state)
//	 6   2  u16 reserved (0)
//	 8   4  i32 max leader epoch over all batches (-1 none)
//	12   4  u32 segment count N
//	16  40×N, one per segment, oldest first:
//	         0  8  i64 base offset
//	         8  8  i64 next offset (base when empty)
//	        16  8  i64 log file size in bytes
//	        24  8  i64 max record timestamp (-1 none)
//	        32  4  i32 max leader epoch (-1 none)
//	        36  4  u32 index entries
//	then  4  u32 length L of the caller's shutdown state (version 2)
//	      L  the state (SetShutdownState; the engine keeps the partition's
//	         producer state and transaction index there), handed back by
//	         TakeShutdownState after an Open that trusted the marker
//	then  4  u32 CRC-32/IEEE of the active segment's index file as Close
//	         left it (version 3)
//	end-4 4  u32 CRC-32/IEEE of every byte before it
//
// Open trusts the marker only if it parses, its CRC matches, it lists
// exactly the segments in the directory, every log file has the recorded
// size and every closed segment's index file passes the validating open
// with the recorded number of entries. Then the closed segments are taken
// from the marker without reading their bytes; the active segment is still
// scanned (it is small, and this catches damage done to it after the
// close). Its index file is not read when the scan gives the entries the
// marker recorded (their count and the file's CRC) and the file has their
// size: it would compare equal (a deleted or cut file is rewritten and
// counted as rebuilt, as before). Anything else means a full scan. Open deletes the marker, so a
// crash after Open forces a full scan next time; the deletion is made
// durable by the log's next directory fsync, which always comes before a
// change to the segments becomes durable.
// Like Kafka after a clean shutdown, a byte flipped in a closed segment
// after Close goes unnoticed until that batch is read (reads check CRCs).
//
// # One clean-shutdown file per directory
//
// ShutdownAll (the engine's Cluster.Close) keeps the markers of all the
// logs it closes in one file per parent directory, "cleanshutdown.logs"
// (a broker's directory; Kafka keeps one .kafka_cleanshutdown per log
// directory), instead of a file per log: after the logs' changed files
// are durable (one vfs.SyncAll) the file is replaced atomically (temp
// file, fsync, rename, directory fsync). All integers big-endian:
//
//	 0   4  magic "MKCD"
//	 4   2  u16 version (1)
//	 6   2  u16 reserved (0)
//	 8   4  u32 entry count N
//	12      N entries, in the order the logs were closed:
//	         2  u16 length K of the log directory's base name
//	         K  the name (e.g. orders-0)
//	         4  u32 length M of the log's marker
//	         M  the marker, exactly as the per-log file above
//	end-4 4  u32 CRC-32/IEEE of every byte before it
//
// TakeDirMarkers reads the file once and deletes it, fsyncing the
// directory at once, so that a crash after the open scans every log; a
// damaged file is ignored (every log scans and says why). OpenWith takes
// the log's entry (each entry is used once) when the log directory has
// no marker of its own, and trusts it exactly as it would trust the
// per-log file. Directories of the per-log layout open as before.
//
// # Recovery
//
// Without a trusted marker, Open scans every segment frame by frame with
// every decoder check (§6.2.4), in large reads and without allocating per
// batch. A damaged closed segment stops the open: STORAGE_ERROR "corrupt
// closed segment {path}: {reason}"; history is never silently dropped. A
// damaged active segment is truncated right after its last valid frame,
// and RecoveryReport.Truncation says where, how many bytes were dropped,
// how many batches were kept and why. Segment bases below the previous
// segment's next offset are STORAGE_ERROR, and so is a gap between two
// segments that no compaction explains (compaction writes the first offset
// it did not rewrite into cleaner-offset-checkpoint; a gap below it is the
// batches it removed, any other is a lost segment file, and recovery never
// opens a log with a hole in it: checkGaps). The leader epoch
// becomes the largest of the epoch passed to Open and every stored batch's.
//
// # Writes and the crash model
//
// Every file access goes through the vfs.FS in Options.FS (vfs.OS by
// default; tests of the log's logic use a vfs.Mem). An append encodes the
// batch once and writes the frame to the active segment's file with one
// positioned write before it returns: the OS is the page cache, and the
// Log keeps only the bookkeeping of how much of each segment is fsynced. A
// follower's AppendRaw writes the validated frame bytes unchanged. Every
// so often (256 KiB) an append asks the OS to start writing the new bytes
// back (vfs.StartWriteback), so the fsync of the next roll or flush has
// less left to do. A write the file system refuses (ENOSPC, EIO) is
// STORAGE_ERROR and leaves the log as if the append never happened: the
// bytes a torn write got in are cut off again, and a segment rolled for the
// frame is deleted. Reads find the segment by binary search, then the
// index floor, then read forward with large preads; Fetch decodes records
// out of a reusable read buffer with one copy per batch. The Log writes at
// the positions it knows, never "at the end of the file", so damage done
// behind its back is overwritten exactly as a disk would overwrite it.
//
// Durability follows a page-cache model. Bytes handed to the OS, which is
// every byte an append acknowledged, survive a process crash (Crash(true),
// or the process dying). Only an fsync makes them survive a machine failure
// (Crash(false)): a segment's flushed length moves on Flush, on a roll (the
// old segment is fsynced), on Close, on TruncateTo, ResetTo and retention,
// and inside Compact. Crash(false) truncates every segment back to its
// flushed length and deletes the segments whose creation was never made
// durable by a directory fsync; index entries beyond the flushed length go
// with them, and an index file written since its last fsync (a rolled
// segment's) is emptied. Bytes found on disk at Open count as flushed. Open creates a
// missing log directory durably (the parent directory is fsynced), so on a
// vfs.Mem, Crash(true) followed by the file system's own Mem.Crash leaves
// the same records as Crash(false).
//
// # Deliberate damage
//
// Corrupt changes a segment file on disk even while the Log is open, as a
// failing disk would: the open Log keeps its in-memory view (sizes, index)
// and keeps writing at its own positions. Reads that meet the damage fail
// with CORRUPT_BATCH or STORAGE_ERROR; the next Open sees exactly the bytes
// a disk would hold and repairs or refuses them as above.
//
// # Concurrency
//
// A Log is not safe for concurrent use. The engine is single-threaded and
// serializes calls per partition; the package starts no goroutines and
// reads no clock (callers pass times in).
package storage
