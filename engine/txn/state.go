package txn

// State is a transaction's state (§12.1).
type State uint8

// Transaction states.
const (
	Ongoing State = iota
	PrepareCommit
	CompleteCommit
	PrepareAbort
	CompleteAbort
)

var stateNames = [...]struct{ journal, kafka string }{
	Ongoing:        {"ongoing", "Ongoing"},
	PrepareCommit:  {"prepare_commit", "PrepareCommit"},
	CompleteCommit: {"complete_commit", "CompleteCommit"},
	PrepareAbort:   {"prepare_abort", "PrepareAbort"},
	CompleteAbort:  {"complete_abort", "CompleteAbort"},
}

// String returns the lowercase value the journal writes, e.g. "prepare_commit".
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s].journal
	}
	return "unknown"
}

// KafkaName returns Kafka's display name, e.g. "PrepareCommit".
func (s State) KafkaName() string {
	if int(s) < len(stateNames) {
		return stateNames[s].kafka
	}
	return "Unknown"
}

// Unstable reports whether the transaction is still undecided in the log:
// ONGOING, PREPARE_COMMIT or PREPARE_ABORT. Unstable transactions hold back
// the last stable offset.
func (s State) Unstable() bool { return s == Ongoing || s == PrepareCommit || s == PrepareAbort }

// ParseState reads a journal state value.
func ParseState(s string) (State, bool) {
	for i, n := range stateNames {
		if n.journal == s {
			return State(i), true
		}
	}
	return 0, false
}
