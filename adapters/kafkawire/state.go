package kafkawire

import (
	"fmt"
	"hash/crc32"
	"slices"

	"github.com/minikafka-lab/minikafka/adapters/host"
	"github.com/minikafka-lab/minikafka/engine"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// state is what the owning goroutine holds: the server (for its options,
// listeners and host) and the group rounds in progress. Only the owning
// goroutine touches it.
type state struct {
	s      *Server
	rounds *rounds
	// served is the cluster the rounds belong to: a REPL that opens
	// another cluster starts with no rounds. It is attached
	// (engine.Cluster.Attach) while served: the rounds and parked requests
	// are state outside it that its snapshots could not copy; detach ends
	// that.
	served *engine.Cluster
	detach func()
}

func newState(s *Server) *state {
	return &state{s: s, rounds: newRounds()}
}

// cluster is the cluster being served now (nil when there is none).
func (st *state) cluster() *engine.Cluster { return st.s.opts.Cluster() }

// serve makes c the cluster served: rounds start afresh, and c is attached
// instead of the cluster served before.
func (st *state) serve(c *engine.Cluster) {
	st.unserve()
	st.rounds, st.served = newRounds(), c
	st.detach = c.Attach("the Kafka wire listener")
}

// unserve detaches the cluster served (the server closes, or serves
// another).
func (st *state) unserve() {
	if st.detach != nil {
		st.detach()
	}
	st.served, st.detach = nil, nil
}

// afterJob runs after every request and Direct call.
func (st *state) afterJob() {
	if c := st.cluster(); c != nil {
		st.s.opts.AfterRequest(c)
	}
}

func (st *state) trace(e Event) {
	if st.s.opts.Trace != nil {
		st.s.opts.Trace(e)
	}
}

// park parks a waiter on the host; call it from a handler only.
func (st *state) park(w host.Waiter[*state]) { st.s.host.Park(w) }

// handle runs one decoded request. done is called exactly once, now or
// from a parked waiter, with the reply.
func (st *state) handle(cn conn, req kmsg.Request, done func(reply)) {
	defer func() {
		if p := recover(); p != nil {
			st.s.opts.Logf("broker %d: panic serving %s from %q: %v", cn.broker, kmsg.NameForKey(req.Key()), cn.clientID, p)
			done(reply{hangUp: true})
		}
	}()
	c := st.cluster()
	if c == nil || c.State() != engine.Running {
		done(reply{hangUp: true})
		return
	}
	if c != st.served {
		st.serve(c)
	}
	if !brokerUp(c, cn.broker) {
		st.trace(Event{Client: cn.clientID, Broker: cn.broker, API: apiName(req.Key()), Version: req.GetVersion(),
			Result: fmt.Sprintf("broker %d is down: connection closed", cn.broker), Level: LevelChatter})
		done(reply{hangUp: true})
		return
	}
	switch r := req.(type) {
	case *kmsg.ApiVersionsRequest:
		done(reply{resp: st.apiVersions(cn, r)})
	case *kmsg.MetadataRequest:
		done(reply{resp: st.metadata(c, cn, r)})
	case *kmsg.FindCoordinatorRequest:
		done(reply{resp: st.findCoordinator(c, cn, r)})
	case *kmsg.CreateTopicsRequest:
		done(reply{resp: st.createTopics(c, cn, r)})
	case *kmsg.DescribeConfigsRequest:
		done(reply{resp: st.describeConfigs(c, cn, r)})
	case *kmsg.ProduceRequest:
		st.produce(c, cn, r, done)
	case *kmsg.FetchRequest:
		st.fetch(c, cn, r, done)
	case *kmsg.ListOffsetsRequest:
		done(reply{resp: st.listOffsets(c, cn, r)})
	case *kmsg.OffsetForLeaderEpochRequest:
		done(reply{resp: st.offsetForLeaderEpoch(c, cn, r)})
	case *kmsg.OffsetCommitRequest:
		done(reply{resp: st.offsetCommit(c, cn, r)})
	case *kmsg.OffsetFetchRequest:
		done(reply{resp: st.offsetFetch(c, cn, r)})
	case *kmsg.JoinGroupRequest:
		st.joinGroup(c, cn, r, done)
	case *kmsg.SyncGroupRequest:
		st.syncGroup(c, cn, r, done)
	case *kmsg.HeartbeatRequest:
		done(reply{resp: st.heartbeat(c, cn, r)})
	case *kmsg.LeaveGroupRequest:
		done(reply{resp: st.leaveGroup(c, cn, r)})
	case *kmsg.DescribeGroupsRequest:
		done(reply{resp: st.describeGroups(c, cn, r)})
	case *kmsg.ListGroupsRequest:
		done(reply{resp: st.listGroups(c, cn, r)})
	case *kmsg.InitProducerIDRequest:
		done(reply{resp: st.initProducerID(c, cn, r)})
	case *kmsg.AddPartitionsToTxnRequest:
		done(reply{resp: st.addPartitionsToTxn(c, cn, r)})
	case *kmsg.AddOffsetsToTxnRequest:
		done(reply{resp: st.addOffsetsToTxn(c, cn, r)})
	case *kmsg.EndTxnRequest:
		st.endTxn(c, cn, r, done)
	case *kmsg.TxnOffsetCommitRequest:
		done(reply{resp: st.txnOffsetCommit(c, cn, r)})
	default:
		done(reply{hangUp: true})
	}
}

// brokerUp reports whether broker id of c is running.
func brokerUp(c *engine.Cluster, id int32) bool {
	bs, err := c.Brokers()
	if err != nil {
		return false
	}
	for _, b := range bs {
		if b.ID == id {
			return b.Up
		}
	}
	return false
}

// liveListeners returns the listeners whose brokers are running, by broker
// id: the brokers Metadata advertises and coordinators are chosen from.
func (st *state) liveListeners(c *engine.Cluster) []*brokerListener {
	bs, err := c.Brokers()
	if err != nil {
		return nil
	}
	up := map[int32]bool{}
	for _, b := range bs {
		up[b.ID] = b.Up
	}
	var out []*brokerListener
	for _, bl := range st.s.lns {
		if up[bl.broker] {
			out = append(out, bl)
		}
	}
	slices.SortFunc(out, func(a, b *brokerListener) int { return int(a.broker) - int(b.broker) })
	return out
}

// coordinator picks the coordinator of a group or transactional id among
// the running brokers: crc32(key) mod n over their sorted ids, the way
// Kafka hashes a group to a __consumer_offsets partition (whose leader is
// the coordinator). Nil when no broker runs.
func (st *state) coordinator(c *engine.Cluster, key string) *brokerListener {
	live := st.liveListeners(c)
	if len(live) == 0 {
		return nil
	}
	return live[crc32.ChecksumIEEE([]byte(key))%uint32(len(live))]
}

// leads reports whether broker leads tp, and tp's metadata.
func leads(c *engine.Cluster, broker int32, tp engine.TopicPartition) (engine.PartitionMetadata, bool, error) {
	m, err := c.PartitionMetadata(tp)
	if err != nil {
		return m, false, err
	}
	return m, m.Leader == broker, nil
}
