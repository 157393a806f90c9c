package repl

import (
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"
	"sync/atomic"

	"github.com/minikafka-lab/minikafka/adapters/kafkawire"
	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
)

var kafkaCommand = &Command{
	Name:    "kafka",
	Summary: "serve this session's cluster over the Kafka protocol, one port per broker (chapter 11)",
	Detail: `kafka listen runs the Kafka wire-protocol listener (adapters/kafkawire) on
this session's own cluster: every broker gets its own loopback port,
Metadata advertises them, and a request sent to a broker that does not
lead the partition is answered NOT_LEADER_OR_FOLLOWER. Real clients (kcat,
franz-go, the built-in kclient) then produce and consume while the REPL
shows LEO, HW, ISR and the log move.

The clock stays manual and nothing replicates unless you type replicate:
an acks=all produce from a real client waits, parked, until the HW covers
it (or its request timeout passes). Every client request appears as an
event line after the command that was running when it happened: who sent
what, to which broker, with what result. trace=all also shows the
protocol's background (ApiVersions, Metadata, heartbeats, empty fetches);
trace=off shows none.

A crashed broker closes the connections it gets, as a dead process would.
Only loopback addresses are served.`,
	Chapter: 11,
	Group:   "Kafka protocol",
	Default: "status",
	Sub: []*Command{
		{
			Name:    "listen",
			Args:    "[ADDR] [trace=data|all|off]",
			Summary: "listen on ADDR (default 127.0.0.1:0) for the first broker and the next ports for the others",
			Detail: `ADDR is HOST:PORT on loopback. Broker ids in order get PORT, PORT+1,
...; port 0 gives each broker a free port. The addresses are printed, with
a kcat line to try.`,
			Positional: []Param{{Name: "ADDR", Optional: true}},
			Keys:       []Param{{Name: "trace", Values: choices("data", "all", "off")}},
			Outside:    true,
			Run:        runKafkaListen,
		},
		{
			Name:    "stop",
			Summary: "stop the listener and close every client connection",
			Outside: true,
			Run:     runKafkaStop,
		},
		{
			Name:    "status",
			Summary: "whether this session serves the Kafka protocol, and on which ports",
			Outside: true,
			Run:     runKafkaStatus,
		},
	},
}

// kafkaListening is the session's running Kafka listener.
type kafkaListening struct {
	srv   *kafkawire.Server
	addrs map[int32]string
	trace string
	// level is the least interesting event shown.
	level kafkawire.Level
	// inProgress counts client requests the listener has read and not
	// answered; kclient's settle step reads it.
	inProgress atomic.Int64
	// sentNoAnswer counts the acks=0 produces kclient has written to this
	// listener, servedNoAnswer those the listener has served (nothing
	// comes back for them), lostNoAnswer those settleKafka gave up
	// waiting for (owned by the session's goroutine).
	sentNoAnswer, servedNoAnswer atomic.Int64
	lostNoAnswer                 int64
}

// unreadNoAnswer is the number of acks=0 produces written to the listener
// and not yet served.
func (k *kafkaListening) unreadNoAnswer() int64 {
	return k.sentNoAnswer.Load() - k.servedNoAnswer.Load() - k.lostNoAnswer
}

// ownAddr reports whether addr is one of the listener's addresses.
func (k *kafkaListening) ownAddr(addr string) bool {
	for _, a := range k.addrs {
		if a == addr {
			return true
		}
	}
	return false
}

// kafkaEvent is a listener or kclient line in the session's event backlog,
// so that it prints in order with the engine's events.
type kafkaEvent struct {
	kind string
	Line string // the event line, also the JSON "line" field
}

func (e kafkaEvent) Kind() string   { return e.kind }
func (e kafkaEvent) String() string { return e.Line }

var _ engine.Event = kafkaEvent{}

// stopKafka stops the listener, if any.
func (s *Session) stopKafka() {
	if s.kafka != nil {
		_ = s.kafka.srv.Close()
		s.kafka = nil
	}
}

type kafkaStatus struct {
	Listening bool             `json:"listening"`
	Brokers   []kafkaBrokerRow `json:"brokers"`
	Trace     string           `json:"trace,omitempty"`
	verb      string
}

type kafkaBrokerRow struct {
	Broker  int32  `json:"broker"`
	Address string `json:"address"`
}

