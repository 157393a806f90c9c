package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// Config is a cluster's configuration (§3.1), with Kafka's names for the
// knobs (see ConfigKeys). Start from DefaultConfig.
type Config struct {
	// DataDir is the root directory: metadata.json, producer-identities.json,
	// offsets.json, groups.json, transactions.journal and one
	// broker-<id>/<topic>-<p>/ directory per replica (see the package doc).
	DataDir string
	// BrokerIDs are the simulated brokers, in placement order (§5.2).
	BrokerIDs []int32
	// FS is the file system DataDir lives in; nil means the real one
	// (vfs.OS). It is not a knob (ConfigKeys, String and Set leave it
	// alone): most engine tests run a cluster on a vfs.Mem.
	FS vfs.FS

	SegmentBytes         int64 // segment.bytes
	IndexIntervalBytes   int64 // index.interval.bytes
	SessionTimeoutMs     int64 // session.timeout.ms (consumer groups)
	ReplicaLagMaxOffsets int64 // replica.lag.max.offsets
	ReplicaLagTimeMaxMs  int64 // replica.lag.time.max.ms
	ReplicaFetchMaxBytes int   // replica.fetch.max.bytes
	MinInsyncReplicas    int   // min.insync.replicas

	// Rules are the rules that differ between MiniKafka and Kafka 4.x, one
	// knob each (rules.go); MiniKafka's by default.
	Rules Rules
	// BrokerSessionTimeoutMs is broker.session.timeout.ms: under
	// controller=kraft a crashed broker is fenced once it has been silent
	// for longer than this.
	BrokerSessionTimeoutMs int64
	// RequestTimeoutMs is request.timeout.ms: under hw.under.min.isr=hold a
	// pending acks=all write fails with REQUEST_TIMED_OUT after this long.
	RequestTimeoutMs int64
	// UncleanLeaderElectionIntervalMs is Kafka's internal
	// unclean.leader.election.interval.ms: under controller=kraft the
	// controller looks for leaderless partitions it may elect uncleanly this
	// often (besides at fencing and at a broker's return).
	UncleanLeaderElectionIntervalMs int64
}

// DefaultConfig returns the spec's defaults with one broker (id 1), under
// MiniKafka's rules.
func DefaultConfig(dataDir string) Config {
	return Config{
		DataDir:                dataDir,
		BrokerIDs:              []int32{1},
		SegmentBytes:           1 << 20,
		IndexIntervalBytes:     4096,
		SessionTimeoutMs:       10_000,
		ReplicaLagMaxOffsets:   10_000,
		ReplicaLagTimeMaxMs:    10_000,
		ReplicaFetchMaxBytes:   1 << 20,
		MinInsyncReplicas:      1,
		Rules:                  MiniKafkaRules(),
		BrokerSessionTimeoutMs: 9000,
		RequestTimeoutMs:       30_000,

		UncleanLeaderElectionIntervalMs: 300_000,
	}
}

// ConfigKey describes one configuration knob by its Kafka name.
type ConfigKey struct {
	Name    string
	Default string
	Doc     string
	// NeedsReopen is set for knobs that take effect only when the cluster is
	// opened again (the logs read them at open).
	NeedsReopen bool
	// Values lists the accepted values of a knob that takes one of a few
	// words (the rule knobs); nil for numbers.
	Values []string
	// Rule is set for the rule set (rules) and the knobs of single rules.
	Rule bool
}

type configField struct {
	key   ConfigKey
	get   func(*Config) string
	set   func(*Config, string) error // parses, checks and sets
	check func(*Config) error         // checks the current value
}

