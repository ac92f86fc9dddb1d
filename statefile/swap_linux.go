//go:build linux

package statefile

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// exchangeCall names the exchange install uses here.
const exchangeCall = "renameat2 RENAME_EXCHANGE"

// linuxSwapRefusals are the errnos with which Linux refuses
// RENAME_EXCHANGE: EINVAL from a file system without it, ENOSYS from a
// kernel before 3.15 (or a sandbox that hides the call), EOPNOTSUPP.
var linuxSwapRefusals = []syscall.Errno{unix.EINVAL, unix.ENOSYS, unix.EOPNOTSUPP}

// swap exchanges tmp and path in one step (renameat2 RENAME_EXCHANGE):
// path then names our file and tmp the file it replaced, whoever wrote it
// last. Unlike a rename, nothing the file held before is lost without our
// seeing it. ok is false where the file system cannot exchange; the caller
// then renames.
func swap(tmp, path string) (ok bool, err error) {
	return swapOutcome(unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_EXCHANGE), linuxSwapRefusals)
}
