package repl

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// A check expression is parsed without the cluster (checkSpec), so that
// Session.Validate can reject an unknown quantity, a bad operator or a
// malformed value before a lab runs; evaluation (check_eval.go) then reads
// the quantity and compares.

// checkType is the kind of value a quantity has, which decides the
// operators and the syntax of the expected value.
type checkType int

const (
	tInt       checkType = iota // an integer
	tIntOrNone                  // an integer, or none when there is none
	tBool                       // true or false
	tWord                       // one of the quantity's choices (a state)
	tName                       // any one word (a member id), or none
	tIDSet                      // a set of broker ids: [1 2] or 1,2
	tIntList                    // a list of offsets in order: [0 2 4]
	tNameList                   // a sorted list of names: [member-1 member-2]; an integer compares the count
	tValues                     // record values in offset order: [a "two words" null]
	tValue                      // one key or value: a, "two words", "", null, hex:00ff; none when no record
)

// quantityDef declares one check quantity.
type quantityDef struct {
	family  string // partition, topic, clock, broker, producer, group, consumer, txn
	name    string // hw, values, committed, ...
	typ     checkType
	at      bool     // takes @BROKER (default: the leader)
	arg     bool     // takes a partition argument: check group G committed TP
	keys    []string // the keys it takes: key, isolation, offset
	choices []string // tWord: the values it can have
	form    string   // how it is written in help, after the subject
	doc     string   // what it is, for help
}

var groupStates = func() []string {
	var out []string
	for s := engine.GroupEmpty; s <= engine.GroupStable; s++ {
		out = append(out, s.String())
	}
	return out
}()

var txnStates = func() []string {
	var out []string
	for s := engine.TransactionOngoing; s <= engine.TransactionCompleteAbort; s++ {
		out = append(out, s.String())
	}
	return out
}()

// checkFamilies lists the subjects in the order help shows them.
var checkFamilies = []string{"partition", "topic", "clock", "broker", "producer", "group", "consumer", "txn", "history"}

