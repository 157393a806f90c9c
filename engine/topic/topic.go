// Package topic holds the names every part of the engine shares: topic names
// and the topic-partition, the address of one ordered log.
package topic

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// MaxNameLength is the longest valid topic name (Kafka's limit).
const MaxNameLength = 249

// ValidateName checks a topic name: non-empty, not "." or "..", at most 249
// characters, each in [A-Za-z0-9._-]. A bad name is an argument error
// "invalid topic name '<name>'".
func ValidateName(name string) error {
	bad := name == "" || name == "." || name == ".." || len(name) > MaxNameLength
	for i := 0; i < len(name) && !bad; i++ {
		c := name[i]
		bad = !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-')
	}
	if bad {
		return kerr.Argument("invalid topic name '%s'", name)
	}
	return nil
}

// Partition is a topic-partition: the pair (topic, partition number). It is
// ordered by topic (byte-wise), then partition, and written Kafka-style as
// "orders-0".
type Partition struct {
	Topic     string
	Partition int32
}

// String renders "topic-partition".
func (p Partition) String() string { return p.Topic + "-" + strconv.Itoa(int(p.Partition)) }

// Compare orders by topic, then partition number.
func (p Partition) Compare(q Partition) int {
	if c := strings.Compare(p.Topic, q.Topic); c != 0 {
		return c
	}
	return cmp.Compare(p.Partition, q.Partition)
}

// Less reports whether p sorts before q.
func (p Partition) Less(q Partition) bool { return p.Compare(q) < 0 }

// Sort sorts partitions in place by topic, then partition number.
func Sort(ps []Partition) { slices.SortFunc(ps, Partition.Compare) }

// Parse reads "orders-0", splitting at the last '-' (topic names may contain
// dashes). It is an argument error when there is no dash, the topic part is not
// a valid name, or the partition is not a non-negative integer.
func Parse(s string) (Partition, error) {
	i := strings.LastIndexByte(s, '-')
	if i <= 0 || i == len(s)-1 {
		return Partition{}, kerr.Argument("invalid topic-partition %q: expected TOPIC-PARTITION, e.g. orders-0", s)
	}
	n, err := strconv.ParseInt(s[i+1:], 10, 32)
	if err != nil || n < 0 || s[i+1] == '+' {
		return Partition{}, kerr.Argument("invalid topic-partition %q: partition must be a non-negative integer", s)
	}
	if err := ValidateName(s[:i]); err != nil {
		return Partition{}, kerr.Argument("invalid topic-partition %q: invalid topic name '%s'", s, s[:i])
	}
	return Partition{Topic: s[:i], Partition: int32(n)}, nil
}
