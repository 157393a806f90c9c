package replication

import (
	"strings"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// AckMode is the producer's acks setting: how much replication an append waits
// for before it is acknowledged (§9.4).
type AckMode int8

// The three ack modes. AcksAll is -1, as in Kafka's protocol.
const (
	// Acks0 appends but reports no offsets (the in-process model still writes
	// synchronously; only the acknowledgement is empty).
	Acks0 AckMode = 0
	// Acks1 is acknowledged once the leader has appended.
	Acks1 AckMode = 1
	// AcksAll is acknowledged once every replica of the ISR captured at append
	// time holds the batch and the high watermark covers it.
	AcksAll AckMode = -1
)

// ParseAcks reads "0", "1", "all" or "-1" (case-insensitive "all"). Anything
// else is the argument error "acks must be 0, 1, or all".
func ParseAcks(s string) (AckMode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "0":
		return Acks0, nil
	case "1":
		return Acks1, nil
	case "all", "-1":
		return AcksAll, nil
	}
	return 0, kerr.Argument("acks must be 0, 1, or all (got %q)", s)
}

// Check returns the argument error "acks must be 0, 1, or all" unless a is
// one of the three modes.
func (a AckMode) Check() error {
	if a != Acks0 && a != Acks1 && a != AcksAll {
		return kerr.Argument("acks must be 0, 1, or all (got %d)", int8(a))
	}
	return nil
}

// String returns "0", "1" or "all".
func (a AckMode) String() string {
	switch a {
	case Acks0:
		return "0"
	case Acks1:
		return "1"
	case AcksAll:
		return "all"
	}
	return "invalid"
}
