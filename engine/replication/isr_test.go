package replication

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestInSyncRules(t *testing.T) {
	lag := LagConfig{MaxOffsets: 2, MaxTimeMs: 100}
	base := FollowerView{LEO: 5, LastFetchMs: 0, Up: true, InISR: true}
	tests := []struct {
		name       string
		leaderLEO  int64
		hw, now    int64
		mutate     func(*FollowerView)
		want       bool
		wantReason string
	}{
		{"caught up", 5, 5, 0, nil, true, "caught up"},
		{"offset lag at the limit", 7, 5, 0, nil, true, "caught up"},
		{"offset lag over the limit", 8, 5, 0, nil, false, "3 offsets behind > replica.lag.max.offsets=2"},
		{"time lag exactly the limit stays (RP7)", 5, 5, 100, nil, true, "caught up"},
		{"time lag over the limit", 5, 5, 101, nil, false, "no fetch for 101 ms > replica.lag.time.max.ms=100"},
		{"below HW (RP14 gate)", 5, 6, 0, nil, false, "LEO 5 < HW 6"},
		{"ahead of the leader (decision 12)", 4, 4, 0, nil, false, "ahead of the leader: LEO 5 > leader LEO 4"},
		{"diverged (decision 7)", 5, 5, 0, func(f *FollowerView) { f.Diverged = true }, false, "diverged"},
		{"down member stays while lag rules hold", 5, 5, 50, func(f *FollowerView) { f.Up = false }, true, "caught up"},
		{"down member leaves after the time lag", 5, 5, 101, func(f *FollowerView) { f.Up = false }, false, "no fetch"},
		{"down non-member cannot join", 5, 5, 0, func(f *FollowerView) { f.Up, f.InISR = false, false }, false, "broker is down"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := base
			if tc.mutate != nil {
				tc.mutate(&f)
			}
			got, why := InSync(tc.leaderLEO, tc.hw, tc.now, f, lag)
			if got != tc.want || !strings.Contains(why, tc.wantReason) {
				t.Fatalf("InSync = %v %q, want %v containing %q", got, why, tc.want, tc.wantReason)
			}
		})
	}
}

func TestNextHighWatermark(t *testing.T) {
	tests := []struct {
		cur  int64
		leos []int64
		want int64
	}{
		{0, []int64{1, 0}, 0},
		{0, []int64{1, 1}, 1},
		{3, []int64{5, 2}, 3}, // never decreases
		{3, nil, 3},
		{0, []int64{4}, 4}, // a single replica: HW follows the LEO (RP5)
	}
	for _, tc := range tests {
		if got := NextHighWatermark(tc.cur, tc.leos); got != tc.want {
			t.Errorf("NextHighWatermark(%d, %v) = %d, want %d", tc.cur, tc.leos, got, tc.want)
		}
	}
}

// E2: after a restart with leader LEO 4 and follower LEO 3, the ISR is
// {leader} and the HW is 3 (decision 8 keeps the reference's rule).
func TestInitialStateAfterRestartE2(t *testing.T) {
	leos := map[int32]int64{1: 4, 2: 3}
	if got := InitialISR(1, []int32{1, 2}, leos); !slices.Equal(got, []int32{1}) {
		t.Fatalf("ISR %v", got)
	}
	if got := InitialHighWatermark([]int32{1, 2}, leos); got != 3 {
		t.Fatalf("HW %d", got)
	}
	equal := map[int32]int64{1: 2, 2: 2, 3: 2}
	if got := InitialISR(2, []int32{2, 3, 1}, equal); !slices.Equal(got, []int32{1, 2, 3}) {
		t.Fatalf("ISR %v", got)
	}
}

func TestParseAcks(t *testing.T) {
	for in, want := range map[string]AckMode{"0": Acks0, "1": Acks1, "all": AcksAll, "-1": AcksAll, "ALL": AcksAll} {
		got, err := ParseAcks(in)
		if err != nil || got != want {
			t.Errorf("ParseAcks(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "2", "leader", "-2"} {
		if _, err := ParseAcks(bad); err == nil || !strings.Contains(err.Error(), "acks must be 0, 1, or all") {
			t.Errorf("ParseAcks(%q): %v", bad, err)
		}
	}
	if AcksAll.String() != "all" || Acks0.String() != "0" || Acks1.String() != "1" {
		t.Fatal("String")
	}
}

// recorder is a Dispatcher that records the listeners it runs.
type recorder struct{ order []string }

func (r *recorder) Dispatch(l Listener) {
	r.order = append(r.order, fmt.Sprintf("%d.%d", l.Owner, l.Ref))
}

func TestPromiseSettlesOnceAndRunsListenersInOrder(t *testing.T) {
	var ids IDSource
	p := NewPromise[int](ids.Next())
	d := &recorder{}
	p.Listen(d, Listener{Kind: ListenBatch, Owner: 1, Ref: 1})
	p.Listen(d, Listener{Kind: ListenBatch, Owner: 2, Ref: 2})
	if p.ID() != 1 || p.State() != Pending || p.Settled() || len(d.order) != 0 {
		t.Fatal("fresh promise")
	}
	if !p.Resolve(7) || p.Resolve(8) || p.Fail(nil) || p.Cancel() {
		t.Fatal("a promise settles exactly once")
	}
	p.Listen(d, Listener{Kind: ListenBatch, Owner: 3, Ref: 3})
	if p.Value() != 7 || p.State() != Done || strings.Join(d.order, " ") != "1.1 2.2 3.3" {
		t.Fatalf("value %d state %v order %v", p.Value(), p.State(), d.order)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("listeners of two dispatchers on one promise did not panic")
			}
		}()
		q := NewPromise[int](99)
		q.Listen(d, Listener{Kind: ListenBatch})
		q.Listen(&recorder{}, Listener{Kind: ListenBatch})
	}()
	q := NewPromise[int](ids.Next())
	q.Cancel()
	if q.ID() != 2 || q.State() != Cancelled || q.State().String() != "cancelled" {
		t.Fatal("cancel")
	}
}
