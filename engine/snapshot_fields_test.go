package engine

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/clock"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/producer"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/replication"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// cloneFields lists, for every struct type a cluster's state is made of,
// each of its fields and how a copy (Snapshot, Restore) treats it. A field
// without a mark is copied: the copy must hold an equal value that shares
// no pointer or map with the original. Marks:
//
//	=skip    not compared: a file system or an open file (the copy has its
//	         own), a scratch buffer, a function bound to the copy's cluster
//	=shared  equal, and what is below may be shared: it never changes once
//	         made (the clone method's doc says why)
//	=fresh   not copied: the copy starts with the zero value
//
// A type marked byValue is copied by assignment, so a new field of a value
// kind (numbers, strings, plain structs) is copied without anyone writing
// code for it: only its fields that hold references (pointers, maps,
// slices, interfaces, functions) must be listed.
//
// TestSnapshotCopiesEveryField fails when a type gains a field that is not
// listed here: handle it in the clone method of its package (see
// engine/snapshot.go and the clone.go of each package), then list it.
var cloneFields = map[string]struct {
	byValue bool
	fields  []string
}{
	"engine.Cluster": {fields: []string{"cfg", "clock", "settings", "psettings", "env", "events", "ids", "state", "terminal=shared", "failNext=shared",
		"topics", "sets", "brokers", "uncleanCheckDueMs", "identities", "producers", "partitioner", "keyless", "txns", "coord",
		"diskFailures", "unlock=skip", "derived=fresh", "openedIndexes=fresh", "attached=fresh", "attachIDs=fresh", "attachSeq=fresh", "readBuf=skip"}},
	"engine.Config":         {byValue: true, fields: []string{"BrokerIDs=shared", "FS=skip"}},
	"engine.Rules":          {byValue: true},
	"engine.brokerInfo":     {byValue: true},
	"engine.diskFailure":    {byValue: true, fields: []string{"err=shared"}},
	"engine.keylessWait":    {fields: []string{"ack", "count"}},
	"engine.coordination":   {fields: []string{"offsets", "groups", "txns", "consumers", "consumerCount"}},
	"engine.txnLayer":       {fields: []string{"c", "m", "indexes", "opening", "begun", "pending"}},
	"engine.leaderIndex":    {fields: []string{"idx", "log", "leader", "epoch", "leo", "orphans"}},
	"engine.TxnCompletion":  {fields: []string{"Promise", "ID", "Outcome", "Acks", "instance", "markers=shared", "remaining"}},
	"engine.Consumer":       {fields: []string{"c", "groupID", "memberID", "reset", "iso", "assignment=shared", "positions", "subscriptions=shared", "generation", "joined", "closed"}},
	"engine.producerPort":   {fields: []string{"c"}},
	"clock.Manual":          {fields: []string{"now"}},
	"replication.Settings":  {byValue: true},
	"replication.LagConfig": {byValue: true},
	"replication.Rules":     {byValue: true},
	"replication.Env":       {fields: []string{"Clock", "Events", "IDs", "Settings", "DiskFailed=skip", "Dispatch", "fetchBuf=skip"}},
	"replication.EventLog":  {fields: []string{"events=shared"}},
	"replication.IDSource":  {fields: []string{"last"}},
	"replication.ReplicaSet": {byValue: true, fields: []string{"env", "assignment=shared", "byID=shared", "replicas", "isr", "isrOrder",
		"waiters", "producers"}},
	"replication.Replica":              {byValue: true, fields: []string{"log"}},
	"replication.waiter":               {byValue: true, fields: []string{"ack"}},
	"replication.Ack":                  {byValue: true, fields: []string{"Promise", "Captured=shared"}},
	"replication.Promise":              {fields: []string{"id", "state", "value", "err=shared", "listeners=shared", "d"}},
	"replication.ProducerStateManager": {fields: []string{"states", "epochs", "rules"}},
	"replication.producerState":        {byValue: true, fields: []string{"batches"}},
	"replication.ProducerEntry":        {byValue: true},
	"storage.Log":                      {byValue: true, fields: []string{"opts", "segs", "frameBuf=skip", "scanBuf=skip", "readBuf=skip", "faults=skip", "shutdown=shared", "opened=shared"}},
	"storage.shutdownPoint":            {byValue: true},
	"storage.Options":                  {byValue: true, fields: []string{"FS=skip"}},
	"storage.segment":                  {byValue: true, fields: []string{"fsys=skip", "index", "f=skip"}},
	"storage.offsetIndex":              {fields: []string{"base", "entries=shared"}},
	"producer.Producer": {fields: []string{"opts", "identity", "env", "part", "acc", "nextSeq", "inflight", "sent", "last=shared", "recent=shared",
		"closed", "topic=fresh", "source", "awaiting", "batches", "slab=fresh", "spare=fresh", "flushes", "frozen", "spareFutures=fresh", "deltas=fresh"}},
	"producer.Options":       {byValue: true},
	"producer.Identity":      {byValue: true},
	"producer.Settings":      {byValue: true},
	"producer.Env":           {fields: []string{"Cluster", "Clock", "IDs", "Events", "Settings", "Dispatch", "Number"}},
	"producer.Partitioner":   {fields: []string{"settings", "sticky", "kafka", "rng", "Available=skip"}},
	"producer.stickyState":   {byValue: true},
	"producer.Accumulator":   {fields: []string{"batchSize", "lingerMs", "maxBuffer", "queues", "total", "last=fresh"}},
	"producer.queue":         {fields: []string{"records=shared", "futures", "fb", "bytes", "firstEnqueue"}},
	"producer.inflight":      {fields: []string{"batch=shared", "ack"}},
	"producer.awaiting":      {fields: []string{"s=shared", "futs", "ack"}},
	"producer.Future":        {fields: []string{"ts", "b", "index", "state"}},
	"producer.futureBatch":   {fields: []string{"tp", "producer", "ids", "baseOffset", "offsetsKnown", "err=shared"}},
	"producer.IdentityStore": {fields: []string{"fsys=skip", "dir", "ids=shared"}},
	"group.OffsetStore":      {fields: []string{"fsys=skip", "path", "groups=shared"}},
	"group.Coordinator":      {fields: []string{"clk", "topics=skip", "sessionTimeoutMs=skip", "offsets", "fsys=skip", "path", "groups", "logBytes", "snapBytes", "logDirty", "needCompact"}},
	"group.groupState":       {fields: []string{"generation", "state", "members", "assignment=shared", "clientAssigned"}},
	"group.member":           {fields: []string{"subscriptions=shared", "deadlineMs"}},
	"txn.Manager":            {fields: []string{"journal", "offsets", "txns=shared", "finished"}},
	"txn.finishedRun":        {byValue: true},
	"txn.Journal":            {fields: []string{"fsys=skip", "path", "f=skip", "size"}},
	"txn.Index":              {fields: []string{"next", "runs", "open", "closed"}},
}

