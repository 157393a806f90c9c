package repl

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
)

var clusterCommand = &Command{
	Name:    "cluster",
	Summary: "open, close, crash and restart the whole cluster",
	Detail: `The session owns one cluster in a data directory: brokers, topics,
replica logs on disk. cluster open replaces it; close, crash and restart
show the difference between a graceful shutdown and a crash.`,
	Chapter: 1,
	Group:   "Cluster and time",
	Sub: []*Command{
		{
			Name:    "open",
			Args:    "[dir=PATH] [brokers=1,2,3] [key=value...]",
			Summary: "close this cluster and open another, fresh or from a directory",
			Detail: `Without dir=, a fresh cluster in a new temporary directory (every lab
starts with one), with the clock at 0 and no producers, consumers or
topics. With dir=, that directory is opened with recovery and the
recovery report is printed (the clock also starts at 0). Any cluster
config may be set by its Kafka name: cluster open brokers=1,2
min.insync.replicas=2. Unnamed knobs take the spec's defaults, brokers
1,2,3. rules=kafka chooses Kafka 4.x's rules instead of MiniKafka's, and a
single rule may be changed beside it (rules=kafka truncation=high-watermark);
rules and rule knobs given to the session (repl --set rules=kafka) apply to
every cluster it opens unless cluster open names them. help rules lists
the rules. A fresh cluster open starts a history undo can rewind; one with
dir= reaches outside the session (a directory it did not make), so it
cannot be undone, and undo and fork cannot go back past it.

`,
			MoreDetail: configNamesDetail,
			Keys:       append([]Param{{Name: "dir"}, {Name: "brokers"}}, configKeyParams()...),
			Run:        runClusterOpen,
		},
		{
			Name:    "close",
			Summary: "shut down gracefully: flush producers and logs, write clean-shutdown markers",
			Detail: `Producers flush their buffered records, pending acks=all waiters that
nothing can complete any more fail (REQUEST_TIMED_OUT), every log is
fsynced and gets a clean-shutdown marker. cluster restart reopens it.`,
			Chapter: 1,
			Run:     runClusterClose,
		},
		{
			Name:    "crash",
			Summary: "crash the process: buffered producer records and pending acks are lost, no clean-shutdown marker",
			Detail: `A process crash: producers lose what they buffered, pending handles are
cancelled, and no log gets a clean-shutdown marker, so the next open
rescans the active segments. Bytes already written to the OS survive.`,
			Chapter: 2,
			Run:     runClusterCrash,
		},
		{
			Name:    "restart",
			Summary: "reopen the same data directory and print the recovery report",
			Detail: `Reopens the data directory after cluster close or cluster crash: each
replica log runs recovery (trusting a clean-shutdown marker, or
rescanning and repairing a torn tail), and the report says what it did.
On a running cluster it first closes it gracefully (as cluster close
would), so restart alone is a clean restart; crash first to see recovery
work. The clock keeps its time; the REPL's producers and consumers are
gone (create new ones), while topics, logs, committed offsets, producer
identities and transactions come back from disk.`,
			Chapter: 2,
			Run:     runClusterRestart,
		},
	},
}

var configCommand = &Command{
	Name:    "config",
	Summary: "show or change the cluster configuration (Kafka's names)",
	Chapter: 1,
	Group:   "Cluster and time",
	Default: "show",
	Sub: []*Command{
		{
			Name:    "show",
			Summary: "every knob with its value and default (config alone does the same)",
			Run:     runConfigShow,
		},
		{
			Name:    "set",
			Args:    "key=value...",
			Summary: "change knobs; those read only at open say that they need a restart",
			Detail: `min.insync.replicas, replica.lag.max.offsets, replica.lag.time.max.ms,
replica.fetch.max.bytes, session.timeout.ms and the rules (rules=kafka, or
one rule such as truncation=leader-epoch: help rules) apply at once.
segment.bytes and index.interval.bytes are read when logs are opened:
they apply after cluster restart. Every value is checked before any is
changed.

`,
			MoreDetail: configNamesDetail,
			Keys:       configKeyParams(),
			Run:        runConfigSet,
		},
	},
}

