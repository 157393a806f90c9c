package repl

import (
	"errors"
	"fmt"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/topic"
)

// nameHint suggests the topic or partition a learner probably meant when a
// command names one that does not exist ("did you mean orders-1?"), from
// the words of the command and the cluster's topics; "" when no name is
// close.
func (s *Session) nameHint(err error, a *Args) string {
	if a == nil || s.cluster == nil || !(errors.Is(err, kerr.UnknownTopic) || errors.Is(err, kerr.UnknownPartition)) {
		return ""
	}
	topics := liveTopics(s)
	if len(topics) == 0 {
		return ""
	}
	known := map[string]bool{}
	for _, t := range topics {
		known[t] = true
	}
	parts := livePartitions(s)
	for _, p := range parts {
		known[p] = true
	}
	for _, w := range a.words {
		text := w.Text
		if w.IsPair {
			text = w.Value
		}
		if text == "" || known[text] {
			continue
		}
		if tp, err := topic.Parse(text); err == nil && known[tp.Topic] {
			n := 0
			for _, p := range parts {
				if q, err := topic.Parse(p); err == nil && q.Topic == tp.Topic {
					n++
				}
			}
			if n == 1 {
				return fmt.Sprintf("did you mean %s-0? %s has one partition", tp.Topic, tp.Topic)
			}
			return fmt.Sprintf("did you mean %s-%d? %s has partitions %s-0 to %s-%d", tp.Topic, min(int(tp.Partition), n-1), tp.Topic, tp.Topic, tp.Topic, n-1)
		}
		if c := closest(text, topics); c != "" {
			return fmt.Sprintf("did you mean %s? (`topic list` shows the topics)", c)
		}
		if tp, err := topic.Parse(text); err == nil {
			if c := closest(tp.Topic, topics); c != "" {
				return fmt.Sprintf("did you mean %s-%d? (`topic list` shows the topics)", c, tp.Partition)
			}
		}
	}
	return ""
}

// didYouMean is " (did you mean X?)" when a candidate is close to s.
func didYouMean(s string, candidates []string) string {
	if c := closest(s, candidates); c != "" {
		return fmt.Sprintf(" (did you mean %s?)", c)
	}
	return ""
}