// plainTypes are value types of the engine that hold no state of their
// own: compared field by field wherever they appear, never registered.
var plainTypes = []string{"topic.Partition", "record.Record", "record.Batch", "replication.ProduceResult",
	"producer.RecordMetadata", "engine.TransactionResult", "replication.Listener", "txn.Run", "storage.IndexEntry",
	"producer.sent", "txn.Entry", "kerr.Error"}

// typeName is "package.Type" without type arguments.
func typeName(t reflect.Type) string {
	name, _, _ := strings.Cut(t.Name(), "[")
	pkg := t.PkgPath()
	return pkg[strings.LastIndex(pkg, "/")+1:] + "." + name
}

func ours(t reflect.Type) bool {
	return strings.HasPrefix(t.PkgPath(), "github.com/minikafka-lab/minikafka/engine")
}

// graphWalk compares an original's state graph with its copy's.
type graphWalk struct {
	t        *testing.T
	seen     map[[2]uintptr]bool
	problems []string
	// nonZero records the registered fields seen with a value other than
	// their zero value, by "type.field".
	nonZero map[string]bool
	// marked caches marks by type name.
	marked map[string]map[string]string
	// registry is cloneFields, or a test's variant of it.
	registry map[string]struct {
		byValue bool
		fields  []string
	}
}

func newGraphWalk(t *testing.T) *graphWalk {
	return &graphWalk{t: t, seen: map[[2]uintptr]bool{}, nonZero: map[string]bool{}, marked: map[string]map[string]string{}, registry: cloneFields}
}