// intField is a numeric knob: a decimal integer, positive or non-negative,
// optionally at most 2^31-1.
func intField(key ConfigKey, positive, int32Max bool, get func(*Config) int64, set func(*Config, int64)) configField {
	check := func(v int64) error {
		if positive && v <= 0 {
			return kerr.Argument("%s must be positive (got %d)", key.Name, v)
		}
		if v < 0 {
			return kerr.Argument("%s cannot be negative (got %d)", key.Name, v)
		}
		if int32Max && v > 1<<31-1 {
			return kerr.Argument("%s is too large (got %d)", key.Name, v)
		}
		return nil
	}
	return configField{
		key: key,
		get: func(c *Config) string { return strconv.FormatInt(get(c), 10) },
		set: func(c *Config, value string) error {
			v, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil {
				return kerr.Argument("%s must be an integer (got %q)", key.Name, value)
			}
			if err := check(v); err != nil {
				return err
			}
			set(c, v)
			return nil
		},
		check: func(c *Config) error { return check(get(c)) },
	}
}

var configFields = append([]configField{
	intField(ConfigKey{Name: "segment.bytes", Default: "1048576", Doc: "log bytes after which a segment rolls", NeedsReopen: true}, true, false,
		func(c *Config) int64 { return c.SegmentBytes }, func(c *Config, v int64) { c.SegmentBytes = v }),
	intField(ConfigKey{Name: "index.interval.bytes", Default: "4096", Doc: "bytes between sparse offset index entries", NeedsReopen: true}, true, false,
		func(c *Config) int64 { return c.IndexIntervalBytes }, func(c *Config, v int64) { c.IndexIntervalBytes = v }),
	intField(ConfigKey{Name: "session.timeout.ms", Default: "10000", Doc: "a consumer group member expires after this long without a heartbeat"}, true, false,
		func(c *Config) int64 { return c.SessionTimeoutMs }, func(c *Config, v int64) { c.SessionTimeoutMs = v }),
	intField(ConfigKey{Name: "replica.lag.max.offsets", Default: "10000", Doc: "a follower further behind the leader's LEO than this leaves the ISR (MiniKafka's teaching knob; not read under replica.lag.from=last-caught-up)"}, false, false,
		func(c *Config) int64 { return c.ReplicaLagMaxOffsets }, func(c *Config, v int64) { c.ReplicaLagMaxOffsets = v }),
	intField(ConfigKey{Name: "replica.lag.time.max.ms", Default: "10000", Doc: "a follower that has not fetched (Kafka: not been caught up) for longer than this leaves the ISR"}, true, false,
		func(c *Config) int64 { return c.ReplicaLagTimeMaxMs }, func(c *Config, v int64) { c.ReplicaLagTimeMaxMs = v }),
	intField(ConfigKey{Name: "replica.fetch.max.bytes", Default: "1048576", Doc: "byte budget of one follower fetch (the first batch is always copied)"}, true, true,
		func(c *Config) int64 { return int64(c.ReplicaFetchMaxBytes) }, func(c *Config, v int64) { c.ReplicaFetchMaxBytes = int(v) }),
	intField(ConfigKey{Name: "min.insync.replicas", Default: "1", Doc: "the smallest ISR that may acknowledge an acks=all write (and, under hw.under.min.isr=hold, advance the HW)"}, true, true,
		func(c *Config) int64 { return int64(c.MinInsyncReplicas) }, func(c *Config, v int64) { c.MinInsyncReplicas = int(v) }),
	intField(ConfigKey{Name: "broker.session.timeout.ms", Default: "9000", Doc: "under controller=kraft, a crashed broker silent for longer than this is fenced"}, true, false,
		func(c *Config) int64 { return c.BrokerSessionTimeoutMs }, func(c *Config, v int64) { c.BrokerSessionTimeoutMs = v }),
	intField(ConfigKey{Name: "request.timeout.ms", Default: "30000", Doc: "under hw.under.min.isr=hold, a pending acks=all write fails with REQUEST_TIMED_OUT after this long"}, true, false,
		func(c *Config) int64 { return c.RequestTimeoutMs }, func(c *Config, v int64) { c.RequestTimeoutMs = v }),
	intField(ConfigKey{Name: "unclean.leader.election.interval.ms", Default: "300000", Doc: "under controller=kraft with unclean.leader.election.enable, how often the controller looks for leaderless partitions to elect uncleanly (Kafka's internal setting)"}, true, false,
		func(c *Config) int64 { return c.UncleanLeaderElectionIntervalMs }, func(c *Config, v int64) { c.UncleanLeaderElectionIntervalMs = v }),
}, ruleFields()...)

