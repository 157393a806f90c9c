package repl

import (
	"errors"
	"strings"
	"testing"
)

// TestValidateChecks: every check form the chapter plans use is accepted
// by Validate before anything runs, on a session without those topics,
// and the malformed ones are rejected with a usage error that names the
// problem.
func TestValidateChecks(t *testing.T) {
	s := newTestSession(t, Options{})
	good := []string{
		"check events-0 hw == 2", "check events-0 lso == 0", "check events-0 log-start@2 == 0",
		"check events-0 leo@2 >= 1", "check events-0 leader == none", "check events-0 leader == 2",
		"check events-0 epoch == 1", "check events-0 isr == [1 2]", "check events-0 isr == 1,2", "check events-0 isr == []",
		"check payments-0 replicas == [1 2 3]", "check payments-0 at-min-isr == true", "check payments-0 under-min-isr == false",
		"check events-0 pending-acks == 0", "check events-0 records == 2", "check out-0 records isolation=read_committed == 0",
		"check events-0 values == [a b c]", "check events-0 values == []", `check events-0 values@1 == [a "two words" null "" hex:00ff]`,
		"check out-0 values isolation=read_committed == [r1 r2]", "check events-0 key offset=0 == hex:006b6579",
		`check events-0 value offset=1 == ""`, "check events-0 value offset=2 == null", "check events-0 value@2 offset=9 == none",
		"check clicks-0 segments == [0 2 4]", "check clicks-0 segments@1 == [0]", "check clicks-0 index == [0 2 4]",
		"check orders-2 batches == 2", "check orders-2 batches@1 != 0",
		"check orders partition-of key=alice == 1", "check orders partitions == 3", "check clock == 250",
		"check broker 3 up == false", "check producer pay acked == 3", "check producer p failed == 0",
		"check producer p pending == 1", "check producer p buffered == 0", "check producer p epoch == none",
		"check group workers generation == 3", "check group workers state == stable", "check group workers members == [member-1]",
		"check group workers members == 2", "check group workers owner orders-1 == tcp-1", "check group workers committed orders-1 == 2",
		"check group workers lag orders-1 == none", "check consumer c1 position orders-0 == 8", "check consumer c1 committed orders-0 == none",
		"check consumer c1 lag orders-0 == 0", "check consumer c2 assignment == [orders-1 orders-3]", "check consumer c1 generation == 3",
		"check consumer c2 polled == 2", "check consumer w1 closed == true", "check txn worker state == complete_commit",
	}
	for _, l := range good {
		if err := s.Validate(l); err != nil {
			t.Errorf("Validate(%q) = %v", l, err)
		}
	}
	bad := map[string]string{
		"check events-0 hw":                                  "missing operator",
		"check == 1":                                         "nothing to compare",
		"check events-0 hw ==":                               "missing the value",
		"check events-0 bogus == 1":                          `unknown quantity "bogus"`,
		"check events-0 hw == x":                             "not an integer",
		"check events-0 hw == none":                          "not an integer",
		"check events-0 leader < none":                       "none compares only with == or !=",
		"check events-0 isr < [1 2]":                         "a set compares only",
		"check events-0 isr == [1 x]":                        "not a set of broker ids",
		"check events-0 isr@1 == [1]":                        "does not take @BROKER",
		"check events-0 leo@x == 1":                          "is not a broker id",
		"check events-0 values == a":                         "not a list of values",
		"check events-0 values == [\"open]":                  "unterminated",
		"check events-0 values < [a]":                        "a list compares only",
		"check events-0 segments == [0 a]":                   "not a list of offsets",
		"check events-0 key == k":                            "needs offset=N",
		"check events-0 value offset=x == a":                 "not an integer",
		"check events-0 value offset=1 == a b":               "give one value",
		"check events-0 value offset=1 == hex:0":             "hex:",
		"check events-0 hw offset=1 == 1":                    "offset= goes with key and value",
		"check events-0 hw key=k == 1":                       "key= goes with partition-of",
		"check events-0 hw isolation=read_committed == 1":    "isolation= goes with records and values",
		"check events-0 values isolation=serializable == []": "isolation must be one of",
		"check events-0 at-min-isr == yes":                   "not true or false",
		"check events-0 at-min-isr < true":                   "compares only with == or !=",
		"check orders partition-of == 1":                     "needs key=K",
		"check clock == soon":                                "not an integer",
		"check broker x up == true":                          "not a broker id",
		"check broker 1 down == true":                        "reads up",
		"check producer p sent == 1":                         `unknown producer quantity "sent"`,
		"check group g state == Stable":                      "not one of empty, preparing_rebalance, stable",
		"check group g owner == member-1":                    "takes a partition",
		"check group g owner orders == member-1":             "not a partition",
		"check group g members orders-0 == 1":                "takes no partition",
		"check consumer c":                                   "missing operator",
		"check consumer c == 1":                              "a consumer check reads",
		"check txn t1 state == done":                         "not one of ongoing",
		"check events-0 values == [a] key=b":                 "comes after the operator",
		"check a b c == 1":                                   "names a subject and a quantity",
	}
	for l, want := range bad {
		err := s.Validate(l)
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate(%q) = %v, want a usage error containing %q", l, err, want)
		}
	}
}