func (w *graphWalk) fail(format string, args ...any) {
	if len(w.problems) < 20 {
		w.problems = append(w.problems, fmt.Sprintf(format, args...))
	}
}

// marks returns the marks of t's fields; a registry problem is reported
// once per type.
func (w *graphWalk) marks(t reflect.Type) map[string]string {
	name := typeName(t)
	if m, ok := w.marked[name]; ok {
		return m
	}
	m := w.checkFields(t, name)
	w.marked[name] = m
	return m
}

func (w *graphWalk) checkFields(t reflect.Type, name string) map[string]string {
	reg, ok := w.registry[name]
	if !ok {
		w.fail("%s is part of a cluster's state but not in cloneFields: give it a clone method and list its fields", name)
		return nil
	}
	marks := map[string]string{}
	for _, f := range reg.fields {
		n, m, _ := strings.Cut(f, "=")
		marks[n] = m
	}
	for i := range t.NumField() {
		f := t.Field(i)
		_, listed := marks[f.Name]
		switch f.Type.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface, reflect.Func:
		default:
			if reg.byValue {
				continue
			}
		}
		if !listed {
			w.fail("%s.%s is not handled by the copy: copy it in its clone method and list it in cloneFields", name, f.Name)
		}
	}
	for n := range marks {
		if _, ok := t.FieldByName(n); !ok {
			w.fail("cloneFields lists %s.%s, which does not exist", name, n)
		}
	}
	return marks
}

// settled reports whether v (a struct embedding a replication.Promise) has
// settled: settled promises are shared by design.
func settled(v reflect.Value) bool {
	p := v.FieldByName("Promise")
	return p.IsValid() && p.FieldByName("state").Uint() != 0
}

// walk compares a (the original's) with b (the copy's) at path. shared
// says whether sharing is allowed below; plain whether a and b are inside
// a plain value (an event), whose types need no registration.
func (w *graphWalk) walk(path string, a, b reflect.Value, shared bool) {
	w.walkIn(path, a, b, shared, false)
}

func (w *graphWalk) walkIn(path string, a, b reflect.Value, shared, plain bool) {
	if a.Kind() != b.Kind() {
		w.fail("%s: kinds %s and %s", path, a.Kind(), b.Kind())
		return
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				w.fail("%s: nil %v, copy nil %v", path, a.IsNil(), b.IsNil())
			}
			return
		}
		key := [2]uintptr{a.Pointer(), b.Pointer()}
		if a.Pointer() == b.Pointer() && !shared && !(a.Elem().Kind() == reflect.Struct && settled(a.Elem())) {
			w.fail("%s: the copy shares the original's %s", path, a.Type())
			return
		}
		if w.seen[key] {
			return
		}
		w.seen[key] = true
		w.walkIn(path, a.Elem(), b.Elem(), shared || a.Pointer() == b.Pointer(), plain)
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				w.fail("%s: nil %v, copy nil %v", path, a.IsNil(), b.IsNil())
			}
			return
		}
		if a.Elem().Type() != b.Elem().Type() {
			w.fail("%s: %s, copy %s", path, a.Elem().Type(), b.Elem().Type())
			return
		}
		w.walkIn(path, a.Elem(), b.Elem(), shared || a.Type() == reflect.TypeFor[error](), plain || implementsEvent(a.Elem().Type()))
	case reflect.Struct:
		t := a.Type()
		var marks map[string]string
		if ours(t) && !plain && !slices.Contains(plainTypes, typeName(t)) {
			marks = w.marks(t)
		}
		for i := range t.NumField() {
			name := t.Field(i).Name
			switch marks[name] {
			case "skip":
				continue
			case "fresh":
				if !b.Field(i).IsZero() {
					w.fail("%s.%s: the copy does not start fresh", path, name)
				}
				continue
			}
			if marks != nil && !a.Field(i).IsZero() {
				w.nonZero[typeName(t)+"."+name] = true
			}
			w.walkIn(path+"."+name, a.Field(i), b.Field(i), shared || marks[name] == "shared", plain)
		}
	case reflect.Map:
		if a.Len() != b.Len() {
			w.fail("%s: %d entries, copy %d", path, a.Len(), b.Len())
			return
		}
		if a.Len() > 0 && a.Pointer() == b.Pointer() && !shared {
			w.fail("%s: the copy shares the original's map", path)
		}
		for _, k := range a.MapKeys() {
			bv := b.MapIndex(k)
			if !bv.IsValid() {
				w.fail("%s[%v]: missing in the copy", path, k)
				continue
			}
			w.walkIn(fmt.Sprintf("%s[%v]", path, k), a.MapIndex(k), bv, shared, plain)
		}
	case reflect.Slice, reflect.Array:
		if a.Kind() == reflect.Slice && a.Len() > 0 && a.Pointer() == b.Pointer() && !shared {
			w.fail("%s: the copy shares the original's slice", path)
		}
		if a.Len() != b.Len() {
			w.fail("%s: length %d, copy %d", path, a.Len(), b.Len())
			return
		}
		for i := range a.Len() {
			w.walkIn(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i), shared, plain)
		}
	case reflect.Func:
		if a.IsNil() != b.IsNil() {
			w.fail("%s: func nil %v, copy nil %v", path, a.IsNil(), b.IsNil())
		}
	case reflect.Bool:
		if a.Bool() != b.Bool() {
			w.fail("%s: %v, copy %v", path, a.Bool(), b.Bool())
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if a.Int() != b.Int() {
			w.fail("%s: %d, copy %d", path, a.Int(), b.Int())
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if a.Uint() != b.Uint() {
			w.fail("%s: %d, copy %d", path, a.Uint(), b.Uint())
		}
	case reflect.String:
		if a.String() != b.String() {
			w.fail("%s: %q, copy %q", path, a.String(), b.String())
		}
	default:
		w.fail("%s: cannot compare a %s", path, a.Kind())
	}
}

