// Package lazyre holds regular expressions that are compiled at their first
// use rather than when the program starts, so that a package-level pattern
// costs nothing to a command that never matches it (`minikafka version`
// links every package and runs every package's initialisation).
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr on its first call and returns
// the same *regexp.Regexp on every call; it is safe for concurrent use.
// Like regexp.MustCompile it panics if expr does not compile, at the first
// call instead of at start-up, so each pattern needs a test that uses it.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