// ConfigKeys lists the knobs by Kafka name, in a fixed order, so the REPL,
// labs and adapters share one table. The rule set (rules) and the knobs of
// single rules come last.
func ConfigKeys() []ConfigKey {
	out := make([]ConfigKey, len(configFields))
	for i, f := range configFields {
		out[i] = f.key
	}
	return out
}

func findField(name string) (*configField, error) {
	for i := range configFields {
		if configFields[i].key.Name == name {
			return &configFields[i], nil
		}
	}
	names := make([]string, len(configFields))
	for i, f := range configFields {
		names[i] = f.key.Name
	}
	return nil, kerr.Argument("unknown config %q (known: %s)", name, strings.Join(names, ", "))
}

// Set changes one knob by its Kafka name. A bad name or value is an
// argument error naming the field, and c is then unchanged. Setting rules
// (minikafka or kafka) sets every rule knob to that rule set's value; set
// single rules after it.
func (c *Config) Set(name, value string) error {
	f, err := findField(name)
	if err != nil {
		return err
	}
	next := c.clone()
	if err := f.set(&next, value); err != nil {
		return err
	}
	*c = next
	return nil
}

// Setting is one name=value pair for SetAll.
type Setting struct{ Name, Value string }

// SetAll applies settings in order, except that a rules= setting is applied
// first, so that `rules=kafka truncation=high-watermark` means the Kafka
// rule set with one rule changed whatever the order of the words. On any
// error c is unchanged.
func (c *Config) SetAll(settings []Setting) error {
	next := c.clone()
	ordered := make([]Setting, 0, len(settings))
	for _, s := range settings {
		if s.Name == RulesKey {
			ordered = append(ordered, s)
		}
	}
	for _, s := range settings {
		if s.Name != RulesKey {
			ordered = append(ordered, s)
		}
	}
	for _, s := range ordered {
		if err := next.Set(s.Name, s.Value); err != nil {
			return err
		}
	}
	*c = next
	return nil
}

// Get returns one knob's value by its Kafka name.
func (c Config) Get(name string) (string, error) {
	f, err := findField(name)
	if err != nil {
		return "", err
	}
	return f.get(&c), nil
}

// Validate checks every field (argument errors naming the field, U3).
func (c Config) Validate() error {
	if c.DataDir == "" {
		return kerr.Argument("data directory is required")
	}
	if len(c.BrokerIDs) == 0 {
		return kerr.Argument("broker ids must not be empty")
	}
	seen := map[int32]bool{}
	for _, b := range c.BrokerIDs {
		if b < 0 {
			return kerr.Argument("broker id %d cannot be negative", b)
		}
		if seen[b] {
			return kerr.Argument("broker id %d is listed twice", b)
		}
		seen[b] = true
	}
	for i := range configFields {
		if err := configFields[i].check(&c); err != nil {
			return err
		}
	}
	return nil
}

// fs is the file system the cluster's files live in.
func (c Config) fs() vfs.FS {
	if c.FS == nil {
		return vfs.OS
	}
	return c.FS
}

// clone returns a deep copy (the file system is shared, not copied).
func (c Config) clone() Config {
	c.BrokerIDs = append([]int32(nil), c.BrokerIDs...)
	return c
}

// String renders the knobs as "name=value" pairs in ConfigKeys order.
func (c Config) String() string {
	parts := []string{fmt.Sprintf("brokers=%v", c.BrokerIDs)}
	for i := range configFields {
		parts = append(parts, fmt.Sprintf("%s=%s", configFields[i].key.Name, configFields[i].get(&c)))
	}
	return strings.Join(parts, " ")
}