// TestValueTokens: a check prints keys and values as words that its own
// parser reads back as the same bytes.
func TestValueTokens(t *testing.T) {
	for _, b := range [][]byte{nil, {}, []byte("a"), []byte("two words"), []byte("null"), []byte("none"),
		[]byte("hex:00"), []byte("b64:AA=="), {0, 0xff}, []byte(`say "hi"`), []byte("[x]")} {
		tok := valueToken(b)
		words, err := Split(tok)
		if err != nil || len(words) != 1 {
			t.Errorf("valueToken(%q) = %s does not read back as one word: %v", b, tok, err)
			continue
		}
		back, err := expectedToken(words[0])
		if err != nil || back != tok {
			t.Errorf("valueToken(%q) = %s reads back as %s (%v)", b, tok, back, err)
		}
	}
	if valueToken(nil) == valueToken([]byte{}) || valueToken(nil) == valueToken([]byte("null")) {
		t.Error("null, empty and the text null must print differently")
	}
}

// TestHolds: the comparison rules, including none and counts.
func TestHolds(t *testing.T) {
	cases := []struct {
		actual quantity
		op     string
		want   expectation
		holds  bool
	}{
		{intQ(3), "<=", expectation{kind: qInt, n: 3}, true},
		{intQ(3), ">", expectation{kind: qInt, n: 3}, false},
		{noneQ(), "==", expectation{kind: qInt, n: 3}, false},
		{noneQ(), "!=", expectation{kind: qInt, n: 3}, true},
		{noneQ(), ">=", expectation{kind: qInt, n: 0}, false},
		{intQ(0), "==", expectation{kind: qWord, word: "none"}, false},
		{noneQ(), "==", expectation{kind: qWord, word: "none"}, true},
		{setQ([]int32{2, 1}), "==", expectation{kind: qSet, set: []int32{1, 2}}, true},
		{listQ([]string{"a", "b"}), "==", expectation{kind: qList, items: []string{"b", "a"}}, false},
		{sortedListQ([]string{"m2", "m1"}), "==", expectation{kind: qList, items: []string{"m1", "m2"}}, true},
		{listQ([]string{"a", "b"}), ">=", expectation{kind: qInt, n: 2, count: true}, true},
		{listQ(nil), "==", expectation{kind: qList, items: []string{}}, true},
	}
	for _, c := range cases {
		if got := holds(c.actual, c.op, c.want); got != c.holds {
			t.Errorf("holds(%v %s %+v) = %v", c.actual, c.op, c.want, got)
		}
	}
}

// FuzzCheckExpression: Validate never panics on a check expression, needs
// no cluster (a fresh session answers the same twice), and any value a
// check prints reads back as itself.
func FuzzCheckExpression(f *testing.F) {
	for _, seed := range []string{
		`events-0 values == [a "two words" null "" hex:00ff]`, "events-0 value@2 offset=1 == null",
		"group g members == [m1,m2]", "consumer c assignment == 2", "clock >= 5", "events-0 isr == [1 2]",
		`events-0 key offset=0 == b64:AP8=`, "orders partition-of key=alice == 1", `x-0 values == ["open]`,
		`history ran "produce partition= !acks=all" == 0`, "history ran broker crash >= 1", "events-0 isr-shrinks@2 == 0",
	} {
		f.Add(seed, []byte("v"))
	}
	s := newTestSession(f, Options{})
	f.Fuzz(func(t *testing.T, expr string, value []byte) {
		first := s.Validate("check " + expr)
		second := s.Validate("check " + expr)
		if (first == nil) != (second == nil) {
			t.Fatalf("Validate(check %s) is not stable: %v then %v", expr, first, second)
		}
		tok := valueToken(value)
		words, err := Split(tok)
		if err != nil || len(words) != 1 {
			t.Fatalf("valueToken(%q) = %s is not one word: %v", value, tok, err)
		}
		if back, err := expectedToken(words[0]); err != nil || back != tok {
			t.Fatalf("valueToken(%q) = %s reads back as %s (%v)", value, tok, back, err)
		}
	})
}
