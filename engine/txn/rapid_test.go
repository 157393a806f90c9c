package txn

import (
	"maps"
	"os"
	"reflect"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/minikafka-lab/minikafka/engine/group"
	"github.com/minikafka-lab/minikafka/engine/record"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// Batch fates the model expects.
const (
	fatePlain     = "plain"
	fateOpen      = "open"
	fateCommitted = "committed"
	fateAborted   = "aborted"
	fateMarker    = "marker"
)

type txnModel struct {
	h     *harness
	fates map[topic.Partition][]string // per offset
	inst  map[string][]PartitionOffset // the current instance's batches
}

func (s *txnModel) setFate(id, fate string) {
	for _, b := range s.inst[id] {
		s.fates[b.Partition][b.Offset] = fate
	}
	s.inst[id] = nil
}

func (s *txnModel) padMarkers() {
	for tp, l := range s.h.logs {
		for int64(len(s.fates[tp])) < l.leo() {
			s.fates[tp] = append(s.fates[tp], fateMarker)
		}
	}
}

// TestTransactionStateMachine runs begin / send / plain appends /
// send_offsets / commit / abort / failed marker writes with retries /
// replication / reopen (with recovery) at random and checks after each step:
//   - read_committed never returns aborted or open data, and returns every
//     plain or committed batch below the LSO;
//   - LSO <= HW on every partition;
//   - replaying the journal reproduces the coordinator's memory;
//   - every ONGOING transaction's first offset in a partition is an open run
//     of the index there, and every open run belongs to an unstable
//     transaction;
//   - committed consumer offsets come only from committed transactions.
func TestTransactionStateMachine(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(rt *rapid.T) {
		s := &txnModel{h: newFastHarness(t), fates: map[topic.Partition][]string{}, inst: map[string][]PartitionOffset{}}
		defer func() { _ = s.h.m.Close() }()
		txIDs := rapid.SampledFrom([]string{"t1", "t2", "t3"})
		tps := rapid.SampledFrom([]topic.Partition{tp("out-0"), tp("out-1")})
		wantOffsets := map[string]int64{}   // group in-0 offsets published by commits
		stagedValue := map[string][]int64{} // per id: values staged in the current instance
		state := func(id string) (State, bool) {
			e, ok := s.h.m.Get(id)
			return e.State, ok
		}
		finish := func(t *rapid.T, id string, outcome record.ControlType, failAfter int) bool {
			var parts []topic.Partition
			var err error
			if outcome == record.Commit {
				parts, err = s.h.m.PrepareCommit(id)
			} else {
				parts, err = s.h.m.PrepareAbort(id)
			}
			if err != nil {
				t.Fatalf("prepare %s: %v", id, err)
			}
			if failAfter >= 0 && failAfter < len(parts) {
				s.h.markers(t, id, parts[:failAfter], outcome)
				s.h.ackAll()
				s.padMarkers()
				return false // a marker write failed: the transaction stays prepared
			}
			s.h.markers(t, id, parts, outcome)
			s.h.ackAll()
			s.padMarkers()
			if outcome == record.Commit {
				err = s.h.m.CompleteCommit(id)
				s.setFate(id, fateCommitted)
				if v := stagedValue[id]; len(v) > 0 {
					wantOffsets["g"] = v[len(v)-1]
				}
			} else {
				err = s.h.m.CompleteAbort(id)
				s.setFate(id, fateAborted)
			}
			stagedValue[id] = nil
			if err != nil {
				t.Fatalf("complete %s: %v", id, err)
			}
			return true
		}
		rt.Repeat(map[string]func(*rapid.T){
			"begin": func(t *rapid.T) {
				id := txIDs.Draw(t, "id")
				st, ok := state(id)
				err := s.h.m.Begin(id)
				if ok && st.Unstable() {
					if err == nil {
						t.Fatalf("begin %s while %v", id, st)
					}
					return
				}
				if err != nil {
					t.Fatalf("begin %s: %v", id, err)
				}
				s.inst[id], stagedValue[id] = nil, nil
			},
			"send": func(t *rapid.T) {
				id, p := txIDs.Draw(t, "id"), tps.Draw(t, "tp")
				if st, ok := state(id); !ok || st != Ongoing {
					if s.h.m.RecordSend(id, p, s.h.log(p).leo(), false) == nil {
						t.Fatalf("send accepted in state %v", st)
					}
					return
				}
				off := s.h.send(t, id, p, "")
				s.padMarkers()
				s.fates[p][off] = fateOpen
				s.inst[id] = append(s.inst[id], PartitionOffset{p, off})
			},
			"plain": func(t *rapid.T) {
				p := tps.Draw(t, "tp")
				s.h.log(p).appendPlain(t, "")
				s.padMarkers()
				s.fates[p][len(s.fates[p])-1] = fatePlain
			},
			"replicate": func(t *rapid.T) { s.h.ackAll() },
			"send_offsets": func(t *rapid.T) {
				id := txIDs.Draw(t, "id")
				v := int64(rapid.IntRange(0, 50).Draw(t, "offset"))
				err := s.h.m.SendOffsets(id, "g", group.Offsets{tp("in-0"): v})
				if st, ok := state(id); ok && st == Ongoing != (err == nil) {
					t.Fatalf("send_offsets in %v: %v", st, err)
				}
				if err == nil {
					stagedValue[id] = append(stagedValue[id], v)
				}
			},
			"commit": func(t *rapid.T) {
				id := txIDs.Draw(t, "id")
				if st, ok := state(id); !ok || st != Ongoing && st != PrepareCommit {
					return
				}
				finish(t, id, record.Commit, rapid.IntRange(-1, 1).Draw(t, "failAfter"))
			},
			"abort": func(t *rapid.T) {
				id := txIDs.Draw(t, "id")
				if st, ok := state(id); !ok || st != Ongoing && st != PrepareAbort {
					return
				}
				finish(t, id, record.Abort, rapid.IntRange(-1, 1).Draw(t, "failAfter"))
			},
			"reopen": func(t *rapid.T) {
				outcome := map[string]string{}
				for _, id := range s.h.m.IDs() {
					if st, _ := state(id); st == PrepareCommit {
						outcome[id] = fateCommitted
					} else if st.Unstable() {
						outcome[id] = fateAborted
					}
				}
				s.h.reopen(t)
				s.h.finishRecovery(t)
				s.padMarkers()
				for id, f := range outcome {
					if st, _ := state(id); st.Unstable() {
						t.Fatalf("%s still %v after recovery", id, st)
					}
					s.setFate(id, f)
					if f == fateCommitted {
						if v := stagedValue[id]; len(v) > 0 {
							wantOffsets["g"] = v[len(v)-1]
						}
					}
					stagedValue[id] = nil
				}
			},
			"": func(t *rapid.T) {
				for _, p := range slices.SortedFunc(maps.Keys(s.h.logs), topic.Partition.Compare) {
					l := s.h.logs[p]
					lso := s.h.lso(p)
					if lso > l.hw {
						t.Fatalf("%s: LSO %d > HW %d", p, lso, l.hw)
					}
					for off, m := range l.metas[:lso] {
						fate := s.fates[p][off]
						visible := l.idx.Visible(m)
						want := fate == fatePlain || fate == fateCommitted
						if visible != want {
							t.Fatalf("%s@%d (%s): visible=%v below LSO %d", p, off, fate, visible, lso)
						}
					}
					// coordinator vs index
					open := map[string]int64{}
					for _, r := range l.idx.OpenRuns() {
						open[r.ID] = r.First
						if st, ok := state(r.ID); !ok || !st.Unstable() {
							t.Fatalf("%s: open run of %s in state %v", p, r.ID, st)
						}
					}
					for _, id := range s.h.m.IDs() {
						e, _ := s.h.m.Get(id)
						if first, ok := e.FirstOffsets[p]; ok && e.State == Ongoing && open[id] != first {
							t.Fatalf("%s: %s first offset %d, index open run at %d (%v)", p, id, first, open[id], open)
						}
					}
				}
				data, err := s.h.fsys.ReadFile(s.h.journalPath())
				if err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
				entries, _, _, drop := ScanJournal(data)
				if drop != nil {
					t.Fatalf("journal damaged: %+v", drop)
				}
				replayed := map[string]Entry{}
				for _, e := range entries {
					replayed[e.ID] = e
				}
				for _, id := range s.h.m.IDs() {
					e, _ := s.h.m.Get(id)
					r := replayed[id]
					if r.Partitions == nil {
						r.Partitions = []topic.Partition{}
					}
					if e.Partitions == nil {
						e.Partitions = []topic.Partition{}
					}
					if !reflect.DeepEqual(r, e) {
						t.Fatalf("journal replay of %s: %+v, memory %+v", id, r, e)
					}
				}
				if len(replayed) != len(s.h.m.IDs()) {
					t.Fatalf("journal has %d ids, memory %d", len(replayed), len(s.h.m.IDs()))
				}
				got, ok := s.h.store.Get("g", tp("in-0"))
				want, wantOK := wantOffsets["g"]
				if ok != wantOK || got != want {
					t.Fatalf("committed offset %d %v, want %d %v", got, ok, want, wantOK)
				}
			},
		})
	})
}