// quantityDefs is every check quantity, in help order within each family.
var quantityDefs = []quantityDef{
	{family: "partition", name: "hw", typ: tInt, doc: "the high watermark"},
	{family: "partition", name: "lso", typ: tInt, doc: "the last stable offset"},
	{family: "partition", name: "log-start", typ: tInt, at: true, form: "log-start[@B]", doc: "the log start offset (the leader's; log-start@2: broker 2's)"},
	{family: "partition", name: "leo", typ: tInt, at: true, form: "leo[@B]", doc: "the log end offset (the leader's; leo@2: broker 2's)"},
	{family: "partition", name: "leader", typ: tIntOrNone, doc: "the leader's broker id; none while its broker is down"},
	{family: "partition", name: "epoch", typ: tInt, doc: "the leader epoch"},
	{family: "partition", name: "isr", typ: tIDSet, doc: "the in-sync replicas as a set: [1 2] (or 1,2)"},
	{family: "partition", name: "replicas", typ: tIDSet, doc: "the assigned replicas as a set: [1 2 3]"},
	{family: "partition", name: "at-min-isr", typ: tBool, doc: "true when the ISR has exactly min.insync.replicas members"},
	{family: "partition", name: "under-min-isr", typ: tBool, doc: "true when the ISR has fewer than min.insync.replicas members"},
	{family: "partition", name: "pending-acks", typ: tInt, doc: "acks=all acknowledgements still waiting for the ISR"},
	{family: "partition", name: "records", typ: tInt, keys: []string{"isolation"}, form: "records [isolation=read_committed]",
		doc: "how many records a fetch from the log start returns now (below the HW; the LSO for read_committed)"},
	{family: "partition", name: "values", typ: tValues, at: true, keys: []string{"isolation"}, form: "values[@B] [isolation=read_committed]",
		doc: "those records' values in offset order: [a b c]; values@2: every value in broker 2's log, HW ignored, markers left out"},
	{family: "partition", name: "key", typ: tValue, at: true, keys: []string{"offset"}, form: "key[@B] offset=N",
		doc: "the key of the record at offset N in the leader's log (HW ignored); none when no record has that offset"},
	{family: "partition", name: "value", typ: tValue, at: true, keys: []string{"offset"}, form: "value[@B] offset=N",
		doc: "the value of the record at offset N, the same way"},
	{family: "partition", name: "segments", typ: tIntList, at: true, form: "segments[@B]", doc: "the base offsets of the segment files: [0 2 4]"},
	{family: "partition", name: "index", typ: tIntList, at: true, form: "index[@B]", doc: "the offsets with a sparse-index entry, every segment: [0 2 4]"},
	{family: "partition", name: "batches", typ: tInt, at: true, form: "batches[@B]", doc: "the batches in the log, transaction markers included"},
	{family: "partition", name: "isr-shrinks", typ: tInt, at: true, form: "isr-shrinks[@B]", doc: "how many times a replica left the ISR in this session (isr-shrinks@2: broker 2 only)"},
	{family: "partition", name: "isr-expansions", typ: tInt, at: true, form: "isr-expansions[@B]", doc: "how many times a replica joined the ISR in this session"},
	{family: "partition", name: "truncations", typ: tInt, at: true, form: "truncations[@B]", doc: "how many times a replica's log was truncated (diverged, promoted, reset) in this session"},
	{family: "partition", name: "leader-changes", typ: tInt, doc: "how many times the leader changed in this session (each one a new epoch)"},

	{family: "topic", name: "partition-of", typ: tInt, keys: []string{"key"}, form: "partition-of key=K", doc: "the partition the partitioner picks for key K"},
	{family: "topic", name: "partitions", typ: tInt, doc: "the partition count"},

	{family: "clock", name: "clock", typ: tInt, doc: "the manual clock in milliseconds"},

	{family: "broker", name: "up", typ: tBool, doc: "false while the broker is crashed"},

	{family: "producer", name: "acked", typ: tInt, doc: "records whose acknowledgement completed with an offset (retries included)"},
	{family: "producer", name: "failed", typ: tInt, doc: "records whose send failed"},
	{family: "producer", name: "pending", typ: tInt, doc: "records not settled yet (buffered or waiting for acks=all)"},
	{family: "producer", name: "buffered", typ: tInt, doc: "records waiting in the accumulator"},
	{family: "producer", name: "epoch", typ: tIntOrNone, doc: "the producer epoch; none for a producer that is not idempotent"},

	{family: "group", name: "state", typ: tWord, choices: groupStates, doc: "the group's state: " + strings.Join(groupStates, ", ") + " (a group that does not exist yet fails, as group describe does)"},
	{family: "group", name: "generation", typ: tInt, doc: "the generation (a group that does not exist yet fails)"},
	{family: "group", name: "members", typ: tNameList, doc: "the member ids: [member-1 member-2]; members == 2 counts them; [] for a group that does not exist yet"},
	{family: "group", name: "owner", typ: tName, arg: true, form: "owner TP", doc: "the member that owns TP now, or none"},
	{family: "group", name: "committed", typ: tIntOrNone, arg: true, form: "committed TP", doc: "the committed offset of TP, or none (also for a group that does not exist yet)"},
	{family: "group", name: "lag", typ: tIntOrNone, arg: true, form: "lag TP", doc: "HW minus the committed offset, or none (also for a group that does not exist yet)"},

	{family: "consumer", name: "position", typ: tIntOrNone, arg: true, form: "position TP", doc: "the next offset it reads from TP, or none before its first poll"},
	{family: "consumer", name: "committed", typ: tIntOrNone, arg: true, form: "committed TP", doc: "its group's committed offset of TP, or none"},
	{family: "consumer", name: "lag", typ: tInt, arg: true, form: "lag TP", doc: "how far its position is behind the HW (the LSO for read_committed)"},
	{family: "consumer", name: "assignment", typ: tNameList, doc: "its local, possibly stale assignment: [orders-0 orders-2]"},
	{family: "consumer", name: "generation", typ: tIntOrNone, doc: "the generation it last learned, or none before it joins"},
	{family: "consumer", name: "polled", typ: tInt, doc: "records its polls returned so far"},
	{family: "consumer", name: "closed", typ: tBool, doc: "true once it is closed"},

	{family: "txn", name: "state", typ: tWord, choices: txnStates, doc: "the transaction's state: " + strings.Join(txnStates, ", ")},

	{family: "history", name: "ran", typ: tInt, form: "ran COMMAND [WORD|key=|key=V|!key=V]...",
		doc: "how many commands that changed the cluster ran successfully in this session (an exercise's setup included) and match: the command's first words, then keys it must have (key=, or key=V with that value), keys it must not have (!key=V, !key=), words it must hold; quote a pattern with = in it: \"produce partition=\""},
}

