package group

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strconv"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/pyjson"
	"github.com/minikafka-lab/minikafka/engine/topic"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// GroupsFileName is the coordinator's membership file in the data directory.
// It is MiniKafka-Go's addition to the spec's layout (§4), so that a crash
// leaves members in their groups until their sessions expire (decision 26).
const GroupsFileName = "groups.json"

// encodeGroups renders groups.json: compact JSON with sorted keys, groups
// and members sorted by id, assignments sorted by topic then partition:
//
//	{"groups":{"workers":{"assignment":{"member-1":[["orders",0]]},"generation":1,"members":{"member-1":["orders"]}}},"version":1}
func encodeGroups(groups map[string]*groupState) []byte {
	b := []byte(`{"groups":{`)
	for i, id := range slices.Sorted(maps.Keys(groups)) {
		g := groups[id]
		if i > 0 {
			b = append(b, ',')
		}
		b = pyjson.AppendString(b, id)
		b = append(b, `:{"assignment":{`...)
		for j, m := range slices.Sorted(maps.Keys(g.members)) {
			if j > 0 {
				b = append(b, ',')
			}
			b = pyjson.AppendString(b, m)
			b = append(b, ':', '[')
			for k, tp := range g.assignment[m] {
				if k > 0 {
					b = append(b, ',')
				}
				b = append(b, '[')
				b = pyjson.AppendString(b, tp.Topic)
				b = append(b, ',')
				b = strconv.AppendInt(b, int64(tp.Partition), 10)
				b = append(b, ']')
			}
			b = append(b, ']')
		}
		b = append(b, '}')
		if g.clientAssigned {
			b = append(b, `,"client_assigned":true`...)
		}
		b = append(b, `,"generation":`...)
		b = strconv.AppendInt(b, int64(g.generation), 10)
		b = append(b, `,"members":{`...)
		for j, m := range slices.Sorted(maps.Keys(g.members)) {
			if j > 0 {
				b = append(b, ',')
			}
			b = pyjson.AppendString(b, m)
			b = append(b, ':', '[')
			for k, t := range g.members[m].subscriptions {
				if k > 0 {
					b = append(b, ',')
				}
				b = pyjson.AppendString(b, t)
			}
			b = append(b, ']')
		}
		b = append(b, '}', '}')
	}
	return append(b, `},"version":1}`...)
}

type groupsFile struct {
	Groups  *map[string]*groupEntry `json:"groups"`
	Version *int                    `json:"version"`
}

type groupEntry struct {
	Assignment *map[string][][]json.RawMessage `json:"assignment"`
	// ClientAssigned is present (true) only for a classic-protocol group.
	ClientAssigned bool                 `json:"client_assigned"`
	Generation     *int32               `json:"generation"`
	Members        *map[string][]string `json:"members"`
}

// loadGroups reads groups.json; every loaded member gets deadline. A missing
// file is no groups.
func loadGroups(fsys vfs.FS, path string, deadline int64) (map[string]*groupState, error) {
	data, err := fsys.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]*groupState{}, nil
	}
	if err != nil {
		return nil, kerr.Wrap(kerr.StorageError, err, "cannot read group file %s", path)
	}
	groups, err := decodeGroups(data, deadline)
	if err != nil {
		return nil, kerr.Wrap(kerr.StorageError, err, "invalid group file %s", path)
	}
	return groups, nil
}

// decodeGroups parses groups.json. Every key must be present; the version is
// 1; generations are non-negative; every assignment belongs to a member and
// names a non-negative partition; a partition is assigned at most once; a
// group with members is STABLE, one without is EMPTY (with no assignment).
func decodeGroups(data []byte, deadline int64) (map[string]*groupState, error) {
	var f groupsFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	if f.Groups == nil || f.Version == nil || *f.Version != 1 {
		return nil, errors.New(`missing "groups" or "version", or a version other than 1`)
	}
	out := make(map[string]*groupState, len(*f.Groups))
	for id, e := range *f.Groups {
		if id == "" || e == nil || e.Assignment == nil || e.Generation == nil || e.Members == nil || *e.Generation < 0 {
			return nil, fmt.Errorf("group %q: missing or invalid field", id)
		}
		g := &groupState{generation: *e.Generation, members: map[string]*member{}, assignment: map[string][]topic.Partition{}, clientAssigned: e.ClientAssigned}
		for m, subs := range *e.Members {
			if m == "" || subs == nil {
				return nil, fmt.Errorf("group %q: invalid member %q", id, m)
			}
			sorted := slices.Clone(subs)
			slices.Sort(sorted)
			g.members[m] = &member{subscriptions: slices.Compact(sorted), deadlineMs: deadline}
		}
		owner := map[topic.Partition]bool{}
		for m, list := range *e.Assignment {
			if g.members[m] == nil {
				return nil, fmt.Errorf("group %q: assignment for unknown member %q", id, m)
			}
			tps := []topic.Partition{}
			for _, raw := range list {
				tp, err := decodePair(raw)
				if err != nil || owner[tp] {
					return nil, fmt.Errorf("group %q: invalid assignment of %q", id, m)
				}
				owner[tp] = true
				tps = append(tps, tp)
			}
			topic.Sort(tps)
			g.assignment[m] = tps
		}
		g.state = Empty
		if len(g.members) > 0 {
			g.state = Stable
		}
		out[id] = g
	}
	return out, nil
}

func decodePair(raw []json.RawMessage) (topic.Partition, error) {
	var name *string
	var part *int32
	if len(raw) != 2 || json.Unmarshal(raw[0], &name) != nil || name == nil || *name == "" ||
		json.Unmarshal(raw[1], &part) != nil || part == nil || *part < 0 {
		return topic.Partition{}, errors.New("invalid topic-partition")
	}
	return topic.Partition{Topic: *name, Partition: *part}, nil
}
