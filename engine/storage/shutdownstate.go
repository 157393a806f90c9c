package storage

// shutdownPoint identifies the log's content: its start, its end and its
// rewrite count.
type shutdownPoint struct {
	start, leo, rewrites int64
}

func (l *Log) point() shutdownPoint {
	return shutdownPoint{start: l.LogStartOffset(), leo: l.LEO(), rewrites: l.rewrites}
}

// SetShutdownState gives the log state derived from its batches (the
// partition's producer state, say) to keep in the clean-shutdown marker:
// the next Close writes it there, provided the log did not change since
// (no append, truncation, retention, compaction or corruption), and Open
// hands it back after a clean shutdown (TakeShutdownState), so the caller
// need not read the log again. Kafka keeps producer state in snapshot
// files for the same reason. nil clears it. The bytes are kept, not
// copied, and never changed: copies of the log (Clone) share them.
func (l *Log) SetShutdownState(state []byte) {
	l.shutdown, l.shutdownAt = state, l.point()
}

// shutdownState is what Close writes into the marker: the state set for
// the log as it stands, or nil.
func (l *Log) shutdownState() []byte {
	if l.shutdown == nil || l.damaged || l.shutdownAt != l.point() {
		return nil
	}
	return l.shutdown
}

// TakeShutdownState returns the state the last Close kept in the marker
// (SetShutdownState) when Open trusted that marker, and forgets it; nil
// otherwise (a crash, a marker of an older version, no state). It
// describes the log as Open found it: a trusted marker means the log is
// as that Close left it.
func (l *Log) TakeShutdownState() []byte {
	b := l.opened
	l.opened = nil
	return b
}

// Rewrites counts the calls since Open that may have removed or replaced
// stored batches (truncation, reset, retention, compaction, Corrupt):
// while it and the log's start and end stay the same, whatever was derived
// from the batches still holds.
func (l *Log) Rewrites() int64 { return l.rewrites }
