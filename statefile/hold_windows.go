//go:build windows

package statefile

import (
	"syscall"

	"golang.org/x/sys/windows"
)

// holdsReplaced is false: Windows' MoveFileEx (what os.Rename does) does
// not replace a file that any handle holds open, whatever its sharing mode
// (FILE_SHARE_DELETE included), so install cannot keep the file its rename
// replaces open to look at it afterwards. A loop write that lands between the last check and the
// rename is lost there (README, "How writing stays safe").
var holdsReplaced = false

// replaceTransient are the errors with which Windows refuses to replace a
// file another program holds open (Python opens files without
// FILE_SHARE_DELETE). install retries them (retryPause) and checks the
// file again before each try. ERROR_ACCESS_DENIED is also what a lasting
// denial (an ACL) answers: after the retries the message says both.
var replaceTransient = []syscall.Errno{windows.ERROR_ACCESS_DENIED, windows.ERROR_SHARING_VIOLATION, windows.ERROR_LOCK_VIOLATION}
