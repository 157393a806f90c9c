package repl

import (
	"fmt"
	"io"
	"slices"

	"github.com/minikafka-lab/minikafka/engine"
)

var replicateCommand = &Command{
	Name:    "replicate",
	Args:    "[TP] [follower=ID] [rounds=N]",
	Summary: "one follower-fetch round: print what each follower copied and how the HW moved",
	Detail: `Followers fetch only when asked. Each round, every follower (or just
follower=ID) of every partition (or just TP) copies the leader's batches
byte for byte from its own LEO, within replica.fetch.max.bytes; then the
ISR is re-evaluated, the high watermark advances to the smallest LEO in
the ISR, and acks=all waiters that are now covered resolve. A follower
whose log diverged from the leader's truncates first. rounds=N repeats.`,
	Chapter:    5,
	Group:      "Replication and failure",
	Positional: []Param{{Name: "TP", Optional: true, Values: livePartitions}},
	Keys:       []Param{{Name: "follower", Values: liveBrokers}, {Name: "rounds", Values: choices("1", "2", "3")}},
	Run:        runReplicate,
}

var promoteCommand = &Command{
	Name:    "promote",
	Args:    "TP ID",
	Summary: "make an in-sync replica the leader: epoch+1, truncated to the HW",
	Detail: `Manual leader election, as a controller would do it. The broker must be
in the ISR (NOT_IN_SYNC_REPLICA otherwise) and running. MiniKafka keeps
only the committed prefix: the new leader truncates to the high
watermark, the leader epoch goes up by one, the ISR becomes just the new
leader, and pending acks=all waiters fail with FENCED_LEADER_EPOCH.
Replicas that hold records beyond the HW are marked diverged and
truncate before they fetch again.

Kafka's rules differ, one knob each (help rules): under
truncation=leader-epoch the new leader keeps its whole log and followers
reconcile by leader epoch (OffsetsForLeaderEpoch, KIP-101); under
controller=kraft this is an admin election and the ISR stays; under
errors=kafka pending acks=all fail with NOT_LEADER_OR_FOLLOWER.`,
	Chapter:    6,
	Group:      "Replication and failure",
	Positional: []Param{{Name: "TP", Values: livePartitions}, {Name: "ID", Values: liveBrokers}},
	Run:        runPromote,
}

var rejoinCommand = &Command{
	Name:    "rejoin",
	Args:    "TP ID",
	Summary: "bring a follower back after a failover: truncate to the HW, take the new epoch",
	Detail: `The follower truncates to the high watermark if it is above it, takes the
current leader epoch and leaves the ISR; it re-enters at a later
replicate once it meets the ISR rules again (caught up to the HW and
within the lag limits). Under truncation=leader-epoch it cuts where the
leader's answer to OffsetsForLeaderEpoch says instead. The leader cannot
rejoin.`,
	Chapter:    6,
	Group:      "Replication and failure",
	Positional: []Param{{Name: "TP", Values: livePartitions}, {Name: "ID", Values: liveBrokers}},
	Run:        runRejoin,
}

var offsetsCommand = &Command{
	Name:    "offsets",
	Args:    "TP",
	Summary: "per replica: role, LEO, log start, ISR membership, lag, last fetch; plus HW, LSO, leader, epoch",
	Detail: `The first line is the partition: leader, leader epoch, high watermark
(HW), last stable offset (LSO), log start offset and ISR. Then one row per
replica: its LEO (the offset its next record gets), its log start, whether
it is in the ISR, how many offsets it lags the leader, and the clock time
of its last fetch. Under follower.hw=fetch (rules=kafka) a column HW shows
the high watermark each replica knows: a follower learns it from its fetch
responses, one round after the leader. Pending acks=all waiters are
listed last.`,
	Chapter:    1,
	Group:      "Views and checks",
	Positional: []Param{{Name: "TP", Values: livePartitions}},
	Run:        runOffsets,
}

