package repl

import (
	"fmt"
	"io"
	"strings"
)

var checkCommand = &Command{
	Name:       "check",
	Args:       "SUBJECT QUANTITY [TP] [key=K] [offset=N] [isolation=read_committed] OP VALUE",
	Summary:    "assert a quantity of the cluster: prints ok, or fails with expected and actual",
	MoreDetail: checkDetail,
	Chapter:    1,
	Group:      "Views and checks",

	Positional: []Param{{Name: "EXPR", Optional: true, Rest: true}},
	Keys: []Param{
		{Name: "key"}, {Name: "offset"},
		{Name: "isolation", Values: choices("read_uncommitted", "read_committed")},
	},
	Run: runCheck,
}

// familyHeadings introduce each subject's quantities in help check.
var familyHeadings = map[string]string{
	"partition": "A partition (check TP QUANTITY OP VALUE; @B: broker B's replica):",
	"topic":     "A topic (check TOPIC QUANTITY OP VALUE):",
	"clock":     "The clock (check clock OP MS):",
	"broker":    "A broker (check broker B up OP true|false):",
	"producer":  "A producer (check producer P QUANTITY OP N):",
	"group":     "A group (check group G QUANTITY [TP] OP VALUE):",
	"consumer":  "A consumer (check consumer C QUANTITY [TP] OP VALUE):",
	"txn":       "A transaction (check txn ID state OP STATE):",
	"history":   "The session's history, where an exercise forbids a shortcut (check history ran COMMAND... OP N):",
}

// checkDetail is help check, generated from the quantity table.
func checkDetail() string {
	var b strings.Builder
	b.WriteString(`A check compares one quantity of the cluster with a value. It prints ok,
or fails with CHECK_FAILED "expected ..., got ..." so that a lab or an
exercise fails with it. OP is one of == != < <= > >=, between spaces;
integers (and counts) take every operator, everything else == and !=.
Keys (key=, offset=, isolation=) go before OP. A lab validates every
check before it runs: an unknown quantity or a malformed value is
reported at its line.
`)
	for _, f := range checkFamilies {
		fmt.Fprintf(&b, "\n%s\n", familyHeadings[f])
		for _, q := range quantityDefs {
			if q.family == f {
				writeQuantityDoc(&b, q.written(), q.doc)
			}
		}
	}
	b.WriteString(`
Values: a set or a list is written [1 2] ([] when empty; sets and names
also 1,2). A key or value is one word, as produce writes it: text as is,
"two words" quoted, "" for empty bytes, null for a null (a tombstone's
value, a keyless record's key), hex:00ff for bytes that are not
printable text, b64:... also accepted; none means no record at that
offset. A list of values: [a "two words" null].

Examples:
  check events-0 hw == 1
  check events-0 leo@2 == 0
  check events-0 isr == [1 2]
  check clicks-0 segments == [0 2 4]
  check events-0 values@1 == [a b c]
  check out-0 values isolation=read_committed == [r1 r2]
  check events-0 value offset=1 == null
  check clock == 250
  check producer pay acked == 3
  check group workers owner orders-1 == member-2
  check consumer c1 assignment == [orders-0 orders-2]
  check txn t1 state == complete_commit
  check events-0 isr-shrinks@2 == 0
  check history ran broker crash == 0
  check history ran "produce partition=" == 0`)
	return b.String()
}

// writeQuantityDoc writes one quantity of help check: its form, then its
// description wrapped to the width of a terminal, in a column.
func writeQuantityDoc(b *strings.Builder, form, doc string) {
	const col, width = 26, 74
	line := "  " + form
	if len(line) >= col {
		b.WriteString(line + "\n")
		line = ""
	}
	line += strings.Repeat(" ", col-len(line))
	words := strings.Fields(doc)
	for i, w := range words {
		if i > 0 && len(line)+1+len(w) > width {
			b.WriteString(line + "\n")
			line = strings.Repeat(" ", col)
		} else if i > 0 {
			line += " "
		}
		line += w
	}
	b.WriteString(line + "\n")
}

func runCheck(s *Session, w io.Writer, a *Args) error {
	if a.Len() == 0 && len(a.pairs) == 0 && a.Err() == nil {
		// check alone judges the exercise `exercise try` set up.
		c, err := s.theCourse()
		if err != nil || s.exercise == nil {
			return a.usage("check needs an expression such as events-0 hw == 1 (check alone judges the exercise that `exercise try ID` set up)")
		}
		return s.judgeLive(w, a, c)
	}
	sp, err := parseCheck(a)
	if err != nil {
		return err
	}
	q, err := s.evalCheck(a, sp)
	if err != nil {
		return err
	}
	actual := q.String()
	if sp.want.count && q.kind == qList { // members == 2: the count, then who
		actual = fmt.Sprintf("%d %s", len(q.items), actual)
	}
	if !holds(q, sp.op, sp.want) {
		return &CheckError{Subject: sp.subject, Op: sp.op, Expected: sp.expected, Actual: actual, Look: sp.look()}
	}
	return s.emit(w, checkResult{Subject: sp.subject, Op: sp.op, Expected: sp.expected, Actual: actual})
}
