package repl

import "testing"

// BenchmarkStartup measures the REPL's start path up to the first prompt:
// opening a session (and its cluster) and rendering the prompt, then closing
// it. The budget is 20 ms.
func BenchmarkStartup(b *testing.B) {
	for b.Loop() {
		s, err := NewSession(Options{})
		if err != nil {
			b.Fatal(err)
		}
		_ = s.Prompt()
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
