package kafkawire

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/minikafka-lab/minikafka/adapters/host"
	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/topic"
	kafkaerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Kafka's classic group protocol, the part that is protocol and not group
// state: join rounds (who has rejoined, whose JoinGroup is parked), the
// leader and the protocol chosen, the assignment bytes the leader sends
// and the parked SyncGroups waiting for them. Membership, generations,
// assignments, session deadlines and fenced commits are the engine's
// (group.Coordinator.CompleteJoin, CompleteSync, ClassicHeartbeat, Leave,
// Commit), so `group describe` in the REPL shows a real client's group.
//
// A round opens with the first JoinGroup after the group was stable and
// completes once every member of the last generation that is still in the
// engine's group has rejoined, or when the largest rebalance timeout of
// the joiners passes (the missing members are dropped). Members learn that
// a round is open from their heartbeat (REBALANCE_IN_PROGRESS).

// rounds is the adapter's group protocol state, owned by the host
// goroutine.
type rounds struct {
	groups map[string]*classicGroup
	next   int // member ids: "<client id>-<n>", n counting joins
}

func newRounds() *rounds { return &rounds{groups: map[string]*classicGroup{}} }

type classicGroup struct {
	protocolType string
	members      map[string]*classicMember
	order        []string // members in first-join order
	pending      map[string]bool
	leader       string
	protocol     string
	generation   int32

	joining  bool
	joined   map[string]*parkedJoin
	deadline time.Time

	synced      bool
	assignments map[string][]byte
	syncs       map[string]*parkedSync
}

type classicMember struct {
	id               string
	clientID         string
	protocols        []kmsg.JoinGroupRequestProtocol
	rebalanceTimeout time.Duration
	subscriptions    []string
}

type parkedJoin struct {
	version  int16
	done     func(reply)
	answered bool
}

type parkedSync struct {
	version  int16
	done     func(reply)
	answered bool
}

// emptyAssignment is an encoded ConsumerMemberAssignment with nothing in
// it, for members the leader gave nothing (clients expect a decodable
// assignment, not empty bytes).
var emptyAssignment = func() []byte {
	a := kmsg.NewConsumerMemberAssignment()
	return a.AppendTo(nil)
}()

func (st *state) groupEvent(cn conn, api string, version int16, result string, code int16, level Level) {
	ev := Event{Client: cn.clientID, Broker: cn.broker, API: api, Version: version, Result: result, Level: level}
	if code != 0 {
		ev.Error = codeName(code)
		ev.Level = LevelData
	}
	st.trace(ev)
}