func (r kafkaStatus) writeText(w io.Writer, _ *style) error {
	switch {
	case r.verb == "stop":
		fmt.Fprintln(w, "stopped the Kafka listener")
	case r.Listening:
		for _, b := range r.Brokers {
			fmt.Fprintf(w, "broker %d listening on %s (Kafka protocol)\n", b.Broker, b.Address)
		}
		if r.verb == "listen" && len(r.Brokers) > 0 {
			fmt.Fprintf(w, "try: kcat -b %s -L    (trace=%s)\n", r.Brokers[0].Address, r.Trace)
		}
	default:
		fmt.Fprintln(w, "not serving the Kafka protocol (kafka listen starts it)")
	}
	return nil
}

func (s *Session) kafkaStatus() kafkaStatus {
	if s.kafka == nil {
		return kafkaStatus{Brokers: []kafkaBrokerRow{}}
	}
	st := kafkaStatus{Listening: true, Trace: s.kafka.trace}
	for id, a := range s.kafka.addrs {
		st.Brokers = append(st.Brokers, kafkaBrokerRow{Broker: id, Address: a})
	}
	sort.Slice(st.Brokers, func(i, j int) bool { return st.Brokers[i].Broker < st.Brokers[j].Broker })
	return st
}

func runKafkaListen(s *Session, w io.Writer, a *Args) error {
	addr := a.Pos(0)
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	trace := a.Choice("trace", "data", "data", "all", "off")
	if err := a.Err(); err != nil {
		return err
	}
	if err := loopbackAddr(addr); err != nil {
		return a.usage("ADDR: %v", err)
	}
	if s.sandbox != nil {
		if err := s.sandbox.listen(addr); err != nil {
			return err
		}
	}
	if s.kafka != nil {
		return kerr.State("already listening (kafka stop first)")
	}
	if s.server != nil {
		return kerr.State("this session serves JSON/TCP (serve stop first): one adapter owns the cluster at a time")
	}
	host, portText, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(portText)
	var listeners []kafkawire.Listener
	for i, id := range s.opts.Brokers {
		p := 0
		if port != 0 {
			p = port + i
		}
		listeners = append(listeners, kafkawire.Listener{Broker: id, Addr: net.JoinHostPort(host, strconv.Itoa(p))})
	}
	if cfg := s.cluster; cfg != nil {
		listeners = listeners[:0]
		for i, id := range cfg.Config().BrokerIDs {
			p := 0
			if port != 0 {
				p = port + i
			}
			listeners = append(listeners, kafkawire.Listener{Broker: id, Addr: net.JoinHostPort(host, strconv.Itoa(p))})
		}
	}
	k := &kafkaListening{trace: trace, level: kafkawire.LevelData}
	wake := s.settleWake()
	if trace == "all" {
		k.level = kafkawire.LevelChatter
	}
	srv, err := kafkawire.Listen(kafkawire.Options{
		Listeners: listeners,
		Cluster:   func() *engine.Cluster { return s.cluster },
		AfterRequest: func(*engine.Cluster) {
			s.peekEvents()
			wake.poke()
		},
		Trace: func(e kafkawire.Event) {
			if trace == "off" || e.Level > k.level {
				return
			}
			s.peekEvents() // engine events first: they happened before the answer
			s.backlog = append(s.backlog, kafkaEvent{kind: "kafka_request", Line: e.String()})
		},
		InProgress: &k.inProgress,
		Unanswered: &k.servedNoAnswer,
	})
	if err != nil {
		return kerr.State("cannot listen on %s: %v", addr, err)
	}
	k.srv = srv
	k.addrs = srv.Addrs()
	s.kafka = k
	st := s.kafkaStatus()
	st.verb = "listen"
	return s.emit(w, st)
}

func runKafkaStop(s *Session, w io.Writer, a *Args) error {
	if s.kafka == nil {
		return kerr.State("not serving the Kafka protocol (kafka listen starts it)")
	}
	s.closeKclients()
	s.stopKafka()
	return s.emit(w, kafkaStatus{verb: "stop", Brokers: []kafkaBrokerRow{}})
}

func runKafkaStatus(s *Session, w io.Writer, a *Args) error {
	return s.emit(w, s.kafkaStatus())
}
