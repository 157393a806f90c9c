package repl

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

var txnCommand = &Command{
	Name:    "txn",
	Summary: "transactions: atomic writes to several partitions, with consumer offsets",
	Detail: `A transaction writes records to any partitions (acks=all), may stage
consumer offsets, and then commits or aborts: a COMMIT or ABORT marker is
appended to every partition it wrote. Until a partition's marker is
replicated, the transaction holds that partition's last stable offset
(LSO) back, and read_committed consumers stop there; aborted records are
never shown to them.`,
	Chapter: 8,
	Group:   "Transactions",
	Sub: []*Command{
		{
			Name:       "begin",
			Args:       "ID",
			Summary:    "start transaction ID (a new instance if ID was used before)",
			Positional: []Param{{Name: "ID", Values: liveTxns}},
			Run:        runTxnBegin,
		},
		{
			Name:    "send",
			Args:    "ID TOPIC [key=K] [value=V | tombstone] [partition=N]",
			Summary: "write one record inside the transaction (acks=all)",
			Detail: `The partition is partition=N, or crc32(key) mod partitions, or 0 for a
null key. The record is in the log at once but hidden from read_committed
consumers until the commit's marker is replicated. A partition that still
holds batches of an earlier instance of ID whose marker a crash lost
answers CONCURRENT_TRANSACTIONS (retriable): the cluster first gives those
batches their own instance's marker (at the leader change, or the next
replicate once the ISR allows it), so that this instance's marker never
decides them.`,
			Positional: []Param{{Name: "ID", Values: liveTxns}, {Name: "TOPIC", Values: liveTopics}},
			Keys:       []Param{{Name: "key"}, {Name: "value"}, {Name: "partition", Values: choices("0", "1", "2")}},
			Flags:      []Param{{Name: "tombstone"}},
			Run:        runTxnSend,
		},
		{
			Name:    "offsets",
			Args:    "ID group=G TP=OFFSET...",
			Summary: "stage consumer offsets of group G; they are committed with the transaction",
			Detail: `Exactly-once consume-transform-produce: the input positions become the
group's committed offsets at the same moment the output becomes visible,
or not at all (abort). Example: txn offsets t1 group=workers orders-0=5`,
			Positional: []Param{{Name: "ID", Values: liveTxns}},
			Keys:       []Param{{Name: "group", Values: liveGroups}},
			FreeKeys:   true,
			Run:        runTxnOffsets,
		},
		{
			Name:       "commit",
			Args:       "ID",
			Summary:    "commit: append COMMIT markers; complete once every marker is replicated",
			Positional: []Param{{Name: "ID", Values: liveTxns}},
			Run:        runTxnCommit,
		},
		{
			Name:       "abort",
			Args:       "ID",
			Summary:    "abort: append ABORT markers; staged offsets are dropped",
			Positional: []Param{{Name: "ID", Values: liveTxns}},
			Run:        runTxnAbort,
		},
		{
			Name:    "list",
			Summary: "every transaction: state, partitions written, where it holds the LSO back",
			Run:     runTxnList,
		},
	},
}

func liveTxns(s *Session) []string {
	ts, err := s.cluster.ListTransactions()
	if err != nil {
		return nil
	}
	var out []string
	for _, t := range ts {
		out = append(out, t.ID)
	}
	return out
}

// txnState is the result of begin and offsets: the transaction as it stands.
type txnState struct {
	ID     string `json:"id"`
	State  string `json:"state"`
	Staged int    `json:"staged_offsets"`
	text   string
}

func (t txnState) writeText(w io.Writer, _ *style) error {
	_, err := fmt.Fprintln(w, t.text)
	return err
}

func runTxnBegin(s *Session, w io.Writer, a *Args) error {
	id := a.Pos(0)
	if err := s.cluster.BeginTransaction(id); err != nil {
		return err
	}
	return s.emit(w, txnState{ID: id, State: "ongoing", text: fmt.Sprintf("transaction %s is ongoing", id)})
}