func (st *state) joinGroup(c *engine.Cluster, cn conn, r *kmsg.JoinGroupRequest, done func(reply)) {
	resp := r.ResponseKind().(*kmsg.JoinGroupResponse)
	fail := func(code int16, why string) {
		resp.ErrorCode = code
		resp.MemberID = r.MemberID
		st.groupEvent(cn, "JoinGroup", r.Version, fmt.Sprintf("group %s: %s", r.Group, why), code, LevelData)
		done(reply{resp: resp})
	}
	classic, members, err := c.ClassicGroup(r.Group)
	switch {
	case err != nil:
		fail(kafkaerr.CoordinatorNotAvailable.Code, "no coordinator")
		return
	case r.Group == "":
		fail(kafkaerr.InvalidGroupID.Code, "empty group id")
		return
	case st.notCoordinator(c, cn.broker, r.Group):
		fail(kafkaerr.NotCoordinator.Code, "not the coordinator")
		return
	case r.ProtocolType == "" || len(r.Protocols) == 0:
		fail(kafkaerr.InconsistentGroupProtocol.Code, "no protocol")
		return
	case len(members) > 0 && !classic:
		fail(kafkaerr.InconsistentGroupProtocol.Code, "the group has MiniKafka consumers")
		return
	}
	g := st.rounds.groups[r.Group]
	if g == nil {
		g = &classicGroup{protocolType: r.ProtocolType, members: map[string]*classicMember{}, pending: map[string]bool{}}
		st.rounds.groups[r.Group] = g
	}
	if len(g.members) > 0 && g.protocolType != r.ProtocolType {
		fail(kafkaerr.InconsistentGroupProtocol.Code, "protocol type "+r.ProtocolType+" differs from "+g.protocolType)
		return
	}
	g.protocolType = r.ProtocolType
	id := r.MemberID
	if id == "" {
		prefix := cn.clientID
		if prefix == "" {
			prefix = "member"
		}
		st.rounds.next++
		id = fmt.Sprintf("%s-%d", prefix, st.rounds.next)
		if r.Version >= 4 {
			// KIP-394: the member learns its id, then joins with it.
			g.pending[id] = true
			resp.ErrorCode, resp.MemberID = kafkaerr.MemberIDRequired.Code, id
			st.groupEvent(cn, "JoinGroup", r.Version, fmt.Sprintf("group %s: a new member is given the id %s", r.Group, id), 0, LevelChatter)
			done(reply{resp: resp})
			return
		}
	} else if g.members[id] == nil && !g.pending[id] {
		fail(kafkaerr.UnknownMemberID.Code, "unknown member "+id)
		return
	}
	delete(g.pending, id)
	m := g.members[id]
	if m == nil {
		m = &classicMember{id: id}
		g.members[id] = m
		g.order = append(g.order, id)
	}
	m.clientID = cn.clientID
	m.protocols = copyProtocols(r.Protocols)
	timeout := r.RebalanceTimeoutMillis
	if r.Version == 0 {
		timeout = r.SessionTimeoutMillis
	}
	m.rebalanceTimeout = time.Duration(max(timeout, 0)) * time.Millisecond
	m.subscriptions = nil
	if g.protocolType == "consumer" {
		var meta kmsg.ConsumerMemberMetadata
		if err := meta.ReadFrom(m.protocols[0].Metadata); err == nil {
			m.subscriptions = slices.Clone(meta.Topics)
		}
	}
	if !g.joining {
		g.joining = true
		g.joined = map[string]*parkedJoin{}
		g.deadline = time.Time{}
		st.cancelSyncs(r.Group, g)
	}
	if old := g.joined[id]; old != nil && !old.answered {
		old.answered = true
		old.done(reply{resp: joinError(old.version, id, kafkaerr.RebalanceInProgress.Code)})
	}
	pj := &parkedJoin{version: r.Version, done: done}
	g.joined[id] = pj
	if dl := time.Now().Add(m.rebalanceTimeout); dl.After(g.deadline) {
		g.deadline = dl
	}
	waiting := st.missing(c, r.Group, g)
	what := fmt.Sprintf("group %s: %s joins", r.Group, id)
	if len(waiting) > 0 {
		what += ", waiting for " + strings.Join(waiting, ", ")
	}
	st.groupEvent(cn, "JoinGroup", r.Version, what, 0, LevelData)
	group := r.Group
	st.park(host.Waiter[*state]{
		Ready: func(st *state) bool {
			if c := st.cluster(); c != nil && !pj.answered {
				st.tryCompleteJoin(c, cn, group, false)
			}
			return pj.answered
		},
		Deadline: g.deadline,
		Expire: func(st *state) {
			if c := st.cluster(); c != nil && !pj.answered {
				st.tryCompleteJoin(c, cn, group, true)
			}
			if !pj.answered {
				pj.answered = true
				pj.done(reply{resp: joinError(pj.version, id, kafkaerr.RebalanceInProgress.Code)})
			}
		},
	})
}

func joinError(version int16, id string, code int16) kmsg.Response {
	resp := kmsg.NewPtrJoinGroupResponse()
	resp.Version, resp.ErrorCode, resp.MemberID, resp.Generation = version, code, id, -1
	return resp
}

func copyProtocols(ps []kmsg.JoinGroupRequestProtocol) []kmsg.JoinGroupRequestProtocol {
	out := make([]kmsg.JoinGroupRequestProtocol, len(ps))
	for i, p := range ps {
		out[i] = kmsg.JoinGroupRequestProtocol{Name: p.Name, Metadata: slices.Clone(p.Metadata)}
	}
	return out
}

// missing lists the members the open round still waits for: members of
// the group that have not rejoined and that the engine still has (a member
// whose session expired, or that left, is no longer waited for).
func (st *state) missing(c *engine.Cluster, name string, g *classicGroup) []string {
	inEngine := map[string]bool{}
	_, members, _ := c.ClassicGroup(name)
	for _, id := range members {
		inEngine[id] = true
	}
	var out []string
	for _, id := range g.order {
		if g.joined[id] == nil && inEngine[id] {
			out = append(out, id)
		}
	}
	return out
}

