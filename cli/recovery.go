package cli

import (
	"fmt"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/txn"
)

// recoveryNotes lists, one line each, the damage that opening a data
// directory found and repaired: a torn segment tail cut, a clean-shutdown
// marker not trusted, transaction journal lines dropped or a missing final
// newline added, and recovery markers still waiting. It is empty for a
// directory that opened cleanly. `cluster open dir=` prints the same facts
// in its report; `repl --data` and `serve --data` print these lines.
func recoveryNotes(report engine.OpenReport) []string {
	var out []string
	for _, r := range report.Replicas {
		if t := r.Report.Truncation; t != nil {
			out = append(out, fmt.Sprintf("%s on broker %d: dropped %d bytes of %s at byte %d, kept %d batches (%s)",
				r.TP, r.Broker, t.BytesDropped, t.Segment, t.Position, t.BatchesKept, t.Reason))
		}
		if m := r.Report.MarkerIgnored; m != "" {
			out = append(out, fmt.Sprintf("%s on broker %d: clean-shutdown marker ignored (%s)", r.TP, r.Broker, m))
		}
	}
	co := report.Coordination
	if j := co.Journal; j.Exists {
		if d := j.Dropped; d != nil {
			out = append(out, fmt.Sprintf("%s: dropped %d bytes (%d lines) at byte %d: %s", txn.JournalFileName, d.Bytes, d.Lines, d.Position, d.Reason))
		}
		if j.NewlineAdded {
			out = append(out, fmt.Sprintf("%s: the last line had no newline, which recovery added", txn.JournalFileName))
		}
	}
	return append(out, co.MarkerErrors...)
}
