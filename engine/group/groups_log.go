package group

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/pyjson"
	"github.com/minikafka-lab/minikafka/engine/topic"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// GroupsLogName is the coordinator's append-only membership log, next to
// groups.json. A join, a leave or an expiry of a MiniKafka consumer group
// appends one line naming the change (its size does not grow with the
// group), instead of rewriting every group: groups.json is the snapshot,
// the log the changes since. The log is written at every change (the
// operating system keeps it across a process crash, decision 26), made
// durable by the flush cycle, and folded into groups.json (compacted) when
// it outgrows the snapshot, at a graceful close, and whenever a change
// cannot be logged (a classic-protocol group's, or after a failed write).
//
// Each line is compact JSON:
//
//	{"generation":3,"group":"g","member":"m-3","op":"join","partitions":{"orders":4},"topics":["orders"]}
//	{"generation":4,"group":"g","members":["m-1"],"op":"leave","partitions":{"orders":4}}
//
// partitions are the partition counts the rebalance used for the topics
// the group's members subscribe to, so that replaying a line computes the
// assignment the coordinator computed, whatever topics exist later.
const GroupsLogName = "groups.log"

// groupsLogMinCompact is the smallest log that is compacted: below it the
// log is folded into groups.json only at a graceful close.
const groupsLogMinCompact = 64 << 10

// logRecord is one line of the groups log.
type logRecord struct {
	Generation *int32           `json:"generation"`
	Group      *string          `json:"group"`
	Op         *string          `json:"op"`
	Member     string           `json:"member"`
	Members    []string         `json:"members"`
	Topics     []string         `json:"topics"`
	Partitions map[string]int32 `json:"partitions"`
}

// logPath is the groups log of the groups file path.
func logPath(path string) string { return filepath.Join(filepath.Dir(path), GroupsLogName) }

// appendLogRecord renders one line of the log: op "join" with member and
// its topics, op "leave" with the members that left.
func appendLogRecord(b []byte, id string, g *groupState, op string, members []string, topics []string, counts map[string]int32) []byte {
	b = append(b, `{"generation":`...)
	b = strconv.AppendInt(b, int64(g.generation), 10)
	b = append(b, `,"group":`...)
	b = pyjson.AppendString(b, id)
	if op == "join" {
		b = append(b, `,"member":`...)
		b = pyjson.AppendString(b, members[0])
	} else {
		b = append(b, `,"members":`...)
		b = appendStrings(b, members)
	}
	b = append(b, `,"op":`...)
	b = pyjson.AppendString(b, op)
	b = append(b, `,"partitions":{`...)
	for i, t := range slices.Sorted(maps.Keys(counts)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = pyjson.AppendString(b, t)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(counts[t]), 10)
	}
	b = append(b, '}')
	if op == "join" {
		b = append(b, `,"topics":`...)
		b = appendStrings(b, topics)
	}
	return append(b, '}', '\n')
}

func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = pyjson.AppendString(b, s)
	}
	return append(b, ']')
}

// subscribedCounts is the partition counts, in all, of the topics g's
// members subscribe to: what RoundRobin reads.
func subscribedCounts(g *groupState, all map[string]int32) map[string]int32 {
	out := map[string]int32{}
	for _, m := range g.members {
		for _, t := range m.subscriptions {
			if n, ok := all[t]; ok {
				out[t] = n
			}
		}
	}
	return out
}

// replayLog applies the groups log at path to groups (loaded from
// groups.json): each line whose generation is the next of its group's is
// applied; lines at or below the group's generation are already in the
// snapshot (a compaction that wrote groups.json but could not remove the
// log). It stops at the first line that does not parse or does not follow
// (a torn write at a crash) and reports how many bytes it applied or
// skipped, and whether the log had bytes after them.
func replayLog(fsys vfs.FS, path string, groups map[string]*groupState, deadline int64) (good int64, torn bool, err error) {
	data, err := fsys.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, kerr.Wrap(kerr.StorageError, err, "cannot read group log %s", path)
	}
	for len(data) > 0 {
		line, rest, ok := bytes.Cut(data, []byte{'\n'})
		if !ok || applyLogLine(line, groups, deadline) != nil {
			return good, true, nil
		}
		good += int64(len(line) + 1)
		data = rest
	}
	return good, false, nil
}

