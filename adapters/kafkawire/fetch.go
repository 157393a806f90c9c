package kafkawire

import (
	"fmt"
	"strings"
	"time"

	"github.com/minikafka-lab/minikafka/adapters/host"
	"github.com/minikafka-lab/minikafka/engine"
	kafkaerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// fetch answers Fetch as a full fetch every time: the session id in the
// answer is 0, which tells clients that this broker keeps no fetch
// sessions (KIP-227), so they send every partition each time. Records come
// from the engine's ReadBatches (up to the HW, or the LSO for
// read_committed with the aborted transactions listed), re-encoded as
// record batch v2; an empty record set is an empty byte string, never null
// (librdkafka rejects a null set). When fewer than MinBytes are available
// the request is parked until an append or a replication step makes data
// visible in one of its partitions, or MaxWait passes.
func (st *state) fetch(c *engine.Cluster, cn conn, r *kmsg.FetchRequest, done func(reply)) {
	if r.Version >= 7 && r.SessionID != 0 {
		resp := r.ResponseKind().(*kmsg.FetchResponse)
		resp.ErrorCode = kafkaerr.FetchSessionIDNotFound.Code
		done(reply{resp: resp})
		return
	}
	resp, size, failed := st.buildFetch(c, cn.broker, r)
	if failed || size >= int(r.MinBytes) || r.MaxWaitMillis <= 0 {
		st.traceFetch(cn, r, resp)
		done(reply{resp: resp})
		return
	}
	iso := isolation(r.IsolationLevel)
	st.park(host.Waiter[*state]{
		Ready: func(st *state) bool {
			c := st.cluster()
			if c == nil || !fetchReady(c, cn.broker, r, iso) {
				return false
			}
			resp, _, _ := st.buildFetch(c, cn.broker, r)
			st.traceFetch(cn, r, resp)
			done(reply{resp: resp})
			return true
		},
		Deadline: time.Now().Add(time.Duration(r.MaxWaitMillis) * time.Millisecond),
		Expire: func(st *state) {
			if c := st.cluster(); c != nil && c.State() == engine.Running {
				resp, _, _ = st.buildFetch(c, cn.broker, r)
			}
			st.traceFetch(cn, r, resp)
			done(reply{resp: resp})
		},
	})
}

func isolation(level int8) engine.Isolation {
	if level == 1 {
		return engine.ReadCommitted
	}
	return engine.ReadUncommitted
}

// fetchReady reports whether a parked fetch should be answered now: some
// partition has visible data past its fetch offset, or is no longer led by
// this broker.
func fetchReady(c *engine.Cluster, broker int32, r *kmsg.FetchRequest, iso engine.Isolation) bool {
	if c.State() != engine.Running {
		return true
	}
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			tp := engine.TopicPartition{Topic: t.Topic, Partition: p.Partition}
			if _, ok, err := leads(c, broker, tp); err != nil || !ok {
				return true
			}
			end, err := c.HighWatermark(tp)
			if err == nil && iso == engine.ReadCommitted {
				end, err = c.LastStableOffset(tp)
			}
			if err != nil || end > p.FetchOffset {
				return true
			}
		}
	}
	return false
}

