package kafkawire

import (
	"errors"
	"fmt"
	"strings"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	kafkaerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// apiVersionKeys is the ApiVersions key list.
func apiVersionKeys() []kmsg.ApiVersionsResponseApiKey {
	out := make([]kmsg.ApiVersionsResponseApiKey, 0, len(served))
	for _, r := range served {
		k := kmsg.NewApiVersionsResponseApiKey()
		k.ApiKey, k.MinVersion, k.MaxVersion = int16(r.key), r.min, r.max
		out = append(out, k)
	}
	return out
}

// apiVersionsFallback is the answer to an ApiVersions version this
// listener does not serve: v0, UNSUPPORTED_VERSION, and the key list.
func apiVersionsFallback() kmsg.Response {
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.Version = 0
	resp.ErrorCode = kafkaerr.UnsupportedVersion.Code
	resp.ApiKeys = apiVersionKeys()
	return resp
}

func (st *state) apiVersions(cn conn, r *kmsg.ApiVersionsRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.ApiVersionsResponse)
	resp.ApiKeys = apiVersionKeys()
	st.trace(Event{Client: cn.clientID, Broker: cn.broker, API: "ApiVersions", Version: r.Version, Level: LevelChatter})
	return resp
}

// metadata answers Metadata: the running brokers at their listeners'
// addresses, and the topics asked for (all of them for a null list, or an
// empty one at v0) with leaders, epochs, replicas, ISR and offline
// replicas. Topics are never created on the fly (auto-create is off, as
// MiniKafka topics are created with `topic create` or CreateTopics): an
// unknown topic is UNKNOWN_TOPIC_OR_PARTITION.
func (st *state) metadata(c *engine.Cluster, cn conn, r *kmsg.MetadataRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.MetadataResponse)
	live := st.liveListeners(c)
	up := map[int32]bool{}
	for _, bl := range live {
		b := kmsg.NewMetadataResponseBroker()
		b.NodeID, b.Host, b.Port = bl.broker, bl.host, bl.port
		resp.Brokers = append(resp.Brokers, b)
		up[bl.broker] = true
	}
	resp.ClusterID = kmsg.StringPtr(st.s.opts.ClusterID)
	resp.ControllerID = -1
	if len(live) > 0 {
		resp.ControllerID = live[0].broker
	}
	var names []string
	all := r.Topics == nil || (r.Version == 0 && len(r.Topics) == 0)
	if all {
		ts, err := c.Topics()
		if err == nil {
			for _, t := range ts {
				names = append(names, t.Name)
			}
		}
	} else {
		for _, t := range r.Topics {
			if t.Topic != nil {
				names = append(names, *t.Topic)
			}
		}
	}
	for _, name := range names {
		mt := kmsg.NewMetadataResponseTopic()
		mt.Topic = kmsg.StringPtr(name)
		t, err := c.Topic(name)
		if err != nil {
			mt.ErrorCode = kafkaCode(err)
			resp.Topics = append(resp.Topics, mt)
			continue
		}
		for _, p := range t.Partitions {
			mp := kmsg.NewMetadataResponseTopicPartition()
			mp.Partition, mp.Leader, mp.LeaderEpoch = p.Partition, p.Leader, p.LeaderEpoch
			mp.Replicas = append([]int32(nil), p.Replicas...)
			if st, err := c.PartitionState(p.TP()); err == nil {
				mp.ISR = append([]int32(nil), st.ISR...)
			}
			for _, rep := range p.Replicas {
				if !up[rep] {
					mp.OfflineReplicas = append(mp.OfflineReplicas, rep)
				}
			}
			if !up[p.Leader] {
				mp.ErrorCode = kafkaerr.LeaderNotAvailable.Code
				mp.Leader = -1
			}
			mt.Partitions = append(mt.Partitions, mp)
		}
		resp.Topics = append(resp.Topics, mt)
	}
	what := "all topics"
	if !all {
		what = "[" + strings.Join(names, " ") + "]"
	}
	st.trace(Event{Client: cn.clientID, Broker: cn.broker, API: "Metadata", Version: r.Version, Result: what, Level: LevelChatter})
	return resp
}

// findCoordinator answers FindCoordinator for a group (type 0) or a
// transactional id (type 1).
func (st *state) findCoordinator(c *engine.Cluster, cn conn, r *kmsg.FindCoordinatorRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.FindCoordinatorResponse)
	if r.CoordinatorType != 0 && r.CoordinatorType != 1 {
		resp.ErrorCode = kafkaerr.InvalidRequest.Code
		resp.ErrorMessage = kmsg.StringPtr("coordinator type must be 0 (group) or 1 (transaction)")
		return resp
	}
	bl := st.coordinator(c, r.CoordinatorKey)
	if bl == nil {
		resp.ErrorCode = kafkaerr.CoordinatorNotAvailable.Code
		resp.NodeID = -1
		return resp
	}
	resp.NodeID, resp.Host, resp.Port = bl.broker, bl.host, bl.port
	kind := "group"
	if r.CoordinatorType == 1 {
		kind = "transactional id"
	}
	st.trace(Event{Client: cn.clientID, Broker: cn.broker, API: "FindCoordinator", Version: r.Version,
		Result: fmt.Sprintf("%s %s: broker %d", kind, r.CoordinatorKey, bl.broker), Level: LevelChatter})
	return resp
}

