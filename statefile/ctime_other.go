//go:build !(linux || openbsd || dragonfly || solaris || illumos || aix || android || darwin || ios || freebsd || netbsd)

package statefile

import (
	"io/fs"
	"time"
)

// ctime is unknown here (Windows, Plan 9, wasm): the zero time, so only
// size, modification time and inode tell versions apart.
func ctime(fs.FileInfo) time.Time { return time.Time{} }