// applyLogLine applies one line of the log to groups.
func applyLogLine(line []byte, groups map[string]*groupState, deadline int64) error {
	var r logRecord
	if err := json.Unmarshal(line, &r); err != nil {
		return err
	}
	if r.Generation == nil || r.Group == nil || r.Op == nil || *r.Group == "" || r.Partitions == nil {
		return errors.New("missing field")
	}
	g := groups[*r.Group]
	cur := int32(0)
	if g != nil {
		cur = g.generation
	}
	switch {
	case *r.Generation <= cur:
		return nil // in the snapshot already
	case *r.Generation != cur+1:
		return fmt.Errorf("group %q: generation %d after %d", *r.Group, *r.Generation, cur)
	}
	next := &groupState{members: map[string]*member{}, assignment: map[string][]topic.Partition{}}
	if g != nil {
		next = g.clone()
	}
	switch *r.Op {
	case "join":
		if r.Member == "" || r.Topics == nil {
			return errors.New("join without member or topics")
		}
		subs := slices.Clone(r.Topics)
		slices.Sort(subs)
		next.clientAssigned = false
		next.members[r.Member] = &member{subscriptions: slices.Compact(subs), deadlineMs: deadline}
	case "leave":
		if g == nil || len(r.Members) == 0 {
			return errors.New("leave without group or members")
		}
		for _, m := range r.Members {
			if next.members[m] == nil {
				return fmt.Errorf("group %q: %q is not a member", *r.Group, m)
			}
			delete(next.members, m)
		}
	default:
		return fmt.Errorf("unknown op %q", *r.Op)
	}
	rebalanceWith(next, r.Partitions)
	groups[*r.Group] = next
	return nil
}

// logChange makes next the state of group id by appending one line to the
// groups log (op "join" of member with its topics, or "leave" of members),
// compacting when the log has outgrown groups.json. A change the log
// cannot carry — a classic-protocol group's — and every change after a
// failed append are written by compaction instead.
func (c *Coordinator) logChange(id string, next *groupState, op string, members, topics []string, counts map[string]int32) error {
	if c.path == "" {
		c.groups[id] = next
		return nil
	}
	if c.needCompact || next.clientAssigned || c.logBytes >= max(groupsLogMinCompact, 2*c.snapBytes) {
		return c.store(id, next)
	}
	line := appendLogRecord(nil, id, next, op, members, topics, counts)
	if err := appendFile(c.fsys, logPath(c.path), line); err != nil {
		// The log may now end in part of the line: nothing more is
		// appended after it until a compaction removes it.
		c.needCompact = true
		return kerr.Wrap(kerr.StorageError, err, "cannot write group log %s", logPath(c.path))
	}
	c.logBytes += int64(len(line))
	c.logDirty = true
	c.groups[id] = next
	return nil
}

// appendFile appends data to the file at path, creating it.
func appendFile(fsys vfs.FS, path string, data []byte) error {
	f, err := fsys.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	return errors.Join(werr, f.Close())
}

// compactLog folds the log into groups.json: groups (the state after the
// change being stored) is written atomically, then the log is removed.
// A crash between the two leaves a log whose lines the snapshot already
// holds, which replay skips.
func (c *Coordinator) compactLog(groups map[string]*groupState) error {
	data := encodeGroups(groups)
	if err := replaceFile(c.fsys, c.path, data); err != nil {
		return kerr.Wrap(kerr.StorageError, err, "cannot write group file %s", c.path)
	}
	c.snapBytes = int64(len(data))
	if c.logBytes > 0 || c.needCompact {
		if err := c.fsys.Remove(logPath(c.path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			// groups.json holds everything; the old lines are skipped at
			// replay, but a torn one would stop it: keep compacting.
			c.needCompact = true
			return nil
		}
	}
	c.logBytes, c.logDirty, c.needCompact = 0, false, false
	return nil
}

// Flush makes the groups log durable (the flush cycle's step): it is
// synced when anything was appended since the last flush.
func (c *Coordinator) Flush() error {
	if c.path == "" || !c.logDirty {
		return nil
	}
	f, err := c.fsys.OpenFile(logPath(c.path), os.O_WRONLY, 0)
	if err != nil {
		return kerr.Wrap(kerr.StorageError, err, "cannot sync group log %s", logPath(c.path))
	}
	err = errors.Join(f.Sync(), f.Close())
	if err != nil {
		return kerr.Wrap(kerr.StorageError, err, "cannot sync group log %s", logPath(c.path))
	}
	c.logDirty = false
	return nil
}

// Close folds the groups log into groups.json (a graceful close leaves
// the snapshot alone, as before the log existed).
func (c *Coordinator) Close() error {
	if c.path == "" || c.logBytes == 0 && !c.needCompact {
		return nil
	}
	return c.compactLog(c.groups)
}
