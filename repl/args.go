package repl

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// UsageError is a command line that does not fit its command: an unknown
// key, a missing positional argument, a value of the wrong kind. It prints the
// command's synopsis after the message.
type UsageError struct {
	Command string // the command's full name, e.g. "broker crash"; "" for an unknown command
	Usage   string // the synopsis; "" when there is none
	Msg     string
	Hint    string // the next step, when there is no synopsis to show
}

// Error renders "INVALID_ARGUMENT: msg".
func (e *UsageError) Error() string { return string(kerr.InvalidArgument) + ": " + e.Msg }

// Is makes errors.Is(err, kerr.InvalidArgument) true for usage errors.
func (e *UsageError) Is(target error) bool { return target == kerr.InvalidArgument }

// Args is a parsed command line for one command: positional arguments,
// key=value pairs and flags, with typed accessors. An accessor that meets a
// bad value records the first error; Err returns it. Commands read every
// argument first, check Err, and only then change state.
type Args struct {
	cmd   *Command
	line  string
	words []Word // every word after the command's name, in order
	pos   []Word
	pairs []Word
	flags map[string]bool
	raw   string // a Raw command's text after its name
	err   error
}

// newArgs sorts words into positionals, pairs and flags according to the
// command's declaration, and checks the shape: no unknown or repeated keys,
// no unknown flags, the right number of positional arguments.
func newArgs(cmd *Command, line string, words []Word) (*Args, error) {
	a := &Args{cmd: cmd, line: line, words: words, flags: map[string]bool{}}
	seen := map[string]bool{}
	for _, w := range words {
		switch {
		case w.IsPair:
			if !cmd.FreeKeys && cmd.key(w.Key) == nil {
				return nil, a.usage("unknown key %q%s", w.Key, a.suggestKey(w.Key))
			}
			if seen[w.Key] {
				return nil, a.usage("key %q given twice", w.Key)
			}
			seen[w.Key] = true
			a.pairs = append(a.pairs, w)
		case !w.Quoted && cmd.flag(w.Text) != nil:
			if a.flags[w.Text] {
				return nil, a.usage("flag %q given twice", w.Text)
			}
			a.flags[w.Text] = true
		default:
			a.pos = append(a.pos, w)
		}
	}
	required, maxPos := 0, len(cmd.Positional)
	for _, p := range cmd.Positional {
		if !p.Optional {
			required++
		}
		if p.Rest {
			maxPos = math.MaxInt
		}
	}
	if len(a.pos) < required {
		return nil, a.usage("missing %s", cmd.Positional[len(a.pos)].Name)
	}
	if len(a.pos) > maxPos {
		extra := a.pos[maxPos]
		if strings.Contains(extra.Text, "=") && !extra.Quoted {
			return nil, a.usage("unexpected argument %q (keys are written key=value with a known key)", extra.Text)
		}
		return nil, a.usage("unexpected argument %q", extra.Text)
	}
	return a, nil
}

// usage builds a UsageError for this command.
func (a *Args) usage(format string, args ...any) *UsageError {
	return &UsageError{Command: a.cmd.FullName(), Usage: a.cmd.Synopsis(), Msg: fmt.Sprintf(format, args...)}
}

func (a *Args) fail(format string, args ...any) {
	if a.err == nil {
		a.err = a.usage(format, args...)
	}
}

func (a *Args) suggestKey(k string) string {
	var names []string
	for _, p := range a.cmd.Keys {
		names = append(names, p.Name)
	}
	if s := closest(k, names); s != "" {
		return fmt.Sprintf(" (did you mean %s=?)", s)
	}
	if len(names) == 0 {
		return " (this command takes no keys)"
	}
	return ""
}

// Err returns the first error an accessor met, or nil.
func (a *Args) Err() error { return a.err }

// Raw returns a Raw command's text after its name, as typed.
func (a *Args) Raw() string { return a.raw }

// Len is the number of positional arguments.
func (a *Args) Len() int { return len(a.pos) }

// Pos returns positional argument i, or "" when there is none.
func (a *Args) Pos(i int) string {
	if i < len(a.pos) {
		return a.pos[i].Text
	}
	return ""
}

// Rest returns the positional arguments from i on.
func (a *Args) Rest(i int) []string {
	var out []string
	for j := i; j < len(a.pos); j++ {
		out = append(out, a.pos[j].Text)
	}
	return out
}

// Flag reports whether the flag was given.
func (a *Args) Flag(name string) bool { return a.flags[name] }

// Has reports whether key=... was given.
func (a *Args) Has(key string) bool {
	_, ok := a.pair(key)
	return ok
}

// Pairs returns every key=value pair in the order typed.
func (a *Args) Pairs() []Word { return append([]Word(nil), a.pairs...) }

func (a *Args) pair(key string) (Word, bool) {
	for _, w := range a.pairs {
		if w.Key == key {
			return w, true
		}
	}
	return Word{}, false
}

// String returns the value of key, or def when it is absent.
func (a *Args) String(key, def string) string {
	if w, ok := a.pair(key); ok {
		return w.Value
	}
	return def
}

// Choice returns the value of key, which must be one of choices, or def.
func (a *Args) Choice(key, def string, choices ...string) string {
	w, ok := a.pair(key)
	if !ok {
		return def
	}
	for _, c := range choices {
		if w.Value == c {
			return c
		}
	}
	a.fail("%s must be one of %s, got %q", key, strings.Join(choices, "|"), w.Value)
	return def
}

