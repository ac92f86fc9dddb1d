//go:build unix

package statefile

import (
	"io/fs"
	"syscall"
	"time"
)

// inode identifies the file behind a name, so a replace by rename is seen
// even when size and mtime happen to match.
func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// ctime is the file's status change time: a write that keeps the size and
// lands within the modification time's resolution still moves it.
func ctime(fi fs.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec)) //nolint:unconvert // int32 on some platforms
	}
	return time.Time{}
}