// tryCompleteJoin completes the open round of group when nobody is missing
// (or force is set: the rebalance timeout passed).
func (st *state) tryCompleteJoin(c *engine.Cluster, cn conn, name string, force bool) {
	g := st.rounds.groups[name]
	if g == nil || !g.joining {
		return
	}
	if !force && len(st.missing(c, name, g)) > 0 {
		return
	}
	// Members that did not rejoin leave the group.
	var members []string
	for _, id := range g.order {
		if g.joined[id] != nil {
			members = append(members, id)
		} else {
			delete(g.members, id)
		}
	}
	g.order = members
	g.joining = false
	if len(members) == 0 {
		return
	}
	if g.joined[g.leader] == nil {
		g.leader = members[0]
	}
	g.protocol = chooseProtocol(g, members)
	engineMembers := make([]engine.ClassicGroupMember, len(members))
	for i, id := range members {
		engineMembers[i] = engine.ClassicGroupMember{ID: id, Subscriptions: g.members[id].subscriptions}
	}
	code := int16(0)
	if g.protocol == "" {
		code = kafkaerr.InconsistentGroupProtocol.Code
	} else if gen, err := c.CompleteClassicJoin(name, engineMembers); err != nil {
		code = kafkaCode(err)
	} else {
		g.generation = gen
	}
	g.synced, g.assignments, g.syncs = false, nil, map[string]*parkedSync{}
	for _, id := range members {
		pj := g.joined[id]
		if pj.answered {
			continue
		}
		pj.answered = true
		if code != 0 {
			pj.done(reply{resp: joinError(pj.version, id, code)})
			continue
		}
		resp := kmsg.NewPtrJoinGroupResponse()
		resp.Version = pj.version
		resp.Generation, resp.LeaderID, resp.MemberID = g.generation, g.leader, id
		resp.Protocol = kmsg.StringPtr(g.protocol)
		resp.ProtocolType = kmsg.StringPtr(g.protocolType)
		if id == g.leader {
			for _, mid := range members {
				rm := kmsg.NewJoinGroupResponseMember()
				rm.MemberID = mid
				for _, p := range g.members[mid].protocols {
					if p.Name == g.protocol {
						rm.ProtocolMetadata = p.Metadata
					}
				}
				resp.Members = append(resp.Members, rm)
			}
		}
		pj.done(reply{resp: resp})
	}
	result := fmt.Sprintf("group %s: generation %d with %s, leader %s (%s)", name, g.generation, strings.Join(members, ", "), g.leader, g.protocol)
	// The round's outcome is told as the leader's: whichever request
	// completed it, the line is the same every run.
	leaderConn := conn{broker: cn.broker, clientID: g.members[g.leader].clientID}
	st.groupEvent(leaderConn, "JoinGroup", 0, result, code, LevelData)
}

// chooseProtocol picks the first of the leader's protocols that every
// member supports ("" when none is common).
func chooseProtocol(g *classicGroup, members []string) string {
	for _, p := range g.members[g.leader].protocols {
		all := true
		for _, id := range members {
			found := false
			for _, q := range g.members[id].protocols {
				found = found || q.Name == p.Name
			}
			all = all && found
		}
		if all {
			return p.Name
		}
	}
	return ""
}

