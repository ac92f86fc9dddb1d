//go:build unix

package fleet

import "syscall"

// openFilesLimit is the soft RLIMIT_NOFILE the process has now: Go raises
// it to the hard limit at start-up (on macOS to kern.maxfilesperproc at
// most), so it is rarely the shell's 256 or 1024.
func openFilesLimit() uint64 {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0
	}
	return uint64(lim.Cur)
}
