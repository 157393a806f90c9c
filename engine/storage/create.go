package storage

import (
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// CreateAll creates an empty log in each of dirs, which must not exist yet,
// as Open creates one in a missing directory, but makes the new
// directories and segment files durable together: one vfs.SyncAll of
// every directory to fsync (each parent of a created directory and each
// log directory once, in creation order) instead of two fsyncs or more per
// log. On any failure the logs created so far are closed (their
// directories stay: the caller removes what it created) and the error is
// returned.
func CreateAll(dirs []string, opts Options) ([]*Log, error) {
	opts, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	fsys := opts.FS
	logs := make([]*Log, 0, len(dirs))
	fail := func(err error) ([]*Log, error) {
		for _, l := range logs {
			l.Crash(true)
		}
		return nil, err
	}
	var set vfs.SyncSet
	seen := map[string]bool{}
	for _, dir := range dirs {
		if _, err := fsys.Stat(dir); err == nil {
			return fail(kerr.State("log directory %s exists already", dir))
		}
		parents, err := vfs.MkdirAllUnsynced(fsys, dir, 0o755)
		if err != nil {
			return fail(storageErr(err, "create log directory"))
		}
		for _, p := range append(parents, dir) {
			if !seen[p] {
				seen[p] = true
				set.Dirs = append(set.Dirs, p)
			}
		}
		s, err := createSegment(fsys, dir, 0)
		if err != nil {
			return fail(err)
		}
		logs = append(logs, &Log{dir: dir, opts: opts, segs: []*segment{s}})
	}
	if err := vfs.SyncAll(fsys, []vfs.SyncSet{set})[0]; err != nil {
		return fail(storageErr(err, "fsync directory"))
	}
	for _, l := range logs {
		l.markDurable()
	}
	return logs, nil
}