func implementsEvent(t reflect.Type) bool { return t.Implements(reflect.TypeFor[Event]()) }

// richCluster builds a cluster with something of everything under way: an
// idempotent producer with batches in flight (one retried: a duplicate
// waiting for the HW) and records buffered, a closed producer, a keyless
// record waiting for acks=all, consumers (a group member that polled, a
// manual one, a closed one), a classic group, standalone and
// adapter-joined groups, a transaction being committed and one open, a
// transactional producer identity, a compacted log, a promotion that left
// a diverged replica, a crashed broker (its log had been cut by retention)
// whose partition's transaction index still names its log, a reopened data
// directory, a changed knob, an armed flush failure, and events not taken
// yet.
func richCluster(t *testing.T, rules string) *Cluster {
	t.Helper()
	cfg := DefaultConfig("data")
	if err := cfg.Set(RulesKey, rules); err != nil {
		t.Fatal(err)
	}
	cfg.FS = vfs.NewMem()
	cfg.BrokerIDs = []int32{1, 2, 3}
	cfg.SegmentBytes = 200
	cfg.MinInsyncReplicas = 2
	clk := clock.NewManual(0)
	c, _, err := Open(cfg, clk)
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	ret := func(_ any, err error) { t.Helper(); must(err) }
	rec := func(k, v string) record.Record {
		r := record.Record{Value: []byte(v), TimestampMs: NoTimestamp}
		if k != "" {
			r.Key = []byte(k)
		}
		return r
	}
	t0, t1, u0 := TopicPartition{Topic: "t"}, TopicPartition{Topic: "t", Partition: 1}, TopicPartition{Topic: "u"}
	ret(c.CreateTopic("t", 2, 3))
	ret(c.CreateTopic("u", 1, 2))
	ret(c.CreateTopic("v", 3, 1))
	var solo TopicPartition // the partition of v that broker 3 holds alone
	for _, tp := range c.sortedTPs() {
		if tp.Topic == "v" && c.sets[tp].Leader() == 3 {
			solo = tp
		}
	}
	for i := range 6 {
		ret(c.Produce("t", int32(i%2), rec(fmt.Sprint("k", i), "v"), Acks1))
		ret(c.Produce(solo.Topic, solo.Partition, rec(fmt.Sprint("k", i), "a value long enough to roll segments"), Acks1))
	}
	ret(c.ApplyRetention(solo, AllReplicas, -1, 150)) // the log start moves up
	must(c.Close())                                   // a reopened log has a directory change to sync
	if c, _, err = Open(cfg, clk); err != nil {
		t.Fatal(err)
	}
	must(c.Advance(3))
	ret(c.Replicate(nil, AllFollowers))
	ret(c.Compact(t0, AllReplicas, 0))
	// A transaction that finished and began again: the coordinator
	// remembers the finished instance's runs.
	must(c.BeginTransaction("x3"))
	ret(c.TransactionSend("x3", "t", 0, rec("a", "in x3")))
	ret(c.AbortTransaction("x3"))
	ret(c.Replicate(nil, AllFollowers))
	must(c.BeginTransaction("x3"))
	// A record only t-1's leader (2) has, then a promotion: broker 2 is
	// diverged above the HW; broker 3 catches up with the new leader.
	ret(c.Produce("t", 1, rec("d", "only on 2"), Acks1))
	must(c.Promote(t1, 1))
	ret(c.Replicate(&t1, 3))

	opts := producer.DefaultOptions()
	opts.Name, opts.Idempotent, opts.LingerMs = "p", true, 50
	p, err := c.NewProducer(opts)
	must(err)
	for i := range 3 {
		ret(p.Send("t", 0, rec(fmt.Sprint("a", i), "x")))
	}
	p.Flush()
	ret(p.Retry()) // an exact duplicate: it waits for the HW
	must(c.Advance(2))
	ret(p.Send("t", 1, rec("b", "buffered")))
	opts = producer.DefaultOptions()
	opts.Name = "q"
	q, err := c.NewProducer(opts)
	must(err)
	ret(q.Send("u", 0, rec("c", "y")))
	q.Flush()
	ret(q.Retry())
	q.Close()

	ret(c.Produce("t", AnyPartition, rec("", "keyless"), AcksAll))

	g1, err := c.NewConsumer(ConsumerOptions{GroupID: "g", Isolation: ReadCommitted})
	must(err)
	must(g1.Subscribe([]string{"t"}))
	ret(g1.Poll(10))
	must(g1.Commit())
	g2, err := c.NewConsumer(ConsumerOptions{GroupID: "m"})
	must(err)
	must(g2.Assign([]TopicPartition{u0}))
	ret(g2.Poll(1))
	g3, err := c.NewConsumer(ConsumerOptions{GroupID: "m", AutoOffsetReset: ResetLatest})
	must(err)
	must(g3.Close())

	gen, err := c.CompleteClassicJoin("k", []ClassicGroupMember{{ID: "c1", Subscriptions: []string{"t"}}})
	must(err)
	must(c.CompleteClassicSync("k", gen, map[string][]TopicPartition{"c1": {t0}}))
	must(c.CommitStandaloneOffsets("s", map[TopicPartition]int64{u0: 1}))
	ret(c.JoinGroup("j", "adapter-1", []string{"u"}))

	must(c.BeginTransaction("x1"))
	ret(c.TransactionSend("x1", "t", 1, rec("a", "in x1")))
	must(c.TransactionSendOffsets("x1", "g", map[TopicPartition]int64{t0: 2}))
	h, err := c.CommitTransaction("x1")
	must(err)
	if h.State() != Pending {
		t.Fatalf("completion %s", h.State())
	}
	must(c.BeginTransaction("x2"))
	ret(c.TransactionSend("x2", "u", 0, rec("b", "in x2")))
	ret(c.InitProducerID("w"))
	ret(c.ListTransactions())
	ret(c.LastStableOffset(u0))
	ret(c.LastStableOffset(solo))
	ret(c.SetConfig("session.timeout.ms", "500"))
	must(c.Advance(5))
	must(c.CrashBroker(3, false)) // leads solo: its index keeps the crashed log
	must(c.FailNextFlush(kerr.New(kerr.StorageError, "disk failed")))
	// An orphan run waiting for its marker (a lost marker's partition,
	// retryOrphanMarkers): set by hand, as only a crash that loses a
	// marker makes one, and the copy must keep the flag whatever made it.
	c.coord.txns.indexes[u0].orphans = true
	if c.events.Len() == 0 {
		t.Fatal("no events left in the queue")
	}
	if len(c.PendingAcks()) < 3 || len(c.keyless) == 0 || len(c.coord.txns.pending) == 0 {
		t.Fatalf("not enough under way: %d acks, %d keyless, %d completions", len(c.PendingAcks()), len(c.keyless), len(c.coord.txns.pending))
	}
	return c
}

