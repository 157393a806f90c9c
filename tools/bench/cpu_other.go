//go:build !unix

package bench

import "time"

// ProcessCPU reports false: the process's CPU time is read with
// getrusage(2), which this system does not have.
func ProcessCPU() (time.Duration, bool) { return 0, false }
