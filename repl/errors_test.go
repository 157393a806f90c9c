package repl

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// TestHintsStyle: every domain code a learner can meet has a hint, and
// every hint is lower-case, has no final period and names a next step
// (a command in backticks or a thing to do).
func TestHintsStyle(t *testing.T) {
	all := map[string]string{"unknown group": groupError("g", kerr.New(kerr.UnknownMember, "unknown group g")).(*hintedError).hint}
	for _, info := range kerr.Codes() {
		if !info.Domain || info.Code == kerr.Internal {
			continue
		}
		h, ok := hints[info.Code]
		if !ok {
			t.Errorf("%s has no hint", info.Code)
			continue
		}
		all[string(info.Code)] = h
	}
	for verb, h := range stateHints {
		all["state error of "+verb] = h
	}
	all["quoting"] = quotingHint
	all["disk"] = diskHint
	all["locked"] = lockedHint
	for code, h := range all {
		first := []rune(h)[0]
		switch {
		case unicode.IsUpper(first):
			t.Errorf("%s: hint starts with a capital: %q", code, h)
		case strings.HasSuffix(h, "."):
			t.Errorf("%s: hint ends with a period: %q", code, h)
		case strings.ContainsAny(h, "\n"):
			t.Errorf("%s: hint is not one line: %q", code, h)
		case !strings.Contains(h, "`"):
			t.Errorf("%s: hint names no command to run next: %q", code, h)
		}
	}
}

// TestErrorListJoined: an errors.Join prints one error line per error, each
// with its own code and the context its wrapper added, then each distinct
// hint once; a single error is one line, as before.
func TestErrorListJoined(t *testing.T) {
	err := errors.Join(
		kerr.New(kerr.CorruptBatch, "broker-1/e-0/00000000000000000000.log at byte 0: batch CRC mismatch"),
		fmt.Errorf("commit marker for t-1: %w", kerr.New(kerr.NotEnoughReplicas, "ISR [1] has 1, below min.insync.replicas=2")),
		kerr.New(kerr.CorruptBatch, "broker-2/e-1/00000000000000000000.log at byte 0: batch CRC mismatch"),
	)
	parts := errorList(err)
	if len(parts) != 3 {
		t.Fatalf("%d parts, want 3: %+v", len(parts), parts)
	}
	if parts[1].code != "NOT_ENOUGH_REPLICAS" || parts[1].msg != "commit marker for t-1: ISR [1] has 1, below min.insync.replicas=2" {
		t.Errorf("context or code lost: %+v", parts[1])
	}
	var b strings.Builder
	writeErrors(&b, newStyle(false), parts)
	want := "error: CORRUPT_BATCH: broker-1/e-0/00000000000000000000.log at byte 0: batch CRC mismatch\n" +
		"error: NOT_ENOUGH_REPLICAS: commit marker for t-1: ISR [1] has 1, below min.insync.replicas=2\n" +
		"error: CORRUPT_BATCH: broker-2/e-1/00000000000000000000.log at byte 0: batch CRC mismatch\n" +
		"hint: " + hints[kerr.CorruptBatch] + "; Kafka calls it CORRUPT_MESSAGE (error code 2)\n" +
		"hint: " + hints[kerr.NotEnoughReplicas] + "\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	if one := errorList(kerr.New(kerr.UnknownTopic, "unknown topic x")); len(one) != 1 || one[0].msg != "unknown topic x" {
		t.Errorf("single error: %+v", one)
	}
	// A code with no message reads as words; a wrapper's context stays.
	if p := errorList(fmt.Errorf("while closing: %w", kerr.New(kerr.FrameTooLarge, ""))); p[0].msg != "while closing: frame too large" {
		t.Errorf("empty message: %+v", p)
	}
}

// TestHintsNameKafkasCode: a hint gives Kafka's name and number where
// Kafka calls the error something else (UNKNOWN_TOPIC is Kafka's
// UNKNOWN_TOPIC_OR_PARTITION, 3), and nothing where the names agree or
// Kafka has no such error.
func TestHintsNameKafkasCode(t *testing.T) {
	for _, c := range []struct {
		code kerr.Code
		want string
	}{
		{kerr.UnknownTopic, "; Kafka calls it UNKNOWN_TOPIC_OR_PARTITION (error code 3)"},
		{kerr.UnknownPartition, "; Kafka calls it UNKNOWN_TOPIC_OR_PARTITION (error code 3)"},
		{kerr.OutOfOrderSequence, "; Kafka calls it OUT_OF_ORDER_SEQUENCE_NUMBER (error code 45)"},
		{kerr.StorageError, "; Kafka calls it KAFKA_STORAGE_ERROR (error code 56)"},
		{kerr.UnknownMember, "; Kafka calls it UNKNOWN_MEMBER_ID (error code 25)"},
		{kerr.NotEnoughReplicas, ""},
		{kerr.NotPartitionOwner, ""},
	} {
		_, _, _, hint := errorParts(kerr.New(c.code, "x"))
		if c.want == "" && strings.Contains(hint, "Kafka calls it") || !strings.HasSuffix(hint, c.want) {
			t.Errorf("%s: hint %q, want the suffix %q", c.code, hint, c.want)
		}
	}
}

func TestPluralAndWaits(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{plural(0, "batch", "batches"), "0 batches"},
		{plural(1, "batch", "batches"), "1 batch"},
		{plural(2, "batch", "batches"), "2 batches"},
		{untilReached([]int32{2}, 5), "until broker 2 reaches LEO 5"},
		{untilReached([]int32{2, 3}, 5), "until brokers 2,3 reach LEO 5"},
		{untilReached(nil, 5), "until the HW reaches 5"},
		{offsetRange(3, 3), "offset 3 is"},
		{offsetRange(3, 5), "offsets 3..5 are"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