// createTopics creates topics with the engine's CreateTopic. A partition
// count or replication factor of -1 takes the defaults: 1 partition, and
// min(3, brokers) replicas. Explicit replica assignments and topic configs
// are refused (INVALID_REQUEST / INVALID_CONFIG): MiniKafka places replicas
// itself and has no per-topic configs.
func (st *state) createTopics(c *engine.Cluster, cn conn, r *kmsg.CreateTopicsRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.CreateTopicsResponse)
	brokers := len(c.Config().BrokerIDs)
	for _, t := range r.Topics {
		rt := kmsg.NewCreateTopicsResponseTopic()
		rt.Topic = t.Topic
		parts, rf := int(t.NumPartitions), int(t.ReplicationFactor)
		if parts == -1 {
			parts = 1
		}
		if rf == -1 {
			rf = min(3, brokers)
		}
		rt.NumPartitions, rt.ReplicationFactor = int32(parts), int16(rf)
		var err error
		switch {
		case len(t.ReplicaAssignment) > 0:
			rt.ErrorCode = kafkaerr.InvalidRequest.Code
			rt.ErrorMessage = kmsg.StringPtr("MiniKafka places replicas itself: no replica assignment")
		case len(t.Configs) > 0:
			rt.ErrorCode = kafkaerr.InvalidConfig.Code
			rt.ErrorMessage = kmsg.StringPtr("MiniKafka topics have no configs of their own")
		case parts <= 0:
			rt.ErrorCode = kafkaerr.InvalidPartitions.Code
		case rf <= 0 || rf > brokers:
			rt.ErrorCode = kafkaerr.InvalidReplicationFactor.Code
			rt.ErrorMessage = kmsg.StringPtr(fmt.Sprintf("replication factor %d with %d brokers", rf, brokers))
		case r.ValidateOnly:
			if _, terr := c.Topic(t.Topic); terr == nil {
				rt.ErrorCode = kafkaerr.TopicAlreadyExists.Code
			}
		default:
			_, err = c.CreateTopic(t.Topic, parts, rf)
		}
		if err != nil {
			rt.ErrorCode = kafkaCode(err)
			if errors.Is(err, kerr.InvalidArgument) {
				rt.ErrorCode = kafkaerr.InvalidTopicException.Code
			}
			rt.ErrorMessage = kmsg.StringPtr(kerr.MessageOf(err))
		}
		ev := Event{Client: cn.clientID, Broker: cn.broker, API: "CreateTopics", Version: r.Version,
			Result: fmt.Sprintf("%s (%d partitions, rf %d)", t.Topic, parts, rf), Level: LevelData}
		if rt.ErrorCode != 0 {
			ev.Error = codeName(rt.ErrorCode)
		}
		st.trace(ev)
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

// describeConfigs answers for topics and brokers with the cluster's
// configuration knobs (MiniKafka's config is cluster-wide, so every topic
// and broker reports the same values).
func (st *state) describeConfigs(c *engine.Cluster, cn conn, r *kmsg.DescribeConfigsRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.DescribeConfigsResponse)
	cfg := c.Config()
	for _, res := range r.Resources {
		rr := kmsg.NewDescribeConfigsResponseResource()
		rr.ResourceType, rr.ResourceName = res.ResourceType, res.ResourceName
		switch res.ResourceType {
		case kmsg.ConfigResourceTypeTopic:
			if _, err := c.Topic(res.ResourceName); err != nil {
				rr.ErrorCode = kafkaCode(err)
				resp.Resources = append(resp.Resources, rr)
				continue
			}
		case kmsg.ConfigResourceTypeBroker:
		default:
			rr.ErrorCode = kafkaerr.InvalidRequest.Code
			rr.ErrorMessage = kmsg.StringPtr("only topic and broker configs are described")
			resp.Resources = append(resp.Resources, rr)
			continue
		}
		for _, k := range engine.ConfigKeys() {
			if len(res.ConfigNames) > 0 && !contains(res.ConfigNames, k.Name) {
				continue
			}
			v, err := cfg.Get(k.Name)
			if err != nil {
				continue
			}
			ce := kmsg.NewDescribeConfigsResponseResourceConfig()
			ce.Name, ce.Value, ce.ReadOnly = k.Name, kmsg.StringPtr(v), true
			ce.IsDefault = v == k.Default
			ce.Source = kmsg.ConfigSourceStaticBrokerConfig
			if ce.IsDefault {
				ce.Source = kmsg.ConfigSourceDefaultConfig
			}
			rr.Configs = append(rr.Configs, ce)
		}
		resp.Resources = append(resp.Resources, rr)
	}
	st.trace(Event{Client: cn.clientID, Broker: cn.broker, API: "DescribeConfigs", Version: r.Version, Level: LevelChatter})
	return resp
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
