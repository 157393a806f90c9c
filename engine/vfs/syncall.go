package vfs

import "os"

// SyncSet is what one owner (a partition log, say) needs made durable in
// one step: open files and files named by path are fsynced, then
// directories are.
type SyncSet struct {
	Files []File
	Paths []string
	Dirs  []string
}

func (s SyncSet) size() int { return len(s.Files) + len(s.Paths) + len(s.Dirs) }

// syncEach makes the set durable item by item (files, paths, directories),
// stopping at the first error.
func (s SyncSet) syncEach(fsys FS) error {
	for _, f := range s.Files {
		if err := f.Sync(); err != nil {
			return err
		}
	}
	for _, p := range s.Paths {
		f, err := fsys.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			return err
		}
		err = f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	for _, d := range s.Dirs {
		if err := fsys.SyncDir(d); err != nil {
			return err
		}
	}
	return nil
}

// batchSyncer is implemented by file systems that can make many files
// durable with fewer calls than one fsync each; sync reports false when it
// did nothing and the caller must sync item by item.
type batchSyncer interface {
	syncAll(sets []SyncSet, errs []error) bool
}

// SyncAll makes every set durable and returns one error per set (nil when
// that set is durable). It is the sum of fsyncing each file and directory
// of every set once, in order, a failure stopping its own set only: that
// is what it does on every file system but the real one (Mem, NoSync, any
// wrapper), so tests count its syncs per path.
//
// On the real file system (OS, Linux), when the sets hold at least
// syncfsMinItems items that all live on one file system, it calls
// syncfs(2) once instead: the kernel writes every dirty page and inode of
// that file system and commits its journal once, where one fsync per file
// would commit it once per file (a few milliseconds each on a virtual
// disk). A failure then fails every set. syncfs reports the write-back
// errors its file system recorded since the file it is called on was
// opened (Linux 5.8 and later), the first open file of the sets, else a
// directory opened for the call.
func SyncAll(fsys FS, sets []SyncSet) []error {
	errs := make([]error, len(sets))
	if b, ok := fsys.(batchSyncer); ok && b.syncAll(sets, errs) {
		return errs
	}
	for i, s := range sets {
		errs[i] = s.syncEach(fsys)
	}
	return errs
}

// syncfsMinItems is the number of files and directories from which SyncAll
// calls syncfs(2) rather than fsync per item.
const syncfsMinItems = 8
