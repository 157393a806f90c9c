package replication

import "fmt"

// LagConfig holds the two ISR lag limits (§10.1).
type LagConfig struct {
	// MaxOffsets is replica.lag.max.offsets: a follower more than this many
	// offsets behind the leader's LEO leaves the ISR (a MiniKafka teaching knob,
	// like Kafka's removed replica.lag.max.messages).
	MaxOffsets int64
	// MaxTimeMs is replica.lag.time.max.ms: a follower that has not fetched for
	// longer than this leaves the ISR. Exactly MaxTimeMs is still in sync.
	MaxTimeMs int64
}

// FollowerView is what the ISR rule needs to know about one follower.
type FollowerView struct {
	LEO         int64
	LastFetchMs int64
	Up          bool // the broker is running
	Diverged    bool // it held offsets above HW at a leader change (decision 7)
	InISR       bool // currently a member
}

// InSync decides whether a follower belongs in the ISR, and says why not when
// it does not. The rules, in the order they are reported:
//
//   - a diverged replica is out until it has truncated to the high watermark
//     (decision 7);
//   - a follower ahead of the leader is out until it has truncated (decision 12);
//   - offset lag: leaderLEO - LEO <= MaxOffsets;
//   - time lag: now - lastFetch <= MaxTimeMs (inclusive);
//   - committed prefix: LEO >= HW (it holds everything consumers may have read);
//   - a crashed broker cannot join (a member that crashes stays until the lag
//     rules remove it, which is how Kafka notices).
func InSync(leaderLEO, hw, nowMs int64, f FollowerView, lag LagConfig) (bool, string) {
	rule := isrRule(leaderLEO, hw, nowMs, f, lag)
	return rule == caughtUp, rule.reason(leaderLEO, hw, nowMs, f, lag)
}

// isrVerdict is the ISR rule that decided, in InSync's order.
type isrVerdict uint8

const (
	caughtUp isrVerdict = iota
	diverged
	aheadOfLeader
	offsetLag
	timeLag
	missingCommitted
	brokerDown
)

// isrRule applies InSync's rules without building the reason, so the
// refresh that runs on every fetch step formats text only for a change.
func isrRule(leaderLEO, hw, nowMs int64, f FollowerView, lag LagConfig) isrVerdict {
	switch {
	case f.Diverged:
		return diverged
	case f.LEO > leaderLEO:
		return aheadOfLeader
	case leaderLEO-f.LEO > lag.MaxOffsets:
		return offsetLag
	case nowMs-f.LastFetchMs > lag.MaxTimeMs:
		return timeLag
	case f.LEO < hw:
		return missingCommitted
	case !f.Up && !f.InISR:
		return brokerDown
	}
	return caughtUp
}

func (v isrVerdict) reason(leaderLEO, hw, nowMs int64, f FollowerView, lag LagConfig) string {
	switch v {
	case diverged:
		return fmt.Sprintf("diverged: LEO %d was above HW at a leader change and is not truncated yet", f.LEO)
	case aheadOfLeader:
		return fmt.Sprintf("ahead of the leader: LEO %d > leader LEO %d", f.LEO, leaderLEO)
	case offsetLag:
		return fmt.Sprintf("%s behind > replica.lag.max.offsets=%d", plural(int(leaderLEO-f.LEO), "offset", "offsets"), lag.MaxOffsets)
	case timeLag:
		return fmt.Sprintf("no fetch for %d ms > replica.lag.time.max.ms=%d", nowMs-f.LastFetchMs, lag.MaxTimeMs)
	case missingCommitted:
		return fmt.Sprintf("LEO %d < HW %d: missing committed records", f.LEO, hw)
	case brokerDown:
		return "broker is down"
	}
	return fmt.Sprintf("caught up: LEO %d, leader LEO %d", f.LEO, leaderLEO)
}

// NextHighWatermark is the HW advance rule (§9.3): the minimum LEO over the
// ISR members, but never below the current HW.
func NextHighWatermark(current int64, isrLEOs []int64) int64 {
	if len(isrLEOs) == 0 {
		return current
	}
	min := isrLEOs[0]
	for _, l := range isrLEOs[1:] {
		if l < min {
			min = l
		}
	}
	if min > current {
		return min
	}
	return current
}

// InitialISR is §9.1's rule at open or creation: the leader plus every replica
// whose LEO equals the leader's. leos maps broker to LEO; the result is sorted.
func InitialISR(leader int32, replicas []int32, leos map[int32]int64) []int32 {
	var isr []int32
	for _, b := range sortedCopy(replicas) {
		if b == leader || leos[b] == leos[leader] {
			isr = append(isr, b)
		}
	}
	return isr
}

// InitialHighWatermark is §9.1's rule: the minimum LEO over all assigned
// replicas (not just the ISR), so it can come out lower than before a restart
// (decision 8 keeps this).
func InitialHighWatermark(replicas []int32, leos map[int32]int64) int64 {
	var hw int64
	for i, b := range replicas {
		if i == 0 || leos[b] < hw {
			hw = leos[b]
		}
	}
	return hw
}

func sortedCopy(ids []int32) []int32 {
	out := append([]int32(nil), ids...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