// alwaysZero are the registered fields a cluster between two calls always
// has at their zero value, so no scenario can show them copied.
var alwaysZero = []string{
	"engine.Cluster.state",            // Running; Closing exists only inside Close
	"engine.txnLayer.opening",         // only while Open runs recovery
	"replication.Promise.state",       // a copy copies pending promises only; settled ones are shared
	"engine.Cluster.diskFailures",     // queued within a step only, applied before it returns
	"group.Coordinator.needCompact",   // only after a groups log write failed or was torn
	"producer.Future.state",           // a copy copies pending futures only; settled ones are shared
	"producer.futureBatch.baseOffset", // set when the batch settles: pending futures' batches have none
	"producer.futureBatch.offsetsKnown",
	"producer.futureBatch.err",
}

// TestSnapshotCopiesEveryField compares a rich cluster (richCluster) with
// its snapshot's frozen copy and with a restored copy, field by field,
// exported and unexported, through every pointer: every field is handled
// (cloneFields), every value is equal, and the copy shares nothing with the
// original but what is immutable; in particular every pointer back to a
// cluster (a consumer's, a producer's port, the dispatcher of a pending
// promise, the transaction layer's) leads to the copy, never to the
// original.
func TestSnapshotCopiesEveryField(t *testing.T) {
	for _, rules := range []string{MiniKafkaRuleSet, KafkaRuleSet} {
		t.Run(rules, func(t *testing.T) { copiesEveryField(t, rules) })
	}
}