func runReplicate(s *Session, w io.Writer, a *Args) error {
	var tp *engine.TopicPartition
	if a.Len() > 0 {
		t := a.TP(0)
		tp = &t
	}
	follower := int32(engine.AllFollowers)
	if a.Has("follower") {
		follower = a.Broker("follower", 0)
	}
	rounds := a.Int("rounds", 1, 1, 1000)
	if err := a.Err(); err != nil {
		return err
	}
	if tp != nil {
		if _, err := s.cluster.PartitionState(*tp); err != nil {
			return err
		}
	}
	res := replicated{Rounds: int(rounds)}
	for i := 1; i <= int(rounds); i++ {
		if i > 1 && s.interrupted() { // Ctrl-C: keep the rounds done, skip the rest
			done := i - 1
			res.Interrupted = &done
			if s.format == FormatText {
				fmt.Fprintf(w, "interrupted after round %d of %d\n", done, rounds)
			}
			break
		}
		mark := s.eventCount()
		rep, err := s.cluster.Replicate(tp, follower)
		if err != nil {
			return err
		}
		r := replicationRound{Round: i, Skipped: []string{}, events: s.eventCount() - mark}
		for _, p := range rep.Partitions {
			if p.Skipped != "" {
				r.Skipped = append(r.Skipped, fmt.Sprintf("%s skipped: %s", p.TP, p.Skipped))
			}
			for _, f := range p.Followers {
				if f.Skipped != "" {
					r.Skipped = append(r.Skipped, fmt.Sprintf("%s follower %d skipped: %s", p.TP, f.Broker, f.Skipped))
				}
			}
		}
		r.Batches, r.Bytes = rep.Copied()
		if rounds > 1 && s.format == FormatText {
			// Each round's effects under its own heading, in the order
			// they happened.
			fmt.Fprintf(w, "round %d:\n", i)
			for _, x := range r.Skipped {
				fmt.Fprintf(w, "  %s\n", x)
			}
			s.writeEvents(w, s.takeEvents())
			if r.idle() {
				fmt.Fprintln(w, "  "+nothingToCopy)
			}
		}
		res.Results = append(res.Results, r)
	}
	if rounds > 1 && s.format == FormatText {
		return nil
	}
	return s.emit(w, res)
}

// replicated is the result of replicate.
type replicated struct {
	Rounds  int                `json:"rounds"`
	Results []replicationRound `json:"results"`
	// Interrupted is the last round run when Ctrl-C stopped the command
	// before the others.
	Interrupted *int `json:"interrupted_after_round,omitempty"`
}

type replicationRound struct {
	Round   int      `json:"round"`
	Batches int      `json:"batches_copied"`
	Bytes   int64    `json:"bytes_copied"`
	Skipped []string `json:"skipped"`
	events  int      // engine events the round caused (truncations, ISR and HW changes, ...)
}

// nothingToCopy is what a round that changed nothing at all prints.
const nothingToCopy = "nothing to copy: every follower has the leader's LEO"

// idle reports whether the round did nothing: no follower copied, skipped,
// truncated or changed the ISR or the HW.
func (r replicationRound) idle() bool {
	return r.Batches == 0 && len(r.Skipped) == 0 && r.events == 0
}

// writeText prints what a single round skipped; what it did follows as
// the command's events, in the order it happened. Only a round that did
// nothing at all says so.
func (r replicated) writeText(w io.Writer, _ *style) error {
	for _, x := range r.Results {
		for _, s := range x.Skipped {
			fmt.Fprintln(w, s)
		}
		if x.idle() {
			fmt.Fprintln(w, nothingToCopy)
		}
	}
	return nil
}

func runPromote(s *Session, w io.Writer, a *Args) error {
	tp := a.TP(0)
	id := a.PosBroker(1)
	if err := a.Err(); err != nil {
		return err
	}
	return s.cluster.Promote(tp, id)
}

