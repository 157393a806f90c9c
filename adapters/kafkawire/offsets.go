package kafkawire

import (
	"fmt"
	"sort"
	"strings"

	"github.com/minikafka-lab/minikafka/engine"
	kafkaerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// listOffsets answers ListOffsets on the partition's leader: -1 (latest)
// is the HW, or the LSO for read_committed; -2 (earliest) the log start;
// a timestamp the engine's OffsetForTimestamp (offset and timestamp -1 when
// no visible record is that recent). v0 answers in its old shape (a list
// of at most one offset).
func (st *state) listOffsets(c *engine.Cluster, cn conn, r *kmsg.ListOffsetsRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.ListOffsetsResponse)
	iso := isolation(r.IsolationLevel)
	var parts []string
	failed := ""
	for _, t := range r.Topics {
		rt := kmsg.NewListOffsetsResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewListOffsetsResponseTopicPartition()
			rp.Partition = p.Partition
			tp := engine.TopicPartition{Topic: t.Topic, Partition: p.Partition}
			rp.ErrorCode = st.listPartitionOffset(c, cn.broker, tp, p, iso, &rp)
			if r.Version == 0 && rp.ErrorCode == 0 && p.MaxNumOffsets > 0 {
				rp.OldStyleOffsets = []int64{rp.Offset}
			}
			if rp.ErrorCode != 0 {
				failed = codeName(rp.ErrorCode)
				parts = append(parts, fmt.Sprintf("%s %s: %s", tp, timestampName(p.Timestamp), failed))
			} else {
				parts = append(parts, fmt.Sprintf("%s %s: %d", tp, timestampName(p.Timestamp), rp.Offset))
			}
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	// A lookup of nothing but log starts is a client placing itself at
	// the beginning (auto.offset.reset): background, not news.
	level := LevelChatter
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			if p.Timestamp != -2 {
				level = LevelData
			}
		}
	}
	if failed != "" {
		level = LevelData
	}
	sort.Strings(parts)
	st.trace(Event{Client: cn.clientID, Broker: cn.broker, API: "ListOffsets", Version: r.Version,
		Result: strings.Join(parts, ", "), Level: level})
	return resp
}

func timestampName(ts int64) string {
	switch ts {
	case -1:
		return "latest"
	case -2:
		return "earliest"
	}
	return fmt.Sprintf("time %d", ts)
}

func (st *state) listPartitionOffset(c *engine.Cluster, broker int32, tp engine.TopicPartition, p kmsg.ListOffsetsRequestTopicPartition, iso engine.Isolation, rp *kmsg.ListOffsetsResponseTopicPartition) int16 {
	m, err := c.PartitionMetadata(tp)
	if err != nil {
		return kafkaCode(err)
	}
	if code := checkLeader(m, broker, p.CurrentLeaderEpoch); code != 0 {
		return code
	}
	rp.LeaderEpoch = m.LeaderEpoch
	rp.Timestamp = -1
	switch p.Timestamp {
	case -1:
		end, err := c.HighWatermark(tp)
		if err == nil && iso == engine.ReadCommitted {
			end, err = c.LastStableOffset(tp)
		}
		if err != nil {
			return kafkaCode(err)
		}
		rp.Offset = end
	case -2:
		start, err := c.LogStartOffset(tp)
		if err != nil {
			return kafkaCode(err)
		}
		rp.Offset = start
	default:
		if p.Timestamp < 0 {
			return kafkaerr.InvalidRequest.Code
		}
		found, err := c.OffsetForTimestamp(tp, p.Timestamp, iso)
		if err != nil {
			return kafkaCode(err)
		}
		rp.Offset = -1
		if found.Found {
			rp.Offset, rp.Timestamp, rp.LeaderEpoch = found.Offset, found.TimestampMs, found.LeaderEpoch
		}
	}
	return 0
}

// offsetForLeaderEpoch answers with the engine's EndOffsetForLeaderEpoch.
func (st *state) offsetForLeaderEpoch(c *engine.Cluster, cn conn, r *kmsg.OffsetForLeaderEpochRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.OffsetForLeaderEpochResponse)
	var parts []string
	for _, t := range r.Topics {
		rt := kmsg.NewOffsetForLeaderEpochResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewOffsetForLeaderEpochResponseTopicPartition()
			rp.Partition = p.Partition
			tp := engine.TopicPartition{Topic: t.Topic, Partition: p.Partition}
			m, err := c.PartitionMetadata(tp)
			switch {
			case err != nil:
				rp.ErrorCode = kafkaCode(err)
			default:
				rp.ErrorCode = checkLeader(m, cn.broker, p.CurrentLeaderEpoch)
			}
			if rp.ErrorCode == 0 {
				rp.LeaderEpoch, rp.EndOffset, err = c.EndOffsetForLeaderEpoch(tp, p.LeaderEpoch)
				if err != nil {
					rp.ErrorCode = kafkaCode(err)
				}
			}
			if rp.ErrorCode != 0 {
				parts = append(parts, fmt.Sprintf("%s epoch %d: %s", tp, p.LeaderEpoch, codeName(rp.ErrorCode)))
			} else {
				parts = append(parts, fmt.Sprintf("%s epoch %d ends at %d (epoch %d)", tp, p.LeaderEpoch, rp.EndOffset, rp.LeaderEpoch))
			}
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	st.trace(Event{Client: cn.clientID, Broker: cn.broker, API: "OffsetForLeaderEpoch", Version: r.Version,
		Result: strings.Join(parts, ", "), Level: LevelData})
	return resp
}

// notCoordinator reports whether this broker is not key's coordinator.
func (st *state) notCoordinator(c *engine.Cluster, broker int32, key string) bool {
	bl := st.coordinator(c, key)
	return bl == nil || bl.broker != broker
}

