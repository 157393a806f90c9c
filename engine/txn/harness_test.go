package txn

import (
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/group"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/topic"
	"github.com/minikafka-lab/minikafka/engine/vfs"
)

// tb is what the harness needs from *testing.T and *rapid.T.
type tb interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// fakeLog is one partition's leader log reduced to batch metas (one offset
// per batch), with its transaction index and a high watermark the test
// moves by hand (replication).
type fakeLog struct {
	metas  []record.Meta
	values []string // per batch: the record value, "" for markers
	idx    *Index
	hw     int64
}

func newFakeLog() *fakeLog { return &fakeLog{idx: NewIndex()} }

func (l *fakeLog) leo() int64 { return int64(len(l.metas)) }

func (l *fakeLog) append(tb tb, m record.Meta, value string) int64 {
	tb.Helper()
	m.BaseOffset = l.leo()
	m.ProducerID = record.NoProducerID
	m.RecordCount = 1
	if m.IsControl() {
		m.RecordCount = 0
	}
	if err := l.idx.Add(m); err != nil {
		tb.Fatal(err)
	}
	l.metas = append(l.metas, m)
	l.values = append(l.values, value)
	return m.BaseOffset
}

func (l *fakeLog) appendPlain(tb tb, value string) int64 {
	return l.append(tb, record.Meta{}, value)
}

func (l *fakeLog) appendTxn(tb tb, id, value string) int64 {
	return l.append(tb, record.Meta{Transactional: true, TransactionalID: id}, value)
}

func (l *fakeLog) appendMarker(tb tb, id string, ctl record.ControlType) int64 {
	return l.append(tb, record.Meta{Transactional: true, TransactionalID: id, Control: ctl}, "")
}

// truncate cuts the log (and its index) back to offset, as a leader change does.
func (l *fakeLog) truncate(offset int64) {
	l.metas, l.values = l.metas[:offset], l.values[:offset]
	l.idx.TruncateTo(offset)
	l.hw = min(l.hw, offset)
}

func (l *fakeLog) replicate() { l.hw = l.leo() }

// readUncommitted returns the data values below the HW (markers hidden).
func (l *fakeLog) readUncommitted() []string {
	out := []string{}
	for i, m := range l.metas[:l.hw] {
		if !m.IsControl() {
			out = append(out, l.values[i])
		}
	}
	return out
}

// readCommitted returns the values a read_committed fetch returns: below the
// LSO, markers hidden, batches visible by the index.
func (l *fakeLog) readCommitted(lso int64) []string {
	out := []string{}
	for i, m := range l.metas[:lso] {
		if l.idx.Visible(m) {
			out = append(out, l.values[i])
		}
	}
	return out
}

// harness plays the cluster's part around a Manager: sends append to fake
// logs and record the send; commit and abort append markers where the index
// shows an open run and complete when the test says markers are acknowledged.
type harness struct {
	fsys    vfs.FS
	dir     string
	fast    bool // in memory: the journal on a vfs.Mem, an in-memory offset store (property tests)
	store   offsetView
	m       *Manager
	logs    map[topic.Partition]*fakeLog
	lastRec Recovery
	lastRep JournalRecovery
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	h := &harness{fsys: vfs.OS, dir: t.TempDir(), logs: map[topic.Partition]*fakeLog{}}
	h.open(t)
	return h
}

// newFastHarness is newHarness in memory: the journal lives on a vfs.Mem
// and committed offsets in a map (both survive reopen, like the files).
func newFastHarness(t testing.TB) *harness {
	t.Helper()
	mem := vfs.NewMem()
	if err := mem.MkdirAll("txn", 0o755); err != nil {
		t.Fatal(err)
	}
	h := &harness{fsys: mem, dir: "txn", fast: true, logs: map[topic.Partition]*fakeLog{}}
	h.open(t)
	return h
}

// offsetView is the offset store as the tests see it.
type offsetView interface {
	OffsetCommitter
	Get(group string, tp topic.Partition) (int64, bool)
}

// memStore is an in-memory OffsetCommitter for property tests.
type memStore map[string]group.Offsets

func (s memStore) CommitMany(groups map[string]group.Offsets) error {
	for g, offs := range groups {
		if s[g] == nil {
			s[g] = group.Offsets{}
		}
		maps.Copy(s[g], offs)
	}
	return nil
}

func (s memStore) Get(g string, tp topic.Partition) (int64, bool) {
	o, ok := s[g][tp]
	return o, ok
}

func (h *harness) journalPath() string { return filepath.Join(h.dir, JournalFileName) }

