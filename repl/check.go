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
// broker ids, or a word (a state, a boolean, "none").
type quantity struct {
	kind quantityKind
	n    int64
	set  []int32
	word string
}

type quantityKind int

const (
	qInt quantityKind = iota
	qSet
	qWord
)

func intQ(n int64) quantity     { return quantity{kind: qInt, n: n} }
func wordQ(s string) quantity   { return quantity{kind: qWord, word: s} }
func setQ(ids []int32) quantity { return quantity{kind: qSet, set: sortedIDs(ids)} }

func (q quantity) String() string {
	switch q.kind {
	case qInt:
		return strconv.FormatInt(q.n, 10)
	case qSet:
		return brokerSet(q.set)
	}
	return q.word
}

func sortedIDs(ids []int32) []int32 {
	out := append([]int32{}, ids...)
	slices.Sort(out)
	return out
}

// compare applies op to the actual quantity and the expected text. Sets and
// words support only == and !=.
func compare(actual quantity, op, expected string) (bool, error) {
	switch actual.kind {
	case qInt:
		want, err := strconv.ParseInt(expected, 10, 64)
		if err != nil && expected == "none" && (op == "==" || op == "!=") {
			return compare(wordQ(actual.String()), op, expected) // a value that may be missing
		}
		if err != nil {
			return false, fmt.Errorf("expected value %q is not an integer", expected)
		}
		switch op {
		case "==":
			return actual.n == want, nil
		case "!=":
			return actual.n != want, nil
		case "<":
			return actual.n < want, nil
		case "<=":
			return actual.n <= want, nil
		case ">":
			return actual.n > want, nil
		case ">=":
			return actual.n >= want, nil
		}
	case qSet:
		ids, err := ParseBrokerList(strings.Trim(strings.ReplaceAll(expected, " ", ","), "[]"))
		if strings.Trim(expected, "[] ") == "" {
			ids, err = nil, nil
		}
		if err != nil {
			return false, fmt.Errorf("expected value %q is not a set of broker ids such as 1,2", expected)
		}
		eq := slices.Equal(actual.set, sortedIDs(ids))
		switch op {
		case "==":
			return eq, nil
		case "!=":
			return !eq, nil
		}
		return false, fmt.Errorf("a set compares only with == or !=")
	case qWord:
		switch op {
		case "==":
			return actual.word == expected, nil
		case "!=":
			return actual.word != expected, nil
		}
		return false, fmt.Errorf("%q compares only with == or !=", actual.word)
	}
	return false, fmt.Errorf("unknown operator %q", op)
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

// splitCheck finds the operator in a check expression: the words before it
// name the quantity, the words after it are the expected value (joined with
// spaces, so that a set may be written [1 2]).
func splitCheck(words []string) (subject []string, op, expected string, err error) {
	for i, w := range words {
		if slices.Contains(checkOps, w) {
			if i == 0 {
				return nil, "", "", fmt.Errorf("nothing to compare before %s", w)
			}
			if i == len(words)-1 {
				return nil, "", "", fmt.Errorf("missing the value after %s", w)
			}
			return words[:i], w, strings.Join(words[i+1:], " "), nil
		}
	}
	return nil, "", "", fmt.Errorf("missing operator: one of %s, surrounded by spaces", strings.Join(checkOps, " "))
}
