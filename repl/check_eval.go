package repl

import (
	"errors"
	"math"
	"slices"
	"strconv"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// evalCheck reads the quantity a parsed check names from the cluster.
func (s *Session) evalCheck(a *Args, sp *checkSpec) (quantity, error) {
	switch sp.q.family {
	case "clock":
		return intQ(s.nowMs()), nil
	case "topic":
		return s.topicQuantity(sp)
	case "broker":
		return s.brokerQuantity(a, sp)
	case "producer":
		return s.producerQuantity(sp)
	case "group":
		return s.groupQuantity(sp)
	case "consumer":
		return s.consumerQuantity(sp)
	case "history":
		return intQ(int64(s.countRan(sp.pattern))), nil
	case "txn":
		d, err := s.cluster.DescribeTransaction(sp.name)
		if err != nil {
			return quantity{}, err
		}
		return wordQ(d.State.String()), nil
	}
	return s.partitionQuantity(a, sp)
}

func (s *Session) partitionQuantity(a *Args, sp *checkSpec) (quantity, error) {
	st, err := s.cluster.PartitionState(sp.tp)
	if err != nil {
		return quantity{}, err
	}
	if sp.broker >= 0 && !slices.Contains(replicaList(st), sp.broker) {
		return quantity{}, a.usage("broker %d has no replica of %s (replicas: %s)", sp.broker, sp.tp, replicaIDs(st))
	}
	switch sp.q.name {
	case "hw":
		return intQ(st.HW), nil
	case "lso":
		return intQ(st.LSO), nil
	case "epoch":
		return intQ(int64(st.LeaderEpoch)), nil
	case "isr":
		return setQ(st.ISR), nil
	case "replicas":
		return setQ(replicaList(st)), nil
	case "leader":
		if !st.Online {
			return noneQ(), nil
		}
		return intQ(int64(st.Leader)), nil
	case "at-min-isr":
		return boolQ(len(st.ISR) == s.cluster.Config().MinInsyncReplicas), nil
	case "under-min-isr":
		return boolQ(len(st.ISR) < s.cluster.Config().MinInsyncReplicas), nil
	case "pending-acks":
		return intQ(int64(len(st.PendingAcks))), nil
	case "isr-shrinks":
		return intQ(s.countEvents("isr_shrank", sp.tp.String(), sp.broker)), nil
	case "isr-expansions":
		return intQ(s.countEvents("isr_expanded", sp.tp.String(), sp.broker)), nil
	case "truncations":
		return intQ(s.countEvents("replica_truncated", sp.tp.String(), sp.broker)), nil
	case "leader-changes":
		return intQ(s.countEvents("leader_changed", sp.tp.String(), -1)), nil
	case "leo", "log-start":
		if sp.broker < 0 {
			if sp.q.name == "leo" {
				return intQ(st.LEO), nil
			}
			return intQ(st.LogStart), nil
		}
		for _, r := range st.Replicas {
			if r.Broker == sp.broker && sp.q.name == "leo" {
				return intQ(r.LEO), nil
			}
			if r.Broker == sp.broker {
				return intQ(r.LogStart), nil
			}
		}
	case "records", "values":
		if sp.broker < 0 {
			return s.visibleRecords(sp, st)
		}
	}
	broker := st.Leader
	if sp.broker >= 0 {
		broker = sp.broker
	}
	return s.logQuantity(sp.tp, broker, sp)
}

func replicaList(st engine.PartitionState) []int32 {
	var ids []int32
	for _, r := range st.Replicas {
		ids = append(ids, r.Broker)
	}
	return ids
}

func replicaIDs(st engine.PartitionState) string { return joinIDs(replicaList(st), ",") }

// visibleRecords is what a fetch from the log start returns now: the
// record count, or the values.
func (s *Session) visibleRecords(sp *checkSpec, st engine.PartitionState) (quantity, error) {
	level := engine.ReadUncommitted
	if sp.iso == "read_committed" {
		level = engine.ReadCommitted
	}
	recs, err := s.cluster.Fetch(sp.tp, st.LogStart, math.MaxInt32, level)
	if err != nil {
		return quantity{}, err
	}
	if sp.q.name == "records" {
		return intQ(int64(len(recs))), nil
	}
	items := []string{}
	for _, r := range recs {
		items = append(items, valueToken(r.Value))
	}
	return listQ(items), nil
}

// logQuantity reads a quantity of one replica's log (the broker's).
func (s *Session) logQuantity(tp engine.TopicPartition, broker int32, sp *checkSpec) (quantity, error) {
	l, err := s.cluster.DescribeLog(tp, broker)
	if err != nil {
		return quantity{}, err
	}
	switch sp.q.name {
	case "segments":
		items := []string{}
		for _, sg := range l.Segments {
			items = append(items, strconv.FormatInt(sg.Base, 10))
		}
		return listQ(items), nil
	case "index":
		items := []string{}
		for _, sg := range l.Segments {
			entries, err := s.cluster.LogIndex(tp, broker, sg.Base)
			if err != nil {
				return quantity{}, err
			}
			for _, e := range entries {
				items = append(items, strconv.FormatInt(e.Offset, 10))
			}
		}
		return listQ(items), nil
	case "batches":
		batches, err := s.cluster.LogBatches(tp, broker, l.LogStart, -1, 0)
		return intQ(int64(len(batches))), err
	case "values":
		items := []string{}
		err := s.scanRecords(tp, broker, l.LogStart, -1, func(r engine.LogRecord) {
			items = append(items, valueToken(r.Value))
		})
		return listQ(items), err
	}
	// key or value at offset=N
	if sp.offset < l.LogStart || sp.offset >= l.LEO {
		return noneQ(), nil
	}
	found := noneQ()
	err = s.scanRecords(tp, broker, sp.offset, sp.offset+1, func(r engine.LogRecord) {
		if r.Offset == sp.offset {
			b := r.Value
			if sp.q.name == "key" {
				b = r.Key
			}
			found = wordQ(valueToken(b))
		}
	})
	return found, err
}

// scanRecords calls fn for every data record of broker's log of tp in
// [from, to) (to < 0: up to the LEO), in offset order; transaction markers
// are skipped.
func (s *Session) scanRecords(tp engine.TopicPartition, broker int32, from, to int64, fn func(engine.LogRecord)) error {
	batches, err := s.cluster.LogBatches(tp, broker, from, to, 0)
	if err != nil {
		return err
	}
	for _, b := range batches {
		recs, err := b.Records()
		if err != nil {
			return err
		}
		for _, r := range recs {
			if r.Offset >= from && (to < 0 || r.Offset < to) {
				fn(r)
			}
		}
	}
	return nil
}

func (s *Session) topicQuantity(sp *checkSpec) (quantity, error) {
	t, err := s.cluster.Topic(sp.name)
	if err != nil {
		return quantity{}, err
	}
	n := int32(len(t.Partitions))
	if sp.q.name == "partitions" {
		return intQ(int64(n)), nil
	}
	// key= is never null (an empty value is the empty key, which is a key).
	p, err := s.cluster.PartitionFor(sp.name, append([]byte{}, sp.key...))
	return intQ(int64(p)), err
}

func (s *Session) brokerQuantity(a *Args, sp *checkSpec) (quantity, error) {
	id, _ := strconv.ParseInt(sp.name, 10, 32) // checked by parseCheck
	bs, err := s.cluster.Brokers()
	if err != nil {
		return quantity{}, err
	}
	for _, b := range bs {
		if b.ID == int32(id) {
			return boolQ(b.Up), nil
		}
	}
	return quantity{}, a.usage("no broker %d (brokers: %s)", id, joinIDs(s.cfg.BrokerIDs, ","))
}

// producerQuantity counts a named producer's records by the state of their
// futures.
func (s *Session) producerQuantity(sp *checkSpec) (quantity, error) {
	np, err := s.producerEntry(sp.name)
	if err != nil {
		return quantity{}, err
	}
	d := np.p.Describe()
	switch sp.q.name {
	case "buffered":
		n := 0
		for _, b := range d.Buffered {
			n += b.Records
		}
		return intQ(int64(n)), nil
	case "epoch":
		if !d.Idempotent {
			return noneQ(), nil
		}
		return intQ(int64(d.Epoch)), nil
	}
	return intQ(np.count(sp.q.name)), nil
}

// groupQuantity reads a group's state, generation, members, or the owner,
// committed offset or lag of a partition.
//
// A group that does not exist (no member ever joined, no offset committed)
// has no members, owners, committed offsets or lag, so those read as none
// (members as []); its state and generation fail as group describe does,
// since Kafka reports such a group as not existing at all.
func (s *Session) groupQuantity(sp *checkSpec) (quantity, error) {
	d, err := s.cluster.DescribeGroup(sp.name)
	if errors.Is(err, kerr.UnknownMember) {
		switch sp.q.name {
		case "members":
			return sortedListQ(nil), nil
		case "owner", "committed", "lag":
			return noneQ(), nil
		}
	}
	if err != nil {
		return quantity{}, groupError(sp.name, err)
	}
	switch sp.q.name {
	case "state":
		return wordQ(d.State.String()), nil
	case "generation":
		return intQ(int64(d.Generation)), nil
	case "members":
		var ids []string
		for _, m := range d.Members {
			ids = append(ids, m.MemberID)
		}
		return sortedListQ(ids), nil
	case "owner":
		for _, m := range d.Members {
			for _, tp := range m.Assignment {
				if tp == sp.tp {
					return wordQ(m.MemberID), nil
				}
			}
		}
		return noneQ(), nil
	}
	for _, p := range d.Partitions {
		if p.TP != sp.tp {
			continue
		}
		v := p.CurrentOffset
		if sp.q.name == "lag" {
			v = p.Lag
		}
		if v < 0 {
			return noneQ(), nil
		}
		return intQ(v), nil
	}
	return noneQ(), nil
}

// consumerQuantity reads a consumer's position, committed offset or lag of
// a partition, its assignment, generation, polled count or whether it is
// closed.
func (s *Session) consumerQuantity(sp *checkSpec) (quantity, error) {
	nc, err := s.consumerEntry(sp.name)
	if err != nil {
		return quantity{}, err
	}
	c := nc.c
	switch sp.q.name {
	case "closed":
		return boolQ(c.Closed()), nil
	case "polled":
		return intQ(nc.polled), nil
	case "assignment":
		return sortedListQ(tpNames(c.Assignment())), nil
	case "generation":
		g, joined := c.Generation()
		if !joined {
			return noneQ(), nil
		}
		return intQ(int64(g)), nil
	case "committed":
		o, ok, err := c.Committed(sp.tp)
		if err != nil {
			return quantity{}, err
		}
		if !ok {
			return noneQ(), nil
		}
		return intQ(o), nil
	case "lag":
		o, err := c.Lag(sp.tp)
		if err != nil {
			return quantity{}, err
		}
		return intQ(o), nil
	}
	for _, p := range c.Positions() {
		if p.TP == sp.tp {
			return intQ(p.Offset), nil
		}
	}
	return noneQ(), nil
}
