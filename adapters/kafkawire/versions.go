package kafkawire

import "github.com/twmb/franz-go/pkg/kmsg"

// apiRange is the versions served for one API key.
type apiRange struct {
	key      kmsg.Key
	min, max int16
}

// served lists every API this listener answers, with the versions it
// advertises in ApiVersions. The floors matter as much as the ceilings:
// librdkafka turns features on only when its hard-coded ranges overlap the
// broker's (rdkafka_feature.c: Produce 3 and Fetch 4 for record batch v2,
// v0 of FindCoordinator and the group APIs for the balanced consumer,
// InitProducerId 0 for idempotence, ListOffsets 1 for offsets by time). The
// ceilings stop below the versions that replace topic names with topic ids
// (Produce 13, Fetch 13, Metadata 10, OffsetCommit/OffsetFetch 10) and
// below KIP-951's leader hints (Produce and Fetch v10+ would want
// CurrentLeader), which this listener does not send. See
// docs/kafka-mapping.md.
var served = []apiRange{
	{kmsg.Produce, 3, 9},
	{kmsg.Fetch, 4, 12},
	{kmsg.ListOffsets, 0, 6},
	{kmsg.Metadata, 0, 9},
	{kmsg.OffsetCommit, 0, 8},
	{kmsg.OffsetFetch, 0, 7},
	{kmsg.FindCoordinator, 0, 3},
	{kmsg.JoinGroup, 0, 7},
	{kmsg.Heartbeat, 0, 4},
	{kmsg.LeaveGroup, 0, 4},
	{kmsg.SyncGroup, 0, 5},
	{kmsg.DescribeGroups, 0, 5},
	{kmsg.ListGroups, 0, 4},
	{kmsg.ApiVersions, 0, 3},
	{kmsg.CreateTopics, 0, 5},
	{kmsg.InitProducerID, 0, 4},
	{kmsg.OffsetForLeaderEpoch, 2, 4},
	{kmsg.AddPartitionsToTxn, 0, 3},
	{kmsg.AddOffsetsToTxn, 0, 3},
	{kmsg.EndTxn, 0, 3},
	{kmsg.TxnOffsetCommit, 0, 3},
	{kmsg.DescribeConfigs, 0, 4},
}

// servedRange returns the versions served for key.
func servedRange(key int16) (apiRange, bool) {
	for _, r := range served {
		if int16(r.key) == key {
			return r, true
		}
	}
	return apiRange{}, false
}

// supported reports whether key at version is served.
func supported(key, version int16) bool {
	r, ok := servedRange(key)
	return ok && version >= r.min && version <= r.max
}
