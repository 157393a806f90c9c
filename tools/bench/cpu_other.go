//go:build !unix

package bench

import "time"

// processCPU reports false: the process's CPU time is read with
// getrusage(2), which this system does not have.
func processCPU() (time.Duration, bool) { return 0, false }
