package repl

import (
	"fmt"
	"strings"

	"github.com/minikafka-lab/minikafka/engine"
)

// The completion sources for live names. They read the cluster and never
// fail: a closed cluster simply offers nothing.

func liveTopics(s *Session) []string {
	ts, err := s.cluster.Topics()
	if err != nil {
		return nil
	}
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

func livePartitions(s *Session) []string {
	ts, err := s.cluster.Topics()
	if err != nil {
		return nil
	}
	var out []string
	for _, t := range ts {
		for _, p := range t.Partitions {
			out = append(out, p.TP().String())
		}
	}
	return out
}

func liveBrokers(s *Session) []string {
	var out []string
	for _, b := range s.cfg.BrokerIDs {
		out = append(out, fmt.Sprint(b))
	}
	return out
}

func liveProducers(s *Session) []string {
	var out []string
	seen := map[string]bool{}
	for _, np := range s.producers {
		if !np.p.Closed() && !seen[np.name] {
			seen[np.name] = true
			out = append(out, np.name)
		}
	}
	return out
}

// configKeyParams declares every cluster config name as a key (for
// completion and help).
func configKeyParams() []Param {
	var ps []Param
	for _, k := range engine.ConfigKeys() {
		p := Param{Name: k.Name}
		if len(k.Values) > 0 {
			p.Values = choices(k.Values...)
		}
		ps = append(ps, p)
	}
	return ps
}

// configNamesDetail lists the config names for help texts.
func configNamesDetail() string {
	var b strings.Builder
	b.WriteString("The cluster config names (and defaults):\n")
	for _, k := range engine.ConfigKeys() {
		fmt.Fprintf(&b, "  %-24s %s\n", k.Name, k.Default)
	}
	return b.String()
}
