package repl

import (
	"bytes"
	"encoding/hex"
	"io"
	"unicode"
	"unicode/utf8"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/record"
)

var showCommand = &Command{
	Name:    "show",
	Args:    "TP [keys|epochs]",
	Summary: "the picture: every replica's log as cells, with the HW, LSO, log start and each LEO",
	Detail: `One row per replica (b1* is the leader), one column per offset, each
cell showing the record's value (with keys, its key; with epochs, the
leader epoch of its batch, e0, e1, ...). Cells framed by | are below the
high watermark: committed, visible to consumers. Cells framed by : are
the tail above the HW: not yet on every ISR member. Cells framed by ! on
a diverged replica hold another batch than the leader's at that offset
(the old leader's records after a promotion, say): they are not
committed there, whatever the HW, and go at its next truncation. A
crashed broker's row keeps the cells its replica held when it crashed,
framed by ¦ (and dimmed): watch them go when it restarts and truncates.
Under the rows, ^HW marks where the committed prefix ends (and ^LSO,
^log-start when they differ). Markers: ∅ a tombstone, · an offset
compaction removed, COMMIT/ABORT a transaction marker (e1 C, e1 A with
epochs), ✗ a record of an aborted transaction, ? a record of a
transaction not decided yet (it holds the LSO back). Each row ends with
its LEO and notes (not in ISR, crashed, diverged); notes that do not fit
are written under the picture.

The picture fits the terminal (80 columns in scripts and labs): a long
log is elided in the middle with …, never wrapped, keeping the offsets
around the HW, the LSO, the log start and each LEO; a long value widens
its column while there is room, else it is cut with ~.`,
	Chapter:    1,
	Group:      "Views and checks",
	Positional: []Param{{Name: "TP", Values: livePartitions}},
	Flags:      []Param{{Name: "keys"}, {Name: "epochs"}},
	Run:        runShow,
}

// width is the page pictures are drawn for: the terminal's width (while
// not recording), else defaultWidth.
func (s *Session) width() int {
	if s.opts.Width == nil || s.tl.rec != nil {
		return defaultWidth
	}
	w := s.opts.Width()
	if w <= 0 {
		return defaultWidth
	}
	return max(40, w)
}

func runShow(s *Session, w io.Writer, a *Args) error {
	tp := a.TP(0)
	if a.Flag("keys") && a.Flag("epochs") {
		a.fail("keys and epochs exclude each other: a cell shows one of them")
	}
	if err := a.Err(); err != nil {
		return err
	}
	st, err := s.cluster.PartitionState(tp)
	if err != nil {
		return err
	}
	shows := "value"
	switch {
	case a.Flag("keys"):
		shows = "key"
	case a.Flag("epochs"):
		shows = "epoch"
	}
	p := &picture{TP: tp.String(), Topic: tp.Topic, Part: tp.Partition, Leader: st.Leader, Online: st.Online,
		Leaderless: st.Leaderless, Epoch: st.LeaderEpoch, HW: st.HW, LSO: st.LSO, LogStart: st.LogStart, ISR: st.ISR,
		Shows: shows, width: s.width()}
	failed := s.logDirFailures()
	// A crashed replica is drawn from what it held when it crashed, when
	// the session saw the crash.
	sources := map[int32]batchSource{}
	first, end := int64(-1), st.HW
	for _, r := range st.Replicas {
		row := pictureRow{Broker: r.Broker, Leader: r.Broker == st.Leader, InISR: r.InISR, Up: r.Up,
			Diverged: r.Diverged, Reconciling: r.Reconciling, LEO: r.LEO, LogStart: r.LogStart, Cells: []cell{},
			Offline: failed[r.Broker]}
		if st.FollowerHWs {
			hw := r.HW
			row.HW = &hw
		}
		switch known, ok := s.lastKnown[replicaKey{tp.String(), r.Broker}]; {
		case r.Up:
			sources[r.Broker] = replicaReader{s.cluster, tp, r.Broker}
		case ok:
			sources[r.Broker] = known
			row.LastKnown, row.LEO, row.LogStart = true, known.leo, known.logStart
		default:
			p.Rows = append(p.Rows, row)
			continue
		}
		if first < 0 || row.LogStart < first {
			first = row.LogStart
		}
		end = max(end, row.LEO)
		p.Rows = append(p.Rows, row)
	}
	if first < 0 {
		first = st.LogStart
	}
	p.First, p.End = first, end
	// The columns are chosen once, with every replica's LEO and log start
	// among the marks, so the cells read are exactly the columns drawn.
	p.cols = pictureColumns(first, end, append(p.marks(), st.LEO), p.maxColumns())
	// The leader's batches and each diverged replica's are collected by
	// the same scan that reads their cells, to mark where they differ.
	marking := false
	if st.Online {
		for _, r := range st.Replicas {
			marking = marking || (r.Diverged && r.Up && r.Broker != st.Leader)
		}
	}
	frames := map[int32]map[int64][]byte{}
	for i := range p.Rows {
		row := &p.Rows[i]
		src, ok := sources[row.Broker]
		if !ok {
			continue
		}
		var fr map[int64][]byte
		if marking && row.Up && (row.Diverged || row.Broker == st.Leader) {
			fr = map[int64][]byte{}
			frames[row.Broker] = fr
		}
		cells, err := readCells(src, p.cols, shows == "key", fr)
		if err != nil {
			return err
		}
		row.Cells = cells
	}
	markDifferences(st.Leader, frames, p.Rows)
	return s.emit(w, p)
}

