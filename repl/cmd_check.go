package repl

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/producer"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

var checkCommand = &Command{
	Name:    "check",
	Args:    "SUBJECT QUANTITY [TP] [key=K] [isolation=read_committed] OP VALUE",
	Summary: "assert a quantity of the cluster: prints ok, or fails with expected and actual",
	Detail: `A check compares one quantity with a value and fails (CHECK_FAILED,
"expected ..., got ...") when the comparison does not hold, so a lab or
exercise fails with it. OP is one of == != < <= > >=, between spaces;
sets and words compare with == and != only.

Partition quantities, SUBJECT being a partition such as events-0:
  hw, lso, log-start, leo             the leader's (log-start@ID, leo@ID: broker ID's)
  leader                              the leader's broker id, or none while offline
  epoch                               the leader epoch
  isr                                 the ISR as a set: check events-0 isr == 1,2
  records [isolation=read_committed]  how many records a consumer sees now
Topic, broker, group, consumer and transaction quantities:
  check TOPIC partition-of key=K == P     where the partitioner sends key K
  check TOPIC partitions == N
  check broker ID up == true|false
  check group G committed TP == N         none when nothing is committed
  check group G lag TP == N               HW - committed offset
  check group G state == stable           empty, stable
  check group G generation == N
  check group G members == N
  check consumer C position TP == N       also committed TP, lag TP
  check consumer C assignment == orders-0,orders-2
  check consumer C generation == N
  check txn ID state == complete_commit   ongoing, prepare_commit, ...

Examples:
  check events-0 hw == 1
  check events-0 leo@2 == 0
  check orders partition-of key=alice == 1`,
	Chapter:    5,
	Group:      "Views and checks",
	Positional: []Param{{Name: "EXPR", Rest: true}},
	Keys:       []Param{{Name: "key"}, {Name: "isolation", Values: choices("read_uncommitted", "read_committed")}},
	Run:        runCheck,
}

// checkQuantities lists the partition quantities, for completion and errors.
var checkQuantities = []string{"hw", "lso", "log-start", "leo", "leo@ID", "log-start@ID", "leader", "epoch", "isr", "records"}

func runCheck(s *Session, w io.Writer, a *Args) error {
	subject, op, expected, err := splitCheck(a.Rest(0))
	if err != nil {
		return a.usage("%v", err)
	}
	q, err := s.evaluate(a, subject)
	if err != nil {
		return err
	}
	if err := a.Err(); err != nil {
		return err
	}
	name := strings.Join(subject, " ")
	if a.Has("key") {
		name += " key=" + Quote(a.String("key", ""))
	}
	if a.Has("isolation") {
		name += " isolation=" + a.String("isolation", "")
	}
	ok, err := compare(q, op, expected)
	if err != nil {
		return a.usage("%s: %v", name, err)
	}
	if !ok {
		return &CheckError{Subject: name, Op: op, Expected: expected, Actual: q.String()}
	}
	return s.emit(w, checkResult{Subject: name, Op: op, Expected: expected, Actual: q.String()})
}

// evaluate reads the quantity a check names.
func (s *Session) evaluate(a *Args, subject []string) (quantity, error) {
	switch subject[0] {
	case "broker", "group", "consumer", "txn":
		if len(subject) < 3 || len(subject) > 4 {
			return quantity{}, a.usage("a %s check reads: check %s NAME QUANTITY [TP] OP VALUE", subject[0], subject[0])
		}
	}
	switch subject[0] {
	case "broker":
		if len(subject) != 3 {
			return quantity{}, a.usage("a broker check reads up: check broker 2 up == false")
		}
		return s.brokerQuantity(a, subject[1], subject[2])
	case "group":
		return s.groupQuantity(a, subject[1], subject[2], subject[3:])
	case "consumer":
		return s.consumerQuantity(a, subject[1], subject[2], subject[3:])
	case "txn":
		if len(subject) != 3 || subject[2] != "state" {
			return quantity{}, a.usage("a transaction check reads its state: check txn t1 state == complete_commit")
		}
		d, err := s.cluster.DescribeTransaction(subject[1])
		if err != nil {
			return quantity{}, err
		}
		return wordQ(d.State.String()), nil
	}
	if len(subject) != 2 {
		return quantity{}, a.usage("a check names a subject and a quantity, e.g. check events-0 hw == 1")
	}
	switch subject[1] {
	case "partition-of", "partitions":
		return s.topicQuantity(a, subject[0], subject[1])
	}
	tp, err := topic.Parse(subject[0])
	if err != nil {
		return quantity{}, a.usage("%s is not a partition such as events-0 (or a topic with partition-of)", subject[0])
	}
	return s.partitionQuantity(a, tp, subject[1])
}

