package repl

import (
	"sort"
	"strings"
)

// Complete returns the completions of the last word of line (the text left
// of the cursor): the partial word being completed and every candidate that
// could replace it. Candidates that finish a word end with a space; key
// names end with '=' so that the value can be completed next.
//
// It completes command names, subcommands, key names, flags, fixed values
// (acks=all) and live names from the cluster: topics, partitions such as
// orders-0, broker ids, producers, consumers, groups and transaction ids.
// While the session serves JSON/TCP, live names are read on the server's
// goroutine, like every command.
func (s *Session) Complete(line string) (prefix string, candidates []string) {
	if s.stepping != nil { // lab step runs: complete for the lab's cluster
		return s.stepping.Complete(line)
	}
	_ = s.owned(func() error {
		prefix, candidates = s.complete(line)
		return nil
	})
	return prefix, candidates
}

func (s *Session) complete(line string) (prefix string, candidates []string) {
	words, err := Split(line)
	if err != nil {
		return "", nil // inside an open quote: nothing sensible to offer
	}
	if line != "" && !isBlank(line[len(line)-1]) {
		if len(words) == 0 {
			return "", nil // a comment
		}
		last := words[len(words)-1]
		if last.Quoted {
			return "", nil
		}
		prefix = last.Text
		words = words[:len(words)-1]
	}
	return prefix, filterPrefix(s.candidates(words, prefix), prefix)
}

// candidates lists what may follow the complete words done.
func (s *Session) candidates(done []Word, prefix string) []string {
	if len(done) == 0 {
		var out []string
		for _, c := range s.reg.Commands() {
			out = append(out, c.Name+" ")
		}
		return out
	}
	c := s.reg.Lookup(done[0].Text)
	if c == nil {
		return nil
	}
	if c == helpCommand {
		if len(done) == 1 {
			return append(s.candidates(nil, prefix), withSpace(append(conceptNames(), "concepts"))...)
		}
		if v := s.reg.Lookup(done[1].Text); v != nil && len(done) == 2 {
			return withSpace(v.subNames())
		}
		return nil
	}
	cmd, rest := c, done[1:]
	if len(c.Sub) > 0 {
		if len(rest) > 0 && c.sub(rest[0].Text) != nil {
			cmd, rest = c.sub(rest[0].Text), rest[1:]
		} else if len(rest) == 0 {
			out := withSpace(c.subNames())
			if c.Run != nil {
				out = append(out, s.argCandidates(c, nil, prefix)...)
			}
			return out
		} else if c.Run == nil {
			return nil
		}
	}
	return s.argCandidates(cmd, rest, prefix)
}

// argCandidates lists the arguments cmd may take after the words done.
func (s *Session) argCandidates(cmd *Command, done []Word, prefix string) []string {
	if i := strings.IndexByte(prefix, '='); i > 0 {
		p := cmd.key(prefix[:i])
		if p == nil || p.Values == nil {
			return nil
		}
		var out []string
		for _, v := range p.Values(s) {
			out = append(out, prefix[:i+1]+v+" ")
		}
		return out
	}
	used := map[string]bool{}
	npos := 0
	for _, w := range done {
		switch {
		case w.IsPair:
			used[w.Key] = true
		case !w.Quoted && cmd.flag(w.Text) != nil:
			used[w.Text] = true
		default:
			npos++
		}
	}
	var out []string
	if n := len(cmd.Positional); n > 0 {
		i := min(npos, n-1)
		p := cmd.Positional[i]
		if (npos < n || p.Rest) && p.Values != nil {
			out = append(out, withSpace(p.Values(s))...)
		}
		if npos < n && !p.Optional {
			return out // a required argument comes first
		}
	}
	for _, k := range cmd.Keys {
		if !used[k.Name] {
			out = append(out, k.Name+"=")
		}
	}
	for _, f := range cmd.Flags {
		if !used[f.Name] {
			out = append(out, f.Name+" ")
		}
	}
	return out
}

func withSpace(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = Quote(n) + " "
	}
	return out
}

func filterPrefix(cands []string, prefix string) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range cands {
		if strings.HasPrefix(c, prefix) && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// choices returns a completion source with fixed values.
func choices(vals ...string) func(*Session) []string {
	return func(*Session) []string { return vals }
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