// lastKnownBatches is the most of a replica's log the session keeps when
// its broker crashes.
const lastKnownBatches = 4096

// storedLog is a replica's log as it was when its broker crashed: show
// draws it dimmed until the broker restarts.
type storedLog struct {
	log           []engine.LogBatch
	logStart, leo int64
}

// batches returns the stored batches holding offsets in [from, to) (to <
// 0: all), at most limit of them (limit <= 0: all).
func (l storedLog) batches(from, to int64, limit int) ([]engine.LogBatch, error) {
	var out []engine.LogBatch
	for _, b := range l.log {
		if b.Meta.LastOffset() < from || (to >= 0 && b.Meta.BaseOffset >= to) {
			continue
		}
		out = append(out, b)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out, nil
}

// readLastKnown reads every replica of broker id before it crashes: the
// log show keeps drawing afterwards. A log too long to keep whole keeps
// its end.
func (s *Session) readLastKnown(id int32) map[replicaKey]storedLog {
	out := map[replicaKey]storedLog{}
	states, err := s.cluster.PartitionStates()
	if err != nil {
		return out
	}
	for _, st := range states {
		for _, r := range st.Replicas {
			if r.Broker != id || !r.Up {
				continue
			}
			bs, err := s.cluster.LogBatches(st.TP, id, r.LogStart, -1, 0)
			if err != nil {
				continue
			}
			logStart := r.LogStart
			if n := len(bs); n > lastKnownBatches {
				bs = bs[n-lastKnownBatches:]
				logStart = bs[0].Meta.BaseOffset
			}
			out[replicaKey{st.TP.String(), id}] = storedLog{log: bs, logStart: logStart, leo: r.LEO}
		}
	}
	return out
}

// markDifferences marks the cells of each diverged replica whose batch is
// not the leader's batch at the same offset (the old leader's records
// after a promotion, whatever their values): those offsets are not
// committed on that replica, whatever the HW says, and go at its next
// truncation. frames holds, per broker, the batch frame of each offset
// drawn (readCells), for the leader and every diverged replica; it is
// empty when no replica needs marking (or the leader is down).
func markDifferences(leader int32, frames map[int32]map[int64][]byte, rows []pictureRow) {
	theirs := frames[leader]
	for i := range rows {
		r := &rows[i]
		if !r.Diverged || !r.Up || r.Broker == leader {
			continue
		}
		mine := frames[r.Broker]
		for j := range r.Cells {
			c := &r.Cells[j]
			if lf, ok := theirs[c.Offset]; ok && !bytes.Equal(lf, mine[c.Offset]) {
				c.Differs = true
			}
		}
	}
}

// batchSource is a replica's log, read a stretch of batches at a time.
type batchSource interface {
	batches(from, to int64, limit int) ([]engine.LogBatch, error)
}

// replicaReader reads one replica's log through the cluster's description
// API.
type replicaReader struct {
	c      *engine.Cluster
	tp     engine.TopicPartition
	broker int32
}

// batches returns the batches holding offsets in [from, to) (to < 0: up
// to the LEO), at most limit of them (limit <= 0: all).
func (r replicaReader) batches(from, to int64, limit int) ([]engine.LogBatch, error) {
	return r.c.LogBatches(r.tp, r.broker, from, to, limit)
}

// readCells reads the cells of the visible columns from a replica's log,
// one read per run of consecutive columns. Records of a transaction are
// marked aborted (x) or still open (?) from the markers that follow them.
// When frames is not nil, the same read maps each drawn offset the log
// holds to the frame of the batch that holds it (markers included).
func readCells(l batchSource, cols []int64, keys bool, frames map[int64][]byte) ([]cell, error) {
	var out []cell
	var txnCells []txnCell
	for i := 0; i < len(cols); {
		if cols[i] < 0 {
			i++
			continue
		}
		j := i
		for j+1 < len(cols) && cols[j+1] == cols[j]+1 {
			j++
		}
		from, to := cols[i], cols[j]+1
		batches, err := l.batches(from, to, 0)
		if err != nil {
			return nil, err
		}
		for _, rb := range batches {
			if frames != nil {
				for o := max(from, rb.Meta.BaseOffset); o <= min(to-1, rb.Meta.LastOffset()); o++ {
					frames[o] = rb.Frame
				}
			}
			if rb.Meta.IsControl() {
				kind := cellCommit
				if rb.Meta.Control == record.Abort {
					kind = cellAbort
				}
				if rb.Meta.BaseOffset >= from {
					out = append(out, cell{Offset: rb.Meta.BaseOffset, Kind: kind, Epoch: rb.Meta.LeaderEpoch})
				}
				continue
			}
			recs, err := rb.Records()
			if err != nil {
				return nil, err
			}
			for _, rec := range recs {
				if rec.Offset < from || rec.Offset >= to {
					continue
				}
				c := cell{Offset: rec.Offset, Kind: cellData, Text: preview(rec.Value), Epoch: rb.Meta.LeaderEpoch}
				if keys {
					c.Text = preview(rec.Key)
				}
				if rec.Value == nil {
					c.Kind = cellTombstone
				}
				if rb.Meta.Transactional {
					txnCells = append(txnCells, txnCell{index: len(out), id: rb.Meta.TransactionalID, next: rb.Meta.NextOffset()})
				}
				out = append(out, c)
			}
		}
		i = j + 1
	}
	if err := resolveTxnCells(l, out, txnCells); err != nil {
		return nil, err
	}
	return out, nil
}

// txnCell is a transactional record drawn in the picture, waiting to learn
// how its transaction ended.
type txnCell struct {
	index int    // into the cells
	id    string // transactional id
	next  int64  // the offset after its batch
}

// markerPage is how many batches resolveTxnCells reads at a time.
const markerPage = 256

// resolveTxnCells reads forward from the first transactional record for
// the marker that ends each one's transaction: ABORT marks it aborted, no
// marker yet marks it open; COMMIT leaves it a plain record. It reads a
// page of batches at a time and stops once every record is resolved.
func resolveTxnCells(l batchSource, cells []cell, pending []txnCell) error {
	if len(pending) == 0 {
		return nil
	}
	from := pending[0].next
	for _, p := range pending {
		from = min(from, p.next)
	}
	left := len(pending)
	done := make([]bool, len(pending))
	for left > 0 {
		page, err := l.batches(from, -1, markerPage)
		if err != nil {
			return err
		}
		for _, rb := range page {
			if !rb.Meta.IsControl() {
				continue
			}
			for i, p := range pending {
				if done[i] || p.id != rb.Meta.TransactionalID || rb.Meta.BaseOffset < p.next {
					continue
				}
				done[i] = true
				left--
				if rb.Meta.Control == record.Abort {
					cells[p.index].Kind = cellAborted
				}
			}
		}
		if len(page) < markerPage {
			break
		}
		from = page[len(page)-1].Meta.NextOffset()
	}
	for i, p := range pending {
		if !done[i] && cells[p.index].Kind != cellTombstone {
			cells[p.index].Kind = cellOpen
		}
	}
	return nil
}

// preview is a short, printable form of a value for a cell.
func preview(b []byte) string {
	if b == nil {
		return "null"
	}
	if len(b) == 0 {
		return `""`
	}
	if utf8.Valid(b) {
		ok := true
		for _, r := range string(b) {
			if !unicode.IsPrint(r) {
				ok = false
				break
			}
		}
		if ok {
			return string(b)
		}
	}
	return "0x" + hex.EncodeToString(b[:min(len(b), 4)])
}

// replicaKey names one replica of one partition.
type replicaKey struct {
	tp     string
	broker int32
}