var clockCommand = &Command{
	Name:    "clock",
	Summary: "show the manual clock",
	Detail: `Time moves only when you move it. clock prints the manual clock in
milliseconds; clock advance moves it and runs what became due.`,
	Chapter: 3,
	Group:   "Cluster and time",
	Run:     runClock,
	Sub: []*Command{
		{
			Name:       "advance",
			Args:       "DURATION",
			Summary:    "move the clock, then run what is due: linger flushes, ISR lag, session expiry",
			Positional: []Param{{Name: "DURATION", Values: choices("100ms", "1s", "10s", "1m")}},
			Detail: `DURATION is 500ms, 10s, 2m or a bare number of milliseconds. After the
clock moves, the cluster runs what is due, in a fixed order: every
producer's linger.ms flushes, then under controller=kraft the controller
(a crashed broker silent for longer than broker.session.timeout.ms is
fenced, leaves every ISR, and its partitions elect new leaders), then
the ISR check of every partition (a follower that has not fetched for
replica.lag.time.max.ms leaves the ISR), then under hw.under.min.isr=hold
the acks=all requests pending for request.timeout.ms fail with
REQUEST_TIMED_OUT, then consumer session expiry. Each effect is printed.`,
			Run: runClockAdvance,
		},
	},
}

// clusterOpened is the result of cluster open and cluster restart.
type clusterOpened struct {
	Action   string            `json:"action"`
	Brokers  []int32           `json:"brokers"`
	Dir      *string           `json:"data_dir"` // null for a temporary directory
	Replicas []replicaRecovery `json:"recovered"`
	// Journal is the transaction journal's recovery (decision 17); absent
	// when there is no journal yet.
	Journal *journalRecovery `json:"transaction_journal,omitempty"`
	// Groups is the number of consumer groups loaded.
	Groups int `json:"groups_loaded,omitempty"`
	// Waiting lists recovery markers that could not be written yet and no
	// transaction retries (a transaction's own failure is its
	// transaction_failed event).
	Waiting []string `json:"markers_waiting,omitempty"`
}

// journalRecovery is what opening transactions.journal found and repaired.
type journalRecovery struct {
	Lines        int          `json:"lines"`
	Transactions int          `json:"transactions"`
	Bytes        int64        `json:"bytes"`
	NewlineAdded bool         `json:"newline_added"`
	Dropped      *journalDrop `json:"dropped"`
}

type journalDrop struct {
	Position int64  `json:"position"`
	Bytes    int64  `json:"bytes"`
	Lines    int    `json:"lines"`
	Reason   string `json:"reason"`
}

// line says what journal recovery did, in the style of a segment's line:
// "transactions.journal: 4 lines replayed (2 transactions), 620 bytes;
// dropped 12 bytes (1 line) at byte 620: crc mismatch (...)".
func (j journalRecovery) line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s replayed (%s), %s", engine.TransactionJournalFileName, plural(j.Lines, "line", "lines"),
		plural(j.Transactions, "transaction", "transactions"), plural(int(j.Bytes), "byte", "bytes"))
	if j.NewlineAdded {
		b.WriteString("; the last line had no newline, which recovery added")
	}
	if d := j.Dropped; d != nil {
		fmt.Fprintf(&b, "; dropped %s (%s) at byte %d: %s", plural(int(d.Bytes), "byte", "bytes"),
			plural(d.Lines, "line", "lines"), d.Position, d.Reason)
	}
	return b.String()
}

type replicaRecovery struct {
	Topic          string                 `json:"topic"`
	Partition      int32                  `json:"partition"`
	Broker         int32                  `json:"broker"`
	CleanShutdown  bool                   `json:"clean_shutdown"`
	Segments       int                    `json:"segments"`
	Scanned        int                    `json:"scanned"`
	IndexesRebuilt int                    `json:"indexes_rebuilt"`
	Truncation     map[string]interface{} `json:"truncation"`
	line           string
}

