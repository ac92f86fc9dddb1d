//go:build unix

package statefile

import (
	"io/fs"
	"syscall"
)

// inode identifies the file behind a name, so a replace by rename is seen
// even when size and mtime happen to match.
func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino) //nolint:unconvert // uint32 on some platforms
	}
	return 0
}
