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
}

// DefaultConfig returns the spec's defaults with one broker (id 1).
func DefaultConfig(dataDir string) Config {
	return Config{
		DataDir:              dataDir,
		BrokerIDs:            []int32{1},
		SegmentBytes:         1 << 20,
		IndexIntervalBytes:   4096,
		SessionTimeoutMs:     10_000,
		ReplicaLagMaxOffsets: 10_000,
		ReplicaLagTimeMaxMs:  10_000,
		ReplicaFetchMaxBytes: 1 << 20,
		MinInsyncReplicas:    1,
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
}

type configField struct {
	key      ConfigKey
	positive bool // > 0 rather than >= 0
	get      func(*Config) int64
	set      func(*Config, int64)
}

var configFields = []configField{
	{ConfigKey{"segment.bytes", "1048576", "log bytes after which a segment rolls", true}, true,
		func(c *Config) int64 { return c.SegmentBytes }, func(c *Config, v int64) { c.SegmentBytes = v }},
	{ConfigKey{"index.interval.bytes", "4096", "bytes between sparse offset index entries", true}, true,
		func(c *Config) int64 { return c.IndexIntervalBytes }, func(c *Config, v int64) { c.IndexIntervalBytes = v }},
	{ConfigKey{"session.timeout.ms", "10000", "a consumer group member expires after this long without a heartbeat", false}, true,
		func(c *Config) int64 { return c.SessionTimeoutMs }, func(c *Config, v int64) { c.SessionTimeoutMs = v }},
	{ConfigKey{"replica.lag.max.offsets", "10000", "a follower further behind the leader's LEO than this leaves the ISR (MiniKafka's teaching knob)", false}, false,
		func(c *Config) int64 { return c.ReplicaLagMaxOffsets }, func(c *Config, v int64) { c.ReplicaLagMaxOffsets = v }},
	{ConfigKey{"replica.lag.time.max.ms", "10000", "a follower that has not fetched for longer than this leaves the ISR", false}, true,
		func(c *Config) int64 { return c.ReplicaLagTimeMaxMs }, func(c *Config, v int64) { c.ReplicaLagTimeMaxMs = v }},
	{ConfigKey{"replica.fetch.max.bytes", "1048576", "byte budget of one follower fetch (the first batch is always copied)", false}, true,
		func(c *Config) int64 { return int64(c.ReplicaFetchMaxBytes) }, func(c *Config, v int64) { c.ReplicaFetchMaxBytes = int(v) }},
	{ConfigKey{"min.insync.replicas", "1", "the smallest ISR that may acknowledge an acks=all write", false}, true,
		func(c *Config) int64 { return int64(c.MinInsyncReplicas) }, func(c *Config, v int64) { c.MinInsyncReplicas = int(v) }},
}

// ConfigKeys lists the knobs by Kafka name, in a fixed order, so the REPL,
// labs and adapters share one table.
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

func (f *configField) check(v int64) error {
	if f.positive && v <= 0 {
		return kerr.Argument("%s must be positive (got %d)", f.key.Name, v)
	}
	if v < 0 {
		return kerr.Argument("%s cannot be negative (got %d)", f.key.Name, v)
	}
	if (f.key.Name == "replica.fetch.max.bytes" || f.key.Name == "min.insync.replicas") && v > 1<<31-1 {
		return kerr.Argument("%s is too large (got %d)", f.key.Name, v)
	}
	return nil
}

// Set changes one knob by its Kafka name. The value is a decimal integer; a
// bad name or value is an argument error naming the field, and c is then
// unchanged.
func (c *Config) Set(name, value string) error {
	f, err := findField(name)
	if err != nil {
		return err
	}
	v, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
	if err != nil {
		return kerr.Argument("%s must be an integer (got %q)", name, value)
	}
	if err := f.check(v); err != nil {
		return err
	}
	f.set(c, v)
	return nil
}

// Get returns one knob's value by its Kafka name.
func (c Config) Get(name string) (string, error) {
	f, err := findField(name)
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(f.get(&c), 10), nil
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
		if err := configFields[i].check(configFields[i].get(&c)); err != nil {
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
		parts = append(parts, fmt.Sprintf("%s=%d", configFields[i].key.Name, configFields[i].get(&c)))
	}
	return strings.Join(parts, " ")
}
