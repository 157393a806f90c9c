package repl

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// CheckError is a failed `check`: the expression, what it expected and what
// the cluster has. Labs and exercises fail on it; its code is CHECK_FAILED.
type CheckError struct {
	Subject  string // "events-0 hw"
	Op       string // "=="
	Expected string
	Actual   string
	Look     string // the hint: the view that shows the quantity now
}

// CheckFailed is the code of a failed check.
const CheckFailed = "CHECK_FAILED"

// Error renders "CHECK_FAILED: expected events-0 hw == 2, got 1".
func (e *CheckError) Error() string { return CheckFailed + ": " + e.Message() }

// Message is "expected events-0 hw == 2, got 1".
func (e *CheckError) Message() string {
	return fmt.Sprintf("expected %s %s %s, got %s", e.Subject, e.Op, e.Expected, e.Actual)
}

// checkOps are the comparison operators of `check`.
var checkOps = []string{"==", "!=", "<", "<=", ">", ">="}

// quantity is the value `check` reads from the cluster: an integer, a set of
// broker ids, a list of words, or one word (a state, a boolean, a member
// id, one record's key or value, "none").
type quantity struct {
	kind  quantityKind
	n     int64
	set   []int32
	items []string
	word  string
}

type quantityKind int

const (
	qInt quantityKind = iota
	qSet
	qList
	qWord
)

func intQ(n int64) quantity      { return quantity{kind: qInt, n: n} }
func wordQ(s string) quantity    { return quantity{kind: qWord, word: s} }
func setQ(ids []int32) quantity  { return quantity{kind: qSet, set: sortedIDs(ids)} }
func listQ(xs []string) quantity { return quantity{kind: qList, items: append([]string{}, xs...)} }
func boolQ(b bool) quantity      { return wordQ(strconv.FormatBool(b)) }
func noneQ() quantity            { return wordQ("none") }
func sortedListQ(xs []string) quantity {
	q := listQ(xs)
	slices.Sort(q.items)
	return q
}

func (q quantity) String() string {
	switch q.kind {
	case qInt:
		return strconv.FormatInt(q.n, 10)
	case qSet:
		return brokerSet(q.set)
	case qList:
		return "[" + strings.Join(q.items, " ") + "]"
	}
	return q.word
}

func sortedIDs(ids []int32) []int32 {
	out := append([]int32{}, ids...)
	slices.Sort(out)
	return out
}

// expectation is the parsed value on the right of a check's operator. It is
// read before anything runs (Validate), so it depends only on the text.
type expectation struct {
	kind  quantityKind // qInt, qSet, qList or qWord
	n     int64
	set   []int32
	items []string
	word  string
	// count is set when a list quantity is compared with an integer: the
	// number of its items (check group g members == 2).
	count bool
}

// holds applies op to the actual quantity and the expectation. A quantity
// that may be missing reads "none": it equals only none.
func holds(actual quantity, op string, want expectation) bool {
	switch {
	case want.count && actual.kind == qList:
		return compareInts(int64(len(actual.items)), op, want.n)
	case want.kind == qInt && actual.kind == qInt:
		return compareInts(actual.n, op, want.n)
	}
	var eq bool
	switch {
	case want.kind == qSet && actual.kind == qSet:
		eq = slices.Equal(actual.set, want.set)
	case want.kind == qList && actual.kind == qList:
		eq = slices.Equal(actual.items, want.items)
	case want.kind == qWord && actual.kind == qWord:
		eq = actual.word == want.word
	}
	switch op {
	case "==":
		return eq
	case "!=":
		return !eq
	}
	return false // an ordering of none (or of mismatched kinds) never holds
}

func compareInts(a int64, op string, b int64) bool {
	switch op {
	case "==":
		return a == b
	case "!=":
		return a != b
	case "<":
		return a < b
	case "<=":
		return a <= b
	case ">":
		return a > b
	case ">=":
		return a >= b
	}
	return false
}

// checkResult is a passed check.
type checkResult struct {
	Subject  string `json:"subject"`
	Op       string `json:"op"`
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
}

func (checkResult) writeText(w io.Writer, _ *style) error {
	_, err := fmt.Fprintln(w, "ok")
	return err
}