// familyUsage is how a check of each subject reads, for errors.
var familyUsage = map[string]string{
	"partition": "check events-0 hw == 1",
	"topic":     "check orders partition-of key=alice == 1",
	"clock":     "check clock == 100",
	"broker":    "check broker 2 up == false",
	"producer":  "check producer p acked == 2",
	"group":     "check group workers committed orders-0 == 3",
	"consumer":  "check consumer c1 position orders-0 == 3",
	"txn":       "check txn t1 state == complete_commit",
	"history":   "check history ran broker crash == 0",
}

func lookupQuantity(family, name string) *quantityDef {
	for i := range quantityDefs {
		if quantityDefs[i].family == family && quantityDefs[i].name == name {
			return &quantityDefs[i]
		}
	}
	return nil
}

// quantityForms lists a family's quantities as help writes them.
func quantityForms(family string) string {
	var out []string
	for _, q := range quantityDefs {
		if q.family == family {
			out = append(out, q.written())
		}
	}
	return strings.Join(out, ", ")
}

func (q *quantityDef) written() string {
	if q.form != "" {
		return q.form
	}
	return q.name
}

// checkSpec is a parsed check expression.
type checkSpec struct {
	subject  string          // as printed: "events-0 values@2 isolation=read_committed"
	name     string          // the topic, broker id, producer, group, consumer or transaction
	tp       topic.Partition // the partition subject, or the TP argument
	q        *quantityDef
	broker   int32 // @B; -1 for the leader
	key      []byte
	offset   int64
	iso      string // "" unless isolation= is given
	op       string
	expected string // the text after the operator, as typed
	want     expectation
	pattern  []Word // history ran: the command pattern
}

// parseCheck reads a check expression from the command's words. It needs
// no cluster: every error is a usage error about the text.
func parseCheck(a *Args) (*checkSpec, error) {
	opAt := -1
	for i, w := range a.words {
		if !w.IsPair && !w.Quoted && slices.Contains(checkOps, w.Text) {
			opAt = i
			break
		}
	}
	if opAt < 0 {
		return nil, a.usage("missing operator: one of %s, surrounded by spaces", strings.Join(checkOps, " "))
	}
	sp := &checkSpec{op: a.words[opAt].Text, broker: -1}
	var subject []string
	for _, w := range a.words[:opAt] {
		if !w.IsPair {
			subject = append(subject, w.Text)
		}
	}
	if len(subject) == 0 {
		return nil, a.usage("nothing to compare before %s", sp.op)
	}
	after := a.words[opAt+1:]
	if len(after) == 0 {
		return nil, a.usage("missing the value after %s", sp.op)
	}
	for _, w := range after {
		if w.IsPair {
			return nil, a.usage("%q comes after the operator: keys go before it, and a value with = is quoted (\"a=b\")", w.Text)
		}
	}
	sp.expected = a.line[after[0].start:after[len(after)-1].end]
	if err := sp.readSubject(a, subject); err != nil {
		return nil, err
	}
	if err := sp.readKeys(a); err != nil {
		return nil, err
	}
	want, err := parseExpected(sp.q, sp.op, sp.expected)
	if err != nil {
		return nil, a.usage("%s: %v", sp.subject, err)
	}
	sp.want = want
	return sp, nil
}

