package group

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/minikafka-lab/minikafka/engine/pyjson"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// offsetsFileVersion is the only version of offsets.json.
const offsetsFileVersion = 1

// encodeOffsets renders offsets.json exactly as §11.6: compact JSON with
// sorted keys, groups sorted by id, each group's entries sorted by (topic,
// partition):
//
//	{"groups":{"g":[{"offset":5,"partition":0,"topic":"orders"}]},"version":1}
func encodeOffsets(groups map[string]Offsets) []byte {
	b := []byte(`{"groups":{`)
	for i, g := range slices.Sorted(maps.Keys(groups)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = pyjson.AppendString(b, g)
		b = append(b, ':', '[')
		offs := groups[g]
		for j, tp := range sortedPartitions(offs) {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"offset":`...)
			b = strconv.AppendInt(b, offs[tp], 10)
			b = append(b, `,"partition":`...)
			b = strconv.AppendInt(b, int64(tp.Partition), 10)
			b = append(b, `,"topic":`...)
			b = pyjson.AppendString(b, tp.Topic)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `},"version":`...)
	b = strconv.AppendInt(b, offsetsFileVersion, 10)
	return append(b, '}')
}

type offsetsFile struct {
	Groups  *map[string]*[]offsetEntry `json:"groups"`
	Version *int                       `json:"version"`
}

type offsetEntry struct {
	Offset    *int64  `json:"offset"`
	Partition *int32  `json:"partition"`
	Topic     *string `json:"topic"`
}

// decodeOffsets parses offsets.json. Every key must be present with the
// right type, the version must be 1, offsets and partitions non-negative and
// topics non-empty; anything after the object is an error. Unknown extra keys
// are ignored. A repeated (topic, partition) in one group keeps the last.
func decodeOffsets(data []byte) (map[string]Offsets, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var f offsetsFile
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data[dec.InputOffset():])) != 0 {
		return nil, errors.New("trailing data after the JSON object")
	}
	if f.Groups == nil || f.Version == nil {
		return nil, errors.New(`missing key "groups" or "version"`)
	}
	if *f.Version != offsetsFileVersion {
		return nil, fmt.Errorf("unsupported version %d", *f.Version)
	}
	out := make(map[string]Offsets, len(*f.Groups))
	for g, entries := range *f.Groups {
		if g == "" || entries == nil {
			return nil, errors.New("empty group id or null entry list")
		}
		offs := Offsets{}
		for _, e := range *entries {
			if e.Offset == nil || e.Partition == nil || e.Topic == nil {
				return nil, fmt.Errorf("group %q: entry without offset, partition or topic", g)
			}
			if *e.Offset < 0 || *e.Partition < 0 || *e.Topic == "" {
				return nil, fmt.Errorf("group %q: invalid entry", g)
			}
			offs[topic.Partition{Topic: *e.Topic, Partition: *e.Partition}] = *e.Offset
		}
		out[g] = offs
	}
	return out, nil
}