// open opens the offset store and the manager, rebuilds every index from its
// log and runs recovery; markers recovery asks for are appended and, with
// ack, acknowledged (HW moved) and the transactions completed.
func (h *harness) open(t tb) {
	t.Helper()
	var err error
	if h.fast {
		if h.store == nil {
			h.store = memStore{}
		}
	} else if h.store, err = group.OpenOffsetStore(h.fsys, filepath.Join(h.dir, group.OffsetsFileName)); err != nil {
		t.Fatal(err)
	}
	if h.m, h.lastRep, err = Open(h.fsys, h.journalPath(), h.store); err != nil {
		t.Fatal(err)
	}
	unstable := map[topic.Partition][]Run{}
	for tp, l := range h.logs {
		l.idx = NewIndex()
		for _, m := range l.metas {
			if err := l.idx.Add(m); err != nil {
				t.Fatal(err)
			}
		}
		if runs := l.idx.UnstableRuns(l.hw); len(runs) > 0 {
			unstable[tp] = runs
		}
	}
	if h.lastRec, err = h.m.Recover(unstable); err != nil {
		t.Fatal(err)
	}
}

func (h *harness) finishRecovery(t tb) {
	t.Helper()
	for _, o := range h.lastRec.Orphans {
		h.log(o.Partition).appendMarker(t, o.ID, o.Outcome)
		h.log(o.Partition).replicate()
	}
	for _, a := range h.lastRec.Actions {
		if len(a.Markers) == 0 && len(a.Unreplicated) == 0 {
			continue
		}
		if a.State == PrepareCommit {
			h.commit(t, a.ID)
		} else {
			h.abort(t, a.ID)
		}
	}
}

func (h *harness) reopen(t tb) {
	t.Helper()
	if err := h.m.Close(); err != nil {
		t.Fatal(err)
	}
	h.open(t)
}

func (h *harness) log(tp topic.Partition) *fakeLog {
	l := h.logs[tp]
	if l == nil {
		l = newFakeLog()
		h.logs[tp] = l
	}
	return l
}

func (h *harness) begin(t tb, id string) {
	t.Helper()
	if err := h.m.Begin(id); err != nil {
		t.Fatal(err)
	}
}

// send appends a transactional batch (acks=all: the test replicates it) and
// records it with the coordinator.
func (h *harness) send(t tb, id string, tp topic.Partition, value string) int64 {
	t.Helper()
	if e, ok := h.m.Get(id); !ok || e.State != Ongoing {
		t.Fatalf("send on %s in state %v", id, e.State)
	}
	l := h.log(tp)
	off := l.appendTxn(t, id, value)
	if err := h.m.RecordSend(id, tp, off, false); err != nil {
		t.Fatal(err)
	}
	l.replicate()
	return off
}

// markers appends outcome markers for id on every partition of parts where
// the run the id's current instance owns is open (what the cluster does: a
// run closed by a marker not yet replicated waits for that marker, decision
// 37; an earlier instance's open run is not this instance's, decision 44).
func (h *harness) markers(t tb, id string, parts []topic.Partition, ctl record.ControlType) {
	t.Helper()
	for _, tp := range parts {
		l := h.log(tp)
		if h.m.Need(tp, l.idx.UnstableRuns(l.hw), id).Open {
			l.appendMarker(t, id, ctl)
		}
	}
}

func (h *harness) commit(t tb, id string) {
	t.Helper()
	parts, err := h.m.PrepareCommit(id)
	if err != nil {
		t.Fatal(err)
	}
	h.markers(t, id, parts, record.Commit)
	h.ackAll()
	if err := h.m.CompleteCommit(id); err != nil {
		t.Fatal(err)
	}
}

func (h *harness) abort(t tb, id string) {
	t.Helper()
	parts, err := h.m.PrepareAbort(id)
	if err != nil {
		t.Fatal(err)
	}
	h.markers(t, id, parts, record.Abort)
	h.ackAll()
	if err := h.m.CompleteAbort(id); err != nil {
		t.Fatal(err)
	}
}

func (h *harness) ackAll() {
	for _, l := range h.logs {
		l.replicate()
	}
}

func (h *harness) lso(tp topic.Partition) int64 {
	l := h.log(tp)
	return h.m.LastStableOffset(tp, l.hw, l.idx)
}

func (h *harness) readCommitted(tp topic.Partition) []string {
	return h.log(tp).readCommitted(h.lso(tp))
}

// checkLSO asserts LSO <= HW on every partition.
func (h *harness) checkLSO(t tb) {
	t.Helper()
	for _, tp := range slices.SortedFunc(maps.Keys(h.logs), topic.Partition.Compare) {
		if lso, hw := h.lso(tp), h.logs[tp].hw; lso > hw {
			t.Fatalf("%s: LSO %d above HW %d", tp, lso, hw)
		}
	}
}

func tp(s string) topic.Partition {
	p, err := topic.Parse(s)
	if err != nil {
		panic(err)
	}
	return p
}

func wantCode(t tb, err error, code kerr.Code) {
	t.Helper()
	if !errors.Is(err, code) {
		t.Fatalf("got %v, want %s", err, code)
	}
}
