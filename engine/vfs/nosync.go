package vfs

import "io/fs"

// NoSync wraps fsys so that File.Sync and SyncDir do nothing and succeed.
// Everything else is fsys's. It is for benchmarks that measure how much of
// a workload is fsync (-nofsync) and for tests that spare the disk; code
// that keeps its own record of what was synced (the storage page-cache
// model) behaves the same on it. Files opened through it are not OS files,
// so StartWriteback does nothing for them either.
func NoSync(fsys FS) FS { return noSync{fsys} }

type noSync struct{ FS }

func (n noSync) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	f, err := n.FS.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return noSyncFile{f}, nil
}

func (noSync) SyncDir(string) error { return nil }

type noSyncFile struct{ File }

func (noSyncFile) Sync() error { return nil }

// InMemory reports whether fsys keeps its files in memory: a Mem, possibly
// behind NoSync. A temporary directory for such a file system need not
// exist on the disk.
func InMemory(fsys FS) bool {
	switch f := fsys.(type) {
	case *Mem:
		return true
	case noSync:
		return InMemory(f.FS)
	}
	return false
}
