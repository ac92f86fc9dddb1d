//go:build windows

package fleet

import (
	"time"

	"golang.org/x/sys/windows"
)

// cpuTime is the process's CPU time so far, user and kernel.
func cpuTime() time.Duration {
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &created, &exited, &kernel, &user); err != nil {
		return 0
	}
	return ticks(kernel) + ticks(user)
}

// ticks is a FILETIME duration: 100 ns units.
func ticks(f windows.Filetime) time.Duration {
	return time.Duration(uint64(f.HighDateTime)<<32|uint64(f.LowDateTime)) * 100
}
