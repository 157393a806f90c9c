package explore

import (
	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/invariant"
)

// replayKey replays schedule from the start of a search of c with opt, one
// step after the other on a single restore (no snapshot of any state on
// the way), and returns the key of the state it reaches, the steps enabled
// there, and whether the property is broken there.
func replayKey(s *search, schedule []Op) (Key, []Op, bool, error) {
	c, err := engine.Restore(s.start)
	if err != nil {
		return Key{}, nil, false, err
	}
	c.TakeEvents()
	m := &invariant.Monitor{}
	if err := s.acknowledgeStart(c, m); err != nil {
		return Key{}, nil, false, err
	}
	if err := s.sawHW(c, m); err != nil {
		return Key{}, nil, false, err
	}
	faults, values := 0, 0
	for _, op := range schedule {
		if err := s.step(c, m, op); err != nil {
			return Key{}, nil, false, err
		}
		if op.fault() {
			faults++
		}
		if op.Kind == Produce {
			values++
		}
	}
	obs := invariant.Observe(c)
	return s.key(c, obs, m, faults, values), s.enabled(obs, faults, values), s.broken(m, obs) != nil, nil
}

// BruteForce counts the distinct states of every schedule of at most
// opt.Depth steps from c by replaying each one from the start: no
// snapshot of an intermediate state, no pruning of a state seen before.
// It returns the keys of the states reached.
func BruteForce(c *engine.Cluster, opt Options) (map[Key][]Op, error) {
	if err := opt.Normalize(); err != nil {
		return nil, err
	}
	s, err := newSearch(c, opt)
	if err != nil {
		return nil, err
	}
	seen := map[Key][]Op{}
	var walk func(schedule []Op) error
	walk = func(schedule []Op) error {
		k, enabled, _, err := replayKey(s, schedule)
		if err != nil {
			return nil // a step refused on the way: not a schedule
		}
		if _, ok := seen[k]; !ok {
			seen[k] = schedule
		}
		if len(schedule) == opt.Depth {
			return nil
		}
		for _, op := range enabled {
			if err := walk(append(schedule[:len(schedule):len(schedule)], op)); err != nil {
				return err
			}
		}
		return nil
	}
	return seen, walk(nil)
}

// KeyOf replays schedule from c's state and returns the key of the state
// it reaches.
func KeyOf(c *engine.Cluster, opt Options, schedule []Op) (Key, error) {
	if err := opt.Normalize(); err != nil {
		return Key{}, err
	}
	s, err := newSearch(c, opt)
	if err != nil {
		return Key{}, err
	}
	k, _, _, err := replayKey(s, schedule)
	return k, err
}