// Bytes returns the value of key as bytes: nil when the key is absent (a
// null), the empty slice for key="", and hex:/b64: prefixes decoded when the
// value is unquoted.
func (a *Args) Bytes(key string) []byte {
	w, ok := a.pair(key)
	if !ok {
		return nil
	}
	b, err := parseBytes(w.Value, w.ValueQuoted)
	if err != nil {
		a.fail("%s: %v", key, err)
		return nil
	}
	return b
}

// parseBytes reads a byte value: hex:..., b64:... or the text itself.
func parseBytes(v string, quoted bool) ([]byte, error) {
	switch {
	case !quoted && strings.HasPrefix(v, "hex:"):
		b, err := hex.DecodeString(v[4:])
		if err != nil {
			return nil, errors.New("hex: needs an even number of hex digits")
		}
		return b, nil
	case !quoted && strings.HasPrefix(v, "b64:"):
		b, err := base64.StdEncoding.DecodeString(v[4:])
		if err != nil {
			return nil, errors.New("b64: needs standard base64 with padding")
		}
		return b, nil
	}
	return []byte(v), nil
}

// Int returns the value of key as an integer in [lo, hi], or def.
func (a *Args) Int(key string, def, lo, hi int64) int64 {
	w, ok := a.pair(key)
	if !ok {
		return def
	}
	n, err := parseInt(w.Value, lo, hi)
	if err != nil {
		a.fail("%s: %v", key, err)
		return def
	}
	return n
}

// PosInt reads positional argument i (named name) as an integer in [lo, hi].
func (a *Args) PosInt(i int, name string, lo, hi int64) int64 {
	n, err := parseInt(a.Pos(i), lo, hi)
	if err != nil {
		a.fail("%s: %v", name, err)
	}
	return n
}

func parseInt(s string, lo, hi int64) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%s is outside [%d, %d]", s, lo, hi)
	}
	if err != nil {
		return 0, fmt.Errorf("%q is not an integer", s)
	}
	switch {
	case n < lo && (hi == math.MaxInt64 || hi == math.MaxInt32):
		return 0, fmt.Errorf("%d must be at least %d", n, lo)
	case n > hi && lo == math.MinInt64:
		return 0, fmt.Errorf("%d must be at most %d", n, hi)
	case n < lo || n > hi:
		return 0, fmt.Errorf("%d is outside [%d, %d]", n, lo, hi)
	}
	return n, nil
}

// Duration returns the value of key as milliseconds (500ms, 10s, 2m, 1h, or
// a bare integer of milliseconds), or def.
func (a *Args) Duration(key string, def int64) int64 {
	w, ok := a.pair(key)
	if !ok {
		return def
	}
	ms, err := ParseDuration(w.Value)
	if err != nil {
		a.fail("%s: %v", key, err)
		return def
	}
	return ms
}

// PosDuration reads positional argument i as a duration in milliseconds.
func (a *Args) PosDuration(i int, name string) int64 {
	ms, err := ParseDuration(a.Pos(i))
	if err != nil {
		a.fail("%s: %v", name, err)
	}
	return ms
}

// ParseDuration reads a non-negative duration in milliseconds: 500ms, 10s,
// 2m, 1h, or a bare integer of milliseconds.
func ParseDuration(s string) (int64, error) {
	num, unit := s, int64(1)
	for _, u := range []struct {
		suffix string
		ms     int64
	}{{"ms", 1}, {"s", 1000}, {"m", 60_000}, {"h", 3_600_000}} {
		if strings.HasSuffix(s, u.suffix) {
			num, unit = strings.TrimSuffix(s, u.suffix), u.ms
			break
		}
	}
	if num == "" || strings.TrimLeft(num, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not a duration (e.g. 500ms, 10s, 2m, or milliseconds)", s)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n > math.MaxInt64/unit {
		return 0, fmt.Errorf("%q is too long a duration", s)
	}
	return n * unit, nil
}

// TP reads positional argument i as a topic-partition such as orders-0.
func (a *Args) TP(i int) topic.Partition {
	tp, err := topic.Parse(a.Pos(i))
	if err != nil {
		a.fail("%s", kerr.MessageOf(err))
	}
	return tp
}

// Broker reads key (e.g. broker=2) as a broker id, or def when absent.
func (a *Args) Broker(key string, def int32) int32 {
	return int32(a.Int(key, int64(def), 0, math.MaxInt32))
}

// PosBroker reads positional argument i as a broker id.
func (a *Args) PosBroker(i int) int32 {
	return int32(a.PosInt(i, "broker id", 0, math.MaxInt32))
}

// BrokerList reads key as a comma-separated list of broker ids (1,2,3).
func (a *Args) BrokerList(key string) []int32 {
	w, ok := a.pair(key)
	if !ok {
		return nil
	}
	ids, err := ParseBrokerList(w.Value)
	if err != nil {
		a.fail("%s: %v", key, err)
	}
	return ids
}

// ParseBrokerList reads "1,2,3" into distinct non-negative broker ids.
func ParseBrokerList(s string) ([]int32, error) {
	var ids []int32
	seen := map[int64]bool{}
	for _, part := range strings.Split(s, ",") {
		n, err := parseInt(strings.TrimSpace(part), 0, math.MaxInt32)
		if err != nil {
			return nil, fmt.Errorf("broker ids are written 1,2,3: %v", err)
		}
		if seen[n] {
			return nil, fmt.Errorf("broker %d listed twice", n)
		}
		seen[n] = true
		ids = append(ids, int32(n))
	}
	return ids, nil
}