func runRejoin(s *Session, w io.Writer, a *Args) error {
	tp := a.TP(0)
	id := a.PosBroker(1)
	if err := a.Err(); err != nil {
		return err
	}
	return s.cluster.Rejoin(tp, id)
}

// offsetsView is the result of offsets: the spec's snake_case names.
type offsetsView struct {
	Topic       string        `json:"topic"`
	Partition   int32         `json:"partition"`
	Leader      int32         `json:"leader"`
	Online      bool          `json:"online"`
	LeaderEpoch int32         `json:"leader_epoch"`
	HW          int64         `json:"high_watermark"`
	LSO         int64         `json:"last_stable_offset"`
	LogStart    int64         `json:"log_start_offset"`
	ISR         []int32       `json:"isr"`
	Replicas    []replicaView `json:"replicas"`
	PendingAcks []pendingAck  `json:"pending_acks"`
	// Leaderless: the KRaft controller fenced the leader and elected nobody.
	Leaderless bool `json:"leaderless,omitempty"`
}

type replicaView struct {
	Broker      int32  `json:"broker"`
	Role        string `json:"role"`
	LEO         int64  `json:"leo"`
	LogStart    int64  `json:"log_start_offset"`
	InISR       bool   `json:"in_isr"`
	Lag         int64  `json:"lag"`
	LastFetchMs *int64 `json:"last_fetch_ms"` // null for the leader
	Up          bool   `json:"up"`
	Diverged    bool   `json:"diverged"`
	// Offline says why the broker is down when its log directory failed.
	Offline string `json:"log_dir_failure,omitempty"`
	// HW is the HW this replica knows, shown under follower.hw=fetch.
	HW *int64 `json:"hw,omitempty"`
	// Reconciling: it asks the leader (OffsetsForLeaderEpoch) before its
	// next fetch (truncation=leader-epoch).
	Reconciling bool `json:"reconciling,omitempty"`
}

type pendingAck struct {
	ID      int64   `json:"id"`
	Target  int64   `json:"target"`
	Waiting []int32 `json:"waiting_for"`
	// Duplicate: a retry recognised as a duplicate of a stored batch (at
	// Original); it waits only for the HW to cover it (decision 5).
	Duplicate bool   `json:"duplicate,omitempty"`
	Original  *int64 `json:"original_offset,omitempty"`
	// DeadlineMs: under hw.under.min.isr=hold it fails REQUEST_TIMED_OUT
	// at this clock time.
	DeadlineMs *int64 `json:"deadline_ms,omitempty"`
	hw         int64
	hold       bool
}

func newOffsetsView(s *Session, st engine.PartitionState) offsetsView {
	v := offsetsView{Topic: st.TP.Topic, Partition: st.TP.Partition, Leader: st.Leader, Online: st.Online,
		LeaderEpoch: st.LeaderEpoch, HW: st.HW, LSO: st.LSO, LogStart: st.LogStart, ISR: st.ISR,
		Replicas: []replicaView{}, PendingAcks: []pendingAck{}, Leaderless: st.Leaderless}
	hold := s.hwHold()
	failed := s.logDirFailures()
	for _, r := range st.Replicas {
		rv := replicaView{Broker: r.Broker, Role: r.Role, LEO: r.LEO, LogStart: r.LogStart, InISR: r.InISR,
			Lag: max(0, st.LEO-r.LEO), Up: r.Up, Diverged: r.Diverged, Reconciling: r.Reconciling, Offline: failed[r.Broker]}
		if st.FollowerHWs {
			hw := r.HW
			rv.HW = &hw
		}
		if r.Broker != st.Leader {
			t := r.LastFetchMs
			rv.LastFetchMs = &t
		}
		v.Replicas = append(v.Replicas, rv)
	}
	for _, ack := range s.cluster.PendingAcks() {
		if ack.TP != st.TP {
			continue
		}
		pa := pendingAck{ID: ack.ID(), Target: ack.Target, Waiting: []int32{}, hw: st.HW, hold: hold}
		if ack.DeadlineMs > 0 {
			d := ack.DeadlineMs
			pa.DeadlineMs = &d
		}
		if res := ack.Value(); res.Duplicate {
			o := res.BaseOffset
			pa.Duplicate, pa.Original = true, &o
			v.PendingAcks = append(v.PendingAcks, pa)
			continue
		}
		pa.Waiting = append(pa.Waiting, waitingFor(ack, st.Replicas, hold)...)
		v.PendingAcks = append(v.PendingAcks, pa)
	}
	return v
}

