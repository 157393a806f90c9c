package explore

import (
	"fmt"
	"slices"
	"strings"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
)

// Kind is a kind of step the explorer tries.
type Kind int

// The kinds of steps, in the order the explorer tries them from a state.
const (
	Produce   Kind = iota // one record, a value not used before, to one partition
	Replicate             // one fetch of one follower of one partition
	Crash                 // a machine crash: the broker's unflushed bytes are lost
	CrashKeep             // a process crash: the page cache keeps the unflushed bytes
	Restart               // a crashed broker restarts and recovers its logs
	Promote               // a running ISR member becomes the leader (an election)
	Clock                 // the clock advances past a timeout that matters
)

// kindNames are the names ops=LIST takes, by Kind.
var kindNames = []string{"produce", "replicate", "crash", "crash-keep", "restart", "promote", "clock"}

// String is the kind's name in ops=LIST.
func (k Kind) String() string { return kindNames[k] }

// OpNames lists the names ops=LIST accepts, in the order they are tried.
func OpNames() []string { return slices.Clone(kindNames) }

// ParseOps reads a comma-separated list of op names ("produce,replicate").
func ParseOps(list string) ([]Kind, error) {
	var out []Kind
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		i := slices.Index(kindNames, name)
		if i < 0 {
			return nil, kerr.Argument("unknown op %q: ops are %s", name, strings.Join(kindNames, ", "))
		}
		if !slices.Contains(out, Kind(i)) {
			out = append(out, Kind(i))
		}
	}
	slices.Sort(out)
	return out, nil
}

// Op is one step of a schedule.
type Op struct {
	Kind   Kind
	TP     engine.TopicPartition // Produce, Replicate, Promote
	Broker int32                 // Replicate (the follower), Crash, CrashKeep, Restart, Promote
	Acks   engine.AckMode        // Produce
	Value  string                // Produce
	Ms     int64                 // Clock
	// Knob names the setting a Clock step passes
	// ("replica.lag.time.max.ms").
	Knob string
}

// Command is the step as a REPL command line: a lab replays it.
func (o Op) Command() string {
	switch o.Kind {
	case Produce:
		return fmt.Sprintf("produce %s partition=%d value=%s acks=%s", o.TP.Topic, o.TP.Partition, o.Value, o.Acks)
	case Replicate:
		return fmt.Sprintf("replicate %s follower=%d", o.TP, o.Broker)
	case Crash:
		return fmt.Sprintf("broker crash %d", o.Broker)
	case CrashKeep:
		return fmt.Sprintf("broker crash %d keep-unflushed", o.Broker)
	case Restart:
		return fmt.Sprintf("broker restart %d", o.Broker)
	case Promote:
		return fmt.Sprintf("promote %s %d", o.TP, o.Broker)
	default:
		return fmt.Sprintf("clock advance %dms", o.Ms)
	}
}

// String is the step's command line.
func (o Op) String() string { return o.Command() }

// fault reports whether the step is a crash (faults=N bounds them).
func (o Op) fault() bool { return o.Kind == Crash || o.Kind == CrashKeep }

// apply runs the step on c. It returns the acknowledgement of a produce
// (nil for the other steps); an error means the step is not enabled.
func (o Op) apply(c *engine.Cluster) (*engine.Ack, error) {
	switch o.Kind {
	case Produce:
		ack, err := c.Produce(o.TP.Topic, o.TP.Partition, record.Record{Value: []byte(o.Value), TimestampMs: -1}, o.Acks)
		if err == nil && ack.State() == engine.Failed {
			err = ack.Err()
		}
		return ack, err
	case Replicate:
		tp := o.TP
		_, err := c.Replicate(&tp, o.Broker)
		return nil, err
	case Crash, CrashKeep:
		return nil, c.CrashBroker(o.Broker, o.Kind == CrashKeep)
	case Restart:
		_, err := c.RestartBroker(o.Broker)
		return nil, err
	case Promote:
		return nil, c.Promote(o.TP, o.Broker)
	default:
		return nil, c.Advance(o.Ms)
	}
}