// offsetCommit commits through the engine's group coordinator, fenced by
// generation and member id (a client-assigned group is not checked for
// partition ownership, as in Kafka); generation -1 with no member id is a
// standalone commit, allowed while the group has no members.
func (st *state) offsetCommit(c *engine.Cluster, cn conn, r *kmsg.OffsetCommitRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.OffsetCommitResponse)
	code := int16(0)
	offsets := map[engine.TopicPartition]int64{}
	unknown := map[engine.TopicPartition]bool{}
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			tp := engine.TopicPartition{Topic: t.Topic, Partition: p.Partition}
			if _, err := c.PartitionMetadata(tp); err != nil {
				unknown[tp] = true
				continue
			}
			offsets[tp] = p.Offset
		}
	}
	switch {
	case st.notCoordinator(c, cn.broker, r.Group):
		code = kafkaerr.NotCoordinator.Code
	case len(offsets) == 0:
	case r.Version == 0 || (r.Generation < 0 && r.MemberID == ""):
		code = kafkaCode(c.CommitStandaloneOffsets(r.Group, offsets))
	default:
		code = kafkaCode(c.CommitGroupOffsets(r.Group, r.MemberID, r.Generation, offsets))
	}
	var parts []string
	for _, t := range r.Topics {
		rt := kmsg.NewOffsetCommitResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewOffsetCommitResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p.Partition, code
			tp := engine.TopicPartition{Topic: t.Topic, Partition: p.Partition}
			if unknown[tp] {
				rp.ErrorCode = kafkaerr.UnknownTopicOrPartition.Code
			}
			parts = append(parts, fmt.Sprintf("%s=%d", tp, p.Offset))
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	sort.Strings(parts)
	ev := Event{Client: cn.clientID, Broker: cn.broker, API: "OffsetCommit", Version: r.Version,
		Result: fmt.Sprintf("group %s: %s", r.Group, strings.Join(parts, " ")), Level: LevelData}
	if code != 0 {
		ev.Error = codeName(code)
	}
	st.trace(ev)
	return resp
}

// offsetFetch returns a group's committed offsets (-1 where none), for the
// partitions asked or, with a null list, every committed one.
func (st *state) offsetFetch(c *engine.Cluster, cn conn, r *kmsg.OffsetFetchRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.OffsetFetchResponse)
	if st.notCoordinator(c, cn.broker, r.Group) {
		resp.ErrorCode = kafkaerr.NotCoordinator.Code
		if r.Version < 2 {
			// No top-level code before v2: every partition carries it.
			for _, t := range r.Topics {
				rt := kmsg.NewOffsetFetchResponseTopic()
				rt.Topic = t.Topic
				for _, p := range t.Partitions {
					rp := kmsg.NewOffsetFetchResponseTopicPartition()
					rp.Partition, rp.ErrorCode, rp.Offset = p, kafkaerr.NotCoordinator.Code, -1
					rt.Partitions = append(rt.Partitions, rp)
				}
				resp.Topics = append(resp.Topics, rt)
			}
		}
		return resp
	}
	committed := map[engine.TopicPartition]int64{}
	if d, err := c.DescribeGroup(r.Group); err == nil {
		for _, p := range d.Partitions {
			if p.CurrentOffset >= 0 {
				committed[p.TP] = p.CurrentOffset
			}
		}
	}
	add := func(rt *kmsg.OffsetFetchResponseTopic, tp engine.TopicPartition) {
		rp := kmsg.NewOffsetFetchResponseTopicPartition()
		rp.Partition, rp.Offset = tp.Partition, -1
		rp.Metadata = kmsg.StringPtr("")
		if o, ok := committed[tp]; ok {
			rp.Offset = o
		}
		rt.Partitions = append(rt.Partitions, rp)
	}
	var parts []string
	if r.Topics == nil {
		byTopic := map[string]*kmsg.OffsetFetchResponseTopic{}
		var names []string
		var tps []engine.TopicPartition
		for tp := range committed {
			tps = append(tps, tp)
		}
		sort.Slice(tps, func(i, j int) bool {
			if tps[i].Topic != tps[j].Topic {
				return tps[i].Topic < tps[j].Topic
			}
			return tps[i].Partition < tps[j].Partition
		})
		for _, tp := range tps {
			rt := byTopic[tp.Topic]
			if rt == nil {
				t := kmsg.NewOffsetFetchResponseTopic()
				t.Topic = tp.Topic
				rt = &t
				byTopic[tp.Topic] = rt
				names = append(names, tp.Topic)
			}
			add(rt, tp)
			parts = append(parts, fmt.Sprintf("%s=%d", tp, committed[tp]))
		}
		for _, n := range names {
			resp.Topics = append(resp.Topics, *byTopic[n])
		}
	} else {
		for _, t := range r.Topics {
			rt := kmsg.NewOffsetFetchResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				tp := engine.TopicPartition{Topic: t.Topic, Partition: p}
				add(&rt, tp)
				if o, ok := committed[tp]; ok {
					parts = append(parts, fmt.Sprintf("%s=%d", tp, o))
				} else {
					parts = append(parts, fmt.Sprintf("%s=none", tp))
				}
			}
			resp.Topics = append(resp.Topics, rt)
		}
	}
	sort.Strings(parts)
	// Members ask right after every rebalance, all at once: chatter.
	st.trace(Event{Client: cn.clientID, Broker: cn.broker, API: "OffsetFetch", Version: r.Version,
		Result: fmt.Sprintf("group %s: %s", r.Group, strings.Join(parts, " ")), Level: LevelChatter})
	return resp
}
