package repl

import (
	"slices"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// help rules lists every rule knob, with both behaviours, a Kafka source
// and (but for views) a lab; help kafka stays the kafka command's; help errors names
// Kafka's code for every code Kafka has.
func TestHelpRulesCoversEveryRule(t *testing.T) {
	var knobs []string
	for _, r := range ruleHelps {
		knobs = append(knobs, r.Knob)
		if r.MiniKafka == "" || r.Kafka == "" || r.Source == "" || (len(r.Labs) == 0 && r.Knob != "views") {
			t.Errorf("%s: incomplete %+v", r.Knob, r)
		}
	}
	if want := ruleKnobNames(); !slices.Equal(knobs, want) {
		t.Fatalf("help rules lists %v, the rule knobs are %v", knobs, want)
	}
	s := newTestSession(t, Options{})
	out, _ := run(t, s, "help rules")
	if !strings.Contains(out, "Active: rules=minikafka") || !strings.Contains(out, "truncation=high-watermark|leader-epoch (now high-watermark)") {
		t.Fatalf("help rules:\n%s", out)
	}
	if other, _ := run(t, s, "help kafka"); !strings.Contains(other, "kafka listen") {
		t.Fatalf("help kafka is the kafka command's help:\n%s", other)
	}
	errs, _ := run(t, s, "help errors")
	for _, info := range kerr.Codes() {
		if !strings.Contains(errs, string(info.Code)) {
			t.Errorf("help errors misses %s", info.Code)
		}
	}
	for _, want := range []string{"UNKNOWN_TOPIC_OR_PARTITION (3)", "OUT_OF_ORDER_SEQUENCE_NUMBER (45)", "CORRUPT_MESSAGE (2)", "KAFKA_STORAGE_ERROR (56)", "UNKNOWN_MEMBER_ID (25)", "same (6)"} {
		if !strings.Contains(errs, want) {
			t.Errorf("help errors misses %q", want)
		}
	}
}