func newClusterOpened(s *Session, action string, report engine.OpenReport) clusterOpened {
	r := clusterOpened{Action: action, Brokers: s.cfg.BrokerIDs, Replicas: []replicaRecovery{}}
	if s.temp == "" {
		d := s.cfg.DataDir
		r.Dir = &d
	}
	for _, rr := range report.Replicas {
		rep := rr.Report
		x := replicaRecovery{Topic: rr.TP.Topic, Partition: rr.TP.Partition, Broker: rr.Broker,
			CleanShutdown: rep.CleanShutdown, Segments: rep.Segments, Scanned: rep.Scanned, IndexesRebuilt: rep.IndexesRebuilt}
		// A truncation is reported by the engine's recovery_truncated event.
		x.line = fmt.Sprintf("%s broker %d: %s", rr.TP, rr.Broker, recoveryLine(rep.CleanShutdown, rep.Segments, rep.Scanned, rep.IndexesRebuilt))
		if rep.MarkerIgnored != "" {
			x.line += " (marker ignored: " + rep.MarkerIgnored + ")"
		}
		if t := rep.Truncation; t != nil {
			x.Truncation = map[string]interface{}{
				"segment": t.Segment, "position": t.Position, "bytes_dropped": t.BytesDropped,
				"batches_kept": t.BatchesKept, "reason": t.Reason,
			}
		}
		r.Replicas = append(r.Replicas, x)
	}
	co := report.Coordination
	if j := co.Journal; j.Exists {
		r.Journal = &journalRecovery{Lines: j.Lines, Transactions: j.Transactions, Bytes: j.Bytes, NewlineAdded: j.NewlineAdded}
		if d := j.Dropped; d != nil {
			r.Journal.Dropped = &journalDrop{Position: d.Position, Bytes: d.Bytes, Lines: d.Lines, Reason: d.Reason}
		}
	}
	r.Groups = co.Groups
	for _, p := range co.MarkerErrors {
		// A transaction's failed markers are its transaction_failed event.
		if !strings.HasPrefix(p, "transaction ") {
			r.Waiting = append(r.Waiting, p)
		}
	}
	return r
}

// recoveryLine says how one log was opened.
func recoveryLine(clean bool, segments, scanned, rebuilt int) string {
	var b strings.Builder
	if clean {
		b.WriteString("clean-shutdown marker trusted")
	} else {
		b.WriteString("no clean-shutdown marker")
	}
	fmt.Fprintf(&b, ", %s, %d scanned", plural(segments, "segment", "segments"), scanned)
	if rebuilt > 0 {
		fmt.Fprintf(&b, ", %s rebuilt", plural(rebuilt, "index", "indexes"))
	}
	return b.String()
}

func (r clusterOpened) writeText(w io.Writer, _ *style) error {
	if len(r.Replicas) == 0 {
		if r.Action == "restart" {
			fmt.Fprintln(w, "cluster restarted: no replica logs to recover")
		}
		r.writeCoordination(w)
		return nil // a fresh cluster: "ok"
	}
	clean, truncated := 0, 0
	for _, x := range r.Replicas {
		if x.CleanShutdown {
			clean++
		}
		if x.Truncation != nil {
			truncated++
		}
	}
	verb := "cluster opened"
	if r.Action == "restart" {
		verb = "cluster restarted"
	}
	fmt.Fprintf(w, "%s: %s recovered (%d after a clean shutdown, %d without, %d truncated)\n",
		verb, plural(len(r.Replicas), "replica log", "replica logs"), clean, len(r.Replicas)-clean, truncated)
	for _, x := range r.Replicas {
		fmt.Fprintf(w, "  %s\n", x.line)
	}
	r.writeCoordination(w)
	return nil
}

// writeCoordination prints what opening did besides the logs: the
// transaction journal's recovery, the consumer groups loaded, and
// recovery markers still waiting. What recovery did with each unfinished
// transaction follows as events.
func (r clusterOpened) writeCoordination(w io.Writer) {
	if r.Journal != nil {
		fmt.Fprintf(w, "  %s\n", r.Journal.line())
	}
	if r.Groups > 0 {
		fmt.Fprintf(w, "  %s loaded (groups.json, offsets.json)\n", plural(r.Groups, "consumer group", "consumer groups"))
	}
	for _, p := range r.Waiting {
		fmt.Fprintf(w, "  recovery: %s\n", p)
	}
}