func (s *Session) partitionQuantity(a *Args, tp engine.TopicPartition, name string) (quantity, error) {
	st, err := s.cluster.PartitionState(tp)
	if err != nil {
		return quantity{}, err
	}
	base, at, hasAt := strings.Cut(name, "@")
	if hasAt {
		id, err := strconv.ParseInt(at, 10, 32)
		if err != nil || id < 0 {
			return quantity{}, a.usage("%s: %q is not a broker id", name, at)
		}
		for _, r := range st.Replicas {
			if r.Broker != int32(id) {
				continue
			}
			switch base {
			case "leo":
				return intQ(r.LEO), nil
			case "log-start":
				return intQ(r.LogStart), nil
			}
			return quantity{}, a.usage("only leo@ID and log-start@ID take a broker")
		}
		return quantity{}, a.usage("broker %d has no replica of %s (replicas: %s)", id, tp, replicaIDs(st))
	}
	switch name {
	case "hw":
		return intQ(st.HW), nil
	case "lso":
		return intQ(st.LSO), nil
	case "log-start":
		return intQ(st.LogStart), nil
	case "leo":
		return intQ(st.LEO), nil
	case "epoch":
		return intQ(int64(st.LeaderEpoch)), nil
	case "isr":
		return setQ(st.ISR), nil
	case "leader":
		if !st.Online {
			return wordQ("none"), nil
		}
		return wordQ(fmt.Sprint(st.Leader)), nil
	case "records":
		iso := a.Choice("isolation", "read_uncommitted", "read_uncommitted", "read_committed")
		if err := a.Err(); err != nil {
			return quantity{}, err
		}
		level, err := engine.ParseIsolation(iso)
		if err != nil {
			return quantity{}, err
		}
		recs, err := s.cluster.Fetch(tp, st.LogStart, math.MaxInt32, level)
		if err != nil {
			return quantity{}, err
		}
		return intQ(int64(len(recs))), nil
	}
	return quantity{}, a.usage("unknown quantity %q; one of %s", name, strings.Join(checkQuantities, ", "))
}

func replicaIDs(st engine.PartitionState) string {
	var ids []int32
	for _, r := range st.Replicas {
		ids = append(ids, r.Broker)
	}
	return joinIDs(ids, ",")
}

func (s *Session) topicQuantity(a *Args, name, what string) (quantity, error) {
	t, err := s.cluster.Topic(name)
	if err != nil {
		return quantity{}, err
	}
	n := int32(len(t.Partitions))
	if what == "partitions" {
		return intQ(int64(n)), nil
	}
	if !a.Has("key") {
		return quantity{}, a.usage("partition-of needs key=K: check %s partition-of key=alice == 1", name)
	}
	key := a.Bytes("key")
	if err := a.Err(); err != nil {
		return quantity{}, err
	}
	return intQ(int64(producer.KeyPartition(key, n))), nil
}

func (s *Session) brokerQuantity(a *Args, idText, what string) (quantity, error) {
	id, err := strconv.ParseInt(idText, 10, 32)
	if err != nil {
		return quantity{}, a.usage("%q is not a broker id", idText)
	}
	if what != "up" {
		return quantity{}, a.usage("a broker check reads up: check broker 2 up == false")
	}
	bs, err := s.cluster.Brokers()
	if err != nil {
		return quantity{}, err
	}
	for _, b := range bs {
		if b.ID == int32(id) {
			return wordQ(strconv.FormatBool(b.Up)), nil
		}
	}
	return quantity{}, a.usage("no broker %d (brokers: %s)", id, joinIDs(s.cfg.BrokerIDs, ","))
}

// groupQuantity reads a group's committed offset or lag of a partition, or
// its state, generation or member count.
func (s *Session) groupQuantity(a *Args, g, what string, rest []string) (quantity, error) {
	d, err := s.cluster.DescribeGroup(g)
	if err != nil {
		return quantity{}, err
	}
	switch what {
	case "state":
		return wordQ(d.State.String()), nil
	case "generation":
		return intQ(int64(d.Generation)), nil
	case "members":
		return intQ(int64(len(d.Members))), nil
	case "committed", "lag":
		if len(rest) != 1 {
			return quantity{}, a.usage("check group %s %s TP OP N, e.g. check group %s %s orders-0 == 3", g, what, g, what)
		}
		tp, err := topic.Parse(rest[0])
		if err != nil {
			return quantity{}, a.usage("%s is not a partition such as orders-0", rest[0])
		}
		for _, p := range d.Partitions {
			if p.TP != tp {
				continue
			}
			v := p.CurrentOffset
			if what == "lag" {
				v = p.Lag
			}
			if v < 0 {
				return wordQ("none"), nil
			}
			return intQ(v), nil
		}
		return wordQ("none"), nil
	}
	return quantity{}, a.usage("unknown group quantity %q; one of committed TP, lag TP, state, generation, members", what)
}

// consumerQuantity reads a consumer's position, committed offset or lag of
// a partition, its assignment or its generation.
func (s *Session) consumerQuantity(a *Args, name, what string, rest []string) (quantity, error) {
	c, err := s.consumerNamed(name)
	if err != nil {
		return quantity{}, err
	}
	switch what {
	case "assignment":
		return wordQ(strings.Join(tpNames(c.Assignment()), ",")), nil
	case "generation":
		g, joined := c.Generation()
		if !joined {
			return wordQ("none"), nil
		}
		return intQ(int64(g)), nil
	case "position", "committed", "lag":
		if len(rest) != 1 {
			return quantity{}, a.usage("check consumer %s %s TP OP N, e.g. check consumer %s %s orders-0 == 3", name, what, name, what)
		}
		tp, err := topic.Parse(rest[0])
		if err != nil {
			return quantity{}, a.usage("%s is not a partition such as orders-0", rest[0])
		}
		switch what {
		case "committed":
			o, ok, err := c.Committed(tp)
			if err != nil {
				return quantity{}, err
			}
			if !ok {
				return wordQ("none"), nil
			}
			return intQ(o), nil
		case "lag":
			o, err := c.Lag(tp)
			if err != nil {
				return quantity{}, err
			}
			return intQ(o), nil
		}
		for _, p := range c.Positions() {
			if p.TP == tp {
				return intQ(p.Offset), nil
			}
		}
		return wordQ("none"), nil
	}
	return quantity{}, a.usage("unknown consumer quantity %q; one of position TP, committed TP, lag TP, assignment, generation", what)
}