// cancelSyncs answers every parked SyncGroup REBALANCE_IN_PROGRESS: a new
// round has begun.
func (st *state) cancelSyncs(name string, g *classicGroup) {
	for _, id := range sortedKeys(g.syncs) {
		ps := g.syncs[id]
		if !ps.answered {
			ps.answered = true
			resp := kmsg.NewPtrSyncGroupResponse()
			resp.Version, resp.ErrorCode = ps.version, kafkaerr.RebalanceInProgress.Code
			ps.done(reply{resp: resp})
		}
	}
	g.syncs = map[string]*parkedSync{}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (st *state) syncGroup(c *engine.Cluster, cn conn, r *kmsg.SyncGroupRequest, done func(reply)) {
	resp := r.ResponseKind().(*kmsg.SyncGroupResponse)
	fail := func(code int16) {
		resp.ErrorCode = code
		st.groupEvent(cn, "SyncGroup", r.Version, fmt.Sprintf("group %s: %s", r.Group, r.MemberID), code, LevelData)
		done(reply{resp: resp})
	}
	g := st.rounds.groups[r.Group]
	switch {
	case st.notCoordinator(c, cn.broker, r.Group):
		fail(kafkaerr.NotCoordinator.Code)
		return
	case g == nil || g.members[r.MemberID] == nil:
		fail(kafkaerr.UnknownMemberID.Code)
		return
	case g.joining:
		fail(kafkaerr.RebalanceInProgress.Code)
		return
	case r.Generation != g.generation:
		fail(kafkaerr.IllegalGeneration.Code)
		return
	}
	if r.MemberID == g.leader && !g.synced {
		assignments := map[string][]byte{}
		engineAssignment := map[string][]topic.Partition{}
		var parts []string
		for _, a := range r.GroupAssignment {
			assignments[a.MemberID] = slices.Clone(a.MemberAssignment)
			if g.protocolType == "consumer" {
				var ca kmsg.ConsumerMemberAssignment
				if len(a.MemberAssignment) > 0 {
					if err := ca.ReadFrom(a.MemberAssignment); err != nil {
						fail(kafkaerr.InvalidRequest.Code)
						return
					}
				}
				var tps []topic.Partition
				for _, t := range ca.Topics {
					for _, p := range t.Partitions {
						tps = append(tps, topic.Partition{Topic: t.Topic, Partition: p})
					}
				}
				topic.Sort(tps)
				engineAssignment[a.MemberID] = tps
				names := make([]string, len(tps))
				for i, tp := range tps {
					names[i] = tp.String()
				}
				parts = append(parts, fmt.Sprintf("%s=[%s]", a.MemberID, strings.Join(names, " ")))
			}
		}
		if err := c.CompleteClassicSync(r.Group, r.Generation, engineAssignment); err != nil {
			fail(kafkaCode(err))
			return
		}
		g.synced, g.assignments = true, assignments
		sort.Strings(parts)
		st.groupEvent(cn, "SyncGroup", r.Version, fmt.Sprintf("group %s generation %d: leader %s assigns %s", r.Group, g.generation, r.MemberID, strings.Join(parts, " ")), 0, LevelData)
		for _, id := range sortedKeys(g.syncs) {
			ps := g.syncs[id]
			if !ps.answered {
				ps.answered = true
				ps.done(reply{resp: st.syncAnswer(g, ps.version, id)})
			}
		}
		done(reply{resp: st.syncAnswer(g, r.Version, r.MemberID)})
		return
	}
	if g.synced {
		done(reply{resp: st.syncAnswer(g, r.Version, r.MemberID)})
		return
	}
	ps := &parkedSync{version: r.Version, done: done}
	if old := g.syncs[r.MemberID]; old != nil && !old.answered {
		old.answered = true
		old.done(reply{resp: syncError(old.version, kafkaerr.RebalanceInProgress.Code)})
	}
	g.syncs[r.MemberID] = ps
	deadline := time.Now().Add(max(g.members[r.MemberID].rebalanceTimeout, time.Second))
	st.park(host.Waiter[*state]{
		Ready:    func(*state) bool { return ps.answered },
		Deadline: deadline,
		Expire: func(*state) {
			if !ps.answered {
				ps.answered = true
				ps.done(reply{resp: syncError(ps.version, kafkaerr.RebalanceInProgress.Code)})
			}
		},
	})
}

func syncError(version int16, code int16) kmsg.Response {
	resp := kmsg.NewPtrSyncGroupResponse()
	resp.Version, resp.ErrorCode = version, code
	return resp
}

// syncAnswer is member id's SyncGroup answer once the leader has synced.
func (st *state) syncAnswer(g *classicGroup, version int16, id string) kmsg.Response {
	resp := kmsg.NewPtrSyncGroupResponse()
	resp.Version = version
	resp.ProtocolType = kmsg.StringPtr(g.protocolType)
	resp.Protocol = kmsg.StringPtr(g.protocol)
	resp.MemberAssignment = g.assignments[id]
	if len(resp.MemberAssignment) == 0 && g.protocolType == "consumer" {
		resp.MemberAssignment = emptyAssignment
	}
	return resp
}

func (st *state) heartbeat(c *engine.Cluster, cn conn, r *kmsg.HeartbeatRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.HeartbeatResponse)
	switch {
	case st.notCoordinator(c, cn.broker, r.Group):
		resp.ErrorCode = kafkaerr.NotCoordinator.Code
	default:
		resp.ErrorCode = kafkaCode(c.ClassicGroupHeartbeat(r.Group, r.MemberID, r.Generation))
		if g := st.rounds.groups[r.Group]; resp.ErrorCode == 0 && g != nil && g.joining {
			resp.ErrorCode = kafkaerr.RebalanceInProgress.Code
		}
	}
	ev := Event{Client: cn.clientID, Broker: cn.broker, API: "Heartbeat", Version: r.Version,
		Result: fmt.Sprintf("group %s: %s generation %d", r.Group, r.MemberID, r.Generation), Level: LevelChatter}
	if resp.ErrorCode != 0 {
		ev.Error = codeName(resp.ErrorCode)
	}
	st.trace(ev)
	return resp
}

