//go:build unix

package ui

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used (user and system), for
// benchmarks that report what a step costs apart from the time it waited
// for a processor on a busy machine.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