// readSubject finds the quantity the words before the operator name.
func (sp *checkSpec) readSubject(a *Args, subject []string) error {
	sp.subject = strings.Join(subject, " ")
	first := subject[0]
	switch {
	case len(subject) == 1 && first == "clock":
		sp.q = lookupQuantity("clock", "clock")
		return nil
	case first == "broker" || first == "producer" || first == "group" || first == "consumer" || first == "txn":
		return sp.readNamed(a, first, subject[1:])
	case first == "history":
		return sp.readHistory(a, subject[1:])
	case len(subject) == 2 && lookupQuantity("topic", subject[1]) != nil:
		sp.name, sp.q = first, lookupQuantity("topic", subject[1])
		return nil
	}
	if len(subject) != 2 {
		return a.usage("a check names a subject and a quantity, e.g. check events-0 hw == 1 (help check lists them)")
	}
	tp, err := topic.Parse(first)
	if err != nil {
		return a.usage("%s is not a partition such as events-0 (or a topic with partition-of)", first)
	}
	sp.tp = tp
	name, at, hasAt := strings.Cut(subject[1], "@")
	sp.q = lookupQuantity("partition", name)
	if sp.q == nil {
		return a.usage("unknown quantity %q; one of %s", subject[1], quantityForms("partition"))
	}
	if hasAt {
		if !sp.q.at {
			var takers []string
			for _, q := range quantityDefs {
				if q.at {
					takers = append(takers, q.name)
				}
			}
			return a.usage("%s does not take @BROKER; these do: %s", name, strings.Join(takers, ", "))
		}
		id, err := strconv.ParseInt(at, 10, 32)
		if err != nil || id < 0 {
			return a.usage("%s: %q is not a broker id", subject[1], at)
		}
		sp.broker = int32(id)
	}
	return nil
}

// readNamed reads "broker 2 up", "group G committed TP", ...
func (sp *checkSpec) readNamed(a *Args, family string, rest []string) error {
	reads := fmt.Sprintf("a %s check reads: %s", family, familyUsage[family])
	if len(rest) < 2 {
		return a.usage("%s", reads)
	}
	sp.name = rest[0]
	sp.q = lookupQuantity(family, rest[1])
	switch {
	case family == "broker" && sp.q == nil:
		return a.usage("a broker check reads up: %s", familyUsage[family])
	case sp.q == nil:
		return a.usage("unknown %s quantity %q; one of %s", family, rest[1], quantityForms(family))
	case family == "broker":
		if _, err := strconv.ParseInt(sp.name, 10, 32); err != nil {
			return a.usage("%q is not a broker id", sp.name)
		}
	}
	args := rest[2:]
	switch {
	case sp.q.arg && len(args) != 1:
		return a.usage("%s %s takes a partition: check %s %s %s orders-0 == 3", family, sp.q.name, family, sp.name, sp.q.name)
	case !sp.q.arg && len(args) > 0:
		return a.usage("%s %s takes no partition (%s)", family, sp.q.name, reads)
	case sp.q.arg:
		tp, err := topic.Parse(args[0])
		if err != nil {
			return a.usage("%s is not a partition such as orders-0", args[0])
		}
		sp.tp = tp
	}
	return nil
}

// readHistory reads "ran COMMAND [WORD|key=|key=V|!key=V]...": the pattern
// of the commands to count. The words may be quoted together.
func (sp *checkSpec) readHistory(a *Args, rest []string) error {
	if len(rest) < 2 || rest[0] != "ran" {
		return a.usage("a history check reads: %s (quote a pattern with keys: \"produce partition=\")", familyUsage["history"])
	}
	sp.q = lookupQuantity("history", "ran")
	words, err := Split(strings.Join(rest[1:], " "))
	if err != nil || len(words) == 0 {
		return a.usage("history ran: a command to count, such as broker crash")
	}
	if words[0].IsPair || words[0].Quoted || !isVerb(words[0].Text) {
		return a.usage("history ran: %q is not a command", words[0].Text)
	}
	sp.pattern = words
	return nil
}