func (st *state) leaveGroup(c *engine.Cluster, cn conn, r *kmsg.LeaveGroupRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.LeaveGroupResponse)
	ids := []string{r.MemberID}
	if r.Version >= 3 {
		ids = ids[:0]
		for _, m := range r.Members {
			ids = append(ids, m.MemberID)
		}
	}
	if st.notCoordinator(c, cn.broker, r.Group) {
		resp.ErrorCode = kafkaerr.NotCoordinator.Code
		st.groupEvent(cn, "LeaveGroup", r.Version, fmt.Sprintf("group %s: %s", r.Group, strings.Join(ids, ", ")), resp.ErrorCode, LevelData)
		return resp
	}
	g := st.rounds.groups[r.Group]
	for _, id := range ids {
		code := int16(0)
		left, err := c.LeaveGroup(r.Group, id)
		switch {
		case err != nil:
			code = kafkaCode(err)
		case !left && (g == nil || g.members[id] == nil):
			code = kafkaerr.UnknownMemberID.Code
		}
		if g != nil && g.members[id] != nil {
			delete(g.members, id)
			g.order = slices.DeleteFunc(g.order, func(s string) bool { return s == id })
			if pj := g.joined[id]; pj != nil && !pj.answered {
				pj.answered = true
				pj.done(reply{resp: joinError(pj.version, id, kafkaerr.UnknownMemberID.Code)})
			}
			delete(g.joined, id)
		}
		if r.Version >= 3 {
			lm := kmsg.NewLeaveGroupResponseMember()
			lm.MemberID, lm.ErrorCode = id, code
			resp.Members = append(resp.Members, lm)
		} else {
			resp.ErrorCode = code
		}
		gen := int32(0)
		if d, err := c.DescribeGroup(r.Group); err == nil {
			gen = d.Generation
		}
		st.groupEvent(cn, "LeaveGroup", r.Version, fmt.Sprintf("group %s: %s leaves (generation %d)", r.Group, id, gen), code, LevelData)
	}
	return resp
}

func (st *state) describeGroups(c *engine.Cluster, cn conn, r *kmsg.DescribeGroupsRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.DescribeGroupsResponse)
	for _, name := range r.Groups {
		rg := kmsg.NewDescribeGroupsResponseGroup()
		rg.Group = name
		if st.notCoordinator(c, cn.broker, name) {
			rg.ErrorCode = kafkaerr.NotCoordinator.Code
			resp.Groups = append(resp.Groups, rg)
			continue
		}
		d, err := c.DescribeGroup(name)
		if err != nil {
			rg.State = "Dead"
			resp.Groups = append(resp.Groups, rg)
			continue
		}
		rg.State = d.State.KafkaName()
		g := st.rounds.groups[name]
		if g != nil {
			rg.ProtocolType, rg.Protocol = g.protocolType, g.protocol
			if g.joining {
				rg.State = "PreparingRebalance"
			}
		}
		for _, m := range d.Members {
			rm := kmsg.NewDescribeGroupsResponseGroupMember()
			rm.MemberID, rm.ClientHost = m.MemberID, "/127.0.0.1"
			if g != nil && g.members[m.MemberID] != nil {
				cm := g.members[m.MemberID]
				rm.ClientID = cm.clientID
				for _, p := range cm.protocols {
					if p.Name == g.protocol {
						rm.ProtocolMetadata = p.Metadata
					}
				}
				rm.MemberAssignment = g.assignments[m.MemberID]
			}
			rg.Members = append(rg.Members, rm)
		}
		resp.Groups = append(resp.Groups, rg)
	}
	st.trace(Event{Client: cn.clientID, Broker: cn.broker, API: "DescribeGroups", Version: r.Version,
		Result: strings.Join(r.Groups, ", "), Level: LevelChatter})
	return resp
}

func (st *state) listGroups(c *engine.Cluster, cn conn, r *kmsg.ListGroupsRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.ListGroupsResponse)
	ls, err := c.ListGroups()
	if err != nil {
		resp.ErrorCode = kafkaCode(err)
		return resp
	}
	for _, l := range ls {
		if st.notCoordinator(c, cn.broker, l.GroupID) {
			continue // each coordinator lists its own groups
		}
		rg := kmsg.NewListGroupsResponseGroup()
		rg.Group, rg.ProtocolType, rg.GroupState = l.GroupID, "consumer", l.State.KafkaName()
		if g := st.rounds.groups[l.GroupID]; g != nil {
			rg.ProtocolType = g.protocolType
		}
		resp.Groups = append(resp.Groups, rg)
	}
	st.trace(Event{Client: cn.clientID, Broker: cn.broker, API: "ListGroups", Version: r.Version, Level: LevelChatter})
	return resp
}
