package group

import (
	"slices"

	"github.com/minikafka-lab/minikafka/engine/topic"
)

// RoundRobin is the coordinator's assignor (§11.3), a pure function of the
// members' subscriptions (member id → topics) and the cluster's topics
// (topic → partition count):
//
//  1. every member gets a list, in member-id order, even if it stays empty;
//  2. one global cursor starts at 0 and is never reset between topics;
//  3. topics are visited in lexicographic order over all cluster topics; a
//     topic nobody subscribes to is skipped without moving the cursor;
//  4. partitions go in ascending order to eligible[cursor mod len(eligible)],
//     where eligible are the topic's subscribers sorted by id, and the cursor
//     moves by one per partition.
//
// Ids and topics are compared byte-wise, so "m10" sorts before "m2". Subscribed
// topics the cluster does not have are ignored. Each member's list is sorted by
// topic, then partition.
func RoundRobin(subscriptions map[string][]string, partitions map[string]int32) map[string][]topic.Partition {
	members := make([]string, 0, len(subscriptions))
	for m := range subscriptions {
		members = append(members, m)
	}
	slices.Sort(members)
	out := make(map[string][]topic.Partition, len(members))
	for _, m := range members {
		out[m] = []topic.Partition{}
	}
	topics := make([]string, 0, len(partitions))
	for t := range partitions {
		topics = append(topics, t)
	}
	slices.Sort(topics)
	cursor := 0
	for _, t := range topics {
		var eligible []string
		for _, m := range members {
			if slices.Contains(subscriptions[m], t) {
				eligible = append(eligible, m)
			}
		}
		if len(eligible) == 0 {
			continue
		}
		for p := int32(0); p < partitions[t]; p++ {
			m := eligible[cursor%len(eligible)]
			out[m] = append(out[m], topic.Partition{Topic: t, Partition: p})
			cursor++
		}
	}
	return out
}
