//go:build unix

package bench

import (
	"syscall"
	"time"
)

// ProcessCPU is the CPU time the process used so far, user and system,
// every thread (the garbage collector's work counts), and true.
func ProcessCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