// isVerb reports whether name is a command (from the effects table: the
// command table cannot be read while it is being built).
func isVerb(name string) bool {
	for full := range commandEffects {
		if v, _, _ := strings.Cut(full, " "); v == name {
			return true
		}
	}
	return false
}

// readKeys reads key=, isolation= and offset=, each only where its
// quantity takes it.
func (sp *checkSpec) readKeys(a *Args) error {
	takes := func(k string) bool { return slices.Contains(sp.q.keys, k) }
	if a.Has("key") {
		if !takes("key") {
			return a.usage("key= goes with partition-of (a record's key is: check events-0 key offset=0 == k)")
		}
		sp.key = a.Bytes("key")
		sp.subject += " key=" + Quote(a.String("key", ""))
	} else if takes("key") {
		return a.usage("partition-of needs key=K: check %s partition-of key=alice == 1", sp.name)
	}
	if a.Has("isolation") {
		if !takes("isolation") || sp.broker >= 0 {
			return a.usage("isolation= goes with records and values (read from the leader, without @BROKER)")
		}
		sp.iso = a.Choice("isolation", "read_uncommitted", "read_uncommitted", "read_committed")
		sp.subject += " isolation=" + sp.iso
	}
	if a.Has("offset") {
		if !takes("offset") {
			return a.usage("offset= goes with key and value: check events-0 value offset=0 == a")
		}
		sp.offset = a.Int("offset", 0, 0, math.MaxInt64)
		sp.subject += " offset=" + a.String("offset", "")
	} else if takes("offset") {
		return a.usage("%s needs offset=N: check events-0 %s offset=0 == a", sp.q.name, sp.q.name)
	}
	return a.Err()
}

// parseExpected reads the value after the operator for a quantity of q's
// type, and checks that the operator suits it.
func parseExpected(q *quantityDef, op, raw string) (expectation, error) {
	equality := op == "==" || op == "!="
	switch q.typ {
	case tInt, tIntOrNone:
		if raw == "none" && q.typ == tIntOrNone {
			if !equality {
				return expectation{}, fmt.Errorf("none compares only with == or !=")
			}
			return expectation{kind: qWord, word: "none"}, nil
		}
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return expectation{}, fmt.Errorf("expected value %q is not an integer", raw)
		}
		return expectation{kind: qInt, n: n}, nil
	case tNameList:
		if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
			return expectation{kind: qInt, n: n, count: true}, nil
		}
	}
	if !equality {
		switch q.typ {
		case tIDSet:
			return expectation{}, fmt.Errorf("a set compares only with == or !=")
		case tIntList, tNameList, tValues:
			return expectation{}, fmt.Errorf("a list compares only with == or != (members and assignment also compare a count)")
		}
		return expectation{}, fmt.Errorf("%s compares only with == or !=", q.name)
	}
	switch q.typ {
	case tBool:
		if raw != "true" && raw != "false" {
			return expectation{}, fmt.Errorf("expected value %q is not true or false", raw)
		}
		return expectation{kind: qWord, word: raw}, nil
	case tWord:
		if !slices.Contains(q.choices, raw) {
			return expectation{}, fmt.Errorf("expected value %q is not one of %s", raw, strings.Join(q.choices, ", "))
		}
		return expectation{kind: qWord, word: raw}, nil
	case tName:
		if raw == "" || strings.ContainsAny(raw, " \t") {
			return expectation{}, fmt.Errorf("expected value %q is not one member id (or none)", raw)
		}
		return expectation{kind: qWord, word: raw}, nil
	case tIDSet:
		inner := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(raw, "["), "]"))
		if inner == "" {
			return expectation{kind: qSet}, nil
		}
		ids, err := ParseBrokerList(strings.Join(strings.FieldsFunc(inner, isListSep), ","))
		if err != nil {
			return expectation{}, fmt.Errorf("expected value %q is not a set of broker ids such as [1 2]", raw)
		}
		return expectation{kind: qSet, set: sortedIDs(ids)}, nil
	case tIntList:
		items := listItems(raw)
		for _, it := range items {
			if _, err := strconv.ParseInt(it, 10, 64); err != nil {
				return expectation{}, fmt.Errorf("expected value %q is not a list of offsets such as [0 2 4]", raw)
			}
		}
		return expectation{kind: qList, items: items}, nil
	case tNameList:
		items := listItems(raw)
		slices.Sort(items)
		return expectation{kind: qList, items: items}, nil
	case tValues:
		if !strings.HasPrefix(raw, "[") || !strings.HasSuffix(raw, "]") {
			return expectation{}, fmt.Errorf("expected value %q is not a list of values such as [a b c]", raw)
		}
		words, err := Split(raw[1 : len(raw)-1])
		if err != nil {
			return expectation{}, fmt.Errorf("expected value %s: %v", raw, err)
		}
		items := []string{}
		for _, w := range words {
			tok, err := expectedToken(w)
			if err != nil {
				return expectation{}, fmt.Errorf("expected value %s: %v", raw, err)
			}
			items = append(items, tok)
		}
		return expectation{kind: qList, items: items}, nil
	case tValue:
		words, err := Split(raw)
		if err == nil && len(words) != 1 {
			err = fmt.Errorf("give one value, such as abc, \"two words\", \"\", null or hex:00ff")
		}
		if err != nil {
			return expectation{}, fmt.Errorf("expected value %s: %v", raw, err)
		}
		if w := words[0]; !w.Quoted && w.Text == "none" {
			return expectation{kind: qWord, word: "none"}, nil
		}
		tok, err := expectedToken(words[0])
		if err != nil {
			return expectation{}, fmt.Errorf("expected value %s: %v", raw, err)
		}
		return expectation{kind: qWord, word: tok}, nil
	}
	return expectation{}, fmt.Errorf("cannot compare %s", q.name)
}

