//go:build darwin || ios || freebsd || netbsd

package statefile

import (
	"io/fs"
	"syscall"
	"time"
)

// ctime is the file's status change time (see ctime_ctim.go); macOS and
// the BSDs name the field Ctimespec.
func ctime(fi fs.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(int64(st.Ctimespec.Sec), int64(st.Ctimespec.Nsec)) //nolint:unconvert // int32 on some platforms
	}
	return time.Time{}
}