// partitionHeader is the one-line summary shared by offsets and show.
func partitionHeader(tp string, leader int32, online, leaderless bool, epoch int32, hw, lso, logStart int64, isr []int32) string {
	l := fmt.Sprint(leader)
	switch {
	case leaderless:
		l = fmt.Sprintf("none (%d fenced)", leader)
	case !online:
		l += " (offline)"
	}
	return fmt.Sprintf("%s  leader=%s epoch=%d  HW=%d  LSO=%d  log-start=%d  ISR=%s", tp, l, epoch, hw, lso, logStart, brokerSet(isr))
}

func (v offsetsView) writeText(w io.Writer, _ *style) error {
	fmt.Fprintln(w, partitionHeader(fmt.Sprintf("%s-%d", v.Topic, v.Partition), v.Leader, v.Online, v.Leaderless, v.LeaderEpoch, v.HW, v.LSO, v.LogStart, v.ISR))
	var rows [][]string
	perReplicaHW := len(v.Replicas) > 0 && v.Replicas[0].HW != nil
	for _, r := range v.Replicas {
		isr, lag, fetch, state := "no", fmt.Sprint(r.Lag), "-", "up"
		if r.InISR {
			isr = "yes"
		}
		if r.Role == "leader" {
			lag = "-"
		}
		if r.LastFetchMs != nil {
			fetch = fmt.Sprint(*r.LastFetchMs)
		}
		switch {
		case !r.Up && r.Offline != "":
			state = "offline"
		case !r.Up:
			state = "crashed"
		case r.Diverged:
			state = "diverged"
		case r.Reconciling:
			state = "reconciling"
		}
		row := []string{fmt.Sprint(r.Broker), r.Role, fmt.Sprint(r.LEO), fmt.Sprint(r.LogStart), isr, lag, fetch, state}
		if perReplicaHW {
			row = slices.Insert(row, 3, fmt.Sprint(*r.HW))
		}
		rows = append(rows, row)
	}
	head := []string{"BROKER", "ROLE", "LEO", "LOG-START", "IN-ISR", "LAG", "LAST-FETCH-MS", "STATE"}
	if perReplicaHW {
		head = slices.Insert(head, 3, "HW")
	}
	if err := renderTable(w, head, rows); err != nil {
		return err
	}
	for _, r := range v.Replicas {
		if r.Offline != "" {
			fmt.Fprintf(w, "broker %d offline: %s\n", r.Broker, r.Offline)
		}
	}
	for _, p := range v.PendingAcks {
		if p.Duplicate {
			fmt.Fprintf(w, "pending acks=all: ack #%d (a retry, duplicate of %s) waits until the HW covers offset %d (HW %d now)\n",
				p.ID, offsetsText(*p.Original, p.Target-1), p.Target-1, p.hw)
			continue
		}
		until := untilReached(p.Waiting, p.Target)
		if p.hold && p.DeadlineMs != nil {
			until += fmt.Sprintf(", or fails REQUEST_TIMED_OUT at %d ms", *p.DeadlineMs)
		}
		fmt.Fprintf(w, "pending acks=all: ack #%d waits %s\n", p.ID, until)
	}
	return nil
}

func runOffsets(s *Session, w io.Writer, a *Args) error {
	tp := a.TP(0)
	if err := a.Err(); err != nil {
		return err
	}
	st, err := s.cluster.PartitionState(tp)
	if err != nil {
		return err
	}
	return s.emit(w, newOffsetsView(s, st))
}