func copiesEveryField(t *testing.T, rules string) {
	c := richCluster(t, rules)
	s, err := c.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Restore(s)
	if err != nil {
		t.Fatal(err)
	}
	for name, cp := range map[string]*Cluster{"the snapshot": s.c, "the restored cluster": r} {
		w := newGraphWalk(t)
		w.walk("cluster", reflect.ValueOf(c), reflect.ValueOf(cp), false)
		if len(w.problems) > 0 {
			t.Errorf("%s:\n  %s", name, strings.Join(w.problems, "\n  "))
		}
		var zero []string
		for typ, reg := range cloneFields {
			for _, f := range reg.fields {
				n, mark, _ := strings.Cut(f, "=")
				if mark == "" && !w.nonZero[typ+"."+n] && !slices.Contains(alwaysZero, typ+"."+n) && typ != "engine.listeners" {
					zero = append(zero, typ+"."+n)
				}
			}
		}
		slices.Sort(zero)
		if len(zero) > 0 {
			t.Errorf("richCluster leaves these fields zero, so it cannot show that a copy keeps them: make the scenario set them (or list them in alwaysZero): %v", zero)
		}
	}
	crashedIndex := false
	for tp, li := range c.coord.txns.indexes {
		if _, held := c.sets[tp].LogHolder(li.log); li.log != nil && !held {
			crashedIndex = true
		}
	}
	if !crashedIndex {
		t.Fatal("the scenario must leave a transaction index on a crashed leader's log")
	}
}

// TestCloneFieldsCanFail shows that the walk notices a field a copy
// dropped and an object a copy shares.
func TestCloneFieldsCanFail(t *testing.T) {
	c := richCluster(t, MiniKafkaRuleSet)
	s, err := c.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Restore(s)
	if err != nil {
		t.Fatal(err)
	}
	r.coord.consumers[0].positions = map[TopicPartition]int64{}
	r.producers[1] = c.producers[1]
	w := newGraphWalk(t)
	w.walk("cluster", reflect.ValueOf(c), reflect.ValueOf(r), false)
	// A field nobody taught the copy: the registry without
	// ReplicaSet.isrOrder, as if it had just been added.
	w.registry = maps.Clone(cloneFields)
	reg := w.registry["replication.ReplicaSet"]
	reg.fields = slices.DeleteFunc(slices.Clone(reg.fields), func(f string) bool { return f == "isrOrder" })
	w.registry["replication.ReplicaSet"] = reg
	w.checkFields(reflect.TypeFor[replication.ReplicaSet](), "replication.ReplicaSet")
	got := strings.Join(w.problems, "\n")
	for _, want := range []string{"cluster.coord.consumers[0].positions", "cluster.producers[1]: the copy shares",
		"replication.ReplicaSet.isrOrder is not handled by the copy"} {
		if !strings.Contains(got, want) {
			t.Errorf("the walk did not notice %q:\n%s", want, got)
		}
	}
}