// buildFetch reads every partition of the request. It returns the
// response, the record bytes in it, and whether any partition failed.
func (st *state) buildFetch(c *engine.Cluster, broker int32, r *kmsg.FetchRequest) (*kmsg.FetchResponse, int, bool) {
	resp := r.ResponseKind().(*kmsg.FetchResponse)
	iso := isolation(r.IsolationLevel)
	remaining := int(r.MaxBytes)
	if r.Version < 3 || remaining <= 0 {
		remaining = 1 << 30
	}
	total, failed := 0, false
	for _, t := range r.Topics {
		rt := kmsg.NewFetchResponseTopic()
		rt.Topic = t.Topic
		rt.Partitions = make([]kmsg.FetchResponseTopicPartition, len(t.Partitions))
		for i, p := range t.Partitions {
			rp := &rt.Partitions[i]
			*rp = kmsg.NewFetchResponseTopicPartition()
			rp.Partition = p.Partition
			rp.RecordBatches = []byte{}
			tp := engine.TopicPartition{Topic: t.Topic, Partition: p.Partition}
			code := st.fetchPartition(c, broker, tp, p, iso, &remaining, rp)
			if code != 0 {
				rp.ErrorCode = code
				failed = true
			}
			total += len(rp.RecordBatches)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp, total, failed
}

// fetchPartition fills one partition's answer and returns its error code.
func (st *state) fetchPartition(c *engine.Cluster, broker int32, tp engine.TopicPartition, p kmsg.FetchRequestTopicPartition, iso engine.Isolation, remaining *int, rp *kmsg.FetchResponseTopicPartition) int16 {
	m, err := c.PartitionMetadata(tp)
	if err != nil {
		return kafkaCode(err)
	}
	if hw, err := c.HighWatermark(tp); err == nil {
		rp.HighWatermark = hw
		rp.LastStableOffset, _ = c.LastStableOffset(tp)
		rp.LogStartOffset, _ = c.LogStartOffset(tp)
	}
	if code := checkLeader(m, broker, p.CurrentLeaderEpoch); code != 0 {
		return code
	}
	if *remaining <= 0 {
		return 0
	}
	budget := min(int(p.PartitionMaxBytes), *remaining)
	read, err := c.ReadBatches(tp, p.FetchOffset, max(budget, 1), iso)
	if err != nil {
		return kafkaCode(err)
	}
	rp.HighWatermark, rp.LastStableOffset, rp.LogStartOffset = read.HighWatermark, read.LastStableOffset, read.LogStartOffset
	if iso == engine.ReadCommitted {
		rp.AbortedTransactions = []kmsg.FetchResponseTopicPartitionAbortedTransaction{}
		for _, a := range read.Aborted {
			at := kmsg.NewFetchResponseTopicPartitionAbortedTransaction()
			at.ProducerID, at.FirstOffset = a.ProducerID, a.FirstOffset
			rp.AbortedTransactions = append(rp.AbortedTransactions, at)
		}
	}
	for _, b := range read.Batches {
		rp.RecordBatches = appendBatch(rp.RecordBatches, b)
	}
	*remaining -= len(rp.RecordBatches)
	return 0
}

// checkLeader returns NOT_LEADER_OR_FOLLOWER unless broker leads the
// partition, then the KIP-320 epoch checks: a client epoch below the
// leader's is FENCED_LEADER_EPOCH, above it UNKNOWN_LEADER_EPOCH; -1 skips
// them.
func checkLeader(m engine.PartitionMetadata, broker int32, clientEpoch int32) int16 {
	switch {
	case m.Leader != broker:
		return kafkaerr.NotLeaderForPartition.Code
	case clientEpoch >= 0 && clientEpoch < m.LeaderEpoch:
		return kafkaerr.FencedLeaderEpoch.Code
	case clientEpoch > m.LeaderEpoch:
		return kafkaerr.UnknownLeaderEpoch.Code
	}
	return 0
}

// traceFetch reports a fetch: at LevelData when it returned records or an
// error, as chatter when it returned nothing.
func (st *state) traceFetch(cn conn, r *kmsg.FetchRequest, resp *kmsg.FetchResponse) {
	var parts []string
	level, errName := LevelChatter, ""
	for i, t := range resp.Topics {
		for j, p := range t.Partitions {
			tp := engine.TopicPartition{Topic: t.Topic, Partition: p.Partition}
			req := r.Topics[i].Partitions[j]
			if p.ErrorCode != 0 {
				level = LevelData
				errName = codeName(p.ErrorCode)
				parts = append(parts, fmt.Sprintf("%s from %d: %s", tp, req.FetchOffset, codeName(p.ErrorCode)))
				continue
			}
			n, first, last := countFetched(p.RecordBatches, req.FetchOffset)
			if n == 0 {
				continue
			}
			level = LevelData
			parts = append(parts, fmt.Sprintf("%s: %s at %s (HW %d)", tp, plural(n, "record"), offsetRange(first, last), p.HighWatermark))
		}
	}
	result := strings.Join(parts, ", ")
	if result == "" {
		result = "nothing new"
	}
	if r.IsolationLevel == 1 {
		result += " (read_committed)"
	}
	if len(parts) == 1 && errName != "" {
		// The error is named in the part already.
		errName = ""
	}
	st.trace(Event{Client: cn.clientID, Broker: cn.broker, API: "Fetch", Version: r.Version, Result: result, Error: errName, Level: level})
}

// countFetched counts the data records at or after from in encoded
// batches, with the first and last such offsets. It reads only batch
// headers and record offset deltas.
func countFetched(batches []byte, from int64) (n int, first, last int64) {
	for len(batches) >= batchHeaderSize {
		base := int64(be64(batches[0:]))
		length := int(int32(be32(batches[8:])))
		if length < 49 || 12+length > len(batches) {
			return
		}
		attrs := uint16(batches[21])<<8 | uint16(batches[22])
		lastDelta := int64(int32(be32(batches[23:])))
		count := int(int32(be32(batches[57:])))
		if attrs&attrControl == 0 && base+lastDelta >= from {
			lo := max(base, from)
			if n == 0 {
				first = lo
			}
			last = base + lastDelta
			// Records below from (the start of a batch the fetch began
			// inside) are not counted.
			n += min(count, int(base+lastDelta-lo+1))
		}
		batches = batches[12+length:]
	}
	return
}

func be32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}
func be64(b []byte) uint64 { return uint64(be32(b))<<32 | uint64(be32(b[4:])) }