func runClusterOpen(s *Session, w io.Writer, a *Args) error {
	cfg := engine.DefaultConfig("")
	cfg.BrokerIDs = []int32{1, 2, 3}
	if ids := a.BrokerList("brokers"); ids != nil {
		cfg.BrokerIDs = ids
	}
	dir := a.String("dir", "")
	if a.Has("dir") && dir == "" {
		a.fail("dir= needs a path")
	}
	var settings []engine.Setting
	for _, p := range a.Pairs() {
		if p.Key != "dir" && p.Key != "brokers" {
			settings = append(settings, engine.Setting{Name: p.Key, Value: p.Value})
		}
	}
	if err := a.Err(); err != nil {
		return err
	}
	if dir != "" && s.sandbox != nil {
		confined, err := s.sandbox.dataDir(dir)
		if err != nil {
			return err
		}
		dir = confined
	}
	if err := cfg.SetAll(settingsOf(s.opts.Settings, true)); err != nil {
		return err
	}
	if err := cfg.SetAll(settings); err != nil {
		return err
	}
	cfg.DataDir = "validate"
	if err := cfg.Validate(); err != nil {
		return err
	}
	reopen := dir != "" && sameDir(dir, s.cfg.DataDir)
	if reopen {
		// Reopening the directory in use: close it first.
		if err := s.closeForReopen(); err != nil {
			return err
		}
	}
	cfg.FS = s.opts.FS
	o, err := openCluster(cfg, dir, 0)
	if err != nil {
		return err
	}
	oldCluster, oldTemp := s.cluster, s.temp
	if reopen {
		o.temp, oldTemp = s.temp, "" // the same directory: keep it (and remove it at the end if temporary)
	}
	s.adopt(o)
	if err := shut(oldCluster, oldTemp); err != nil {
		fmt.Fprintf(w, "note: closing the previous cluster: %v\n", err)
	}
	return s.emit(w, newClusterOpened(s, "open", s.opened))
}

// closeForReopen closes the running cluster so that its directory can be
// opened again, keeping the directory (even a temporary one) in place.
func (s *Session) closeForReopen() error {
	if st := s.cluster.State(); st == engine.Running || st == engine.FailedState {
		return s.cluster.Close()
	}
	return nil
}

// sameDir reports whether two spellings name one directory: the same
// cleaned absolute path, or the same file on disk (device and inode), so
// that "d", "d/." , "./d" and its absolute path are one directory.
func sameDir(a, b string) bool {
	if a == "" || b == "" {
		return a == b
	}
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	if errA == nil && errB == nil && absA == absB {
		return true
	}
	stA, errA := os.Stat(a)
	stB, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(stA, stB)
}

type lifecycleResult struct {
	State   string `json:"state"`
	Message string `json:"-"`
}

func (r lifecycleResult) writeText(w io.Writer, _ *style) error {
	_, err := fmt.Fprintln(w, r.Message)
	return err
}

func runClusterClose(s *Session, w io.Writer, a *Args) error {
	if err := s.requireRunning(); err != nil {
		return err
	}
	if err := s.cluster.Close(); err != nil {
		return err
	}
	return s.emit(w, lifecycleResult{State: s.cluster.State().String(),
		Message: "cluster closed: logs flushed, clean-shutdown markers written (cluster restart reopens it)"})
}

func runClusterCrash(s *Session, w io.Writer, a *Args) error {
	if err := s.requireRunning(); err != nil {
		return err
	}
	if err := s.cluster.Crash(); err != nil {
		return err
	}
	return s.emit(w, lifecycleResult{State: s.cluster.State().String(),
		Message: "cluster crashed: no clean-shutdown markers; buffered producer records are gone (cluster restart recovers)"})
}

// requireRunning refuses lifecycle commands on a cluster that is not running.
func (s *Session) requireRunning() error {
	if st := s.cluster.State(); st != engine.Running && st != engine.FailedState {
		return kerr.State("cluster is %s", st)
	}
	return nil
}

func runClusterRestart(s *Session, w io.Writer, a *Args) error {
	cfg := s.cluster.Config()
	if err := s.closeForReopen(); err != nil {
		return err
	}
	c, report, err := engine.Open(cfg, s.clock)
	if err != nil {
		return err
	}
	s.cluster, s.cfg, s.opened = c, cfg, report
	s.forgetClients() // they belonged to the cluster that was closed
	s.lastKnown = nil // every broker is up again
	return s.emit(w, newClusterOpened(s, "restart", report))
}

// configView is the result of config show.
type configView struct {
	// Rules is the active rule set, as config show prints it first:
	// "rules=kafka", or "rules=kafka with truncation=high-watermark".
	Rules    string       `json:"rules"`
	Brokers  []int32      `json:"brokers"`
	Settings []configItem `json:"settings"`
}

