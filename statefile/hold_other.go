//go:build !windows

package statefile

import "syscall"

// holdsReplaced is true: install opens the file a rename will replace just
// before the rename and reads it afterwards, so that a loop write that
// landed in it is put back (see hold_windows.go for where it cannot).
// Tests set it false to run the Windows path here.
var holdsReplaced = true

// replaceTransient is empty: a rename here is not refused because another
// program holds the file open (see hold_windows.go). Tests fill it to run
// the Windows retries here.
var replaceTransient []syscall.Errno
