package engine

import (
	"encoding/binary"
	"errors"

	"github.com/minikafka-lab/minikafka/engine/replication"
	"github.com/minikafka-lab/minikafka/engine/storage"
	"github.com/minikafka-lab/minikafka/engine/txn"
)

// What a partition derives from its leader's log (the producer state and
// the transaction index) is written at a clean shutdown into the leader
// log's clean-shutdown marker (storage.Log.SetShutdownState) and read back
// at the next open, so that a clean open reads no log beyond its active
// segments (Kafka writes producer state snapshots, <offset>.snapshot, for
// the same reason). After a crash there is no marker, so no state: open
// replays the leader logs as before. The bytes, big-endian:
//
//	u8  version (1)
//	i64 log start offset, i64 LEO: the log the state describes
//	u32 dedupe window the producer state was built with
//	the producer state (replication.ProducerStateManager.AppendSnapshot)
//	the transaction index (txn.Index.AppendSnapshot)
//
// Anything that does not decode exactly, or describes another log or
// window, is ignored and the log replayed: a damaged state costs time,
// never correctness (the marker's CRC covers it as well).
const shutdownStateVersion = 1

// derivedState is what replaying a leader log from its start builds, kept
// up to date lazily (at close) from where it stopped: the producer state
// (Record only: what replication.NewReplicaSet would rebuild, not the live
// state with its registered epochs) and the transaction index (not the
// live one, which remembers runs that retention removed).
type derivedState struct {
	log       *storage.Log
	rewrites  int64 // the log's Rewrites when the state was built
	start     int64 // its log start offset then
	window    int
	producers *replication.ProducerStateManager
	idx       *txn.Index // its NextOffset is where replay resumes
}

// errShutdownState is the cause of every decoding failure.
var errShutdownState = errors.New("shutdown state does not match")

// encodeShutdownState lays st out for the marker of its log.
func encodeShutdownState(st *derivedState) []byte {
	be := binary.BigEndian
	b := []byte{shutdownStateVersion}
	b = be.AppendUint64(b, uint64(st.log.LogStartOffset()))
	b = be.AppendUint64(b, uint64(st.log.LEO()))
	b = be.AppendUint32(b, uint32(st.window))
	b = st.producers.AppendSnapshot(b)
	return st.idx.AppendSnapshot(b)
}

// decodeShutdownState reads a state written by encodeShutdownState. start,
// leo and window are what the log and the rules say now; a state written
// for anything else is an error.
func decodeShutdownState(b []byte, start, leo int64, window int, rules *replication.Rules) (*replication.ProducerStateManager, *txn.Index, error) {
	be := binary.BigEndian
	if len(b) < 21 || b[0] != shutdownStateVersion {
		return nil, nil, errShutdownState
	}
	if int64(be.Uint64(b[1:])) != start || int64(be.Uint64(b[9:])) != leo || int(be.Uint32(b[17:])) != window {
		return nil, nil, errShutdownState
	}
	producers, rest, err := replication.DecodeProducerSnapshot(b[21:], rules)
	if err != nil {
		return nil, nil, errors.Join(errShutdownState, err)
	}
	idx, rest, err := txn.DecodeIndexSnapshot(rest)
	if err != nil {
		return nil, nil, errors.Join(errShutdownState, err)
	}
	if len(rest) != 0 || idx.NextOffset() > leo {
		return nil, nil, errShutdownState
	}
	return producers, idx, nil
}

// window is the producer dedupe window under the cluster's rules now.
func (c *Cluster) window() int {
	return replication.NewProducerStateManagerFor(&c.settings.Rules).Window()
}

// openedState takes the shutdown state of tp's leader log after a clean
// shutdown: the producer state for its replica set, and (kept for
// openCoordination) its transaction index; it seeds the derived state, so
// the next close replays only what is appended from now on. It returns nil
// when there is none or it does not match: the replica set replays the log.
func (c *Cluster) openedState(tp TopicPartition, logs map[int32]*storage.Log, leader int32) *replication.ProducerStateManager {
	var state []byte
	for b, l := range logs {
		if s := l.TakeShutdownState(); b == leader {
			state = s
		}
	}
	lg := logs[leader]
	if state == nil || lg == nil {
		return nil
	}
	w := c.window()
	producers, idx, err := decodeShutdownState(state, lg.LogStartOffset(), lg.LEO(), w, &c.settings.Rules)
	if err != nil {
		return nil
	}
	cached, _, _ := decodeShutdownState(state, lg.LogStartOffset(), lg.LEO(), w, &c.settings.Rules)
	if c.derived == nil {
		c.derived = map[TopicPartition]*derivedState{}
	}
	if c.openedIndexes == nil {
		c.openedIndexes = map[TopicPartition]*txn.Index{}
	}
	c.derived[tp] = &derivedState{log: lg, rewrites: lg.Rewrites(), start: lg.LogStartOffset(), window: w, producers: cached, idx: idx.Clone()}
	c.openedIndexes[tp] = idx
	return producers
}

// derivedFor brings tp's derived state up to date with its leader log lg,
// replaying only the batches appended since it was last brought up to date,
// or the whole log when it describes another log, one that was rewritten
// since (truncation, retention, compaction) or another dedupe window. It
// returns nil when the log cannot be read (the state is dropped: the next
// open replays).
func (c *Cluster) derivedFor(tp TopicPartition, lg *storage.Log) *derivedState {
	w := c.window()
	st := c.derived[tp]
	if st == nil || st.log != lg || st.rewrites != lg.Rewrites() || st.start != lg.LogStartOffset() || st.window != w || lg.LEO() < st.idx.NextOffset() {
		st = &derivedState{log: lg, rewrites: lg.Rewrites(), start: lg.LogStartOffset(), window: w,
			producers: replication.NewProducerStateManagerFor(&c.settings.Rules), idx: txn.NewIndex()}
	}
	from := max(st.idx.NextOffset(), lg.LogStartOffset())
	if lg.LEO() > from {
		err := lg.Batches(from, func(b storage.RawBatch) error {
			st.producers.Record(b.Meta)
			return st.idx.Add(b.Meta)
		})
		if err != nil {
			delete(c.derived, tp)
			return nil
		}
	}
	if c.derived == nil {
		c.derived = map[TopicPartition]*derivedState{}
	}
	c.derived[tp] = st
	return st
}

// saveShutdownStates gives every running leader log its derived state for
// the clean-shutdown marker (Close, just before the logs close).
func (c *Cluster) saveShutdownStates() {
	for _, tp := range c.sortedTPs() {
		lg, err := c.sets[tp].LeaderLog()
		if err != nil || lg == nil {
			continue
		}
		if st := c.derivedFor(tp, lg); st != nil {
			lg.SetShutdownState(encodeShutdownState(st))
		}
	}
}
