//go:build linux || openbsd || dragonfly || solaris || illumos || aix || android

package statefile

import (
	"io/fs"
	"syscall"
	"time"
)

// ctime is the file's status change time: a write that keeps the size and
// lands within the modification time's resolution still moves it. (The
// field is Ctim here, Ctimespec on the BSDs and macOS: ctime_bsd.go.)
func ctime(fi fs.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec)) //nolint:unconvert // int32 on some platforms
	}
	return time.Time{}
}