func runTxnSend(s *Session, w io.Writer, a *Args) error {
	id, topicName := a.Pos(0), a.Pos(1)
	r := produceRecord(a)
	part := int32(a.Int("partition", int64(engine.AnyPartition), 0, math.MaxInt32))
	if err := a.Err(); err != nil {
		return err
	}
	ack, err := s.cluster.TransactionSend(id, topicName, part, r)
	if ack == nil && err != nil {
		return err
	}
	res := produced{Topic: ack.TP.Topic, Partition: ack.TP.Partition, Acks: "all", AckID: ack.ID(), LeaderOffset: ack.Value().BaseOffset}
	switch ack.State() {
	case engine.Pending:
		res.Pending, res.Waiting = true, s.waitingNow(ack)
	case engine.Done:
		off := ack.Value().BaseOffset
		res.Offset = &off
	}
	if err != nil {
		// The batch is in the log but the journal could not record it.
		return err
	}
	return s.emit(w, txnSent{produced: res, ID: id})
}

// txnSent is the result of txn send.
type txnSent struct {
	produced
	ID string `json:"transactional_id"`
}

func (t txnSent) writeText(w io.Writer, st *style) error {
	var b strings.Builder
	if err := t.produced.writeText(&b, st); err != nil {
		return err
	}
	line := strings.TrimSuffix(b.String(), ")\n")
	_, err := fmt.Fprintf(w, "%s; transaction %s, hidden from read_committed until it commits)\n", line, t.ID)
	return err
}

func runTxnOffsets(s *Session, w io.Writer, a *Args) error {
	id := a.Pos(0)
	group := a.String("group", "")
	if group == "" {
		a.fail("give group=G")
	}
	offsets := tpOffsets(a, "group", "%s= is neither group= nor a partition such as orders-0=5")
	if len(offsets) == 0 {
		a.fail("give at least one TP=OFFSET, e.g. orders-0=5")
	}
	if err := a.Err(); err != nil {
		return err
	}
	if err := s.cluster.TransactionSendOffsets(id, group, offsets); err != nil {
		return err
	}
	var parts []string
	for _, tp := range sortedTPs(offsets) {
		parts = append(parts, fmt.Sprintf("%s=%d", tp, offsets[tp]))
	}
	return s.emit(w, txnState{ID: id, State: "ongoing", Staged: len(offsets),
		text: fmt.Sprintf("transaction %s staged offsets of group %s: %s (committed only if the transaction commits)", id, group, strings.Join(parts, " "))})
}

func sortedTPs(m map[engine.TopicPartition]int64) []engine.TopicPartition {
	var tps []engine.TopicPartition
	for tp := range m {
		tps = append(tps, tp)
	}
	topic.Sort(tps)
	return tps
}

// txnEnded is the result of txn commit and txn abort that did not fail.
type txnEnded struct {
	ID      string       `json:"id"`
	Outcome string       `json:"outcome"`
	State   string       `json:"state"`
	Pending bool         `json:"pending"`
	Markers []markerInfo `json:"markers"`
}

type markerInfo struct {
	Topic     string  `json:"topic"`
	Partition int32   `json:"partition"`
	Offset    int64   `json:"offset"`
	AckID     int64   `json:"ack_id"`
	Pending   bool    `json:"pending"`
	Waiting   []int32 `json:"waiting_for,omitempty"`
}

func (t txnEnded) writeText(w io.Writer, _ *style) error {
	marker := strings.ToUpper(t.Outcome)
	if len(t.Markers) == 0 {
		article := "a"
		if marker == "ABORT" {
			article = "an"
		}
		_, err := fmt.Fprintf(w, "transaction %s: no partition needs %s %s marker\n", t.ID, article, marker)
		return err
	}
	var at []string
	for _, m := range t.Markers {
		at = append(at, fmt.Sprintf("%s-%d@%d", m.Topic, m.Partition, m.Offset))
	}
	markers := "markers"
	if len(at) == 1 {
		markers = "marker"
	}
	fmt.Fprintf(w, "transaction %s: %s %s at %s\n", t.ID, marker, markers, strings.Join(at, " "))
	if t.Pending {
		for _, m := range t.Markers {
			if m.Pending {
				fmt.Fprintf(w, "%s-%d marker %s\n", m.Topic, m.Partition, pendingAs(m.AckID, m.Waiting, m.Offset+1))
			}
		}
		fmt.Fprintf(w, "transaction %s stays %s until every marker is replicated (replicate)\n", t.ID, t.State)
	}
	return nil
}