func isListSep(r rune) bool { return r == ',' || r == ' ' || r == '\t' }

// listItems splits [a b c], [a,b] or a,b into its items.
func listItems(raw string) []string {
	inner := strings.TrimSuffix(strings.TrimPrefix(raw, "["), "]")
	items := strings.FieldsFunc(inner, isListSep)
	if items == nil {
		items = []string{}
	}
	return items
}

// expectedToken reads one value word of an expected list: unquoted null is
// a null, hex: and b64: decode as in produce, anything else is text. It
// returns the value's canonical token, as valueToken prints it.
func expectedToken(w Word) (string, error) {
	if !w.Quoted && w.Text == "null" {
		return valueToken(nil), nil
	}
	b, err := parseBytes(w.Text, w.Quoted)
	if err != nil {
		return "", err
	}
	if b == nil {
		b = []byte{}
	}
	return valueToken(b), nil
}

// valueToken prints a key or value as one word of a check: null for a null,
// "" for empty bytes, printable text as it is (quoted when it has blanks or
// quotes, or reads null, none, hex:..., b64:...), other bytes as hex:....
func valueToken(b []byte) string {
	if b == nil {
		return "null"
	}
	t := showBytes(b)
	if t == "null" || t == "none" {
		return forceQuote(t)
	}
	return t
}

// look is the hint of a failed check: the view that shows its quantity
// now, so that the learner can see why it differs.
func (sp *checkSpec) look() string {
	switch sp.q.family {
	case "partition":
		return fmt.Sprintf("`show %s` draws the partition now; `offsets %s` lists each replica", sp.tp, sp.tp)
	case "topic":
		return fmt.Sprintf("`topic describe %s` shows its partitions", sp.name)
	case "clock":
		return "`clock` shows the time; `clock advance DURATION` moves it"
	case "broker":
		return "`broker list` shows which brokers are up"
	case "producer":
		return "`producer list` shows each producer's records and their state"
	case "group":
		return fmt.Sprintf("`group describe %s` shows its members, owners and offsets", Quote(sp.name))
	case "consumer":
		return fmt.Sprintf("`consumer list` shows each consumer; `consumer position %s TP` one position", Quote(sp.name))
	case "txn":
		return "`txn list` shows every transaction and its state"
	}
	return "`help check` lists what a check can read"
}