type configItem struct {
	Name        string `json:"name"`
	Value       string `json:"value"`
	Default     string `json:"default"`
	NeedsReopen bool   `json:"needs_restart"`
}

func (v configView) writeText(w io.Writer, _ *style) error {
	fmt.Fprintln(w, v.Rules)
	fmt.Fprintf(w, "brokers=%s\n", joinIDs(v.Brokers, ","))
	var rows [][]string
	for _, it := range v.Settings {
		if it.Name == engine.RulesKey {
			continue // the first line
		}
		applies := "now"
		if it.NeedsReopen {
			applies = "at restart"
		}
		rows = append(rows, []string{it.Name, it.Value, it.Default, applies})
	}
	return renderTable(w, []string{"NAME", "VALUE", "DEFAULT", "A CHANGE APPLIES"}, rows)
}

func runConfigShow(s *Session, w io.Writer, a *Args) error {
	cfg := s.cluster.Config()
	v := configView{Rules: cfg.Rules.Summary(), Brokers: cfg.BrokerIDs}
	for _, k := range engine.ConfigKeys() {
		val, err := cfg.Get(k.Name)
		if err != nil {
			return err
		}
		v.Settings = append(v.Settings, configItem{Name: k.Name, Value: val, Default: k.Default, NeedsReopen: k.NeedsReopen})
	}
	return s.emit(w, v)
}

// configChanged is the result of config set.
type configChanged struct {
	Changed []configItem `json:"changed"`
}

func (c configChanged) writeText(w io.Writer, _ *style) error {
	for _, it := range c.Changed {
		note := ""
		if it.NeedsReopen {
			note = " (applies at the next cluster restart)"
		}
		fmt.Fprintf(w, "%s=%s%s\n", it.Name, it.Value, note)
	}
	return nil
}

func runConfigSet(s *Session, w io.Writer, a *Args) error {
	pairs := a.Pairs()
	if len(pairs) == 0 {
		return a.usage("name at least one key=value")
	}
	trial := s.cluster.Config()
	var settings []engine.Setting
	for _, p := range pairs {
		settings = append(settings, engine.Setting{Name: p.Key, Value: p.Value})
	}
	if err := trial.SetAll(settings); err != nil {
		return err
	}
	if err := trial.Validate(); err != nil {
		return err
	}
	// rules= first, as SetAll applied them.
	slices.SortStableFunc(pairs, func(x, y Word) int {
		return boolInt(y.Key == engine.RulesKey) - boolInt(x.Key == engine.RulesKey)
	})
	var res configChanged
	for _, p := range pairs {
		reopen, err := s.cluster.SetConfig(p.Key, p.Value)
		if err != nil {
			return err
		}
		val, _ := s.cluster.Config().Get(p.Key)
		res.Changed = append(res.Changed, configItem{Name: p.Key, Value: val, Default: configDefault(p.Key), NeedsReopen: reopen})
	}
	s.cfg = s.cluster.Config()
	return s.emit(w, res)
}

// clockResult is the result of clock and clock advance.
type clockResult struct {
	FromMs *int64 `json:"from_ms,omitempty"`
	NowMs  int64  `json:"now_ms"`
}

func (c clockResult) writeText(w io.Writer, _ *style) error {
	if c.FromMs != nil {
		_, err := fmt.Fprintf(w, "clock: %d ms -> %d ms\n", *c.FromMs, c.NowMs)
		return err
	}
	_, err := fmt.Fprintf(w, "clock: %d ms\n", c.NowMs)
	return err
}

func runClock(s *Session, w io.Writer, a *Args) error {
	return s.emit(w, clockResult{NowMs: s.nowMs()})
}

func runClockAdvance(s *Session, w io.Writer, a *Args) error {
	ms := a.PosDuration(0, "DURATION")
	if err := a.Err(); err != nil {
		return err
	}
	from := s.nowMs()
	if err := s.cluster.Advance(ms); err != nil {
		return err
	}
	return s.emit(w, clockResult{FromMs: &from, NowMs: s.nowMs()})
}

// joinIDs renders broker ids with a separator.
func joinIDs(ids []int32, sep string) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprint(id)
	}
	return strings.Join(parts, sep)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// configDefault is a knob's default value.
func configDefault(name string) string {
	for _, k := range engine.ConfigKeys() {
		if k.Name == name {
			return k.Default
		}
	}
	return ""
}