func (s *Session) endTxn(w io.Writer, a *Args, commit bool) error {
	id := a.Pos(0)
	var (
		h   *engine.TxnCompletion
		err error
	)
	outcome := "abort"
	if commit {
		outcome = "commit"
		h, err = s.cluster.CommitTransaction(id)
	} else {
		h, err = s.cluster.AbortTransaction(id)
	}
	if err != nil {
		return err
	}
	if h.State() == engine.Failed {
		// A marker was refused at once (NOT_ENOUGH_REPLICAS, or
		// LEADER_NOT_AVAILABLE while a partition's leader is down): a failed
		// command like any refused write (decision 43). The transaction
		// stays prepared and the same outcome may be retried (decision 16);
		// its transaction_failed event says so.
		return h.Err()
	}
	res := txnEnded{ID: id, Outcome: outcome, Pending: h.State() == engine.Pending, Markers: []markerInfo{}}
	if d, derr := s.cluster.DescribeTransaction(id); derr == nil {
		res.State = d.State.String()
	}
	for _, ack := range h.Acks {
		m := markerInfo{Topic: ack.TP.Topic, Partition: ack.TP.Partition, Offset: ack.Target - 1, AckID: ack.ID(), Pending: ack.State() == engine.Pending}
		if m.Pending {
			m.Waiting = s.waitingNow(ack)
		}
		res.Markers = append(res.Markers, m)
	}
	return s.emit(w, res)
}

func runTxnCommit(s *Session, w io.Writer, a *Args) error { return s.endTxn(w, a, true) }
func runTxnAbort(s *Session, w io.Writer, a *Args) error  { return s.endTxn(w, a, false) }

// txnList is the result of txn list: {transactions: [{id, state, partitions}]}.
type txnList struct {
	Transactions []txnRow `json:"transactions"`
}

type txnRow struct {
	ID         string   `json:"id"`
	State      string   `json:"state"`
	Partitions []string `json:"partitions"`
	// OpenFrom lists, per partition, the offset where this transaction
	// holds that partition's LSO (engine.TransactionDescription.HoldsLSO).
	OpenFrom []string `json:"holds_lso_at"`
	Staged   []string `json:"staged_offsets"`
}

func (l txnList) writeText(w io.Writer, _ *style) error {
	if len(l.Transactions) == 0 {
		_, err := fmt.Fprintln(w, "(no transactions)")
		return err
	}
	var rows [][]string
	for _, t := range l.Transactions {
		rows = append(rows, []string{t.ID, t.State, strings.Join(t.Partitions, ","), strings.Join(t.OpenFrom, ","), strings.Join(t.Staged, ",")})
	}
	return renderTable(w, []string{"TRANSACTIONAL-ID", "STATE", "PARTITIONS", "HOLDS-LSO-AT", "STAGED-OFFSETS"}, rows)
}

func runTxnList(s *Session, w io.Writer, a *Args) error {
	ts, err := s.cluster.ListTransactions()
	if err != nil {
		return err
	}
	res := txnList{Transactions: []txnRow{}}
	for _, t := range ts {
		row := txnRow{ID: t.ID, State: t.State.String(), Partitions: tpNames(t.Partitions), OpenFrom: []string{}, Staged: []string{}}
		for _, o := range t.HoldsLSO {
			row.OpenFrom = append(row.OpenFrom, fmt.Sprintf("%s@%d", o.TP, o.Offset))
		}
		for _, so := range t.StagedOffsets {
			row.Staged = append(row.Staged, fmt.Sprintf("%s:%s=%d", so.Group, so.Partition, so.Offset))
		}
		res.Transactions = append(res.Transactions, row)
	}
	return s.emit(w, res)
}
